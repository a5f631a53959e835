/* Cross-check of the registry's SMPI names against SimGrid itself: for each
 * algorithm with an SMPI equivalent, run a one-collective MPI program under
 * smpirun with the options llamp_coll_selection_smpi_cfg produces, read the
 * point-to-point messages from SimGrid's Paje trace (internals traced, with
 * sizes) and compare, rank by rank, the sequence of (destination, bytes) of
 * every send with our expansion.  Self-messages of SMPI are ignored (they
 * are local copies here).
 *
 * Needs smpicc and smpirun on PATH; prints "skipped" and passes without
 * them.  About 15 s (some 250 smpirun runs of a few milliseconds). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llamp_coll.h"
#include "llamp_test.h"

/* COLL BYTES ROOT; an "i" before COLL runs the nonblocking variant + MPI_Wait. */
static const char *mpi_prog =
    "#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "#define C(blocking, nonblocking) (nb ? nonblocking : blocking)\n"
    "static void sum_nc(void *in, void *io, int *n, MPI_Datatype *t) {\n"
    "  int k = *n * (*t == MPI_DOUBLE ? 1 : 2); double *a = in, *b = io;\n"
    "  for (int i = 0; i < k; i++) b[i] += a[i];\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "  MPI_Init(&argc, &argv);\n"
    "  int p; MPI_Comm_size(MPI_COMM_WORLD, &p);\n"
    "  const char *c = argv[1]; int cnt = atoi(argv[2]) / 8, root = atoi(argv[3]);\n"
    "  int nb = c[0] == 'i'; if (nb) c++;\n"
    "  MPI_Request q = MPI_REQUEST_NULL, *R = &q;\n"
    "  double *s = calloc((size_t)cnt * p + 8, 8), *d = calloc((size_t)cnt * p + 8, 8);\n"
    "  int *cs = malloc(p * sizeof(int)), *ds = malloc(p * sizeof(int));\n"
    "  for (int i = 0; i < p; i++) cs[i] = cnt, ds[i] = i * cnt;\n"
    "  MPI_Datatype D = MPI_DOUBLE; MPI_Comm W = MPI_COMM_WORLD; MPI_Op S = MPI_SUM;\n"
    "  int fl = argc > 4 ? atoi(argv[4]) : 0;\n"
    "  if (fl) MPI_Op_create(sum_nc, !(fl & 1), &S); /* SMPI's MPI_SUM refuses derived types */\n"
    "  if (fl & 2) { MPI_Type_contiguous(2, MPI_DOUBLE, &D); MPI_Type_commit(&D); cnt /= 2;\n"
    "    for (int i = 0; i < p; i++) cs[i] = cnt, ds[i] = i * cnt; }\n"
    "  if (!strcmp(c, \"barrier\")) C(MPI_Barrier(W), MPI_Ibarrier(W, R));\n"
    "  else if (!strcmp(c, \"bcast\")) C(MPI_Bcast(s, cnt, D, root, W), MPI_Ibcast(s, cnt, D, root, W, R));\n"
    "  else if (!strcmp(c, \"reduce\")) C(MPI_Reduce(s, d, cnt, D, S, root, W), MPI_Ireduce(s, d, cnt, D, S, root, W, R));\n"
    "  else if (!strcmp(c, \"allreduce\")) C(MPI_Allreduce(s, d, cnt, D, S, W), MPI_Iallreduce(s, d, cnt, D, S, W, R));\n"
    "  else if (!strcmp(c, \"gather\")) C(MPI_Gather(s, cnt, D, d, cnt, D, root, W), MPI_Igather(s, cnt, D, d, cnt, D, root, W, R));\n"
    "  else if (!strcmp(c, \"gatherv\")) C(MPI_Gatherv(s, cnt, D, d, cs, ds, D, root, W), MPI_Igatherv(s, cnt, D, d, cs, ds, D, root, W, R));\n"
    "  else if (!strcmp(c, \"scatter\")) C(MPI_Scatter(s, cnt, D, d, cnt, D, root, W), MPI_Iscatter(s, cnt, D, d, cnt, D, root, W, R));\n"
    "  else if (!strcmp(c, \"scatterv\")) C(MPI_Scatterv(s, cs, ds, D, d, cnt, D, root, W), MPI_Iscatterv(s, cs, ds, D, d, cnt, D, root, W, R));\n"
    "  else if (!strcmp(c, \"allgather\")) C(MPI_Allgather(s, cnt, D, d, cnt, D, W), MPI_Iallgather(s, cnt, D, d, cnt, D, W, R));\n"
    "  else if (!strcmp(c, \"allgatherv\")) C(MPI_Allgatherv(s, cnt, D, d, cs, ds, D, W), MPI_Iallgatherv(s, cnt, D, d, cs, ds, D, W, R));\n"
    "  else if (!strcmp(c, \"alltoall\")) C(MPI_Alltoall(s, cnt, D, d, cnt, D, W), MPI_Ialltoall(s, cnt, D, d, cnt, D, W, R));\n"
    "  else if (!strcmp(c, \"alltoallv\")) C(MPI_Alltoallv(s, cs, ds, D, d, cs, ds, D, W), MPI_Ialltoallv(s, cs, ds, D, d, cs, ds, D, W, R));\n"
    "  else if (!strcmp(c, \"reduce_scatter\")) C(MPI_Reduce_scatter(s, d, cs, D, S, W), MPI_Ireduce_scatter(s, d, cs, D, S, W, R));\n"
    "  else if (!strcmp(c, \"reduce_scatter_block\")) C(MPI_Reduce_scatter_block(s, d, cnt, D, S, W), "
    "MPI_Ireduce_scatter_block(s, d, cnt, D, S, W, R));\n"
    "  else if (!strcmp(c, \"scan\")) C(MPI_Scan(s, d, cnt, D, S, W), MPI_Iscan(s, d, cnt, D, S, W, R));\n"
    "  else if (!strcmp(c, \"exscan\")) C(MPI_Exscan(s, d, cnt, D, S, W), MPI_Iexscan(s, d, cnt, D, S, W, R));\n"
    "  else return 2;\n"
    "  MPI_Wait(R, MPI_STATUS_IGNORE);\n"
    "  MPI_Finalize();\n"
    "  return 0;\n"
    "}\n";

