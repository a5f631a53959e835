/* Communicator creation for the consistency tests (docs/consistency.md):
 *   comm REPEAT COMPUTE_US
 * SMPI communicates to make communicators: every new one broadcasts its id
 * from its rank 0, and MPI_Comm_split / MPI_Cart_sub first gather the colors
 * on the parent's rank 0, which sends each member its group.  REPEAT times:
 * MPI_Cart_create (a 3-D grid of MPI_Dims_create), MPI_Cart_sub (keep one
 * dimension), MPI_Comm_dup, MPI_Comm_split into three colors with keys that
 * reverse the order and one rank left out (MPI_UNDEFINED), MPI_Comm_create
 * of the even ranks, MPI_Comm_create_group by the even ranks only, and
 * MPI_Comm_split_type (SMPI sends nothing for it),
 * each followed by an MPI_Allreduce of one double on the new communicator;
 * computes COMPUTE_US x (1 + (r mod 3) / 2) between steps
 * (smpi_execute_benched: deterministic).  Prints "end RANK TIME". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double compute;

static void step(MPI_Comm c) {
  smpi_execute_benched(compute);
  if (c == MPI_COMM_NULL) return;
  double x = 1, y;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: comm REPEAT COMPUTE_US\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int repeat = atoi(argv[1]);
  compute = atof(argv[2]) * 1e-6 * (1.0 + (rank % 3) / 2.0);
  for (int it = 0; it < repeat; it++) {
    int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1}, keep[3] = {1, 0, 0};
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart, sub, dup, split, even, node;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    step(cart);
    MPI_Cart_sub(cart, keep, &sub);
    step(sub);
    MPI_Comm_dup(cart, &dup);
    step(dup);
    int color = rank == size - 1 && size > 2 ? MPI_UNDEFINED : rank % 3;
    MPI_Comm_split(dup, color, size - rank, &split);
    step(split);
    MPI_Group world, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int n = (size + 1) / 2, *ranks = malloc((size_t)n * sizeof *ranks);
    for (int i = 0; i < n; i++) ranks[i] = 2 * i;
    MPI_Group_incl(world, n, ranks, &evens);
    MPI_Comm_create(MPI_COMM_WORLD, evens, &even);
    step(even);
    MPI_Comm grp = MPI_COMM_NULL; /* collective over the even ranks only */
    if (rank % 2 == 0) MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &grp);
    step(grp);
    if (grp != MPI_COMM_NULL) MPI_Comm_free(&grp);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    step(node);
    free(ranks);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    MPI_Comm c[6] = {cart, sub, dup, split, even, node};
    for (int i = 0; i < 6; i++)
      if (c[i] != MPI_COMM_NULL) MPI_Comm_free(&c[i]);
  }
  smpi_execute_benched(compute);
  printf("end %d %.12f\n", rank, MPI_Wtime());
  MPI_Finalize();
  return 0;
}
