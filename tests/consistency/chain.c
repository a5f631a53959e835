/* Blocking point-to-point chains for the consistency tests (docs/consistency.md):
 *   chain ROUNDS BYTES COMPUTE_US [SELF]
 * Phase 1, a token ring: rank 0 sends BYTES to rank 1, every rank receives
 * from r-1, computes and sends to r+1, ROUNDS times around (MPI_Send /
 * MPI_Recv; the whole ring is one chain of messages).  On one rank the ring
 * would be messages to oneself: skipped unless SELF is 1.  Phase 2, ROUNDS
 * blocking exchanges with both neighbours: even ranks send then receive,
 * odd ranks receive then send, to the right and then to the left.  Rank r
 * computes COMPUTE_US x (1 + (r mod 3) / 2) between operations
 * (smpi_execute_benched: deterministic). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: chain ROUNDS BYTES COMPUTE_US\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rounds = atoi(argv[1]), bytes = atoi(argv[2]), self = argc > 4 && atoi(argv[4]) == 1;
  double compute = atof(argv[3]) * 1e-6 * (1.0 + (rank % 3) / 2.0);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  char *buf = calloc((size_t)bytes + 1, 1), *buf2 = calloc((size_t)bytes + 1, 1);
  for (int i = 0; i < rounds && (size > 1 || self); i++) {
    if (rank == 0) {
      smpi_execute_benched(compute);
      MPI_Send(buf, bytes, MPI_CHAR, right, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_CHAR, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_CHAR, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      smpi_execute_benched(compute);
      MPI_Send(buf, bytes, MPI_CHAR, right, 1, MPI_COMM_WORLD);
    }
  }
  if (size % 2 == 0) { /* phase 2 */
    for (int i = 0; i < rounds; i++) {
      smpi_execute_benched(compute);
      if (rank % 2 == 0) {
        MPI_Send(buf, bytes, MPI_CHAR, right, 2, MPI_COMM_WORLD);
        MPI_Recv(buf2, bytes, MPI_CHAR, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, bytes, MPI_CHAR, left, 3, MPI_COMM_WORLD);
        MPI_Recv(buf2, bytes, MPI_CHAR, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf2, bytes, MPI_CHAR, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, bytes, MPI_CHAR, left, 2, MPI_COMM_WORLD);
        MPI_Recv(buf2, bytes, MPI_CHAR, right, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, bytes, MPI_CHAR, right, 3, MPI_COMM_WORLD);
      }
    }
  }
  smpi_execute_benched(compute);
  if (rank == 0) printf("chain: done, %d ranks\n", size);
  free(buf);
  free(buf2);
  /* every rank's end time: run.sh takes the largest as the simulated time */
  printf("end %d %.15g\n", rank, MPI_Wtime());
  MPI_Finalize();
  return 0;
}
