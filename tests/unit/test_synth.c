/* test_synth.c - synthetic patterns: exact counts against hand-derived closed
 * forms, graph invariants, reproducibility of the random pattern, deadlock
 * freedom under rendezvous, parameter errors and the streaming GOAL writer. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_graph.h"
#include "llamp_synth.h"
#include "llamp_test.h"

static char err[1024];

/* Counts of a pattern run without a sink. */
static llamp_synth_stats_t count(const char *pattern, const char *params) {
  llamp_synth_stats_t st;
  memset(&st, 0, sizeof st);
  int rc = llamp_synth_run_str(pattern, params, NULL, &st, err, sizeof err);
  if (rc != 0) fprintf(stderr, "%s %s: %s\n", pattern, params, err);
  CHECK(rc == 0);
  return st;
}

/* Is the graph acyclic once the rendezvous edges are added?  For every
 * message send s -> recv r, each `requires` successor w of s also waits for
 * the match, i.e. gets an edge r -> w (the send completes only when the
 * receive is posted).  Kahn's algorithm over the extended edge set. */
static int rendezvous_acyclic(const llamp_graph_t *g) {
  uint64_t n = llamp_graph_num_vertices(g);
  uint64_t *extra_src = NULL, *extra_dst = NULL, nextra = 0, cap = 0;
  /* successors by `requires` of each send: scan every in-edge */
  for (uint64_t w = 0; w < n; w++) {
    uint64_t f, l;
    llamp_graph_in_edges(g, w, &f, &l);
    for (uint64_t e = f; e < l; e++) {
      uint64_t s = llamp_graph_edge_source(g, e);
      if (llamp_graph_edge_kind(g, e) != LLAMP_EDGE_REQUIRES) continue;
      if (llamp_graph_kind(g, s) != LLAMP_VERTEX_SEND) continue;
      if (nextra == cap) {
        cap = cap ? 2 * cap : 1024;
        extra_src = realloc(extra_src, cap * sizeof *extra_src);
        extra_dst = realloc(extra_dst, cap * sizeof *extra_dst);
      }
      extra_src[nextra] = llamp_graph_partner(g, s);
      extra_dst[nextra++] = w;
    }
  }
  uint64_t *indeg = calloc(n, sizeof *indeg), *stack = malloc((n + 1) * sizeof *stack);
  uint64_t *xoff = calloc(n + 1, sizeof *xoff), *xadj = malloc((nextra + 1) * sizeof *xadj);
  /* out-adjacency of all edges: graph edges (by scanning) + extras */
  uint64_t m = llamp_graph_num_edges(g);
  uint64_t *ooff = calloc(n + 1, sizeof *ooff), *oadj = malloc((m + 1) * sizeof *oadj);
  for (uint64_t v = 0; v < n; v++) {
    uint64_t f, l;
    llamp_graph_in_edges(g, v, &f, &l);
    indeg[v] += l - f;
    for (uint64_t e = f; e < l; e++) ooff[llamp_graph_edge_source(g, e) + 1]++;
  }
  for (uint64_t v = 0; v < n; v++) ooff[v + 1] += ooff[v];
  uint64_t *fill = malloc((n + 1) * sizeof *fill);
  memcpy(fill, ooff, n * sizeof *fill);
  for (uint64_t v = 0; v < n; v++) {
    uint64_t f, l;
    llamp_graph_in_edges(g, v, &f, &l);
    for (uint64_t e = f; e < l; e++) oadj[fill[llamp_graph_edge_source(g, e)]++] = v;
  }
  for (uint64_t i = 0; i < nextra; i++) {
    xoff[extra_src[i] + 1]++;
    indeg[extra_dst[i]]++;
  }
  for (uint64_t v = 0; v < n; v++) xoff[v + 1] += xoff[v];
  memcpy(fill, xoff, n * sizeof *fill);
  for (uint64_t i = 0; i < nextra; i++) xadj[fill[extra_src[i]]++] = extra_dst[i];
  uint64_t top = 0, seen = 0;
  for (uint64_t v = 0; v < n; v++)
    if (!indeg[v]) stack[top++] = v;
  while (top) {
    uint64_t v = stack[--top];
    seen++;
    for (uint64_t i = ooff[v]; i < ooff[v + 1]; i++)
      if (--indeg[oadj[i]] == 0) stack[top++] = oadj[i];
    for (uint64_t i = xoff[v]; i < xoff[v + 1]; i++)
      if (--indeg[xadj[i]] == 0) stack[top++] = xadj[i];
  }
  free(extra_src), free(extra_dst), free(indeg), free(stack), free(xoff), free(xadj);
  free(ooff), free(oadj), free(fill);
  return seen == n;
}

