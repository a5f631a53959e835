/* allreduce_rabenseifner.c - Rabenseifner's allreduce: reduce-scatter by
 * recursive halving, allgather by recursive doubling (MPICH
 * MPIR_Allreduce_intra_reduce_scatter_allgather; SMPI's allreduce rab_rdb).
 *
 * Fold in and out as in recursive doubling (tags 0 and 3, whole vector).
 * The q = 2^k remaining ranks cut the vector into q blocks at element
 * boundaries: q-1 blocks of floor(count/q) elements, the last one takes the
 * rest.  Reduce-scatter (tag 1), distance m = 1, 2, ..., q/2: exchange with
 * new rank ^ m; the lower rank of the pair keeps the lower half of its
 * current block range and sends the upper half, the higher rank the
 * opposite; reduce the received half.  Allgather (tag 2), m = q/2 .. 1: the
 * mirror image, each rank sends what it holds and receives the partner's
 * part.  2q*log2(q) + 2*rem messages; 2(q-1)n + 2*rem*n bytes in all. */
#include "coll_internal.h"

typedef struct {
  uint64_t elem, small, last; /* elements per block, the last block's */
  int q;
} rab_blocks_t;

/* Bytes of blocks [lo, hi). */
static uint64_t rab_sum(const rab_blocks_t *b, int lo, int hi) {
  if (hi <= lo) return 0;
  uint64_t elems = (uint64_t)(hi - lo) * b->small;
  if (hi == b->q) elems += b->last - b->small;
  return elems * b->elem;
}

int llamp_coll_allreduce_rabenseifner(llamp_coll_ctx_t *c) {
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
    rab_blocks_t b;
    b.elem = coll_elem(c->a);
    uint64_t count = n / b.elem;
    b.q = q;
    b.small = count / (uint64_t)q;
    b.last = count - b.small * (uint64_t)(q - 1);
    int send_idx = 0, recv_idx = 0, last_idx = q, mask;
    for (mask = 1; mask < q; mask *= 2) {
      int nd = newrank ^ mask;
      int dst = nd < rem ? nd * 2 + 1 : nd + rem;
      uint64_t scnt, rcnt;
      if (newrank < nd) {
        send_idx = recv_idx + q / (mask * 2);
        scnt = rab_sum(&b, send_idx, last_idx);
        rcnt = rab_sum(&b, recv_idx, send_idx);
      } else {
        recv_idx = send_idx + q / (mask * 2);
        scnt = rab_sum(&b, send_idx, recv_idx);
        rcnt = rab_sum(&b, recv_idx, last_idx);
      }
      COLL_TRY(coll_sendrecv(c, dst, scnt, dst, rcnt, 1));
      COLL_TRY(coll_calc(c, rcnt));
      send_idx = recv_idx;
      /* as in MPICH: not after the last step, whose stale value the first
       * allgather step relies on */
      if (mask * 2 < q) last_idx = recv_idx + q / (mask * 2);
    }
    for (mask = q / 2; mask > 0; mask /= 2) {
      int nd = newrank ^ mask;
      int dst = nd < rem ? nd * 2 + 1 : nd + rem;
      uint64_t scnt, rcnt;
      if (newrank < nd) {
        if (mask != q / 2) last_idx = last_idx + q / (mask * 2);
        recv_idx = send_idx + q / (mask * 2);
        scnt = rab_sum(&b, send_idx, recv_idx);
        rcnt = rab_sum(&b, recv_idx, last_idx);
      } else {
        recv_idx = send_idx - q / (mask * 2);
        scnt = rab_sum(&b, send_idx, last_idx);
        rcnt = rab_sum(&b, recv_idx, send_idx);
      }
      COLL_TRY(coll_sendrecv(c, dst, scnt, dst, rcnt, 2));
      if (newrank > nd) send_idx = recv_idx;
    }
  }
  if (r < 2 * rem) {
    if (r % 2)
      COLL_TRY(coll_send_r(c, r - 1, n, 3));
    else
      COLL_TRY(coll_recv_r(c, r + 1, n, 3));
  }
  return 0;
}
