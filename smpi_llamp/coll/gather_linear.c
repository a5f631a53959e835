/* gather_linear.c - linear gather and gatherv.
 *
 * Every non-root sends its block to the root (tag 0).  gather: the root
 * receives the blocks one blocking receive at a time in rank order (Open
 * MPI basic_linear, SMPI's gather ompi_basic_linear).  gatherv: the root
 * posts all receives in one round (MPICH's linear gatherv and SMPI's
 * built-in MPI_Gatherv).  p - 1 messages, depth 1. */
#include "coll_internal.h"

static int gather_linear(llamp_coll_ctx_t *c, int one_round) {
  const int p = c->p, r = c->r, root = c->a->root;
  /* basic_linear: Request::send; gatherv and SMPI's default gather: an
   * igather(v)'s isend_init */
  if (r != root)
    return one_round ? coll_isend_r(c, root, coll_count(c, r), 0) : coll_send_r(c, root, coll_count(c, r), 0);
  for (int i = 0; i < p; i++) {
    if (i == root) continue;
    COLL_TRY(coll_recv(c, i, coll_count(c, i), 0));
    if (!one_round) COLL_TRY(coll_end_round(c));
  }
  return coll_end_round(c);
}

int llamp_coll_gather_linear(llamp_coll_ctx_t *c) { return gather_linear(c, 0); }
int llamp_coll_gatherv_linear(llamp_coll_ctx_t *c) { return gather_linear(c, 1); }