/* The rendezvous check itself: two ranks that both send (blocking) before
 * receiving are fine eagerly but deadlock under rendezvous. */
static void test_rendezvous_checker(void) {
  llamp_builder_t *b = llamp_builder_create(2, "unit");
  for (uint32_t r = 0; r < 2; r++) {
    int64_t s = llamp_builder_add(b, r, LLAMP_VERTEX_SEND, 1e6, (int32_t)(1 - r), 0, 0);
    int64_t v = llamp_builder_add(b, r, LLAMP_VERTEX_RECV, 1e6, (int32_t)(1 - r), 0, 0);
    int64_t c = llamp_builder_add(b, r, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 0);
    llamp_builder_depend(b, v, s, LLAMP_EDGE_REQUIRES, 0);
    llamp_builder_depend(b, c, v, LLAMP_EDGE_REQUIRES, 0);
  }
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  CHECK(g != NULL);
  if (g) {
    CHECK(!rendezvous_acyclic(g));
    llamp_graph_destroy(g);
  }
}

/* Build the pattern, check the invariants and that the graph agrees with the
 * counted stats (vertices, messages, edges = dependencies + messages, kinds,
 * bytes).  Returns the graph (caller destroys) or NULL. */
static llamp_graph_t *build_checked(const char *pattern, const char *params,
                                    llamp_synth_stats_t *st_out) {
  llamp_synth_stats_t st = count(pattern, params);
  llamp_graph_t *g = llamp_synth_graph(pattern, params, err, sizeof err);
  if (!g) {
    fprintf(stderr, "%s %s: %s\n", pattern, params, err);
    CHECK(g != NULL);
    return NULL;
  }
  int rc = llamp_graph_check(g, err, sizeof err);
  if (rc) fprintf(stderr, "%s %s: check: %s\n", pattern, params, err);
  CHECK(rc == 0);
  CHECK(llamp_graph_num_ranks(g) == st.num_ranks);
  CHECK(llamp_graph_num_vertices(g) == st.ops);
  CHECK(llamp_graph_num_messages(g) == st.sends);
  CHECK(llamp_graph_num_edges(g) == st.requires + st.irequires + st.sends);
  uint64_t kinds[3] = {0, 0, 0};
  double bytes = 0, compute = 0;
  for (uint64_t v = 0; v < llamp_graph_num_vertices(g); v++) {
    kinds[llamp_graph_kind(g, v)]++;
    if (llamp_graph_kind(g, v) == LLAMP_VERTEX_SEND) bytes += llamp_graph_value(g, v);
    if (llamp_graph_kind(g, v) == LLAMP_VERTEX_CALC) compute += llamp_graph_value(g, v);
  }
  CHECK(kinds[LLAMP_VERTEX_CALC] == st.calcs);
  CHECK(kinds[LLAMP_VERTEX_SEND] == st.sends);
  CHECK(kinds[LLAMP_VERTEX_RECV] == st.recvs);
  CHECK_NEAR(bytes, (double)st.bytes, 1e-12);
  CHECK_NEAR(compute, (double)st.compute_ns * 1e-9, 1e-9);
  if (!rendezvous_acyclic(g)) {
    fprintf(stderr, "%s %s: cycle under rendezvous\n", pattern, params);
    CHECK(0);
  }
  if (st_out) *st_out = st;
  return g;
}

