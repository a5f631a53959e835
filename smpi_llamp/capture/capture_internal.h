/* capture_internal.h - what the runtime's files share and nobody else needs. */
#ifndef LLAMP_CAPTURE_INTERNAL_H
#define LLAMP_CAPTURE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <simgrid/forward.h>

/* Local-only MPI calls counted by all ranks so far (name, count), for
 * report.json; valid until the next call. */
size_t llamp_capture_session_locals(const char ***names, const uint64_t **counts);

/* Each rank's SimGrid host (index = world rank), valid until the session
 * ends; returns the number of ranks (0 before MPI_Init). */
size_t llamp_capture_session_hosts(sg_host_t const **hosts);

#endif
