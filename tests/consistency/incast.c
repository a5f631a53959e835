/* incast.c - many ranks into one (tests/consistency/nic.sh): every rank but
 * 0 sends COUNT doubles to rank 0, which posts one Irecv per sender and waits
 * for all, ITERS times; with BARRIER = 1 a barrier ends each iteration (no
 * sender posts its next message before the root has all of this one's).
 * Above the eager limit the messages are rendezvous transfers that share
 * rank 0's link: SimGrid runs them side by side, the DAG's NIC rule one
 * after the other, and the last ends at the same time either way.
 *   incast COUNT ITERS BARRIER */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4 || atoi(argv[1]) < 1 || atoi(argv[2]) < 1 || size > 64) {
    if (rank == 0) fprintf(stderr, "usage: incast COUNT ITERS BARRIER (2 to 64 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int count = atoi(argv[1]), iters = atoi(argv[2]), barrier = atoi(argv[3]);
  double *buf = calloc((size_t)count * (size_t)size, sizeof *buf);
  if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int it = 0; it < iters; it++) {
    if (rank == 0) {
      MPI_Request req[64];
      for (int s = 1; s < size; s++)
        MPI_Irecv(buf + (size_t)count * (size_t)s, count, MPI_DOUBLE, s, 7, MPI_COMM_WORLD, &req[s - 1]);
      MPI_Waitall(size - 1, req, MPI_STATUSES_IGNORE);
    } else {
      MPI_Send(buf, count, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
    }
    if (barrier) MPI_Barrier(MPI_COMM_WORLD);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
