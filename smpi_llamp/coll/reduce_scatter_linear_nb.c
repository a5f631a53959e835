/* reduce_scatter_linear_nb.c - SMPI 3.32's MPI_Ireduce_scatter (and
 * MPI_Ireduce_scatter_block): colls::ireduce_scatter.
 *
 * One round: for every other rank i in rank order, send block i of the
 * input to i and receive i's contribution to this rank's block (tag 0);
 * then reduce the p-1 received blocks.  p(p-1) messages, (p-1) N bytes,
 * depth 1. */
#include "coll_internal.h"

int llamp_coll_reduce_scatter_linear_nb(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  for (int i = 0; i < p; i++) {
    if (i == r) continue;
    COLL_TRY(coll_send(c, i, coll_count(c, i), 0));
    COLL_TRY(coll_recv(c, i, coll_count(c, r), 0));
  }
  COLL_TRY(coll_end_round(c));
  return coll_calc(c, (uint64_t)(p - 1) * coll_count(c, r));
}
