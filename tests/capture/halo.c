/* A 2-D halo exchange for the capture tests and the overhead benchmark:
 *   halo PX PY ITERS BYTES COMPUTE_US [ALLREDUCE_EVERY]
 * Each iteration: compute (smpi_execute_benched), post 4 Irecv and 4 Isend
 * to the periodic neighbours, Waitall; every ALLREDUCE_EVERY iterations an
 * MPI_Allreduce of one double.  Rank 0 prints the simulated end time, which
 * must not change when the program is built with the capture layer. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 6) {
    if (rank == 0) fprintf(stderr, "usage: halo PX PY ITERS BYTES COMPUTE_US [ALLREDUCE_EVERY]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int px = atoi(argv[1]), py = atoi(argv[2]), iters = atoi(argv[3]), bytes = atoi(argv[4]);
  double compute = atof(argv[5]) * 1e-6;
  int every = argc > 6 ? atoi(argv[6]) : 10;
  if (px * py != size) {
    if (rank == 0) fprintf(stderr, "halo: PX*PY = %d but %d ranks\n", px * py, size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int x = rank % px, y = rank / px;
  int nb[4] = {y * px + (x + px - 1) % px, y * px + (x + 1) % px, ((y + py - 1) % py) * px + x,
               ((y + 1) % py) * px + x};
  char *sbuf = malloc((size_t)bytes * 4 + 1), *rbuf = malloc((size_t)bytes * 4 + 1);
  MPI_Request req[8];
  double acc = rank;
  for (int it = 0; it < iters; it++) {
    smpi_execute_benched(compute);
    for (int k = 0; k < 4; k++)
      MPI_Irecv(rbuf + (size_t)k * bytes, bytes, MPI_CHAR, nb[k], k ^ 1, MPI_COMM_WORLD, &req[k]);
    for (int k = 0; k < 4; k++)
      MPI_Isend(sbuf + (size_t)k * bytes, bytes, MPI_CHAR, nb[k], k, MPI_COMM_WORLD, &req[4 + k]);
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
    if (every > 0 && (it + 1) % every == 0) {
      double in = acc;
      MPI_Allreduce(&in, &acc, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
  }
  double t = MPI_Wtime();
  if (rank == 0) printf("halo: simulated time %.9f s\n", t);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
