/* llamp_topo_sg.h - a routes table (llamp_topo.h) read from SimGrid's
 * platform: every route between the hosts of the ranks, with its links'
 * latencies, bandwidths and sharing (libllamp_topo_sg, links libsimgrid).
 * Call it once the platform is loaded (the capture: at the last
 * MPI_Finalize; tools: after simgrid_load_platform).  NULL with a message. */
#ifndef LLAMP_TOPO_SG_H
#define LLAMP_TOPO_SG_H

#include <simgrid/forward.h>

#include "llamp_topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 0 when SimGrid cannot route from a to b (two hosts of a zone without
 * routing): such pairs are left out of the tables (topo_sg_zone.cpp). */
int llamp_topo_sg_routable(sg_host_t a, sg_host_t b);
/* hosts[r] = rank r's host (P ranks); the table covers their distinct hosts. */
llamp_topo_t *llamp_topo_from_simgrid(const sg_host_t *hosts, uint32_t P, char *err, size_t errlen);
/* A subset table (llamp_topo_is_subset): only the routes between the hosts
 * of the n rank pairs given (rank_pairs[k] = a << 32 | b, any order,
 * repeats allowed) and every such host's route to itself.  Linear in the
 * pairs, where the full table is quadratic in the hosts. */
llamp_topo_t *llamp_topo_from_simgrid_pairs(const sg_host_t *hosts, uint32_t P, const uint64_t *rank_pairs,
                                            size_t n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