static void expect_counts(const char *pattern, const char *params, uint64_t ops, uint64_t msgs,
                          uint64_t reqs) {
  llamp_synth_stats_t st;
  llamp_graph_t *g = build_checked(pattern, params, &st);
  if (st.ops != ops || st.sends != msgs || st.requires != reqs)
    fprintf(stderr, "%s %s: ops %llu (want %llu) msgs %llu (want %llu) requires %llu (want %llu)\n",
            pattern, params, (unsigned long long)st.ops, (unsigned long long)ops,
            (unsigned long long)st.sends, (unsigned long long)msgs,
            (unsigned long long)st.requires, (unsigned long long)reqs);
  CHECK(st.ops == ops);
  CHECK(st.sends == msgs);
  CHECK(st.recvs == msgs);
  CHECK(st.requires == reqs);
  llamp_graph_destroy(g);
}

/* halo2d: per rank and iteration 1 calc + d recvs + d sends (d neighbours);
 * requires: 2d per iteration (comm -> calc) plus 2d per later iteration
 * (calc -> comm of the previous one). */
static void test_halo(void) {
  /* 4x4 periodic, 3 iterations: 16*3*9 = 432 vertices, 16*3*4 = 192
   * messages, 16*(8*3 + 8*2) = 640 requires. */
  expect_counts("halo2d", "px=4,py=4,periodic=1,iters=3", 432, 192, 640);
  /* 4x4 open: 2*(3*4) + 2*(4*3) = 48 messages per iteration; 48 calcs +
   * 2*144 = 336 vertices; requires 2*48*(2*3-1) = 480. */
  expect_counts("halo2d", "px=4,py=4,periodic=no,iters=3", 336, 144, 480);
  /* periodic 2x3: x neighbours coincide but both messages exist (tags). */
  expect_counts("halo2d", "px=2,py=3,iters=2", 6 * 2 * 9, 6 * 2 * 4, 6 * (8 * 2 + 8));
  /* 4x4x4 periodic, 2 iterations: 64*2*13 = 1664, 64*2*6 = 768,
   * 64*(12*2 + 12) = 2304. */
  expect_counts("halo3d", "px=4,py=4,pz=4,iters=2", 1664, 768, 2304);
  /* 2x1x3 periodic: the y neighbour is the rank itself and is dropped:
   * 4 messages per rank and iteration. */
  expect_counts("halo3d", "px=2,py=1,pz=3,iters=2", 6 * 2 * 9, 6 * 2 * 4, 6 * (8 * 2 + 8));
  /* 3x3x3 open: 3 * 2*(2*3*3) = 108 messages per iteration. */
  expect_counts("halo3d", "px=3,py=3,pz=3,periodic=0,iters=4", 27 * 4 + 2 * 108 * 4, 108 * 4,
                2 * 108 * (2 * 4 - 1));

  /* message sizes and calc durations carry through */
  llamp_graph_t *g = llamp_synth_graph("halo2d", "px=3,py=3,bytes=8KiB,compute=10us,iters=1",
                                       err, sizeof err);
  CHECK(g != NULL);
  if (g) {
    for (uint64_t v = 0; v < llamp_graph_num_vertices(g); v++) {
      if (llamp_graph_kind(g, v) == LLAMP_VERTEX_CALC)
        CHECK_NEAR(llamp_graph_value(g, v), 10e-6, 1e-12);
      else
        CHECK(llamp_graph_value(g, v) == 8192.0);
    }
    llamp_graph_destroy(g);
  }
  /* a big one counted without building: 10 M events are a few lines */
  llamp_synth_stats_t st = count("halo3d", "px=16,py=16,pz=16,iters=200");
  CHECK(st.ops == 4096ULL * 200 * 13);
  CHECK(st.sends == 4096ULL * 200 * 6);
  CHECK(st.bytes == 4096ULL * 200 * 6 * 8192);
}

