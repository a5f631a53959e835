/* A ping-pong for the SimGrid check of the smpi group (smpi_check.sh):
 * prints "size one-way" (half a round trip) for every size given.  The
 * timed round trip directly follows a warm-up one (no barrier between:
 * the barrier's exit skew between ranks would add to the first message). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long max = 1;
  for (int i = 1; i < argc; i++) max = atol(argv[i]) > max ? atol(argv[i]) : max;
  char *buf = malloc((size_t)max);
  for (int i = 1; i < argc; i++) {
    int n = atoi(argv[i]);
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < 2; r++) {
      double t0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
      t = (MPI_Wtime() - t0) / 2;
    }
    if (rank == 0) printf("%d %.12g\n", n, t);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
