/* barrier_linear.c - linear barrier (Open MPI basic_linear; SMPI's barrier
 * ompi_basic_linear, which is also SMPI's default barrier).
 *
 * Ranks r > 0 send 0 bytes to rank 0 (one blocking send), then receive the
 * release from it (one blocking receive).  Rank 0 receives from every other
 * rank in one round, then sends to every other rank in one round.  Tag 0.
 * 2(p-1) messages, depth 2. */
#include "coll_internal.h"

int llamp_coll_barrier_linear(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  if (r > 0) {
    COLL_TRY(coll_send_r(c, 0, 0, 0));
    return coll_recv_r(c, 0, 0, 0);
  }
  for (int i = 1; i < p; i++) COLL_TRY(coll_recv(c, i, 0, 0));
  COLL_TRY(coll_end_round(c));
  for (int i = 1; i < p; i++) COLL_TRY(coll_send(c, i, 0, 0));
  return coll_end_round(c);
}
