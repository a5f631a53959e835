/* allreduce_lr.c - SMPI's allreduce lr (logical ring), exactly.
 *
 * count = n / elem elements.  Below p elements lr runs redbcast: the
 * selected reduce to rank 0, then the selected bcast from rank 0 (tags 0
 * and 1).  Otherwise every block has b = count / p elements (p equal
 * blocks, unlike MPICH's ring): reduce-scatter, steps i = 0 .. p-2 (tag 2):
 * sendrecv of b elements to r+1 / from r-1, then reduce them; allgather,
 * p-1 more sendrecv steps of b elements (tag 3).  When p does not divide
 * count, SMPI calls its selected allreduce on the count mod p remaining
 * elements: lr again (redbcast of those) when lr is selected, SMPI's default
 * allreduce when lr runs inside Open MPI's decision. */
#include "coll_internal.h"

static int lr_redbcast(llamp_coll_ctx_t *c, uint64_t bytes) {
  COLL_TRY(llamp_coll_part(c, llamp_coll_part_algo(c, LLAMP_COLL_REDUCE), 0, bytes, NULL, 0));
  return llamp_coll_part(c, llamp_coll_part_algo(c, LLAMP_COLL_BCAST), 0, bytes, NULL, 1);
}

int llamp_coll_allreduce_lr(llamp_coll_ctx_t *c) {
  const int p = c->p, r = c->r;
  const uint64_t elem = coll_elem(c->a), count = c->a->bytes / elem;
  if (count < (uint64_t)p) return lr_redbcast(c, c->a->bytes);
  const uint64_t blk = count / (uint64_t)p * elem, rest = count % (uint64_t)p * elem;
  const int right = (r + 1) % p, left = coll_mod(r - 1, p);
  for (int i = 0; i < p - 1; i++) {
    COLL_TRY(coll_sendrecv(c, right, blk, left, blk, 2));
    COLL_TRY(coll_calc(c, blk));
  }
  for (int i = 0; i < p - 1; i++) COLL_TRY(coll_sendrecv(c, right, blk, left, blk, 3));
  if (!rest) return 0;
  /* SMPI's selected allreduce is the algorithm running: lr, ompi, or the
   * default (which runs ompi for the derived datatypes that got here) */
  return llamp_coll_part(c, c->algo, 0, rest, NULL, 0);
}
