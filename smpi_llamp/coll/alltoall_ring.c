/* alltoall_ring.c - SMPI's alltoall ring: steps i = 1 .. p-1, one sendrecv
 * each (tag 0), to (r + i) mod p and from (r - i) mod p, for every p (SMPI's
 * step i = 0 with the rank itself is a local copy).  p(p-1) messages, depth
 * p - 1.  The pairwise exchange differs only for powers of two (r ^ i). */
#include "coll_internal.h"

int llamp_coll_alltoall_ring(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  for (int i = 1; i < p; i++)
    COLL_TRY(coll_sendrecv(c, (r + i) % p, c->a->bytes, coll_mod(r - i, p), c->a->bytes, 0));
  return 0;
}
