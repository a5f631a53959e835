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

/* hosts[r] = rank r's host (P ranks); the table covers their distinct hosts. */
llamp_topo_t *llamp_topo_from_simgrid(const sg_host_t *hosts, uint32_t P, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
