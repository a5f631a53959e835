/* One collective, called ITERS times, for the consistency tests
 * (docs/consistency.md):
 *   coll COLLECTIVE BYTES ITERS COMPUTE_US [ROOT]
 * COLLECTIVE: barrier bcast reduce allreduce gather gatherv scatter scatterv
 * allgather allgatherv alltoall alltoallv reduce_scatter reduce_scatter_block
 * scan exscan.  BYTES (a multiple of 8: doubles) is the vector of bcast,
 * reduce, allreduce, scan, exscan and the block per rank (or per pair) of the
 * others; the v-variants give rank i BYTES + 8 x (i mod 3) bytes (alltoallv:
 * BYTES + 8 x ((i + j) mod 3) from i to j, reduce_scatter: rank i's block).
 * Before each call rank r computes COMPUTE_US x (1 + (r mod 4) / 3)
 * (smpi_execute_benched: deterministic), so ranks arrive at different times. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 5) {
    if (rank == 0) fprintf(stderr, "usage: coll COLLECTIVE BYTES ITERS COMPUTE_US [ROOT]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *c = argv[1];
  int n = atoi(argv[2]) / 8, iters = atoi(argv[3]), root = argc > 5 ? atoi(argv[5]) : 0;
  double compute = atof(argv[4]) * 1e-6 * (1.0 + (rank % 4) / 3.0);
  if (n < 1 || root < 0 || root >= p) {
    if (rank == 0) fprintf(stderr, "coll: BYTES must be >= 8 and ROOT a rank\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* per-rank counts of the v-variants (elements) and displacements */
  int *cnt = malloc(sizeof(int) * p), *dsp = malloc(sizeof(int) * p);
  int *scnt = malloc(sizeof(int) * p), *sdsp = malloc(sizeof(int) * p);
  int *rcnt = malloc(sizeof(int) * p), *rdsp = malloc(sizeof(int) * p);
  int tot = 0, stot = 0, rtot = 0;
  for (int i = 0; i < p; i++) {
    cnt[i] = n + i % 3;
    dsp[i] = tot;
    tot += cnt[i];
    scnt[i] = n + (rank + i) % 3; /* alltoallv: rank -> i */
    sdsp[i] = stot;
    stot += scnt[i];
    rcnt[i] = n + (i + rank) % 3; /* alltoallv: i -> rank */
    rdsp[i] = rtot;
    rtot += rcnt[i];
  }
  size_t big = (size_t)(tot > n * p ? tot : n * p) + (size_t)(stot > rtot ? stot : rtot) + 8;
  double *a = calloc(big, sizeof(double)), *b = calloc(big, sizeof(double));
  for (size_t i = 0; i < big; i++) a[i] = rank + (double)i;
  MPI_Comm w = MPI_COMM_WORLD;
  for (int it = 0; it < iters; it++) {
    smpi_execute_benched(compute);
    if (!strcmp(c, "barrier")) MPI_Barrier(w);
    else if (!strcmp(c, "bcast")) MPI_Bcast(a, n, MPI_DOUBLE, root, w);
    else if (!strcmp(c, "reduce")) MPI_Reduce(a, b, n, MPI_DOUBLE, MPI_SUM, root, w);
    else if (!strcmp(c, "allreduce")) MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(c, "gather")) MPI_Gather(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, root, w);
    else if (!strcmp(c, "gatherv"))
      MPI_Gatherv(a, cnt[rank], MPI_DOUBLE, b, cnt, dsp, MPI_DOUBLE, root, w);
    else if (!strcmp(c, "scatter")) MPI_Scatter(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, root, w);
    else if (!strcmp(c, "scatterv"))
      MPI_Scatterv(a, cnt, dsp, MPI_DOUBLE, b, cnt[rank], MPI_DOUBLE, root, w);
    else if (!strcmp(c, "allgather")) MPI_Allgather(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, w);
    else if (!strcmp(c, "allgatherv"))
      MPI_Allgatherv(a, cnt[rank], MPI_DOUBLE, b, cnt, dsp, MPI_DOUBLE, w);
    else if (!strcmp(c, "alltoall")) MPI_Alltoall(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, w);
    else if (!strcmp(c, "alltoallv"))
      MPI_Alltoallv(a, scnt, sdsp, MPI_DOUBLE, b, rcnt, rdsp, MPI_DOUBLE, w);
    else if (!strcmp(c, "reduce_scatter"))
      MPI_Reduce_scatter(a, b, cnt, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(c, "reduce_scatter_block"))
      MPI_Reduce_scatter_block(a, b, n, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(c, "scan")) MPI_Scan(a, b, n, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(c, "exscan")) MPI_Exscan(a, b, n, MPI_DOUBLE, MPI_SUM, w);
    else {
      if (rank == 0) fprintf(stderr, "coll: unknown collective '%s'\n", c);
      MPI_Abort(w, 2);
    }
  }
  smpi_execute_benched(compute);
  if (rank == 0) printf("coll: %s done, %d ranks\n", c, p);
  free(a);
  free(b);
  free(cnt);
  free(dsp);
  free(scnt);
  free(sdsp);
  free(rcnt);
  free(rdsp);
  /* every rank's end time: run.sh takes the largest as the simulated time */
  printf("end %d %.15g\n", rank, MPI_Wtime());
  MPI_Finalize();
  return 0;
}
