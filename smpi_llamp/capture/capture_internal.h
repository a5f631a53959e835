/* capture_internal.h - what the runtime's files share and nobody else needs. */
#ifndef LLAMP_CAPTURE_INTERNAL_H
#define LLAMP_CAPTURE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Local-only MPI calls counted by all ranks so far (name, count), for
 * report.json; valid until the next call. */
size_t llamp_capture_session_locals(const char ***names, const uint64_t **counts);

#endif