/* Recursive doubling: pof2 = 2^k <= p, rem = p - pof2; messages per call
 * 2*rem + pof2*k; vertices per call p + 2*messages. */
static void test_recdoub(void) {
  /* p=8, 3 calls: 3*8*3 = 72 messages, 3*(8+144) = ... per rank and call
   * 1 calc + 6 comm = 7, so 168 vertices; requires per rank: steps
   * 2 + 4 + 4 = 10 per call, calc 2 for calls 2 and 3: 8*(30+4) = 272. */
  expect_counts("allreduce_recdoub", "ranks=8,iters=3", 168, 72, 272);
  static const int ps[] = {1, 2, 3, 5, 6, 7, 12, 13};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    uint64_t p = (uint64_t)ps[i], pof2 = 1, k = 0;
    while (pof2 * 2 <= p) pof2 *= 2, k++;
    uint64_t rem = p - pof2, iters = 4;
    uint64_t msgs = iters * (2 * rem + pof2 * k);
    char params[64];
    snprintf(params, sizeof params, "ranks=%d,iters=4,bytes=64", ps[i]);
    llamp_synth_stats_t st;
    llamp_graph_t *g = build_checked("allreduce_recdoub", params, &st);
    CHECK(st.sends == msgs);
    CHECK(st.ops == iters * p + 2 * msgs);
    CHECK(st.calcs == iters * p);
    if (g) {
      /* each rank ends the call with the result: every rank sends and
       * receives the same number of messages */
      uint64_t *sent = calloc(p, sizeof *sent), *recvd = calloc(p, sizeof *recvd);
      for (uint64_t v = 0; v < llamp_graph_num_vertices(g); v++) {
        if (llamp_graph_kind(g, v) == LLAMP_VERTEX_SEND) sent[llamp_graph_rank(g, v)]++;
        if (llamp_graph_kind(g, v) == LLAMP_VERTEX_RECV) recvd[llamp_graph_rank(g, v)]++;
      }
      for (uint64_t r = 0; r < p; r++) {
        CHECK(sent[r] == recvd[r]);
        /* folded even ranks: 1 send + 1 recv per call; the others k (+1) */
        uint64_t want = r < 2 * rem ? (r % 2 ? k + 1 : 1) : k;
        CHECK(sent[r] == iters * want);
      }
      free(sent);
      free(recvd);
      llamp_graph_destroy(g);
    }
  }
  /* reduce calcs: one after the fold receive and after each exchange step */
  llamp_synth_stats_t st = count("allreduce_recdoub", "ranks=7,iters=2,reduce=1us");
  /* ranks 1,3,5 fold + 2 steps = 3 calcs; ranks 6 (and the partners 1,3,5):
   * newranks 0..3 do 2 steps -> 4 ranks of the main phase: 1,3,5,6 */
  CHECK(st.calcs == 2 * (7 + 3 * 3 + 1 * 2));
}

/* Ring: 2(p-1) steps, one message per rank and step. */
static void test_ring(void) {
  for (uint64_t p = 1; p <= 9; p += 2) {
    char params[64];
    snprintf(params, sizeof params, "ranks=%llu,iters=3,bytes=1000", (unsigned long long)p);
    llamp_synth_stats_t st;
    llamp_graph_t *g = build_checked("allreduce_ring", params, &st);
    uint64_t msgs = 3 * p * 2 * (p - 1);
    CHECK(st.sends == msgs);
    CHECK(st.ops == 3 * p + 2 * msgs);
    CHECK(st.bytes == msgs * ((1000 + p - 1) / p));
    /* requires per rank and call: step 0 -> 2, later steps 4 each, calc of
     * calls 2 and 3 -> 2 */
    if (p > 1) CHECK(st.requires == p * (3 * (2 + 4 * (2 * p - 3)) + 2 * 2));
    llamp_graph_destroy(g);
  }
  llamp_synth_stats_t st = count("allreduce_ring", "ranks=4,iters=2,reduce=500ns");
  CHECK(st.calcs == 2 * 4 * (1 + 3));
  CHECK(st.compute_ns == 2 * 4 * (10000 + 3 * 500));
  llamp_graph_destroy(build_checked("allreduce_ring", "ranks=4,iters=2,reduce=500ns", NULL));
}

