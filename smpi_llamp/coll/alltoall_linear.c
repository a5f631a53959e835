/* alltoall_linear.c - linear alltoall and alltoallv: one round in which each
 * rank posts a receive from every other rank and then a send to every other
 * rank (tag 0).  p(p-1) messages, depth 1.  Posting order as in SMPI:
 * alltoall (basic_linear) receives from r+1, r+2, ... and sends to r-1,
 * r-2, ... (mod p); alltoallv (ompi_basic_linear) goes in rank order. */
#include "coll_internal.h"

int llamp_coll_alltoall_linear(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const int v = c->kind == LLAMP_COLL_ALLTOALLV;
  for (int i = 1; i < p; i++) {
    int src = v ? (i <= r ? i - 1 : i) : (r + i) % p;
    COLL_TRY(coll_recv(c, src, coll_rcount(c, src), 0));
  }
  for (int i = 1; i < p; i++) {
    int dst = v ? (i <= r ? i - 1 : i) : coll_mod(r - i, p);
    COLL_TRY(coll_send(c, dst, coll_count(c, dst), 0));
  }
  return coll_end_round(c);
}
