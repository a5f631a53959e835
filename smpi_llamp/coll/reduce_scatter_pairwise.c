/* reduce_scatter_pairwise.c - pairwise exchange reduce-scatter (MPICH
 * MPIR_Reduce_scatter_intra_pairwise; SMPI's reduce_scatter mpich_pair).
 *
 * Steps i = 1 .. p-1, one sendrecv each (tag 0): send block (r + i) mod p
 * of the input to r + i, receive this rank's block from r - i, reduce it.
 * p(p-1) messages, (p-1) N bytes, depth p - 1.  Nothing at all when every
 * block is empty (SMPI returns MPI_ERR_COUNT without communicating). */
#include "coll_internal.h"

int llamp_coll_reduce_scatter_pairwise(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  if (coll_count_sum(c, 0, p) == 0) return 0;
  for (int i = 1; i < p; i++) {
    int dst = (r + i) % p, src = coll_mod(r - i, p);
    COLL_TRY(coll_sendrecv(c, dst, coll_count(c, dst), src, coll_count(c, r), 0));
    COLL_TRY(coll_calc(c, coll_count(c, r)));
  }
  return 0;
}