/* Wavefront: (px-1)*py + px*(py-1) messages per sweep, one calc per rank
 * and sweep, all ops of a rank in one chain: requires = ops - ranks. */
static void test_wavefront(void) {
  uint64_t m = 3 * 3 + 4 * 2; /* 4x3 */
  expect_counts("wavefront", "px=4,py=3,sweeps=2", 2 * (12 + 2 * m), 2 * m, 2 * (12 + 2 * m) - 12);
  expect_counts("wavefront", "px=4,py=3,sweeps=5,corners=4", 5 * (12 + 2 * m), 5 * m,
                5 * (12 + 2 * m) - 12);
  expect_counts("wavefront", "px=5,py=1,sweeps=3,corners=2", 3 * (5 + 2 * 4), 3 * 4,
                3 * (5 + 2 * 4) - 5);
}

static void test_pingpong(void) {
  expect_counts("pingpong", "iters=5,compute=1us", 25, 10, 23);
}

/* The GOAL text of a run, in memory (caller frees). */
static char *goal_text(const char *pattern, const char *params, size_t *len) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  llamp_synth_goal_t *w = llamp_synth_goal_create(f, "memory");
  llamp_synth_sink_t sink;
  llamp_synth_goal_sink(w, &sink);
  int rc = llamp_synth_run_str(pattern, params, &sink, NULL, err, sizeof err);
  if (rc) fprintf(stderr, "%s\n", err);
  CHECK(rc == 0);
  uint64_t bytes = 0;
  CHECK(llamp_synth_goal_finish(w, &bytes, err, sizeof err) == 0);
  fclose(f);
  CHECK(bytes == n);
  *len = n;
  return buf;
}

/* Random: reproducible by seed, different across seeds, sizes above the
 * rendezvous threshold present, nonblocking and ANY_TAG used, deadlock-free
 * under eager (checker) and rendezvous (extra edges) semantics. */
static void test_random(void) {
  size_t la, lb, lc;
  char *a = goal_text("random", "ranks=6,ops=300,seed=7", &la);
  char *b = goal_text("random", "ranks=6,ops=300,seed=7", &lb);
  char *c = goal_text("random", "ranks=6,ops=300,seed=8", &lc);
  CHECK(la == lb && memcmp(a, b, la) == 0);
  CHECK(la != lc || memcmp(a, c, la) != 0);
  CHECK(strstr(a, " irequires ") != NULL);
  CHECK(strstr(a, " tag -1\n") != NULL);
  free(a), free(b), free(c);

  static const char *cases[] = {
      "ranks=2,ops=200,seed=1",
      "ranks=3,ops=500,seed=2",
      "ranks=8,ops=1000,seed=3",
      "ranks=13,ops=400,seed=4,nonblocking=0.9,wait=0.05",
      "ranks=16,ops=300,seed=5,nonblocking=0,anytag=0",
      "ranks=5,ops=300,seed=6,nonblocking=1,wait=1,tags=1",
      "ranks=1,ops=50,seed=9",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    llamp_synth_stats_t st;
    llamp_graph_t *g = build_checked("random", cases[i], &st);
    if (!g) continue;
    /* about `ops` per rank */
    double per = (double)st.ops / st.num_ranks;
    double want = atof(strstr(cases[i], "ops=") + 4);
    CHECK(per > 0.8 * want && per < 1.2 * want);
    if (st.num_ranks > 1) {
      int big = 0;
      for (uint64_t v = 0; v < llamp_graph_num_vertices(g); v++)
        big += llamp_graph_kind(g, v) == LLAMP_VERTEX_SEND && llamp_graph_value(g, v) > 262144;
      CHECK(big > 0);
    }
    llamp_graph_destroy(g);
  }
  /* many seeds, small graphs */
  for (int seed = 10; seed < 60; seed++) {
    char params[96];
    snprintf(params, sizeof params, "ranks=%d,ops=120,seed=%d", 2 + seed % 9, seed);
    llamp_graph_destroy(build_checked("random", params, NULL));
  }
}

