/* scan_direct.c - direct scan and exscan, SMPI's built-in MPI_Scan and
 * MPI_Exscan (SimGrid has no setting for them).
 *
 * One round: receive every lower rank's vector and send this rank's to
 * every higher rank (tag 0); then reduce the received vectors (scan: r of
 * them, exscan: r - 1, the first being copied).  p(p-1)/2 messages of n
 * bytes, depth 1. */
#include "coll_internal.h"

int llamp_coll_scan_direct(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const uint64_t n = c->a->bytes;
  for (int i = 0; i < r; i++) COLL_TRY(coll_recv(c, i, n, 0));
  for (int i = r + 1; i < p; i++) COLL_TRY(coll_send(c, i, n, 0));
  COLL_TRY(coll_end_round(c));
  uint64_t k = coll_exclusive(c) ? (r > 1 ? (uint64_t)(r - 1) : 0) : (uint64_t)r;
  return coll_calc(c, k * n);
}
