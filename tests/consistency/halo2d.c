/* 2-D halo exchange for the consistency tests (docs/consistency.md):
 *   halo2d PX PY ITERS BYTES COMPUTE_US [IMBALANCE]
 * Each iteration: compute (smpi_execute_benched: deterministic), post 4 Irecv
 * and 4 Isend to the periodic neighbours, Waitall.  Rank r computes
 * COMPUTE_US x (1 + IMBALANCE x (r mod 5) / 4), so which rank is critical
 * depends on the latency. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 6) {
    if (rank == 0) fprintf(stderr, "usage: halo2d PX PY ITERS BYTES COMPUTE_US [IMBALANCE]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int px = atoi(argv[1]), py = atoi(argv[2]), iters = atoi(argv[3]), bytes = atoi(argv[4]);
  double imb = argc > 6 ? atof(argv[6]) : 0.0;
  double compute = atof(argv[5]) * 1e-6 * (1.0 + imb * (rank % 5) / 4.0);
  if (px * py != size) {
    if (rank == 0) fprintf(stderr, "halo2d: PX*PY = %d but %d ranks\n", px * py, size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int x = rank % px, y = rank / px;
  int nb[4] = {y * px + (x + px - 1) % px, y * px + (x + 1) % px, ((y + py - 1) % py) * px + x,
               ((y + 1) % py) * px + x};
  char *sbuf = calloc((size_t)bytes * 4 + 1, 1), *rbuf = calloc((size_t)bytes * 4 + 1, 1);
  MPI_Request req[8];
  for (int it = 0; it < iters; it++) {
    smpi_execute_benched(compute);
    for (int k = 0; k < 4; k++)
      MPI_Irecv(rbuf + (size_t)k * bytes, bytes, MPI_CHAR, nb[k], k ^ 1, MPI_COMM_WORLD, &req[k]);
    for (int k = 0; k < 4; k++)
      MPI_Isend(sbuf + (size_t)k * bytes, bytes, MPI_CHAR, nb[k], k, MPI_COMM_WORLD, &req[4 + k]);
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
  }
  free(sbuf);
  free(rbuf);
  /* every rank's end time: run.sh takes the largest as the simulated time */
  printf("end %d %.15g\n", rank, MPI_Wtime());
  MPI_Finalize();
  return 0;
}
