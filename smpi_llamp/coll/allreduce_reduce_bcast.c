/* allreduce_reduce_bcast.c - allreduce as a binomial reduce to rank 0 (tag 0)
 * followed by a binomial broadcast from rank 0 (tag 1).  2(p-1) messages of
 * n bytes.  Same structure as SMPI's allreduce redbcast when SMPI's reduce
 * and bcast are binomial and binomial_tree (redbcast calls whatever reduce
 * and bcast are selected). */
#include "coll_internal.h"

int llamp_coll_allreduce_reduce_bcast(llamp_coll_ctx_t *c) {
  COLL_TRY(llamp_coll_reduce_binomial_root(c, 0, 0));
  return llamp_coll_bcast_binomial_root(c, 0, 1);
}
