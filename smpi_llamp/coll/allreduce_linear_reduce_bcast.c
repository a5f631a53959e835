/* allreduce_linear_reduce_bcast.c - SMPI 3.32's default allreduce
 * (allreduce__default): its default reduce to rank 0, i.e. the nonblocking
 * linear reduction (Open MPI's basic linear one for a non-commutative
 * operation; tag 0), then its default bcast from rank 0, the binomial tree
 * (tag 1).  Fixed parts: SMPI's default allreduce calls reduce__default
 * and bcast__default whatever smpi/reduce and smpi/bcast say.  2(p-1)
 * messages of n bytes, depth 1 + max popcount below p.  For a derived
 * datatype SMPI runs Open MPI's decision instead (allreduce_ompi.c). */
#include "coll_internal.h"

int llamp_coll_allreduce_linear_reduce_bcast(llamp_coll_ctx_t *c) {
  if (c->a->flags & LLAMP_COLL_F_DERIVED) return llamp_coll_allreduce_ompi(c);
  COLL_TRY(llamp_coll_reduce_default_root(c, 0, 0));
  return llamp_coll_bcast_binomial_root(c, 0, 1);
}
