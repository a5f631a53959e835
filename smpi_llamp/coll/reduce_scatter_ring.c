/* reduce_scatter_ring.c - ring reduce-scatter and reduce_scatter_block (Open
 * MPI coll_base_reduce_scatter_intra_ring; SMPI's reduce_scatter ompi_ring).
 *
 * Step k = 1 .. p-1 (tag 0): send the partial block (r - k) mod p to r + 1
 * and receive block (r - k - 1) mod p from r - 1 (one sendrecv), then reduce
 * it into the local partial.  After step p-1 rank r holds block r reduced.
 * p(p-1) messages, (p-1) * (sum of the blocks) bytes in all, depth p - 1.
 * Open MPI posts the next receive before reducing the current block (double
 * buffering); here each step's receive is posted with its send. */
#include "coll_internal.h"

int llamp_coll_reduce_scatter_ring(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const int right = (r + 1) % p, left = coll_mod(r - 1, p);
  for (int k = 1; k < p; k++) {
    uint64_t rb = coll_count(c, coll_mod(r - k - 1, p));
    COLL_TRY(coll_sendrecv(c, right, coll_count(c, coll_mod(r - k, p)), left, rb, 0));
    COLL_TRY(coll_calc(c, rb));
  }
  return 0;
}
