/* barrier_dissemination.c - dissemination barrier (Hensgen, Finkel, Manber).
 *
 * Round k (k = 0 .. ceil(log2 p)-1): send 0 bytes to (r + 2^k) mod p and
 * receive from (r - 2^k) mod p, as one sendrecv.  Any size.  Tag 0.
 * Same structure as SMPI's barrier ompi_bruck. */
#include "coll_internal.h"

int llamp_coll_barrier_dissemination(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  for (int d = 1; d < p; d *= 2)
    COLL_TRY(coll_sendrecv(c, (r + d) % p, 0, coll_mod(r - d, p), 0, 0));
  return 0;
}
