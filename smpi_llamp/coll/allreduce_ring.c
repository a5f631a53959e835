/* allreduce_ring.c - ring allreduce: ring reduce-scatter then ring allgather
 * (MPICH MPIR_Allreduce_intra_ring; SMPI's allreduce lr).
 *
 * The vector is cut into p blocks at element boundaries, the first
 * (count mod p) blocks one element larger (count = n / elem).  Reduce-scatter,
 * steps i = 0 .. p-2 (tag 0): send block (r-1-i) mod p to r+1, receive block
 * (r-2-i) mod p from r-1 (one sendrecv), reduce it.  Rank r then holds block
 * r reduced.  Allgather, steps i = 0 .. p-2 (tag 1): send block (r-i) mod p
 * to r+1, receive block (r-1-i) mod p from r-1.  2p(p-1) messages,
 * 2(p-1)n bytes in all, depth 2(p-1). */
#include "coll_internal.h"

/* Bytes of block b when `count` elements are dealt to p blocks. */
static uint64_t ring_block(uint64_t count, uint64_t elem, int p, int b) {
  uint64_t q = count / (uint64_t)p, extra = count % (uint64_t)p;
  return (q + ((uint64_t)b < extra ? 1 : 0)) * elem;
}

int llamp_coll_allreduce_ring(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const uint64_t elem = coll_elem(c->a), count = c->a->bytes / elem;
  const int right = (r + 1) % p, left = coll_mod(r - 1, p);
  for (int i = 0; i < p - 1; i++) {
    int sb = coll_mod(r - 1 - i, p), rb = coll_mod(r - 2 - i, p);
    uint64_t rbytes = ring_block(count, elem, p, rb);
    COLL_TRY(coll_sendrecv(c, right, ring_block(count, elem, p, sb), left, rbytes, 0));
    COLL_TRY(coll_calc(c, rbytes));
  }
  for (int i = 0; i < p - 1; i++) {
    int sb = coll_mod(r - i, p), rb = coll_mod(r - 1 - i, p);
    COLL_TRY(coll_sendrecv(c, right, ring_block(count, elem, p, sb), left,
                           ring_block(count, elem, p, rb), 1));
  }
  return 0;
}
