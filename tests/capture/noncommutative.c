/* noncommutative.c - reductions SimGrid's default reduce runs otherwise
 * (run_test.sh noncommutative): one MPI_Allreduce with a user operation
 * declared non-commutative and one MPI_Reduce of a derived datatype (the
 * capture counts both and marks the report approximate), and an MPI_SUM of
 * MPI_DOUBLE and a MINLOC of MPI_DOUBLE_INT, which it does not count. */
#include <mpi.h>
#include <stdio.h>

static void maxfirst(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  double *a = in, *b = inout;
  for (int i = 0; i < *len; i++)
    if (a[i] > b[i]) b[i] = a[i];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Op op;
  MPI_Op_create(maxfirst, 0, &op);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);
  double x[2] = {rank, 1}, y[2];
  struct { double v; int r; } in = {rank, rank}, out;
  MPI_Allreduce(x, y, 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
  MPI_Reduce(x, y, 1, pair, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Allreduce(x, y, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  MPI_Type_free(&pair);
  MPI_Op_free(&op);
  if (rank == 0) printf("noncommutative: done\n");
  MPI_Finalize();
  return 0;
}
