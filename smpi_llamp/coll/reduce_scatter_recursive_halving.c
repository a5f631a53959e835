/* reduce_scatter_recursive_halving.c - recursive halving reduce-scatter and
 * reduce_scatter_block (Open MPI basic_recursivehalving, SMPI's
 * reduce_scatter ompi_basic_recursivehalving; MPICH's recursive halving has
 * the same messages).
 *
 * N = the vector (sum of the blocks), q = the largest power of two <= p,
 * rem = p - q.  Fold in (tag 0): among the first 2*rem ranks, each even rank
 * sends the whole vector to r + 1, which reduces it.  New rank v < rem
 * stands for the blocks 2v and 2v+1, v >= rem for block v + rem.  Halving
 * (tag 1), distance m = q/2, q/4, ..., 1: exchange with v ^ m; the lower
 * rank keeps the lower half of its current range of new-rank blocks and
 * sends the upper half, the higher rank the opposite; reduce what arrives.
 * Fold out (tag 2): each odd rank below 2*rem sends block r - 1 to r - 1.
 * rem + q*log2(q) + rem messages; rem*N + (q-1)*N + (the folded even ranks'
 * blocks) bytes.  Open MPI skips an exchange when either half is empty (which
 * loses data in that corner case); here every exchange is emitted. */
#include "coll_internal.h"

/* Bytes of the new-rank blocks [lo, hi). */
static uint64_t rh_bytes(const llamp_coll_ctx_t *c, int rem, int lo, int hi) {
  int rlo = lo < rem ? 2 * lo : lo + rem;
  int rhi = hi <= rem ? 2 * hi : hi + rem;
  return coll_count_sum(c, rlo, rhi);
}

int llamp_coll_reduce_scatter_recursive_halving(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const int q = coll_pof2_floor(p), rem = p - q;
  const uint64_t total = coll_count_sum(c, 0, p);
  int v;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      COLL_TRY(coll_send_r(c, r + 1, total, 0));
      v = -1;
    } else {
      COLL_TRY(coll_recv_r(c, r - 1, total, 0));
      COLL_TRY(coll_calc(c, total));
      v = r / 2;
    }
  } else {
    v = r - rem;
  }
  if (v >= 0) {
    int send_index = 0, recv_index = 0, last_index = q;
    for (int mask = q / 2; mask > 0; mask /= 2) {
      int vpeer = v ^ mask;
      int peer = vpeer < rem ? vpeer * 2 + 1 : vpeer + rem;
      uint64_t scnt, rcnt;
      if (v < vpeer) {
        send_index = recv_index + mask;
        scnt = rh_bytes(c, rem, send_index, last_index);
        rcnt = rh_bytes(c, rem, recv_index, send_index);
      } else {
        recv_index = send_index + mask;
        scnt = rh_bytes(c, rem, send_index, recv_index);
        rcnt = rh_bytes(c, rem, recv_index, last_index);
      }
      COLL_TRY(coll_sendrecv(c, peer, scnt, peer, rcnt, 1));
      COLL_TRY(coll_calc(c, rcnt));
      send_index = recv_index;
      last_index = recv_index + mask;
    }
  }
  if (r < 2 * rem) {
    if (r % 2)
      COLL_TRY(coll_send_r(c, r - 1, coll_count(c, r - 1), 2));
    else
      COLL_TRY(coll_recv_r(c, r + 1, coll_count(c, r), 2));
  }
  return 0;
}
