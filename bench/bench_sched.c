/* DAG construction from traces: a 2-D halo (periodic px x py ranks; each
 * iteration a compute phase, Irecv + Isend to the 4 neighbours, Waitall)
 * written into in-memory trace writers, then llamp_sched_build timed.
 * Prints records/s (the trace events the capture recorded), vertices/s, and
 * the writers' memory per record; a read-only pass shows what decoding the
 * records costs on its own.  No targets are asserted (shared machines).
 * usage: bench_sched [records=10000000] [ranks=64] [gap=0] [reps=3] [allreduce=0] [nb=4]
 *   gap: seconds between consecutive MPI calls (each gap becomes a calc)
 *   allreduce: 8-byte MPI_Allreduce calls per iteration (a CG-like trace:
 *   few ranks, small messages, collectives; e.g. ranks=8 nb=2 allreduce=2)
 *   nb: neighbours per iteration, 2 (a 1-D ring) or 4
 *   colls: collective selection ("allreduce=ring"; default: the defaults)
 *   out: write the first build's graph there (llamp_graph_write_binary) and
 *   its stats to out.stats, to compare two builds of the code byte for byte
 *   threads: 1 or 2 (sched's option); default both, alternated, and their ratio
 * Times are wall clock (two threads run at once). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "llamp_graph.h"
#include "llamp_mem.h"
#include "llamp_sched.h"
#include "llamp_trace.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double arg(int argc, char **argv, const char *key, double def) {
  size_t n = strlen(key);
  for (int i = 1; i < argc; i++)
    if (!strncmp(argv[i], key, n) && argv[i][n] == '=') return atof(argv[i] + n + 1);
  return def;
}

/* A string argument key=value, or def. */
static const char *sarg(int argc, char **argv, const char *key, const char *def) {
  size_t n = strlen(key);
  for (int i = 1; i < argc; i++)
    if (!strncmp(argv[i], key, n) && argv[i][n] == '=') return argv[i] + n + 1;
  return def;
}

static long peak_rss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* The graph at `path`, its stats at path.stats; 0 / -1 (said). */
static int dump(const llamp_graph_t *g, const llamp_sched_stats_t *st, const char *path) {
  char err[1024], spath[4096];
  if (llamp_graph_write_binary(g, path, err, sizeof err)) {
    fprintf(stderr, "bench_sched: %s\n", err);
    return -1;
  }
  snprintf(spath, sizeof spath, "%s.stats", path);
  FILE *f = fopen(spath, "w");
  if (!f) {
    fprintf(stderr, "bench_sched: cannot write %s\n", spath);
    return -1;
  }
  llamp_sched_stats_print(st, f);
  fprintf(f, "graph: %llu vertices, %llu edges, %llu messages\n", (unsigned long long)st->vertices,
          (unsigned long long)st->edges, (unsigned long long)st->messages);
  return fclose(f) ? -1 : 0;
}

/* The build's stages (records, matching, levels, relayout), timed by the
 * sched's stage hook: the best of each over the kept-pages series, per
 * thread count. */
#define MAX_STAGES 8
typedef struct {
  double last;
  int count, on;
  const char *name[MAX_STAGES];
  double best[2][MAX_STAGES];
  int threads;
} stages_t;
static stages_t stages;

static void stage_hook(void *ctx, const char *name) {
  stages_t *s = ctx;
  double t = now(), d = t - s->last;
  s->last = t;
  if (!s->on) return;
  int i = 0;
  while (i < s->count && strcmp(s->name[i], name)) i++;
  if (i == s->count) {
    if (s->count == MAX_STAGES) return;
    s->name[s->count++] = name;
    s->best[0][i] = s->best[1][i] = INFINITY;
  }
  if (d < s->best[s->threads - 1][i]) s->best[s->threads - 1][i] = d;
}

/* One llamp_sched_build of the writers' traces with `threads`; its wall
 * time, or -1 (said).  out: write the graph there. */
static double build_once(llamp_trace_writer_t **w, llamp_trace_reader_t **rd, uint32_t P, llamp_sched_options_t *opt,
                         int threads, llamp_sched_stats_t *st, const char *out) {
  char err[1024];
  opt->threads = threads;
  opt->stage = stage_hook;
  opt->stage_ctx = &stages;
  stages.threads = threads;
  double a = now();
  stages.last = a;
  for (uint32_t r = 0; r < P; r++) rd[r] = llamp_trace_reader_from_writer(w[r], err, sizeof err);
  llamp_sched_stats_free(st);
  llamp_graph_t *g = llamp_sched_build(rd, P, opt, st, err, sizeof err);
  for (uint32_t r = 0; r < P; r++) llamp_trace_reader_destroy(rd[r]);
  double d = now() - a;
  if (!g) {
    fprintf(stderr, "bench_sched: %s\n", err);
    return -1;
  }
  if (out && dump(g, st, out)) d = -1;
  llamp_graph_destroy(g);
  return d;
}

