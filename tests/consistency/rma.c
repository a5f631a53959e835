/* One-sided communication for the consistency tests (docs/consistency.md,
 * docs/trace.md "One-sided communication"):
 *   rma MODE ITERS BYTES COMPUTE_US
 * MODE
 *   fence  each iteration: Put BYTES to r+1, Get BYTES from r+2, then
 *          MPI_Win_fence
 *   fenceacc  the same with an Accumulate of BYTES (doubles, sum) into r-1
 *          before the fence
 *   halo   2-D periodic halo written as real codes do: each rank Puts its
 *          four faces (BYTES each) into its neighbours' ghost cells, then
 *          MPI_Win_fence (MPI_Win_allocate, the first fence MPI_MODE_NOPRECEDE)
 *   lock   passive target: lock (exclusive) r+1, Put, Get, unlock
 *   pscw   post to r-1, start to r+1, Put to r+1, complete, wait
 *   misc   lock_all; Rput to r+1 and Rget from r-1 completed by MPI_Wait;
 *          Fetch_and_op and Compare_and_swap on r+1; flush_all; Raccumulate;
 *          flush_local_all; unlock_all; then a fence epoch with a Get_accumulate
 * Rank r computes COMPUTE_US x (1 + (r mod 3) / 2) before each epoch, so
 * the critical path changes with the latency.  The window is freed before
 * the end time is printed (its barriers are part of the run). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 5) {
    if (r == 0) fprintf(stderr, "usage: rma fence|fenceacc|halo|lock|pscw|misc ITERS BYTES COMPUTE_US\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *mode = argv[1];
  int iters = atoi(argv[2]), bytes = atoi(argv[3]);
  double compute = atof(argv[4]) * 1e-6 * (1.0 + (r % 3) / 2.0);
  int n = bytes / (int)sizeof(double);
  if (n < 1) n = 1;
  double *loc = calloc((size_t)n * 8, sizeof(double));
  double *base = NULL;
  MPI_Win w;
  int right = (r + 1) % p, left = (r + p - 1) % p, right2 = (r + 2) % p;
  if (!strcmp(mode, "halo")) {
    int dims[2] = {0, 0};
    MPI_Dims_create(p, 2, dims);
    int px = dims[0], py = dims[1], x = r % px, y = r / px;
    int nb[4] = {y * px + (x + px - 1) % px, y * px + (x + 1) % px, ((y + py - 1) % py) * px + x,
                 ((y + 1) % py) * px + x};
    MPI_Win_allocate((MPI_Aint)n * 4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &w);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, w);
    for (int it = 0; it < iters; it++) {
      smpi_execute_benched(compute);
      /* face k lands in the neighbour's ghost slot k ^ 1 (west <-> east, south <-> north) */
      for (int k = 0; k < 4; k++)
        MPI_Put(loc + (size_t)k * n, n, MPI_DOUBLE, nb[k], (MPI_Aint)(k ^ 1) * n, n, MPI_DOUBLE, w);
      MPI_Win_fence(it == iters - 1 ? MPI_MODE_NOSUCCEED : 0, w);
    }
  } else {
    base = calloc((size_t)n * 8, sizeof(double));
    MPI_Win_create(base, (MPI_Aint)n * 8 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    if (!strcmp(mode, "fence") || !strcmp(mode, "fenceacc")) {
      MPI_Win_fence(0, w);
      for (int it = 0; it < iters; it++) {
        smpi_execute_benched(compute);
        MPI_Put(loc, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, w);
        MPI_Get(loc + n, n, MPI_DOUBLE, right2, n, n, MPI_DOUBLE, w);
        if (mode[5])
          MPI_Accumulate(loc + 2 * n, n, MPI_DOUBLE, left, 2 * n, n, MPI_DOUBLE, MPI_SUM, w);
        MPI_Win_fence(0, w);
      }
    } else if (!strcmp(mode, "lock")) {
      for (int it = 0; it < iters; it++) {
        smpi_execute_benched(compute);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w);
        MPI_Put(loc, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, w);
        MPI_Get(loc + n, n, MPI_DOUBLE, right, n, n, MPI_DOUBLE, w);
        MPI_Win_unlock(right, w);
      }
    } else if (!strcmp(mode, "pscw")) {
      MPI_Group world, gl, gr;
      MPI_Comm_group(MPI_COMM_WORLD, &world);
      MPI_Group_incl(world, 1, &left, &gl);
      MPI_Group_incl(world, 1, &right, &gr);
      for (int it = 0; it < iters; it++) {
        smpi_execute_benched(compute);
        MPI_Win_post(gl, 0, w);
        MPI_Win_start(gr, 0, w);
        MPI_Put(loc, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, w);
        MPI_Win_complete(w);
        MPI_Win_wait(w);
      }
      MPI_Group_free(&gl);
      MPI_Group_free(&gr);
      MPI_Group_free(&world);
    } else if (!strcmp(mode, "misc")) {
      for (int it = 0; it < iters; it++) {
        MPI_Request q[2];
        double one = 1.0, old = 0.0, cmp = 0.0;
        smpi_execute_benched(compute);
        MPI_Win_lock_all(0, w);
        MPI_Rput(loc, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, w, &q[0]);
        MPI_Rget(loc + n, n, MPI_DOUBLE, left, n, n, MPI_DOUBLE, w, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        MPI_Fetch_and_op(&one, &old, MPI_DOUBLE, right, 3 * n, MPI_SUM, w);
        MPI_Compare_and_swap(&one, &cmp, &old, MPI_DOUBLE, right, 3 * n + 1, w);
        MPI_Win_flush_all(w);
        MPI_Raccumulate(loc, n, MPI_DOUBLE, left, 2 * n, n, MPI_DOUBLE, MPI_SUM, w, &q[0]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        MPI_Win_flush_local_all(w);
        MPI_Win_unlock_all(w);
      }
      MPI_Win_fence(0, w);
      MPI_Get_accumulate(loc, n, MPI_DOUBLE, loc + n, n, MPI_DOUBLE, right, 4 * n, n, MPI_DOUBLE, MPI_SUM, w);
      MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
    } else {
      if (r == 0) fprintf(stderr, "rma: unknown mode %s\n", mode);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Win_free(&w);
  if (strcmp(mode, "halo")) free(base);
  free(loc);
  /* every rank's end time: run.sh takes the largest as the simulated time */
  printf("end %d %.15g\n", r, MPI_Wtime());
  MPI_Finalize();
  return 0;
}
