/* scatter_linear.c - linear scatter and scatterv.
 *
 * The root sends each rank its block (tag 0), every other rank receives one.
 * scatter: one blocking send at a time in rank order (Open MPI basic_linear,
 * SMPI's scatter ompi_basic_linear).  scatterv: all sends in one round
 * (MPICH's linear scatterv and SMPI's built-in MPI_Scatterv).  p - 1
 * messages, depth 1. */
#include "coll_internal.h"

static int scatter_linear(llamp_coll_ctx_t *c, int one_round) {
  const int p = c->p, r = c->r, root = c->a->root;
  if (r != root) return coll_recv_r(c, root, coll_count(c, r), 0);
  for (int i = 0; i < p; i++) {
    if (i == root) continue;
    if (one_round) /* an iscatterv's isend_init */
      COLL_TRY(coll_send(c, i, coll_count(c, i), 0));
    else /* basic_linear's Request::send */
      COLL_TRY(coll_send_r(c, i, coll_count(c, i), 0));
  }
  return coll_end_round(c);
}

int llamp_coll_scatter_linear(llamp_coll_ctx_t *c) { return scatter_linear(c, 0); }
int llamp_coll_scatterv_linear(llamp_coll_ctx_t *c) { return scatter_linear(c, 1); }
