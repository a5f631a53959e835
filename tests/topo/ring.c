/* A token ring for the topology tests (docs/topology.md): one message in
 * flight at a time, so no two messages ever share a link (contention-free
 * on any platform).  ring ROUNDS BYTES [STRIDE]: rank r sends to
 * (r + STRIDE) mod P, so that successive hops take routes of every length.
 * Prints "end RANK TIME" (simulated) at the end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int rounds = argc > 1 ? atoi(argv[1]) : 10, bytes = argc > 2 ? atoi(argv[2]) : 8;
  int stride = argc > 3 ? atoi(argv[3]) : 1;
  /* visit order: position i holds rank i * stride mod n (stride coprime to n) */
  int pos = 0;
  while ((pos * stride) % n != r) pos++;
  int next = ((pos + 1) % n) * stride % n, prev = ((pos + n - 1) % n) * stride % n;
  char *buf = calloc((size_t)bytes + 1, 1);
  for (int it = 0; it < rounds; it++) {
    if (pos == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, next, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_BYTE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, next, 0, MPI_COMM_WORLD);
    }
  }
  printf("end %d %.15g\n", r, MPI_Wtime());
  free(buf);
  MPI_Finalize();
  return 0;
}
