/* noncommutative.c - reductions SimGrid's default collectives run with other
 * algorithms (run_test.sh noncommutative): a user operation declared
 * non-commutative (Allreduce, Reduce, Reduce_scatter_block: Open MPI's basic
 * linear reduce inside SMPI's defaults), derived datatypes with a commutative
 * user operation (Reduce: basic linear; Allreduce: Open MPI's decision, here
 * recursive doubling as in an HPL-style pivot search, and Rabenseifner for a
 * large vector), and an MPI_SUM of MPI_DOUBLE and a MINLOC of MPI_DOUBLE_INT,
 * which SMPI runs as usual.  ITERATIONS rounds (default 10). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void maxfirst(void *in, void *inout, int *len, MPI_Datatype *t) {
  int k = *len * (*t == MPI_DOUBLE ? 1 : 2);
  double *a = in, *b = inout;
  for (int i = 0; i < k; i++)
    if (a[i] > b[i]) b[i] = a[i];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, iters = argc > 1 ? atoi(argv[1]) : 10;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op nc, cm;
  MPI_Op_create(maxfirst, 0, &nc);
  MPI_Op_create(maxfirst, 1, &cm);
  MPI_Datatype pair, row;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);
  MPI_Type_contiguous(130, MPI_DOUBLE, &row); /* 1040 B: a pivot row as one element */
  MPI_Type_commit(&row);
  enum { BIG = 40000 };
  double *x = calloc(2 * BIG, sizeof *x), *y = calloc(2 * (size_t)BIG * size, sizeof *y);
  if (!x || !y) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < 2 * BIG; i++) x[i] = rank + i;
  struct { double v; int r; } in = {rank, rank}, out;
  for (int it = 0; it < iters; it++) {
    MPI_Allreduce(x, y, 1, MPI_DOUBLE, nc, MPI_COMM_WORLD);
    MPI_Reduce(x, y, 1, pair, cm, 0, MPI_COMM_WORLD);
    MPI_Reduce(x, y, 64, MPI_DOUBLE, nc, size - 1, MPI_COMM_WORLD);
    MPI_Allreduce(x, y, 1, row, cm, MPI_COMM_WORLD);
    MPI_Allreduce(x, y, BIG, pair, cm, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(x, y, 16, MPI_DOUBLE, nc, MPI_COMM_WORLD);
    MPI_Allreduce(x, y, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  }
  MPI_Type_free(&pair);
  MPI_Type_free(&row);
  MPI_Op_free(&nc);
  MPI_Op_free(&cm);
  free(x);
  free(y);
  if (rank == 0) printf("noncommutative: done\n");
  MPI_Finalize();
  return 0;
}
