/* Out of core (issue 12): a 3-D halo graph written vertex by vertex to a
 * binary graph file (llamp_graph_stream_*, never in memory), then analysed
 * from the mapped file by llamp_engine_stream_point (one pass, a window of
 * the graph in memory).  Prints each stage's wall time, the file size and
 * the process's memory; with --check (small graphs) also the in-memory
 * engine's answer, which must be the same bit for bit.
 *
 * usage: bench_outofcore FILE PX PY PZ ITERS [--check] [--keep]
 *   events = 13 PX PY PZ ITERS (per rank and iteration: a calc, 6 sends,
 *   6 receives); 16 16 16 18780 is 10^9 events, a 36 GB file.
 *
 * The graph: iteration i of rank r computes (50-55 us, varying with r and i,
 * after its 6 receives of iteration i-1), sends 8 KiB to each of its 6 torus
 * neighbours, and receives theirs.  Stored order: per iteration, every
 * rank's calc and sends, then every rank's receives (topological, every
 * in-edge within 13 P vertices: the window is 64 Ki vertices at P = 4096). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "llamp_engine.h"
#include "llamp_graph.h"

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void memory(const char *when) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return;
  char line[256];
  double hwm = -1, anon = -1, file = -1;
  while (fgets(line, sizeof line, f)) {
    double kb;
    if (sscanf(line, "VmHWM: %lf kB", &kb) == 1) hwm = kb / 1048576;
    else if (sscanf(line, "RssAnon: %lf kB", &kb) == 1) anon = kb / 1048576;
    else if (sscanf(line, "RssFile: %lf kB", &kb) == 1) file = kb / 1048576;
  }
  fclose(f);
  printf("memory %s: peak RSS %.2f GB; now %.3f GB allocated, %.2f GB of mapped file pages\n", when, hwm,
         anon, file);
}

static uint32_t PX, PY, PZ, P;
static uint64_t ITERS;

/* vertex numbers: iteration block i holds 13 P vertices */
static uint64_t v_calc(uint64_t i, uint32_t r) { return i * 13 * P + 7 * (uint64_t)r; }
static uint64_t v_send(uint64_t i, uint32_t r, int d) { return v_calc(i, r) + 1 + (uint64_t)d; }
static uint64_t v_recv(uint64_t i, uint32_t r, int d) { return i * 13 * P + 7 * (uint64_t)P + 6 * (uint64_t)r + (uint64_t)d; }

/* direction d: axis d / 2, sign +1 for even d; its opposite is d ^ 1 */
static uint32_t neighbour(uint32_t r, int d) {
  uint32_t c[3] = {r % PX, r / PX % PY, r / PX / PY}, dim[3] = {PX, PY, PZ};
  int ax = d / 2;
  c[ax] = (c[ax] + (d % 2 ? dim[ax] - 1 : 1)) % dim[ax];
  return c[0] + PX * (c[1] + PY * c[2]);
}

/* builder ids: rank-major, program order within a rank */
static uint32_t id_of(uint32_t r, uint64_t i, int k) { return (uint32_t)((uint64_t)r * 13 * ITERS + i * 13 + (uint64_t)k); }

