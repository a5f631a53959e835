/* allreduce_linear_nb.c - SMPI 3.32's MPI_Iallreduce (colls::iallreduce).
 *
 * One round: for every other rank i in rank order, send the vector to i and
 * receive i's vector (tag 0); then reduce the p-1 received vectors
 * ((p-1) n bytes, one calc).  p(p-1) messages of n bytes, depth 1. */
#include "coll_internal.h"

int llamp_coll_allreduce_linear_nb(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const uint64_t n = c->a->bytes;
  for (int i = 0; i < p; i++) {
    if (i == r) continue;
    COLL_TRY(coll_send(c, i, n, 0));
    COLL_TRY(coll_recv(c, i, n, 0));
  }
  COLL_TRY(coll_end_round(c));
  return coll_calc(c, (uint64_t)(p - 1) * n);
}