/* Errors: one line, naming the key (or pattern) and what was expected. */
static void test_errors(void) {
  llamp_synth_stats_t st;
  CHECK(llamp_synth_run_str("nosuch", "", NULL, &st, err, sizeof err) == -1);
  CHECK(strstr(err, "nosuch") && strstr(err, "halo3d") && strstr(err, "random"));
  CHECK(llamp_synth_run_str("halo2d", "pz=3", NULL, &st, err, sizeof err) == -1);
  CHECK(strstr(err, "'pz'") && strstr(err, "px") && strstr(err, "compute"));
  CHECK(llamp_synth_run_str("halo2d", "px=abc", NULL, &st, err, sizeof err) == -1);
  CHECK(strstr(err, "px=abc") && strstr(err, "integer"));
  CHECK(llamp_synth_run_str("halo2d", "px=0", NULL, &st, err, sizeof err) == -1);
  CHECK(strstr(err, "px=0"));
  CHECK(llamp_synth_run_str("halo2d", "bytes=3XB", NULL, &st, err, sizeof err) == -1);
  CHECK(strstr(err, "bytes=3XB"));
  CHECK(llamp_synth_run_str("halo2d", "bytes=1.5", NULL, &st, err, sizeof err) == -1);
  CHECK(llamp_synth_run_str("halo2d", "compute=5parsecs", NULL, &st, err, sizeof err) == -1);
  CHECK(strstr(err, "compute="));
  CHECK(llamp_synth_run_str("halo2d", "periodic=maybe", NULL, &st, err, sizeof err) == -1);
  CHECK(llamp_synth_run_str("halo2d", "iters", NULL, &st, err, sizeof err) == -1);
  CHECK(strstr(err, "key=value"));
  CHECK(llamp_synth_run_str("random", "nonblocking=1.5", NULL, &st, err, sizeof err) == -1);
  CHECK(llamp_synth_run_str("random", "sizes=8::16", NULL, &st, err, sizeof err) == -1);
  CHECK(strstr(err, "sizes="));
  CHECK(llamp_synth_run_str("wavefront", "corners=3", NULL, &st, err, sizeof err) == -1);
  CHECK(strstr(err, "corners=3"));
  CHECK(llamp_synth_run_str("halo3d", "px=4096,py=4096,pz=4096", NULL, &st, err, sizeof err) == -1);
  for (const char *p = err; *p; p++) CHECK(*p != '\n');
  /* suffixes and units that must work */
  CHECK(llamp_synth_run_str("halo3d", "iters=1k,bytes=8KiB,compute=10us", NULL, &st, err,
                            sizeof err) == 0);
  CHECK(st.ops == 64ULL * 1000 * 13);
  CHECK(st.compute_ns == 64ULL * 1000 * 10000);
  /* every registered pattern runs with its defaults and builds a valid graph */
  size_t n;
  const llamp_synth_pattern_t *pats = llamp_synth_patterns(&n);
  CHECK(n >= 7);
  for (size_t i = 0; i < n; i++) {
    CHECK(llamp_synth_find(pats[i].name) == &pats[i]);
    llamp_graph_destroy(build_checked(pats[i].name, "", NULL));
    CHECK(llamp_synth_print_help(pats[i].name, fopen("/dev/null", "w"), err, sizeof err) == 0);
  }
  CHECK(llamp_synth_print_help("bogus", stdout, err, sizeof err) == -1);
}

