/* allreduce_reduce_bcast.c - allreduce as a reduce to rank 0 (tag 0)
 * followed by a bcast from rank 0 (tag 1), each with the algorithm the
 * selection names for reduce and bcast (by default the binomial trees:
 * 2(p-1) messages of n bytes).  Same structure as SMPI's allreduce
 * redbcast, which calls SMPI's selected reduce and bcast. */
#include "coll_internal.h"

int llamp_coll_allreduce_reduce_bcast(llamp_coll_ctx_t *c) {
  const uint64_t n = c->a->bytes;
  COLL_TRY(llamp_coll_part(c, llamp_coll_part_algo(c, LLAMP_COLL_REDUCE), 0, n, NULL, 0));
  return llamp_coll_part(c, llamp_coll_part_algo(c, LLAMP_COLL_BCAST), 0, n, NULL, 1);
}
