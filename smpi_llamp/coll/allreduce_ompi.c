/* allreduce_ompi.c - Open MPI's fixed decision for MPI_Allreduce as SMPI
 * 3.32 implements it (allreduce__ompi): what SMPI's default allreduce runs
 * for a derived datatype, and what smpi/allreduce:ompi runs for every call.
 *
 * By the communicator size p, the vector's bytes and whether the operation
 * commutes, it runs redbcast (Open MPI's basic_linear and nonoverlapping:
 * the selected reduce to rank 0, then the selected bcast), rdb (recursive
 * doubling), lr, ompi_ring_segmented (which falls back to lr below
 * p x 1 MiB, and the decision only picks it below 256 KiB) or rab_rdb
 * (Rabenseifner).  The thresholds are SMPI's, copied from its table. */
#include "coll_internal.h"

typedef struct {
  int below_p; /* rows apply below this size; 0 = the last row */
  uint64_t limits[6];
  int algs[7]; /* algs[i] below limits[i]; the last one above all (0 limit ends) */
} ompi_row_t;

static int row_choice(const ompi_row_t *rows, size_t nrows, int p, uint64_t bytes) {
  const ompi_row_t *row = &rows[nrows - 1];
  for (size_t i = 0; i + 1 < nrows; i++)
    if (p < rows[i].below_p) {
      row = &rows[i];
      break;
    }
  int i = 0;
  while (i < 6 && row->limits[i] && bytes >= row->limits[i]) i++;
  return row->algs[i];
}

int llamp_coll_allreduce_ompi_choice(int p, uint64_t bytes, int noncommutative) {
  /* ring, segmented ring and Rabenseifner need commutativity in Open MPI */
  static const ompi_row_t noncomm[] = {
      {4, {131072}, {3, 1}},          {8, {0}, {3}},
      {16, {1048576}, {3, 2}},        {128, {0}, {3}},
      {256, {131072, 524288}, {2, 3, 2}}, {512, {4096, 524288}, {2, 3, 2}},
      {0, {2048}, {2, 3}},
  };
  static const ompi_row_t comm[] = {
      {4, {8, 4096, 8192, 16384, 65536, 262144}, {4, 3, 4, 3, 4, 5, 6}},
      {8, {16, 8192}, {4, 3, 6}},
      {16, {8192}, {3, 6}},
      {32, {64, 4096}, {5, 3, 6}},
      {64, {128}, {5, 6}},
      {128, {262144}, {3, 6}},
      {256, {131072, 262144}, {2, 3, 6}},
      {512, {4096}, {2, 6}},
      {2048, {2048, 16384}, {2, 3, 6}},
      {4096, {2048, 4096, 16384}, {2, 5, 3, 6}},
      {0, {2048, 16384, 32768}, {2, 5, 3, 6}},
  };
  return noncommutative ? row_choice(noncomm, sizeof noncomm / sizeof noncomm[0], p, bytes)
                        : row_choice(comm, sizeof comm / sizeof comm[0], p, bytes);
}

int llamp_coll_allreduce_ompi(llamp_coll_ctx_t *c) {
  switch (llamp_coll_allreduce_ompi_choice(c->p, c->a->bytes,
                                           (c->a->flags & LLAMP_COLL_F_NONCOMMUTATIVE) != 0)) {
  case 3:
    return llamp_coll_allreduce_recursive_doubling(c);
  case 4:
  case 5:
    return llamp_coll_allreduce_lr(c);
  case 6:
    return llamp_coll_allreduce_rabenseifner(c);
  default:
    return llamp_coll_allreduce_reduce_bcast(c);
  }
}
