/* bcast_linear.c - flat tree broadcast: the root sends the vector to every
 * other rank in one round of nonblocking sends (ranks in increasing order);
 * the others receive it.  p - 1 messages of n bytes, depth 1.  Tag 0.
 * Same structure as SMPI's bcast flattree. */
#include "coll_internal.h"

int llamp_coll_bcast_linear(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r, root = c->a->root;
  const uint64_t n = c->a->bytes;
  if (r != root) return coll_recv_r(c, root, n, 0);
  for (int i = 0; i < p; i++)
    if (i != root) COLL_TRY(coll_send(c, i, n, 0));
  return coll_end_round(c);
}