/* The writer's exact text for a small case, and line accounting. */
static void test_goal_writer(void) {
  size_t len;
  char *t = goal_text("pingpong", "iters=1,bytes=8,compute=1us", &len);
  const char *want = "num_ranks 2\n"
                     "rank 0 {\n"
                     "l0: calc 1000\n"
                     "l1: send 8b to 1 tag 0\n"
                     "l1 requires l0\n"
                     "l2: recv 8b from 1 tag 0\n"
                     "l2 requires l1\n"
                     "}\n"
                     "rank 1 {\n"
                     "l0: recv 8b from 0 tag 0\n"
                     "l1: send 8b to 0 tag 0\n"
                     "l1 requires l0\n"
                     "}\n";
  CHECK(len == strlen(want) && memcmp(t, want, len) == 0);
  if (len != strlen(want) || memcmp(t, want, len) != 0) fprintf(stderr, "got:\n%.*s", (int)len, t);
  free(t);

  /* one line per op, per dependency, two per rank, one header */
  llamp_synth_stats_t st = count("random", "ranks=5,ops=2000,seed=3");
  t = goal_text("random", "ranks=5,ops=2000,seed=3", &len);
  uint64_t lines = 0;
  for (size_t i = 0; i < len; i++) lines += t[i] == '\n';
  CHECK(lines == 1 + 2 * 5 + st.ops + st.requires + st.irequires);
  free(t);

  /* halo3d larger than the 4 MiB buffer: several flushes */
  t = goal_text("halo3d", "px=8,py=8,pz=8,iters=60", &len);
  CHECK(len > (8u << 20));
  st = count("halo3d", "px=8,py=8,pz=8,iters=60");
  lines = 0;
  for (size_t i = 0; i < len; i++) lines += t[i] == '\n';
  CHECK(lines == 1 + 2 * 512 + st.ops + st.requires);
  CHECK(strncmp(t + len - 2, "}\n", 2) == 0);
  free(t);

  /* file output, and no file left behind on a bad parameter */
  char path[] = "/tmp/test_synth_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  uint64_t bytes = 0;
  char *argv[] = {"ranks=5", "iters=2"};
  CHECK(llamp_synth_write_goal("allreduce_recdoub", 2, argv, path, &st, &bytes, err,
                               sizeof err) == 0);
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (f) {
    fseek(f, 0, SEEK_END);
    CHECK((uint64_t)ftell(f) == bytes);
    fclose(f);
  }
  char *bad[] = {"ranks=x"};
  CHECK(llamp_synth_write_goal("allreduce_recdoub", 1, bad, path, &st, &bytes, err,
                               sizeof err) == -1);
  remove(path);
  /* a full disk is reported, not ignored */
  f = fopen("/dev/full", "wb");
  if (f) {
    llamp_synth_goal_t *w = llamp_synth_goal_create(f, "/dev/full");
    llamp_synth_sink_t sink;
    llamp_synth_goal_sink(w, &sink);
    int rc = llamp_synth_run_str("halo3d", "px=8,py=8,pz=8,iters=10", &sink, NULL, err, sizeof err);
    rc |= llamp_synth_goal_finish(w, NULL, err, sizeof err);
    CHECK(rc != 0);
    CHECK(strstr(err, "/dev/full") != NULL);
    fclose(f);
  }
}

int main(void) {
  test_rendezvous_checker();
  test_halo();
  test_recdoub();
  test_ring();
  test_wavefront();
  test_pingpong();
  test_random();
  test_errors();
  test_goal_writer();
  TEST_DONE();
}
