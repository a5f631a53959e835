/* scan_recursive_doubling.c - recursive doubling scan and exscan (MPICH
 * MPIR_Scan_intra_recursive_doubling, MPIR_Exscan_intra_recursive_doubling).
 *
 * For m = 1, 2, 4, ... < p: if r ^ m < p, exchange the partial reduction of
 * the aligned group (n bytes, one sendrecv, tag 0) with r ^ m, then reduce:
 * the received partial into the group partial, and, from a lower partner,
 * also into the result (scan: always; exscan: the first lower partner's is
 * copied, later ones reduced).  Any size, no fold.  n bytes per message. */
#include "coll_internal.h"

int llamp_coll_scan_recursive_doubling(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const uint64_t n = c->a->bytes;
  int have_lower = 0;
  for (int mask = 1; mask < p; mask *= 2) {
    int dst = r ^ mask;
    if (dst >= p) continue;
    COLL_TRY(coll_sendrecv(c, dst, n, dst, n, 0));
    uint64_t work = n;
    if (dst < r) {
      if (!coll_exclusive(c) || have_lower) work += n;
      have_lower = 1;
    }
    COLL_TRY(coll_calc(c, work));
  }
  return 0;
}