static int generate(const char *path, char *err, size_t errlen) {
  uint64_t n = 13 * (uint64_t)P * ITERS, m = (uint64_t)P * (24 * ITERS - 6), msgs = 6 * (uint64_t)P * ITERS;
  llamp_graph_stream_t *s = llamp_graph_stream_create(path, P, n, m, msgs, err, errlen);
  if (!s) return -1;
  const double bytes = 8192;
  int is_tty = isatty(2);
  for (uint64_t i = 0; i < ITERS; i++) {
    if (is_tty && (i % 256 == 0 || i + 1 == ITERS))
      fprintf(stderr, "\rwriting iteration %llu of %llu", (unsigned long long)i + 1, (unsigned long long)ITERS);
    for (uint32_t r = 0; r < P; r++) {
      uint32_t in[6];
      for (int d = 0; d < 6; d++) in[d] = (uint32_t)v_recv(i - 1, r, d); /* i > 0 only */
      double compute = 50e-6 * (1 + 0.1 * (double)((r * 7 + i * 13) % 11) / 10);
      if (llamp_graph_stream_vertex(s, LLAMP_VERTEX_CALC, r, compute, 0, UINT32_MAX, id_of(r, i, 0),
                                    i ? 6 : 0, in))
        goto fail;
      uint32_t after_calc = (uint32_t)v_calc(i, r);
      for (int d = 0; d < 6; d++)
        if (llamp_graph_stream_vertex(s, LLAMP_VERTEX_SEND, r, bytes, d, (uint32_t)v_recv(i, neighbour(r, d), d ^ 1),
                                      id_of(r, i, 1 + d), 1, &after_calc))
          goto fail;
    }
    for (uint32_t r = 0; r < P; r++)
      for (int d = 0; d < 6; d++) {
        /* receive from the neighbour in direction d, which sent it toward d ^ 1 */
        uint32_t from = neighbour(r, d), in[2];
        in[0] = (uint32_t)v_calc(i, r);
        in[1] = (uint32_t)v_send(i, from, d ^ 1) | (uint32_t)LLAMP_EDGE_MESSAGE << LLAMP_EDGE_KIND_SHIFT;
        if (llamp_graph_stream_vertex(s, LLAMP_VERTEX_RECV, r, bytes, d ^ 1, (uint32_t)v_send(i, from, d ^ 1),
                                      id_of(r, i, 7 + d), 2, in))
          goto fail;
      }
  }
  if (is_tty) fputc('\n', stderr);
  uint64_t *first = malloc(((size_t)P + 1) * sizeof *first);
  if (!first) goto fail;
  for (uint32_t r = 0; r <= P; r++) first[r] = (uint64_t)r * 13 * ITERS;
  int rc = llamp_graph_stream_close(s, first, err, errlen);
  free(first);
  return rc;
fail:
  snprintf(err, errlen, "%s: writing failed", path);
  llamp_graph_stream_abort(s);
  return -1;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: bench_outofcore FILE PX PY PZ ITERS [--check] [--keep]\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0); /* a log file shows each stage as it ends */
  const char *path = argv[1];
  PX = (uint32_t)atoi(argv[2]);
  PY = (uint32_t)atoi(argv[3]);
  PZ = (uint32_t)atoi(argv[4]);
  ITERS = strtoull(argv[5], NULL, 10);
  int check = 0, keep = 0;
  for (int a = 6; a < argc; a++) {
    check |= !strcmp(argv[a], "--check");
    keep |= !strcmp(argv[a], "--keep");
  }
  P = PX * PY * PZ;
  if (PX < 3 || PY < 3 || PZ < 3 || ITERS < 1 || 13 * (uint64_t)P * ITERS > LLAMP_EDGE_SRC_MASK) {
    fprintf(stderr, "bench_outofcore: each dimension >= 3 ranks, ITERS >= 1, 13 P ITERS < 2^30 events\n");
    return 2;
  }
  char err[512] = "";
  double t0 = wall();
  if (generate(path, err, sizeof err)) {
    fprintf(stderr, "bench_outofcore: %s\n", err);
    return 1;
  }
  double t1 = wall();
  FILE *f = fopen(path, "rb");
  long long size = -1;
  if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (f) fclose(f);
  printf("halo3d %ux%ux%u, %llu iterations: %llu events, file %.2f GB, written in %.1f s (checksum pass included)\n",
         PX, PY, PZ, (unsigned long long)ITERS, (unsigned long long)(13 * (uint64_t)P * ITERS), size / 1e9, t1 - t0);
  /* the page cache of the file dropped: the analysis reads it from disk */
  if (system("sync; echo 1 > /proc/sys/vm/drop_caches 2>/dev/null") != 0) {
  }
  double t2 = wall();
  llamp_graph_t *g = llamp_graph_read_binary(path, err, sizeof err);
  if (!g) {
    fprintf(stderr, "bench_outofcore: %s\n", err);
    return 1;
  }
  double t3 = wall();
  printf("reading (mapped; checksum and bounds checks: one pass over the file): %.1f s\n", t3 - t2);
  llamp_params_t p;
  llamp_params_default(&p);
  p.L = 3e-6;
  p.o = 1e-6;
  llamp_point_t st;
  if (llamp_engine_stream_point(g, &p, 16 * (uint64_t)P, &st, err, sizeof err)) {
    fprintf(stderr, "bench_outofcore: %s\n", err);
    return 1;
  }
  double t4 = wall();
  printf("out-of-core evaluation (window 16 P = %u vertices): %.1f s, %.1f M events/s\n", 16 * P, t4 - t3,
         13.0 * P * ITERS / (t4 - t3) / 1e6);
  printf("T = %.9g s (%a), lambda_L = %.9g, lambda_G = %.9g B, lambda_o = %.9g, rho_L = %.4g\n", st.T, st.T,
         st.lambda[LLAMP_PARAM_L], st.lambda[LLAMP_PARAM_G], st.lambda[LLAMP_PARAM_O], st.rho_L);
  memory("after the analysis");
  int rc = 0;
  if (check) {
    llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
    llamp_point_t in;
    if (!e || llamp_engine_point(e, &p, &in)) {
      fprintf(stderr, "bench_outofcore: in-memory engine: %s\n", err);
      return 1;
    }
    int same = !memcmp(&in.T, &st.T, sizeof in.T);
    for (int w = 0; w < LLAMP_NUM_PARAMS; w++)
      same = same && !memcmp(&in.lambda[w], &st.lambda[w], sizeof in.lambda[w]) &&
             !memcmp(&in.lambda_left[w], &st.lambda_left[w], sizeof in.lambda_left[w]);
    printf("in-memory engine: T = %a, lambda_L = %.9g: %s\n", in.T, in.lambda[LLAMP_PARAM_L],
           same ? "the same, bit for bit" : "DIFFERENT");
    rc = same ? 0 : 1;
    llamp_engine_destroy(e);
  }
  llamp_graph_destroy(g);
  if (!keep) unlink(path);
  return rc;
}