int main(int argc, char **argv) {
  char err[1024];
  uint64_t want = (uint64_t)arg(argc, argv, "records", 1e7);
  uint32_t P = (uint32_t)arg(argc, argv, "ranks", 64);
  double gap = arg(argc, argv, "gap", 0);
  int reps = (int)arg(argc, argv, "reps", 3);
  int nallr = (int)arg(argc, argv, "allreduce", 0);
  int nbs = arg(argc, argv, "nb", 4) == 2 ? 2 : 4;
  const char *out = sarg(argc, argv, "out", NULL);
  int nthreads = (int)arg(argc, argv, "threads", 0);
  if (nthreads < 0 || nthreads > 2) nthreads = 2;
  llamp_sched_options_t opt;
  llamp_sched_options_default(&opt);
  opt.collectives = sarg(argc, argv, "colls", NULL);
  uint32_t px = (uint32_t)sqrt((double)P);
  while (P % px) px--;
  uint32_t py = P / px;
  uint64_t iters = want / ((uint64_t)P * (2 * nbs + 1 + nallr));
  if (iters == 0) iters = 1;
  const double compute = 10e-6, call = 0.3e-6;
  const uint64_t bytes = 8192;

  double t0 = now();
  llamp_trace_writer_t **w = calloc(P, sizeof *w);
  for (uint32_t r = 0; r < P; r++) {
    w[r] = llamp_trace_writer_create(NULL, r, P, 0, err, sizeof err);
    if (!w[r]) {
      fprintf(stderr, "bench_sched: %s\n", err);
      return 1;
    }
    uint32_t x = r % px, y = r / px;
    uint32_t nb[4] = {y * px + (x + 1) % px, y * px + (x + px - 1) % px,
                      ((y + 1) % py) * px + x, ((y + py - 1) % py) * px + x};
    llamp_trace_rec_t rec;
    memset(&rec, 0, sizeof rec);
    double t = 1.0 + 1e-3 * r;
    uint64_t req = 0, pl[16];
    rec.op = LLAMP_OP_INIT;
    rec.peer = LLAMP_TRACE_NO_PEER;
    rec.tag = -1;
    rec.req = LLAMP_TRACE_NO_REQ;
    rec.status_source = rec.status_tag = -1;
    rec.t_start = t;
    rec.t_end = t += call;
    llamp_trace_append(w[r], &rec, NULL);
    for (uint64_t it = 0; it < iters; it++) {
      t += compute * (1 + 0.01 * ((r * 7 + it) % 5));
      for (int k = 0; k < 2 * nbs; k++) {
        int is_recv = k < nbs;
        memset(&rec, 0, sizeof rec);
        rec.op = is_recv ? LLAMP_OP_IRECV : LLAMP_OP_ISEND;
        rec.peer = (int32_t)nb[is_recv ? (k ^ 1) : k - nbs];
        rec.tag = is_recv ? k : k - nbs; /* direction d: sent to nb[d], received from nb[d^1] */
        rec.bytes = bytes;
        rec.req = req++;
        rec.status_source = rec.status_tag = -1;
        rec.t_start = t;
        rec.t_end = t += call;
        t += gap;
        pl[2 * k] = rec.req;
        pl[2 * k + 1] = is_recv ? llamp_trace_pack_status(1, rec.peer, rec.tag)
                                : llamp_trace_pack_status(1, -1, -1);
        if (llamp_trace_append(w[r], &rec, NULL)) {
          fprintf(stderr, "bench_sched: %s\n", llamp_trace_writer_error(w[r]));
          return 1;
        }
      }
      memset(&rec, 0, sizeof rec);
      rec.op = LLAMP_OP_WAITALL;
      rec.peer = LLAMP_TRACE_NO_PEER;
      rec.tag = -1;
      rec.req = LLAMP_TRACE_NO_REQ;
      rec.status_source = rec.status_tag = -1;
      rec.nwords = 4 * nbs;
      rec.t_start = t;
      rec.t_end = t += 2 * call;
      llamp_trace_append(w[r], &rec, pl);
      for (int k = 0; k < nallr; k++) {
        memset(&rec, 0, sizeof rec);
        rec.op = LLAMP_OP_ALLREDUCE;
        rec.comm = LLAMP_TRACE_COMM_WORLD;
        rec.peer = LLAMP_TRACE_NO_PEER;
        rec.tag = 8; /* collective records: the datatype's size */
        rec.bytes = 8;
        rec.req = LLAMP_TRACE_NO_REQ;
        rec.status_source = rec.status_tag = -1;
        rec.t_start = t += compute / 10;
        rec.t_end = t += call;
        llamp_trace_append(w[r], &rec, NULL);
      }
    }
    rec.op = LLAMP_OP_FINALIZE;
    rec.nwords = 0;
    rec.t_start = t += compute;
    rec.t_end = t += call;
    llamp_trace_append(w[r], &rec, NULL);
  }
  double twrite = now() - t0;
  uint64_t records = 0;
  size_t mem = 0;
  for (uint32_t r = 0; r < P; r++) {
    records += llamp_trace_records(w[r]);
    mem += llamp_trace_writer_memory(w[r]);
  }
  printf("trace: 2-D halo %ux%u (%d neighbours, %d allreduce per iteration), %llu iterations, "
         "%llu records (%.1f M records/s written)\n", px, py, nbs, nallr, (unsigned long long)iters, (unsigned long long)records, records / twrite / 1e6);
  printf("trace memory: %.1f MiB, %.1f B/record\n", mem / 1048576.0, (double)mem / records);

  llamp_trace_reader_t **rd = calloc(P, sizeof *rd);
  /* best wall times: [threads - 1][fresh, kept] */
  double tread = INFINITY, tbuild[2][2] = {{INFINITY, INFINITY}, {INFINITY, INFINITY}};
  llamp_sched_stats_t st;
  memset(&st, 0, sizeof st);
  /* reps builds on fresh pages (glibc maps blocks this large anew each
   * time), one thread and two alternating so that both see the same
   * machine; then, on the heap's own pages, kept (as at the capture's
   * MPI_Finalize, whose memory is faulted in during the simulation:
   * llamp_mem.h), a series of reps builds per thread count after one that
   * lays out and faults in the heap for it and is not counted */
  int tlo = nthreads ? nthreads : 1, thi = nthreads ? nthreads : 2;
  for (int rep = 0; rep < reps; rep++) {
    /* decoding alone */
    double a = now();
    uint64_t sum = 0;
    for (uint32_t r = 0; r < P; r++) {
      llamp_trace_reader_t *x = llamp_trace_reader_from_writer(w[r], err, sizeof err);
      llamp_trace_rec_t rec;
      const uint64_t *pl;
      while (llamp_trace_next(x, &rec, &pl, err, sizeof err) == 1) sum += rec.op;
      llamp_trace_reader_destroy(x);
    }
    double d = now() - a;
    if (d < tread) tread = d;
    if (sum == 0) printf("(nothing read)\n");
    for (int th = tlo; th <= thi; th++) {
      d = build_once(w, rd, P, &opt, th, &st, out && rep == 0 && th == tlo ? out : NULL);
      if (d < 0) return 1;
      if (d < tbuild[th - 1][0]) tbuild[th - 1][0] = d;
    }
  }
  printf("peak RSS after the builds on fresh pages: %.1f MiB\n", peak_rss_kib() / 1024.0);
  llamp_mem_keep_freed();
  for (int th = tlo; th <= thi; th++)
    for (int rep = 0; rep <= reps; rep++) {
      stages.on = rep > 0;
      double d = build_once(w, rd, P, &opt, th, &st, NULL);
      if (d < 0) return 1;
      if (rep && d < tbuild[th - 1][1]) tbuild[th - 1][1] = d;
    }
  printf("graph: %llu vertices (%llu calc), %llu edges, %llu messages\n",
         (unsigned long long)st.vertices, (unsigned long long)st.calcs,
         (unsigned long long)st.edges, (unsigned long long)st.messages);
  printf("read only:  %.3f s, %.1f M records/s\n", tread, records / tread / 1e6);
  for (int th = tlo; th <= thi; th++) {
    printf("sched build, %d thread%s: %.3f s, %.2f M records/s, %.2f M vertices/s (best of %d)\n", th,
           th > 1 ? "s" : "", tbuild[th - 1][0], records / tbuild[th - 1][0] / 1e6, st.vertices / tbuild[th - 1][0] / 1e6,
           reps);
    printf("sched build, %d thread%s, pages kept: %.3f s, %.2f M records/s (best of %d; the capture's case)\n", th,
           th > 1 ? "s" : "", tbuild[th - 1][1], records / tbuild[th - 1][1] / 1e6, reps);
  }
  for (int th = tlo; th <= thi; th++) {
    printf("  by stage, %d thread%s, pages kept (best of each):", th, th > 1 ? "s" : "");
    for (int i = 0; i < stages.count; i++) printf(" %s %.2f ms", stages.name[i], 1e3 * stages.best[th - 1][i]);
    printf("\n");
  }
  if (tlo == 1 && thi == 2)
    printf("two threads against one: x%.2f faster on fresh pages, x%.2f on kept pages\n", tbuild[0][0] / tbuild[1][0],
           tbuild[0][1] / tbuild[1][1]);
  printf("peak RSS: %.1f MiB\n", peak_rss_kib() / 1024.0);
  llamp_sched_stats_free(&st);
  for (uint32_t r = 0; r < P; r++) llamp_trace_writer_destroy(w[r]);
  free(w);
  free(rd);
  return 0;
}
