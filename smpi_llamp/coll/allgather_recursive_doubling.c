/* allgather_recursive_doubling.c - recursive doubling allgather and
 * allgatherv with the fold for non-powers of two.
 *
 * q = the largest power of two <= p, rem = p - q.  Fold in (tag 0): among
 * the first 2*rem ranks each even rank sends its block to r + 1.  New ranks
 * as in the recursive doubling allreduce (r/2 for those odd ranks, r - rem
 * above 2*rem); new rank v stands for the blocks of the real ranks 2v, 2v+1
 * (v < rem) or v + rem, so a range of new ranks is a range of real ranks.
 * Step m = 1, 2, ..., q/2 (tag 1): exchange with new rank v ^ m everything
 * held, i.e. the blocks of new ranks [v & ~(m-1), + m).  Fold out (tag 2):
 * each odd rank below 2*rem sends r - 1 every block but r - 1's own.
 * Powers of two: q*log2(q) messages, identical to MPICH's recursive
 * doubling (SMPI's allgather rdb, allgatherv mpich_rdb); other sizes differ
 * from MPICH, which completes missing subtrees inside the doubling steps. */
#include "coll_internal.h"

/* Bytes held by the new ranks [lo, hi). */
static uint64_t rdb_bytes(const llamp_coll_ctx_t *c, int rem, int lo, int hi) {
  int rlo = lo < rem ? 2 * lo : lo + rem;
  int rhi = hi <= rem ? 2 * hi : hi + rem;
  return coll_count_sum(c, rlo, rhi);
}

int llamp_coll_allgather_recursive_doubling(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const int q = coll_pof2_floor(p), rem = p - q;
  int newrank;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      COLL_TRY(coll_send_r(c, r + 1, coll_count(c, r), 0));
      newrank = -1;
    } else {
      COLL_TRY(coll_recv_r(c, r - 1, coll_count(c, r - 1), 0));
      newrank = r / 2;
    }
  } else {
    newrank = r - rem;
  }
  if (newrank >= 0) {
    for (int mask = 1; mask < q; mask *= 2) {
      int nd = newrank ^ mask;
      int dst = nd < rem ? nd * 2 + 1 : nd + rem;
      int mine = newrank & ~(mask - 1), theirs = nd & ~(mask - 1);
      COLL_TRY(coll_sendrecv(c, dst, rdb_bytes(c, rem, mine, mine + mask), dst,
                             rdb_bytes(c, rem, theirs, theirs + mask), 1));
    }
  }
  if (r < 2 * rem) {
    uint64_t rest = coll_count_sum(c, 0, p) - coll_count(c, r - (r % 2));
    if (r % 2)
      COLL_TRY(coll_send_r(c, r - 1, rest, 2));
    else
      COLL_TRY(coll_recv_r(c, r + 1, rest, 2));
  }
  return 0;
}