static const char *platform =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n"
    "<cluster id=\"c\" prefix=\"n\" radical=\"0-31\" suffix=\"\" speed=\"1Gf\" bw=\"10GBps\" "
    "lat=\"1us\"/>\n"
    "</platform>\n";

static char dir[64];

typedef struct {
  int src, dst;
  uint64_t bytes;
} msg_t;

typedef struct {
  msg_t *m;
  size_t n, cap;
} msgs_t;

static void push(msgs_t *v, int src, int dst, uint64_t bytes) {
  if (v->n == v->cap) {
    v->cap = v->cap ? 2 * v->cap : 256;
    v->m = realloc(v->m, v->cap * sizeof *v->m);
  }
  v->m[v->n++] = (msg_t){src, dst, bytes};
}

/* Stable order by sender: each rank's sends in posting order. */
static int by_src(const void *a, const void *b) {
  const msg_t *x = a, *y = b;
  return x->src != y->src ? (x->src < y->src ? -1 : 1) : 0;
}
static void sort_by_src(msgs_t *v) {
  /* insertion sort: stable, and the vectors are small */
  for (size_t i = 1; i < v->n; i++) {
    msg_t t = v->m[i];
    size_t j = i;
    while (j > 0 && by_src(&v->m[j - 1], &t) > 0) v->m[j] = v->m[j - 1], j--;
    v->m[j] = t;
  }
}

static int cur_rank;
static msgs_t *cur_out;
static int e_send(void *ctx, int peer, uint64_t bytes, int tag) {
  (void)ctx, (void)tag;
  push(cur_out, cur_rank, peer, bytes);
  return 0;
}
static int e_recv(void *ctx, int peer, uint64_t bytes, int tag) {
  (void)ctx, (void)peer, (void)bytes, (void)tag;
  return 0;
}
static int e_end(void *ctx) {
  (void)ctx;
  return 0;
}

