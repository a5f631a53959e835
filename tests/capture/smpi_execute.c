/* A program's own smpi_execute(seconds) (as SMPI_SAMPLE_* loops call it):
 * ten calls of 1 ms, timed with MPI_Wtime.  With compute replayed 1:1 they
 * take 10 ms of simulated time, as every other measured second does. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double t0 = MPI_Wtime();
  for (int i = 0; i < 10; i++) smpi_execute(1e-3);
  double t1 = MPI_Wtime();
  if (rank == 0) printf("smpi_execute: 10 x 1 ms took %.6f s\n", t1 - t0);
  MPI_Finalize();
  return 0;
}
