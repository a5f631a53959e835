/* One collective, called ITERS times, for the consistency tests
 * (docs/consistency.md):
 *   coll COLLECTIVE BYTES ITERS COMPUTE_US [ROOT]
 * COLLECTIVE: barrier bcast reduce allreduce (allreduce_min: MPI_MIN) gather gatherv scatter scatterv
 * allgather allgatherv alltoall alltoallv reduce_scatter reduce_scatter_block
 * scan exscan alltoallv_inplace (alltoallv's counts, MPI_IN_PLACE)
 * alltoallv_zerotype (every rank sends alltoallv's counts of a zero-size
 * type and receives 0 doubles: SMPI's ialltoallv then sends nothing)
 * alltoallw (pair (r, i) exchanges BYTES + 8 x ((r + i) mod 3)
 * bytes as doubles, or as ints when r + i is odd) split (MPI_Comm_split into rank mod 3, keys reversed, then
 * MPI_Comm_free), and each but split with an "i" before it: the nonblocking variant
 * followed by MPI_Wait.  BYTES (a multiple of 8: doubles) is the vector of bcast,
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
  int nb = c[0] == 'i';
  if (nb) c++;
  MPI_Request q = MPI_REQUEST_NULL, *R = &q;
/* the blocking call, or the nonblocking one (its arguments and R) */
#define CALL(blocking, ...) (nb ? I##blocking(__VA_ARGS__, R) : blocking(__VA_ARGS__))
#define IMPI_Barrier MPI_Ibarrier
#define IMPI_Bcast MPI_Ibcast
#define IMPI_Reduce MPI_Ireduce
#define IMPI_Allreduce MPI_Iallreduce
#define IMPI_Gather MPI_Igather
#define IMPI_Gatherv MPI_Igatherv
#define IMPI_Scatter MPI_Iscatter
#define IMPI_Scatterv MPI_Iscatterv
#define IMPI_Allgather MPI_Iallgather
#define IMPI_Allgatherv MPI_Iallgatherv
#define IMPI_Alltoall MPI_Ialltoall
#define IMPI_Alltoallv MPI_Ialltoallv
#define IMPI_Reduce_scatter MPI_Ireduce_scatter
#define IMPI_Reduce_scatter_block MPI_Ireduce_scatter_block
#define IMPI_Scan MPI_Iscan
#define IMPI_Exscan MPI_Iexscan
#define IMPI_Alltoallw MPI_Ialltoallw
  MPI_Datatype ztype; /* alltoallv_zerotype */
  int *zero = calloc((size_t)p, sizeof(int));
  MPI_Type_contiguous(0, MPI_DOUBLE, &ztype);
  MPI_Type_commit(&ztype);
  /* alltoallw: per-pair types, counts and byte displacements */
  MPI_Datatype *wst = malloc(sizeof(MPI_Datatype) * p);
  int *wsc = malloc(sizeof(int) * p), *wsd = malloc(sizeof(int) * p), *wrd = malloc(sizeof(int) * p);
  for (int i = 0, off = 0; i < p; i++) {
    int odd = (rank + i) % 2;
    wst[i] = odd ? MPI_INT : MPI_DOUBLE;
    wsc[i] = (n + (rank + i) % 3) * (odd ? 2 : 1);
    wsd[i] = wrd[i] = off;
    off += 8 * (n + (rank + i) % 3);
  }
  for (int it = 0; it < iters; it++) {
    smpi_execute_benched(compute);
    if (!strcmp(c, "barrier")) CALL(MPI_Barrier, w);
    else if (!strcmp(c, "bcast")) CALL(MPI_Bcast, a, n, MPI_DOUBLE, root, w);
    else if (!strcmp(c, "reduce")) CALL(MPI_Reduce, a, b, n, MPI_DOUBLE, MPI_SUM, root, w);
    else if (!strcmp(c, "allreduce")) CALL(MPI_Allreduce, a, b, n, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(c, "allreduce_min")) CALL(MPI_Allreduce, a, b, n, MPI_DOUBLE, MPI_MIN, w);
    else if (!strcmp(c, "gather")) CALL(MPI_Gather, a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, root, w);
    else if (!strcmp(c, "gatherv"))
      CALL(MPI_Gatherv, a, cnt[rank], MPI_DOUBLE, b, cnt, dsp, MPI_DOUBLE, root, w);
    else if (!strcmp(c, "scatter")) CALL(MPI_Scatter, a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, root, w);
    else if (!strcmp(c, "scatterv"))
      CALL(MPI_Scatterv, a, cnt, dsp, MPI_DOUBLE, b, cnt[rank], MPI_DOUBLE, root, w);
    else if (!strcmp(c, "allgather")) CALL(MPI_Allgather, a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, w);
    else if (!strcmp(c, "allgatherv"))
      CALL(MPI_Allgatherv, a, cnt[rank], MPI_DOUBLE, b, cnt, dsp, MPI_DOUBLE, w);
    else if (!strcmp(c, "alltoall")) CALL(MPI_Alltoall, a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, w);
    else if (!strcmp(c, "alltoallv"))
      CALL(MPI_Alltoallv, a, scnt, sdsp, MPI_DOUBLE, b, rcnt, rdsp, MPI_DOUBLE, w);
    else if (!strcmp(c, "reduce_scatter"))
      CALL(MPI_Reduce_scatter, a, b, cnt, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(c, "reduce_scatter_block"))
      CALL(MPI_Reduce_scatter_block, a, b, n, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(c, "scan")) CALL(MPI_Scan, a, b, n, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(c, "exscan")) CALL(MPI_Exscan, a, b, n, MPI_DOUBLE, MPI_SUM, w);
    else if (!strcmp(c, "alltoallv_inplace"))
      CALL(MPI_Alltoallv, MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, rcnt, rdsp, MPI_DOUBLE, w);
    else if (!strcmp(c, "alltoallv_zerotype")) CALL(MPI_Alltoallv, a, scnt, sdsp, ztype, b, zero, rdsp, MPI_DOUBLE, w);
    else if (!strcmp(c, "alltoallw")) CALL(MPI_Alltoallw, a, wsc, wsd, wst, b, wsc, wrd, wst, w);
    else if (!strcmp(c, "split") && !nb) {
      MPI_Comm nc;
      MPI_Comm_split(w, rank % 3, p - rank, &nc);
      MPI_Comm_free(&nc);
    } else {
      if (rank == 0) fprintf(stderr, "coll: unknown collective '%s'\n", argv[1]);
      MPI_Abort(w, 2);
    }
    if (nb) MPI_Wait(R, MPI_STATUS_IGNORE);
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
  free(wst);
  free(zero);
  MPI_Type_free(&ztype);
  free(wsc);
  free(wsd);
  free(wrd);
  /* every rank's end time: run.sh takes the largest as the simulated time */
  printf("end %d %.15g\n", rank, MPI_Wtime());
  MPI_Finalize();
  return 0;
}