/* sel NULL: our defaults for a composite's parts (the comparisons then
 * select every collective in SMPI); else these parts. */
static void ours(const llamp_coll_algo_t *a, const llamp_coll_selection_t *sel, int p, int root,
                 uint64_t n, unsigned flags, msgs_t *out) {
  llamp_coll_emit_t e = {NULL, e_send, e_recv, NULL, e_end, NULL};
  char err[256];
  cur_out = out;
  llamp_coll_selection_t s;
  if (sel) s = *sel;
  else llamp_coll_selection_default(&s);
  s.algo[a->kind] = a;
  for (cur_rank = 0; cur_rank < p; cur_rank++) {
    llamp_coll_args_t args = {p, cur_rank, root, n, NULL, NULL, (flags & LLAMP_COLL_F_DERIVED) ? 16 : 8,
                              flags};
    CHECK(llamp_coll_run_selected(&s, a->kind, &args, &e, err, sizeof err) == 0);
  }
}

/* What SMPI's default selector runs, as a selection. */
static llamp_coll_selection_t smpi_defaults(void) {
  llamp_coll_selection_t s;
  llamp_coll_selection_default(&s);
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    const llamp_coll_algo_t *a = llamp_coll_smpi_find((llamp_coll_kind_t)k, "default", NULL);
    if (a) s.algo[k] = a;
  }
  return s;
}

/* Run smpirun; fill `out` with the non-self messages in trace order. */
static int theirs(const char *kind, const char *cfg, int p, int root, uint64_t n, unsigned flags,
                  msgs_t *out) {
  char cmd[2048], trace[128];
  snprintf(trace, sizeof trace, "%s/trace.paje", dir);
  unlink(trace);
  snprintf(cmd, sizeof cmd,
           "cd %s && smpirun -np %d -platform platform.xml %s --cfg=smpi/host-speed:1Gf "
           "--cfg=tracing:yes --cfg=tracing/smpi:yes --cfg=tracing/smpi/internals:yes "
           "--cfg=tracing/smpi/display-sizes:yes --cfg=tracing/filename:%s ./coll %s %llu %d %u "
           ">run.log 2>&1",
           dir, p, cfg, trace, kind, (unsigned long long)n, root, flags);
  if (system(cmd) != 0) {
    fprintf(stderr, "smpirun failed: %s (see %s/run.log)\n", cmd, dir);
    return -1;
  }
  FILE *f = fopen(trace, "r");
  if (!f) return -1;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    /* 15 <time> <type> <container> <value> <start container> <src>_<dst>_<tag>_<n> <size> */
    if (strncmp(line, "15 ", 3) != 0) continue;
    char key[128];
    unsigned long long size;
    if (sscanf(line, "15 %*s %*s %*s %*s %*s %127s %llu", key, &size) != 2) continue;
    int src, dst;
    if (sscanf(key, "%d_%d_", &src, &dst) != 2) continue;
    if (src != dst) push(out, src - 1, dst - 1, size); /* actor ids are ranks + 1 */
  }
  fclose(f);
  return 0;
}

static int g_runs = 0;

static void compare_flags(const llamp_coll_algo_t *a, const char *cfg, int p, int root, uint64_t n,
                          unsigned flags) {
  msgs_t o = {0}, t = {0};
  const char *kn = llamp_coll_kind_name(a->kind);
  llamp_coll_selection_t def = smpi_defaults();
  ours(a, *cfg ? NULL : &def, p, root, n, flags, &o); /* no option: SMPI's defaults everywhere */
  g_runs++;
  if (theirs(kn, cfg, p, root, n, flags, &t) != 0) {
    llamp_test_failures++;
  } else {
    sort_by_src(&o);
    sort_by_src(&t);
    int same = o.n == t.n;
    for (size_t i = 0; same && i < o.n; i++)
      same = o.m[i].src == t.m[i].src && o.m[i].dst == t.m[i].dst && o.m[i].bytes == t.m[i].bytes;
    if (!same) {
      fprintf(stderr, "%s/%s p=%d root=%d n=%llu flags=%u [%s]: %zu messages here, %zu in SMPI\n",
              kn, a->name, p, root, (unsigned long long)n, flags, cfg, o.n, t.n);
      for (size_t i = 0; i < o.n || i < t.n; i++) {
        if (i < o.n)
          fprintf(stderr, "  here %d->%d %llu", o.m[i].src, o.m[i].dst,
                  (unsigned long long)o.m[i].bytes);
        else
          fprintf(stderr, "  here -");
        if (i < t.n)
          fprintf(stderr, "\tsmpi %d->%d %llu\n", t.m[i].src, t.m[i].dst,
                  (unsigned long long)t.m[i].bytes);
        else
          fprintf(stderr, "\tsmpi -\n");
        if (i > 40) break;
      }
      llamp_test_failures++;
    }
  }
  free(o.m);
  free(t.m);
}

