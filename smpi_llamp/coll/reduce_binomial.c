/* reduce_binomial.c - binomial tree reduction (MPICH MPIR_Reduce_intra_binomial,
 * commutative operations).
 *
 * With v = (r - root) mod p, for m = 1, 2, 4, ...: while bit m of v is clear,
 * receive the partial result of v | m (if that rank exists) and reduce it
 * (n bytes); at the first set bit send the partial result to v & ~m and stop.
 * p - 1 messages of n bytes, p - 1 reductions.  Tag 0.  Same structure as
 * SMPI's reduce binomial. */
#include "coll_internal.h"

int llamp_coll_reduce_binomial_root(llamp_coll_ctx_t *c, int root, int tag) {
  const int p = c->p;
  const uint64_t n = c->a->bytes;
  const int v = coll_mod(c->r - root, p);
  for (int mask = 1; mask < p; mask *= 2) {
    if ((v & mask) == 0) {
      int src = v | mask;
      if (src < p) {
        COLL_TRY(coll_recv_r(c, (src + root) % p, n, tag));
        COLL_TRY(coll_calc(c, n));
      }
    } else {
      return coll_send_r(c, ((v & ~mask) + root) % p, n, tag);
    }
  }
  return 0;
}

int llamp_coll_reduce_binomial(llamp_coll_ctx_t *c) {
  return llamp_coll_reduce_binomial_root(c, c->a->root, 0);
}
