/* scan_linear.c - linear (chain) scan and exscan (Open MPI basic_linear).
 *
 * Rank r > 0 receives the prefix of ranks 0..r-1 from r - 1 (tag 0); scan
 * reduces its own vector into it (rank r > 0), exscan does so only to
 * forward (0 < r < p-1); every rank but the last sends its prefix to r + 1.
 * p - 1 messages of n bytes, depth p - 1. */
#include "coll_internal.h"

int llamp_coll_scan_linear(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const uint64_t n = c->a->bytes;
  if (r > 0) {
    COLL_TRY(coll_recv_r(c, r - 1, n, 0));
    if (!coll_exclusive(c) || r < p - 1) COLL_TRY(coll_calc(c, n));
  }
  if (r < p - 1) COLL_TRY(coll_send_r(c, r + 1, n, 0));
  return 0;
}
