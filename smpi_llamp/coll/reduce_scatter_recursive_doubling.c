/* reduce_scatter_recursive_doubling.c - recursive doubling reduce-scatter
 * (MPICH's MPIR_Reduce_scatter_intra_recursive_doubling; SMPI's
 * reduce_scatter mpich_rdb), any number of ranks.
 *
 * Step k, mask m = 2^k (tag 0): with my_root = r & ~(m-1) and dst = r ^ m,
 * dst_root = dst & ~(m-1): if dst < p, sendrecv with dst: send every block
 * outside [my_root, my_root + m), receive every block outside
 * [dst_root, dst_root + m) (the sizes of the v-blocks; blocks >= p count 0).
 * When the partner subtree is incomplete (dst_root + m > p), the ranks of
 * this subtree that had a partner forward what they received to those that
 * had none, by recursive halving inside the subtree (tag 1: blocking sends
 * and receives).  Then the received data is reduced.  Powers of two:
 * p log2 p messages. */
#include "coll_internal.h"

/* Bytes of the blocks outside [lo, lo + m) (clipped to p). */
static uint64_t rdb_outside(const llamp_coll_ctx_t *c, int lo, int m) {
  int hi = lo + m < c->p ? lo + m : c->p;
  if (lo > c->p) lo = c->p;
  return coll_count_sum(c, 0, lo) + coll_count_sum(c, hi, c->p);
}

int llamp_coll_reduce_scatter_recursive_doubling(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  int i = 0;
  for (int mask = 1; mask < p; mask <<= 1, i++) {
    int dst = r ^ mask;
    int dst_root = (dst >> i) << i, my_root = (r >> i) << i;
    uint64_t sbytes = rdb_outside(c, my_root, mask), rbytes = rdb_outside(c, dst_root, mask);
    int received = 0;
    if (dst < p) {
      COLL_TRY(coll_sendrecv(c, dst, sbytes, dst, rbytes, 0));
      received = 1;
    }
    if (dst_root + mask > p) {
      int done = p - my_root - mask; /* ranks of the subtree holding data */
      int k = 0;
      for (int j = mask; j; j >>= 1) k++;
      k--;
      for (int tm = mask >> 1; tm; tm >>= 1, k--) {
        int d = r ^ tm, tree_root = (r >> k) << k;
        if (d > r && r < tree_root + done && d >= tree_root + done) {
          COLL_TRY(coll_send_r(c, d, rbytes, 1));
        } else if (d < r && d < tree_root + done && r >= tree_root + done) {
          COLL_TRY(coll_recv_r(c, d, rbytes, 1));
          received = 1;
        }
      }
    }
    if (received) COLL_TRY(coll_calc(c, rbytes));
  }
  return 0;
}
