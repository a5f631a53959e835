/* reduce_linear.c - flat tree reduction (Open MPI basic_linear).
 *
 * Every non-root sends its vector to the root.  The root takes the
 * contributions in the order p-1, p-2, ..., 0: a blocking receive for each
 * other rank, and a reduction (n bytes) for every contribution after the
 * first (its own included).  p - 1 messages of n bytes, depth 1.  Tag 0.
 * Same structure as SMPI's reduce flat_tree and ompi_basic_linear. */
#include "coll_internal.h"

int llamp_coll_reduce_linear_root(llamp_coll_ctx_t *c, int root, int tag) {
  const int p = c->p, r = c->r;
  const uint64_t n = c->a->bytes;
  if (r != root) return coll_send_r(c, root, n, tag);
  if (r != p - 1) COLL_TRY(coll_recv_r(c, p - 1, n, tag));
  for (int i = p - 2; i >= 0; i--) {
    if (i != r) COLL_TRY(coll_recv_r(c, i, n, tag));
    COLL_TRY(coll_calc(c, n));
  }
  return 0;
}

int llamp_coll_reduce_linear(llamp_coll_ctx_t *c) {
  return llamp_coll_reduce_linear_root(c, c->a->root, 0);
}
