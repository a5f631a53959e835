/* reduce_linear_nb.c - SMPI's nonblocking linear reduction (colls::ireduce),
 * which is also what SMPI's default reduce runs for commutative operations
 * on basic datatypes.
 *
 * Every non-root sends its vector to the root (one blocking send; tag 0).
 * The root posts the p-1 receives in one round (rank order), then reduces
 * the p-1 received vectors ((p-1) n bytes, one calc).  p - 1 messages of n
 * bytes, depth 1.
 *
 * SMPI's default reduce (reduce__default) runs Open MPI's basic linear
 * reduce instead for a non-commutative operation or a derived datatype;
 * the blocking default here does the same (args flags), the nonblocking
 * one (MPI_Ireduce, one round in SMPI whatever the operation) does not. */
#include "coll_internal.h"

int llamp_coll_reduce_linear_nb_root(llamp_coll_ctx_t *c, int root, int tag) {
  const int p = c->p, r = c->r;
  const uint64_t n = c->a->bytes;
  if (r != root) return coll_isend_r(c, root, n, tag); /* an ireduce's isend_init */
  for (int i = 0; i < p; i++)
    if (i != root) COLL_TRY(coll_recv(c, i, n, tag));
  COLL_TRY(coll_end_round(c));
  return coll_calc(c, (uint64_t)(p - 1) * n);
}

int llamp_coll_reduce_default_root(llamp_coll_ctx_t *c, int root, int tag) {
  if (c->a->flags & (LLAMP_COLL_F_NONCOMMUTATIVE | LLAMP_COLL_F_DERIVED))
    return llamp_coll_reduce_linear_root(c, root, tag);
  return llamp_coll_reduce_linear_nb_root(c, root, tag);
}

int llamp_coll_reduce_linear_nb(llamp_coll_ctx_t *c) {
  return llamp_coll_reduce_linear_nb_root(c, c->a->root, 0);
}

int llamp_coll_reduce_default(llamp_coll_ctx_t *c) {
  return llamp_coll_reduce_default_root(c, c->a->root, 0);
}
