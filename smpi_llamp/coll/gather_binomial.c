/* gather_binomial.c - binomial tree gather and gatherv (Open MPI's in-order
 * binomial tree, SMPI's gather ompi_binomial; MPICH's binomial gather has the
 * same messages).
 *
 * With v = (r - root) mod p, the subtree of v holds the blocks of the
 * virtual ranks [v, v + lowbit(v)) clipped to p (the root's: all).  For
 * m = 1, 2, 4, ... below lowbit(v), a blocking receive of child v + m's
 * subtree (if the child exists), smallest first; then a blocking send of the
 * whole subtree to the parent v - lowbit(v).  Tag 0.  p - 1 messages; a
 * block travels popcount(v) hops. */
#include "coll_internal.h"

/* Bytes of the blocks of virtual ranks [v, v + ext) clipped to p. */
uint64_t llamp_coll_subtree_bytes(const llamp_coll_ctx_t *c, int v, int ext) {
  const int p = c->p, root = c->a->root;
  int hi = (ext > p - v) ? p : v + ext;
  if (!c->a->counts) return (uint64_t)(hi - v) * c->a->bytes;
  uint64_t s = 0;
  for (int u = v; u < hi; u++) s += c->a->counts[(u + root) % p];
  return s;
}

int llamp_coll_gather_binomial(llamp_coll_ctx_t *c) {
  const int p = c->p, root = c->a->root;
  const int v = coll_mod(c->r - root, p);
  int mask;
  for (mask = 1; mask < p; mask *= 2) {
    if (v & mask) break;
    int child = v + mask;
    if (child < p)
      COLL_TRY(coll_recv_r(c, (child + root) % p, llamp_coll_subtree_bytes(c, child, mask), 0));
  }
  if (v != 0)
    COLL_TRY(coll_send_r(c, coll_mod(v - mask + root, p), llamp_coll_subtree_bytes(c, v, mask), 0));
  return 0;
}
