/* allreduce_recursive_doubling.c - recursive doubling allreduce
 * (MPICH MPIR_Allreduce_intra_recursive_doubling).
 *
 * q = the largest power of two <= p, rem = p - q.  Fold in (tag 0): among
 * the first 2*rem ranks, each even rank sends its vector to r + 1, which
 * reduces it; the even ranks then wait.  The q remaining ranks (new rank
 * r/2 for the odd ones, r - rem above 2*rem) exchange the whole vector with
 * new rank ^ 2^k for k = 0 .. log2(q)-1 (sendrecv, tag 1) and reduce after
 * each exchange.  Fold out (tag 2): the odd ranks send the result to r - 1.
 * q*log2(q) + 2*rem messages of n bytes.  Same structure as SMPI's
 * allreduce rdb. */
#include "coll_internal.h"

int llamp_coll_allreduce_recursive_doubling(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const uint64_t n = c->a->bytes;
  const int q = coll_pof2_floor(p), rem = p - q;
  int newrank;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      COLL_TRY(coll_send_r(c, r + 1, n, 0));
      newrank = -1;
    } else {
      COLL_TRY(coll_recv_r(c, r - 1, n, 0));
      COLL_TRY(coll_calc(c, n));
      newrank = r / 2;
    }
  } else {
    newrank = r - rem;
  }
  if (newrank >= 0) {
    for (int mask = 1; mask < q; mask *= 2) {
      int nd = newrank ^ mask;
      int dst = nd < rem ? nd * 2 + 1 : nd + rem;
      COLL_TRY(coll_sendrecv(c, dst, n, dst, n, 1));
      COLL_TRY(coll_calc(c, n));
    }
  }
  if (r < 2 * rem) {
    if (r % 2)
      COLL_TRY(coll_send_r(c, r - 1, n, 2));
    else
      COLL_TRY(coll_recv_r(c, r + 1, n, 2));
  }
  return 0;
}