static void compare(const llamp_coll_algo_t *a, const char *cfg, int p, int root, uint64_t n) {
  compare_flags(a, cfg, p, root, n, 0);
}

int main(void) {
  if (system("command -v smpicc >/dev/null 2>&1 && command -v smpirun >/dev/null 2>&1") != 0) {
    printf("skipped: smpicc/smpirun not found\n");
    return 0;
  }
  strcpy(dir, "/tmp/llamp-coll-smpi-XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char path[128], cmd[512];
  snprintf(path, sizeof path, "%s/coll.c", dir);
  FILE *f = fopen(path, "w");
  fputs(mpi_prog, f);
  fclose(f);
  snprintf(path, sizeof path, "%s/platform.xml", dir);
  f = fopen(path, "w");
  fputs(platform, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cd %s && smpicc -O1 -o coll coll.c >build.log 2>&1", dir);
  if (system(cmd) != 0) {
    fprintf(stderr, "smpicc failed, see %s/build.log\n", dir);
    return 1;
  }

  static const int sizes[] = {2, 3, 5, 8, 12, 16};
  size_t na;
  const llamp_coll_algo_t *al = llamp_coll_algos(&na);
  for (size_t i = 0; i < na; i++) {
    const llamp_coll_algo_t *a = &al[i];
    if (!a->smpi) continue;
    /* The options the registry gives for this algorithm (reduce_scatter and
     * reduce_scatter_block share SMPI's key: select both). */
    llamp_coll_selection_t sel;
    llamp_coll_selection_default(&sel);
    sel.algo[a->kind] = a;
    if (a->kind == LLAMP_COLL_REDUCE_SCATTER || a->kind == LLAMP_COLL_REDUCE_SCATTER_BLOCK) {
      sel.algo[LLAMP_COLL_REDUCE_SCATTER] = llamp_coll_find(LLAMP_COLL_REDUCE_SCATTER, a->name);
      sel.algo[LLAMP_COLL_REDUCE_SCATTER_BLOCK] =
          llamp_coll_find(LLAMP_COLL_REDUCE_SCATTER_BLOCK, a->name);
    }
    char cfg[1024], miss[512];
    llamp_coll_selection_smpi_cfg(&sel, cfg, sizeof cfg, miss, sizeof miss);
    char item[64];
    snprintf(item, sizeof item, " %s=", llamp_coll_kind_name(a->kind));
    char padded[600];
    snprintf(padded, sizeof padded, " %s", miss);
    CHECK(strstr(padded, item) == NULL); /* this kind got its option */
    /* 125 doubles; the ring allreduce (SMPI lr) is only the same ring when
     * p divides the element count. */
    uint64_t n = 1000;
    if (a->kind == LLAMP_COLL_ALLREDUCE && !strcmp(a->name, "ring")) n = 8 * 1680;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      int p = sizes[s], pof2 = (p & (p - 1)) == 0;
      /* SMPI's nonblocking collectives are one round each: 3 sizes do */
      if (llamp_coll_kind_nonblocking(a->kind) && p != 3 && p != 8 && p != 12) continue;
      /* Documented differences (docs/collectives.md): recursive doubling
       * allgather(v) folds where MPICH does not; the alltoall pairwise
       * exchange maps to SMPI "ring" (exact for other sizes) and "pair"
       * (exact for powers of two, checked below). */
      if (!strcmp(a->name, "recursive_doubling") &&
          (a->kind == LLAMP_COLL_ALLGATHER || a->kind == LLAMP_COLL_ALLGATHERV) && !pof2)
        continue;
      if (a->kind == LLAMP_COLL_ALLTOALL && !strcmp(a->name, "pairwise") && pof2 && p > 2) {
        compare(a, "--cfg=smpi/alltoall:pair", p, 0, n);
        continue;
      }
      compare(a, cfg, p, 0, n);
      if (llamp_coll_kind_rooted(a->kind)) compare(a, cfg, p, p - 1, n);
      if (llamp_coll_kind_rooted(a->kind) && p > 4) compare(a, cfg, p, p / 2 - 1, n);
    }
  }
  /* Open MPI's alltoall decision (SMPI's default alltoall): Bruck, pair and
   * linear by size. */
  const llamp_coll_algo_t *ompi = llamp_coll_find(LLAMP_COLL_ALLTOALL, "ompi");
  compare(ompi, "", 16, 0, 8);      /* 16..31 ranks, 4..511 B: bruck */
  compare(ompi, "", 2, 0, 8);       /* 2 ranks, 4..15 B: pair */
  compare(ompi, "", 4, 0, 600000);  /* < 8 ranks, 512 KiB..1 MiB: pair */
  compare(ompi, "", 5, 0, 16000);   /* 16384 > n >= 8192: linear */
  /* Also the second SMPI name of the linear reduce. */
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    compare(llamp_coll_find(LLAMP_COLL_REDUCE, "linear"), "--cfg=smpi/reduce:ompi_basic_linear",
            sizes[s], sizes[s] / 2, 1000);

  /* Reductions SMPI's defaults run otherwise: a non-commutative user
   * operation (flag 1) and a derived datatype of two doubles (flag 2, with a
   * commutative user operation: SMPI's MPI_SUM refuses derived types).  The
   * default reduce becomes basic linear; the default allreduce runs Open
   * MPI's decision for the derived type: redbcast, rdb, lr (also as the
   * segmented ring's fallback) or rab_rdb by size and bytes. */
  const llamp_coll_algo_t *red = llamp_coll_find(LLAMP_COLL_REDUCE, "linear_nb"),
                          *all = llamp_coll_find(LLAMP_COLL_ALLREDUCE, "linear_reduce_bcast"),
                          *rsc = llamp_coll_find(LLAMP_COLL_REDUCE_SCATTER_BLOCK, "reduce_scatterv");
  static const struct {
    int p;
    uint64_t n;
  } dt[] = {/* rdb */ {2, 32}, {3, 160}, {8, 1600}, {16, 1600},
            /* lr, and lr as the segmented ring's fallback */ {3, 4800}, {3, 40000}, {3, 100000},
            {16, 32}, {24, 48},
            /* rab_rdb; redbcast for a non-commutative operation */ {3, 300000}, {5, 16384},
            {12, 16000}, {16, 16000}};
  for (unsigned fl = 1; fl <= 3; fl++) {
    compare_flags(red, "", 5, 2, 1600, fl);
    compare_flags(red, "", 8, 0, 1600, fl);
    compare_flags(rsc, "", 6, 0, 960, fl);
    for (size_t i = 0; i < sizeof dt / sizeof dt[0]; i++)
      if (fl != 1 || i % 3 == 0) compare_flags(all, "", dt[i].p, 0, dt[i].n, fl);
  }
  /* smpi/allreduce:ompi for every call */
  const llamp_coll_algo_t *aompi = llamp_coll_find(LLAMP_COLL_ALLREDUCE, "ompi");
  compare_flags(aompi, "--cfg=smpi/allreduce:ompi", 3, 0, 8, 0);
  compare_flags(aompi, "--cfg=smpi/allreduce:ompi", 16, 0, 16000, 0);
  compare_flags(aompi, "--cfg=smpi/allreduce:ompi", 6, 0, 800, 1);

  printf("%d smpirun comparisons\n", g_runs);
  if (!llamp_test_failures) {
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  }
  TEST_DONE();
}
