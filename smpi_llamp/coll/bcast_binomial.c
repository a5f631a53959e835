/* bcast_binomial.c - binomial tree broadcast (MPICH MPIR_Bcast_intra_binomial).
 *
 * With v = (r - root) mod p, a non-root receives the whole vector from
 * v - lowbit(v) (blocking), then every rank sends it to v + m for the
 * powers of two m < lowbit(v) (all m for the root), largest subtree first,
 * one blocking send per round.  p - 1 messages of n bytes, depth = the
 * largest popcount below p.  Same structure as SMPI's bcast binomial_tree. */
#include "coll_internal.h"

int llamp_coll_bcast_binomial_root(llamp_coll_ctx_t *c, int root, int tag) {
  const int p = c->p, r = c->r;
  const uint64_t n = c->a->bytes;
  const int v = coll_mod(r - root, p);
  int mask = 1;
  while (mask < p) {
    if (v & mask) {
      COLL_TRY(coll_recv_r(c, coll_mod(r - mask, p), n, tag));
      break;
    }
    mask *= 2;
  }
  for (mask /= 2; mask > 0; mask /= 2)
    if (v + mask < p) COLL_TRY(coll_send_r(c, (r + mask) % p, n, tag));
  return 0;
}

int llamp_coll_bcast_binomial(llamp_coll_ctx_t *c) {
  return llamp_coll_bcast_binomial_root(c, c->a->root, 0);
}
