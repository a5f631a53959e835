/* scatter_binomial.c - binomial tree scatter and scatterv (Open MPI's in-order
 * binomial tree, SMPI's scatter ompi_binomial).
 *
 * The mirror image of the binomial gather: with v = (r - root) mod p, a
 * non-root receives its subtree's blocks from v - lowbit(v), then every rank
 * sends each child v + m (m = 1, 2, 4, ... below lowbit(v)) the child's
 * subtree, smallest subtree first as Open MPI does (MPICH sends the largest
 * first), one blocking send per round.  Tag 0.  p - 1 messages. */
#include "coll_internal.h"

int llamp_coll_scatter_binomial(llamp_coll_ctx_t *c) {
  const int p = c->p, root = c->a->root;
  const int v = coll_mod(c->r - root, p);
  int top = 1; /* lowbit(v), or the first power of two >= p for the root */
  while (top < p && !(v & top)) top *= 2;
  if (v != 0)
    COLL_TRY(coll_recv_r(c, coll_mod(v - top + root, p), llamp_coll_subtree_bytes(c, v, top), 0));
  for (int mask = 1; mask < top; mask *= 2) {
    int child = v + mask;
    if (child < p)
      COLL_TRY(coll_send_r(c, (child + root) % p, llamp_coll_subtree_bytes(c, child, mask), 0));
  }
  return 0;
}
