/* allgather_linear_nb.c - SMPI 3.32's MPI_Iallgather and MPI_Iallgatherv
 * (colls::iallgather(v)), which are also its default MPI_Allgather and
 * MPI_Allgatherv.
 *
 * One round: for every other rank i in rank order, send this rank's block
 * to i and receive i's block (tag 0).  p(p-1) messages, (p-1) N bytes in
 * all, depth 1. */
#include "coll_internal.h"

int llamp_coll_allgather_linear_nb(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  for (int i = 0; i < p; i++) {
    if (i == r) continue;
    COLL_TRY(coll_send(c, i, coll_count(c, r), 0));
    COLL_TRY(coll_recv(c, i, coll_count(c, i), 0));
  }
  return coll_end_round(c);
}
