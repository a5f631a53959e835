/* alltoall_ompi.c - Open MPI's fixed decision for MPI_Alltoall as SMPI 3.32
 * implements it (alltoall__ompi), which is also SMPI's default alltoall.
 *
 * By the communicator size p and the bytes per pair n, it runs the linear
 * alltoall (Open MPI's "linear", "linear_sync" and "two_proc" are all
 * SMPI's basic_linear), the pairwise exchange (SMPI's pair: powers of two
 * only, where it is the pairwise exchange here) or Bruck's algorithm.  The
 * thresholds are SMPI's, copied from its decision table. */
#include "coll_internal.h"

/* 1 linear, 2 pairwise, 3 bruck (Open MPI's 4 and 5 map to 1). */
static int ompi_alltoall_choice(int p, uint64_t n) {
  typedef struct {
    int below_p;
    uint64_t limits[8];
    int algs[9];
  } row_t;
  /* algs[i] applies below limits[i]; the last alg above every limit; a 0
   * limit ends the list */
  static const row_t rows[] = {
      {3, {2, 4, 16, 64, 256, 4096, 32768, 262144}, {2, 5, 2, 5, 2, 5, 2, 4, 5}},
      {8, {8192, 16384, 65536, 524288, 1048576}, {4, 1, 4, 1, 2, 1}},
      {16, {262144}, {4, 1}},
      {32, {4, 512, 8192, 32768, 262144, 524288}, {4, 3, 4, 1, 4, 1, 4}},
      {64, {512, 524288}, {3, 1, 4}},
      {128, {1024, 2048, 4096, 262144}, {3, 1, 4, 1, 2}},
      {256, {1024, 2048, 262144}, {3, 4, 1, 2}},
      {512, {1024, 8192, 32768}, {3, 4, 1, 2}},
      {1024, {512, 8192, 16384, 131072, 262144}, {3, 4, 1, 4, 1, 2}},
      {2048, {512, 1024, 2048, 16384, 262144}, {3, 4, 1, 4, 1, 4}},
      {4096, {1024, 4096, 8192, 131072}, {3, 4, 1, 4, 1}},
      {0, {2048, 8192, 16384, 32768, 65536}, {3, 4, 1, 4, 1, 4}},
  };
  const row_t *row = &rows[sizeof rows / sizeof rows[0] - 1];
  if (p == 2) {
    row = &rows[0];
  } else {
    for (size_t i = 1; i + 1 < sizeof rows / sizeof rows[0]; i++)
      if (p < rows[i].below_p) {
        row = &rows[i];
        break;
      }
  }
  int i = 0;
  while (i < 8 && row->limits[i] && n >= row->limits[i]) i++;
  /* the 1 MiB step of p == 2 (total >= 1048576: pairwise) */
  int alg = (p == 2 && n >= 1048576) ? 2 : row->algs[i];
  return alg >= 4 ? 1 : alg;
}

int llamp_coll_alltoall_ompi(llamp_coll_ctx_t *c) {
  switch (ompi_alltoall_choice(c->p, c->a->bytes)) {
  case 2:
    return llamp_coll_alltoall_pairwise(c);
  case 3:
    return llamp_coll_alltoall_bruck(c);
  default:
    return llamp_coll_alltoall_linear(c);
  }
}
