/* barrier_linear_nb.c - SMPI 3.32's MPI_Ibarrier (colls::ibarrier).
 *
 * One round on every rank: a rank r > 0 sends 0 bytes to rank 0 and
 * receives 0 bytes from it; rank 0 posts, for each other rank i, a receive
 * (from any source in SMPI: here from i, which takes the same time since all
 * of them complete together) and a send to i.  Tag 0.  2(p-1) messages,
 * depth 1.  Rank 0 sends the releases when it enters, without waiting for
 * the others: in SMPI an MPI_Ibarrier + MPI_Wait does not synchronise the
 * ranks (each waits for rank 0 only), and this expansion reproduces that. */
#include "coll_internal.h"

int llamp_coll_barrier_linear_nb(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  if (r > 0) {
    COLL_TRY(coll_send(c, 0, 0, 0));
    COLL_TRY(coll_recv(c, 0, 0, 0));
    return coll_end_round(c);
  }
  for (int i = 1; i < p; i++) {
    COLL_TRY(coll_recv(c, i, 0, 0));
    COLL_TRY(coll_send(c, i, 0, 0));
  }
  return coll_end_round(c);
}
