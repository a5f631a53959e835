/* barrier_recursive_doubling.c - recursive doubling barrier, Open MPI fold.
 *
 * q = the largest power of two <= p.  Ranks r >= q fold in: they sendrecv 0
 * bytes with r - q (the send announces them, the receive waits for the
 * release); ranks r < p - q first receive that announcement.  The q low
 * ranks then exchange with r ^ 2^k for k = 0 .. log2(q)-1 (sendrecv), and
 * finally release r + q.  Tag 0 throughout.  Same structure as SMPI's
 * barrier ompi_recursivedoubling (coll_base_barrier_intra_recursivedoubling). */
#include "coll_internal.h"

int llamp_coll_barrier_recursive_doubling(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const int q = coll_pof2_floor(p);
  if (r >= q) return coll_sendrecv(c, r - q, 0, r - q, 0, 0);
  if (r < p - q) COLL_TRY(coll_recv_r(c, r + q, 0, 0));
  for (int mask = 1; mask < q; mask *= 2) COLL_TRY(coll_sendrecv(c, r ^ mask, 0, r ^ mask, 0, 0));
  if (r < p - q) COLL_TRY(coll_send_r(c, r + q, 0, 0));
  return 0;
}
