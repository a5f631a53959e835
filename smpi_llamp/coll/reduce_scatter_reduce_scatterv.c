/* reduce_scatter_reduce_scatterv.c - SMPI 3.32's default reduce_scatter
 * (reduce_scatter__default), for MPI_Reduce_scatter and
 * MPI_Reduce_scatter_block.
 *
 * Equal blocks: SMPI's default reduce of the whole vector (N bytes) to rank
 * 0, i.e. the nonblocking linear reduction (Open MPI's basic linear one for
 * a non-commutative operation or a derived datatype; tag 0), then its MPI_Scatterv
 * from rank 0 (one round of sends, tag 1).  Unequal blocks: SMPI's mpich
 * selector, i.e. the pairwise exchange above 524288 elements in all, else
 * recursive doubling (commutative operations). */
#include "coll_internal.h"

int llamp_coll_reduce_scatter_reduce_scatterv(llamp_coll_ctx_t *c) {
  const int p = c->p;
  int regular = 1;
  for (int i = 1; i < p && regular; i++) regular = coll_count(c, i) == coll_count(c, 0);
  const uint64_t total = coll_count_sum(c, 0, p);
  if (!regular) {
    const uint64_t elem = c->a->elem && total % c->a->elem == 0 ? c->a->elem : 1;
    return total / elem > 524288 ? llamp_coll_reduce_scatter_pairwise(c)
                                 : llamp_coll_reduce_scatter_recursive_doubling(c);
  }
  const llamp_coll_args_t *a = c->a;
  llamp_coll_args_t red = *a;
  red.root = 0;
  red.bytes = total;
  red.counts = NULL;
  c->a = &red;
  int rc = llamp_coll_reduce_default_root(c, 0, 0);
  c->a = a;
  if (rc) return rc;
  /* the scatterv: rank 0 sends every other rank its block in one round */
  if (c->r != 0) return coll_recv_r(c, 0, coll_count(c, c->r), 1);
  for (int i = 1; i < p; i++) COLL_TRY(coll_send(c, i, coll_count(c, i), 1));
  return coll_end_round(c);
}
