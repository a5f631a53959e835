/* allgather_ring.c - ring allgather and allgatherv (MPICH
 * MPIR_Allgather(v)_intra_ring without the >256 KiB pipelining).
 *
 * Step i = 0 .. p-2 (tag 0): send block (r - i) mod p to r + 1 and receive
 * block (r - i - 1) mod p from r - 1, as one sendrecv: each step forwards the
 * block received in the previous one.  p(p-1) messages, (p-1) * (sum of the
 * blocks) bytes in all, depth p - 1.  Same structure as SMPI's allgather
 * NTSLR and allgatherv mpich_ring; SMPI's allgather/allgatherv "ring" has the
 * same counts and depth but sends its own block to r + i directly. */
#include "coll_internal.h"

int llamp_coll_allgather_ring(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const int right = (r + 1) % p, left = coll_mod(r - 1, p);
  for (int i = 0; i < p - 1; i++)
    COLL_TRY(coll_sendrecv(c, right, coll_count(c, coll_mod(r - i, p)), left,
                           coll_count(c, coll_mod(r - i - 1, p)), 0));
  return 0;
}
