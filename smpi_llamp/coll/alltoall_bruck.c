/* alltoall_bruck.c - Bruck's alltoall (MPICH MPIR_Alltoall_intra_brucks).
 *
 * After a local rotation, step k (2^k < p, tag 0): send to (r + 2^k) mod p
 * and receive from (r - 2^k) mod p, as one sendrecv, the blocks whose index
 * b in 1..p-1 has bit k set: (that number) * n bytes; a final local rotation
 * puts the blocks in place (no messages).  ceil(log2 p) steps of p messages.
 * Same structure as SMPI's alltoall bruck (whose rotations are
 * self-messages, not emitted here). */
#include "coll_internal.h"

/* How many b in [0, p) have the bit `bit` (a power of two) set. */
static uint64_t bruck_blocks(int p, int bit) {
  uint64_t period = 2 * (uint64_t)bit, up = (uint64_t)p;
  uint64_t full = (up / period) * (uint64_t)bit, part = up % period;
  return full + (part > (uint64_t)bit ? part - (uint64_t)bit : 0);
}

int llamp_coll_alltoall_bruck(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  for (int bit = 1; bit < p; bit *= 2) {
    uint64_t bytes = bruck_blocks(p, bit) * c->a->bytes;
    COLL_TRY(coll_sendrecv(c, (r + bit) % p, bytes, coll_mod(r - bit, p), bytes, 0));
  }
  return 0;
}
