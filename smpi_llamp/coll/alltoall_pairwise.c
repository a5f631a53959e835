/* alltoall_pairwise.c - pairwise exchange alltoall and alltoallv (MPICH
 * MPIR_Alltoall(v)_intra_pairwise).
 *
 * Step i = 1 .. p-1, one sendrecv each (tag 0): for a power-of-two p, send
 * to and receive from r ^ i; otherwise send to (r + i) mod p and receive
 * from (r - i) mod p.  p(p-1) messages, depth p - 1.  Same structure as
 * SMPI's alltoallv ring (any size), alltoall/alltoallv pair (powers of two
 * only) and alltoall ring (non-powers of two); the SMPI versions add a step
 * i = 0 that sends to the rank itself. */
#include "coll_internal.h"

int llamp_coll_alltoall_pairwise(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const int xor_ok = coll_is_pof2(p);
  for (int i = 1; i < p; i++) {
    int dst = xor_ok ? (r ^ i) : (r + i) % p;
    int src = xor_ok ? (r ^ i) : coll_mod(r - i, p);
    COLL_TRY(coll_sendrecv(c, dst, coll_count(c, dst), src, coll_rcount(c, src), 0));
  }
  return 0;
}
