/* overlap.c - communication overlapped with computation
 * (tests/consistency/nic.sh): each iteration every rank posts NEIGHBOURS
 * Irecvs and Isends of BYTES to the ranks at distance 1, -1, 2, -2 ... on a
 * ring, computes COMPUTE_US (smpi_execute_benched), then waits for all.
 * Eager sends are detached in SMPI: the rank computes while its NIC sends
 * the messages one after the other, so the compute is not delayed by them.
 *   overlap NEIGHBOURS BYTES ITERS COMPUTE_US */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int k = argc == 5 ? atoi(argv[1]) : 0, bytes = argc == 5 ? atoi(argv[2]) : 0;
  int iters = argc == 5 ? atoi(argv[3]) : 0;
  if (k < 1 || k > 64 || bytes < 1 || iters < 1) {
    if (rank == 0) fprintf(stderr, "usage: overlap NEIGHBOURS(1-64) BYTES ITERS COMPUTE_US\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double compute = atof(argv[4]) * 1e-6;
  char *sbuf = calloc((size_t)k, (size_t)bytes), *rbuf = calloc((size_t)k, (size_t)bytes);
  MPI_Request *req = malloc(sizeof *req * 2 * (size_t)k);
  if (!sbuf || !rbuf || !req) MPI_Abort(MPI_COMM_WORLD, 3);
  for (int it = 0; it < iters; it++) {
    for (int j = 0; j < k; j++) { /* distance d = 1, -1, 2, -2 ...: receive from rank - d */
      int d = (j / 2 + 1) * (j % 2 ? -1 : 1);
      MPI_Irecv(rbuf + (size_t)j * bytes, bytes, MPI_CHAR, ((rank - d) % size + size) % size, j, MPI_COMM_WORLD,
                &req[j]);
    }
    for (int j = 0; j < k; j++) {
      int d = (j / 2 + 1) * (j % 2 ? -1 : 1);
      MPI_Isend(sbuf + (size_t)j * bytes, bytes, MPI_CHAR, ((rank + d) % size + size) % size, j, MPI_COMM_WORLD,
                &req[k + j]);
    }
    smpi_execute_benched(compute);
    MPI_Waitall(2 * k, req, MPI_STATUSES_IGNORE);
  }
  if (rank == 0) printf("overlap: %d iterations, %d neighbours, %d B\n", iters, k, bytes);
  free(sbuf);
  free(rbuf);
  free(req);
  MPI_Finalize();
  return 0;
}
