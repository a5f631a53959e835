/* Graph builder: matching rules, topological numbering, errors (cycle on the
 * cycle's line, unmatched messages), binary file round trip and corruption. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llamp_engine.h"
#include "llamp_goal.h"
#include "llamp_graph.h"
#include "llamp_test.h"

/* The locality layout: sources before their vertex, ids a permutation with
 * each rank's ids in posting order, levels non-decreasing along 0..n-1. */
static int layout_ok(const llamp_graph_t *g) {
  uint64_t n = llamp_graph_num_vertices(g);
  uint32_t *level = calloc(n ? n : 1, 4);
  uint8_t *seen = calloc(n ? n : 1, 1);
  int ok = level && seen;
  for (uint64_t v = 0; ok && v < n; v++) {
    uint64_t a, b, id = llamp_graph_id(g, v);
    ok &= llamp_graph_topo(g, v) == v && id < n && !seen[id];
    if (id < n) seen[id] = 1;
    llamp_graph_in_edges(g, v, &a, &b);
    for (uint64_t e = a; e < b; e++) {
      uint64_t u = llamp_graph_edge_source(g, e);
      ok &= u < v;
      if (u < v && level[u] + 1 > level[v]) level[v] = level[u] + 1;
      if (llamp_graph_edge_kind(g, e) != LLAMP_EDGE_MESSAGE) /* same rank: posting order */
        ok &= llamp_graph_local_index(g, u) < llamp_graph_local_index(g, v);
    }
    if (v) ok &= level[v] > level[v - 1] ||
                 (level[v] == level[v - 1] && id > llamp_graph_id(g, v - 1));
  }
  free(level);
  free(seen);
  return ok;
}

/* Same operations by builder id (kind, rank, local index, value, tag, the
 * partner's id), same T and lambda_L: to the bit, or within rel (GOAL text
 * rounds durations to whole nanoseconds and back). */
static int close_to(double x, double y, double rel) { return x == y || fabs(x - y) <= rel * fabs(x); }
static int same_graph(const llamp_graph_t *a, const llamp_graph_t *b, double rel) {
  uint64_t n = llamp_graph_num_vertices(a);
  if (n != llamp_graph_num_vertices(b) || llamp_graph_num_edges(a) != llamp_graph_num_edges(b))
    return 0;
  uint64_t *at = malloc((n ? n : 1) * 8);
  int ok = at != NULL;
  for (uint64_t v = 0; ok && v < n; v++) at[llamp_graph_id(b, v)] = v;
  for (uint64_t v = 0; ok && v < n; v++) {
    uint64_t w = at[llamp_graph_id(a, v)], pa = llamp_graph_partner(a, v), pb = llamp_graph_partner(b, w);
    ok &= llamp_graph_kind(a, v) == llamp_graph_kind(b, w) && llamp_graph_rank(a, v) == llamp_graph_rank(b, w) &&
          llamp_graph_local_index(a, v) == llamp_graph_local_index(b, w) &&
          close_to(llamp_graph_value(a, v), llamp_graph_value(b, w), rel) && llamp_graph_tag(a, v) == llamp_graph_tag(b, w) &&
          (pa == UINT64_MAX ? pb == UINT64_MAX : pb != UINT64_MAX && llamp_graph_id(a, pa) == llamp_graph_id(b, pb));
    if (!ok)
      fprintf(stderr, "vertex id %llu differs: kind %d/%d value %.17g/%.17g\n",
              (unsigned long long)llamp_graph_id(a, v), llamp_graph_kind(a, v), llamp_graph_kind(b, w),
              llamp_graph_value(a, v), llamp_graph_value(b, w));
  }
  free(at);
  llamp_params_t p;
  llamp_params_default(&p);
  char err[256];
  llamp_engine_t *ea = llamp_engine_create(a, &p, err, sizeof err), *eb = llamp_engine_create(b, &p, err, sizeof err);
  llamp_eval_t ra, rb;
  ok &= ea && eb && llamp_engine_eval(ea, &p, LLAMP_PARAM_L, &ra) == 0 &&
        llamp_engine_eval(eb, &p, LLAMP_PARAM_L, &rb) == 0 && close_to(ra.T, rb.T, rel) &&
        ra.slope_right == rb.slope_right && ra.slope_left == rb.slope_left;
  if (!ok) fprintf(stderr, "T %.17g / %.17g\n", ra.T, rb.T);
  llamp_engine_destroy(ea);
  llamp_engine_destroy(eb);
  return ok;
}

static int64_t add(llamp_builder_t *b, uint32_t r, llamp_vertex_kind_t k, double v, int peer, int tag,
                   int line) {
  return llamp_builder_add(b, r, k, v, peer, tag, (uint64_t)line);
}


/* ---- llamp_builder_concat against one builder ---- */

/* Rank r's operations of a ring exchange (send to r+1, receive from r-1,
 * tag base + k at step k) into b, each after the previous one; the ranks in
 * `shuffled` give their dependencies out of vertex order (a block the
 * concatenation must flush itself). */
static void ring_rank(llamp_builder_t *b, uint32_t r, uint32_t P, int steps, int tag_base, int shuffled) {
  int64_t prev = -1;
  for (int k = 0; k < steps; k++) {
    int64_t c = add(b, r, LLAMP_VERTEX_CALC, 1e-6 * (1 + (r * 7 + (uint32_t)k) % 5), 0, 0, k);
    int64_t s = add(b, r, LLAMP_VERTEX_SEND, 64.0 * (1 + k % 3), (int)((r + 1) % P), tag_base + k, k);
    int64_t v = add(b, r, LLAMP_VERTEX_RECV, 64.0 * (1 + k % 3), (int)((r + P - 1) % P), tag_base + k, k);
    if (shuffled) {
      CHECK(llamp_builder_depend(b, v, s, LLAMP_EDGE_REQUIRES, (uint64_t)k) == 0);
      CHECK(llamp_builder_depend(b, s, c, LLAMP_EDGE_IREQUIRES, (uint64_t)k) == 0);
      if (prev >= 0) CHECK(llamp_builder_depend(b, c, prev, LLAMP_EDGE_REQUIRES, (uint64_t)k) == 0);
    } else {
      if (prev >= 0) CHECK(llamp_builder_depend(b, c, prev, LLAMP_EDGE_REQUIRES, (uint64_t)k) == 0);
      CHECK(llamp_builder_depend(b, s, c, LLAMP_EDGE_IREQUIRES, (uint64_t)k) == 0);
      CHECK(llamp_builder_depend(b, v, s, LLAMP_EDGE_REQUIRES, (uint64_t)k) == 0);
    }
    prev = v;
  }
}

static int32_t tag_plus_1000(void *ctx, int32_t tag) {
  (*(int *)ctx)++;
  return tag + 1000;
}

/* The same arrays: kind, rank, value, tag, partner, builder id, in-edges. */
static int identical(const llamp_graph_t *a, const llamp_graph_t *b) {
  llamp_graph_arrays_t x, y;
  llamp_graph_arrays(a, &x);
  llamp_graph_arrays(b, &y);
  int ok = x.n == y.n && x.m == y.m;
  for (uint64_t v = 0; ok && v < x.n; v++)
    ok = x.kind[v] == y.kind[v] && x.rank[v] == y.rank[v] && memcmp(&x.value[v], &y.value[v], 8) == 0 &&
         x.in_beg[v] == y.in_beg[v] && x.in_end[v] == y.in_end[v] && llamp_graph_tag(a, v) == llamp_graph_tag(b, v) &&
         llamp_graph_partner(a, v) == llamp_graph_partner(b, v) && llamp_graph_id(a, v) == llamp_graph_id(b, v);
  for (uint64_t e = 0; ok && e < x.m; e++) ok = x.in_src[e] == y.in_src[e];
  return ok;
}

int main(void) {
  char err[512];
  /* tags reorder matching: rank 1 receives tag 2 first */
  {
    llamp_builder_t *b = llamp_builder_create(2, "tags");
    int64_t s1 = add(b, 0, LLAMP_VERTEX_SEND, 10, 1, 1, 1);
    int64_t s2 = add(b, 0, LLAMP_VERTEX_SEND, 20, 1, 2, 2);
    int64_t r2 = add(b, 1, LLAMP_VERTEX_RECV, 20, 0, 2, 3);
    int64_t r1 = add(b, 1, LLAMP_VERTEX_RECV, 10, 0, LLAMP_ANY_TAG, 4);
    (void)s1, (void)s2, (void)r1, (void)r2;
    llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
    CHECK(g != NULL);
    CHECK(llamp_graph_check(g, err, sizeof err) == 0);
    for (uint64_t v = 0; g && v < llamp_graph_num_vertices(g); v++)
      if (llamp_graph_kind(g, v) == LLAMP_VERTEX_RECV) {
        uint64_t s = llamp_graph_partner(g, v);
        /* each receive got the send of its size: the tag-2 one, then the tag-1 one */
        CHECK(llamp_graph_value(g, s) == llamp_graph_value(g, v));
        CHECK(llamp_graph_tag(g, v) == llamp_graph_tag(g, s));
      }
    llamp_graph_destroy(g);
  }
  /* dependencies given out of vertex order, and one on an operation posted
   * later: each in-edge list keeps the message first, then the given order */
  {
    llamp_builder_t *b = llamp_builder_create(2, "order");
    int64_t c0 = add(b, 0, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 1);
    int64_t c1 = add(b, 0, LLAMP_VERTEX_CALC, 2e-6, 0, 0, 2);
    int64_t r2 = add(b, 0, LLAMP_VERTEX_RECV, 8, 1, 5, 3);
    int64_t c3 = add(b, 0, LLAMP_VERTEX_CALC, 3e-6, 0, 0, 4);
    CHECK(llamp_builder_depend(b, c3, c1, LLAMP_EDGE_IREQUIRES, 5) == 0);
    CHECK(llamp_builder_depend(b, r2, c0, LLAMP_EDGE_REQUIRES, 6) == 0);
    CHECK(llamp_builder_depend(b, c3, c0, LLAMP_EDGE_REQUIRES, 7) == 0);
    CHECK(llamp_builder_depend(b, c1, c0, LLAMP_EDGE_REQUIRES, 8) == 0);
    int64_t s4 = add(b, 1, LLAMP_VERTEX_SEND, 8, 0, 5, 9);
    int64_t c5 = add(b, 1, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 10);
    CHECK(llamp_builder_depend(b, s4, c5, LLAMP_EDGE_REQUIRES, 11) == 0); /* the later calc first */
    llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
    CHECK(g != NULL && llamp_graph_check(g, err, sizeof err) == 0);
    /* builder id -> (source id, kind) of each in-edge, in order */
    static const int64_t want[6][3][2] = {
        {{-1}}, {{0, LLAMP_EDGE_REQUIRES}, {-1}}, {{4, LLAMP_EDGE_MESSAGE}, {0, LLAMP_EDGE_REQUIRES}, {-1}},
        {{1, LLAMP_EDGE_IREQUIRES}, {0, LLAMP_EDGE_REQUIRES}, {-1}}, {{5, LLAMP_EDGE_REQUIRES}, {-1}}, {{-1}}};
    for (uint64_t v = 0; g && v < llamp_graph_num_vertices(g); v++) {
      uint64_t id = llamp_graph_id(g, v), a, e;
      llamp_graph_in_edges(g, v, &a, &e);
      for (uint64_t k = 0; k < 3; k++) {
        if (want[id][k][0] < 0) {
          CHECK(a + k == e);
          break;
        }
        CHECK(a + k < e && (int64_t)llamp_graph_id(g, llamp_graph_edge_source(g, a + k)) == want[id][k][0] &&
              llamp_graph_edge_kind(g, a + k) == (llamp_edge_kind_t)want[id][k][1]);
      }
    }
    (void)c5;
    llamp_graph_destroy(g);
  }
  /* ANY_SOURCE: the send earliest in its sender's program wins, ties to the lower rank */
  {
    llamp_builder_t *b = llamp_builder_create(3, "anysrc");
    add(b, 0, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 1);
    add(b, 0, LLAMP_VERTEX_SEND, 100, 2, 0, 2); /* local index 1 */
    add(b, 1, LLAMP_VERTEX_SEND, 200, 2, 0, 3); /* local index 0 */
    add(b, 2, LLAMP_VERTEX_RECV, 0, LLAMP_ANY_SOURCE, LLAMP_ANY_TAG, 4);
    add(b, 2, LLAMP_VERTEX_RECV, 0, LLAMP_ANY_SOURCE, LLAMP_ANY_TAG, 5);
    llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
    CHECK(g != NULL);
    for (uint64_t v = 0; g && v < llamp_graph_num_vertices(g); v++)
      if (llamp_graph_kind(g, v) == LLAMP_VERTEX_RECV) {
        uint64_t s = llamp_graph_partner(g, v);
        if (llamp_graph_local_index(g, v) == 0) CHECK(llamp_graph_rank(g, s) == 1);
        else CHECK(llamp_graph_rank(g, s) == 0);
        CHECK(llamp_graph_peer(g, v) == (int32_t)llamp_graph_rank(g, s));
      }
    llamp_graph_destroy(g);
  }
  /* a cycle: the message is reported on a line of the cycle, not downstream */
  {
    llamp_builder_t *b = llamp_builder_create(2, "cyc.goal");
    int64_t r0 = add(b, 0, LLAMP_VERTEX_RECV, 8, 1, 0, 10);
    int64_t s0 = add(b, 0, LLAMP_VERTEX_SEND, 8, 1, 0, 11);
    int64_t c0 = add(b, 0, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 12);
    llamp_builder_depend(b, s0, r0, LLAMP_EDGE_REQUIRES, 13);
    llamp_builder_depend(b, c0, s0, LLAMP_EDGE_REQUIRES, 14);
    int64_t r1 = add(b, 1, LLAMP_VERTEX_RECV, 8, 0, 0, 20);
    int64_t s1 = add(b, 1, LLAMP_VERTEX_SEND, 8, 0, 0, 21);
    llamp_builder_depend(b, s1, r1, LLAMP_EDGE_REQUIRES, 22);
    llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
    CHECK(g == NULL);
    CHECK(strstr(err, "cyc.goal:") != NULL && strstr(err, "cycle") != NULL);
    CHECK(strstr(err, ":12:") == NULL); /* the calc after the cycle is not on it */
  }
  /* unmatched messages name the line */
  {
    llamp_builder_t *b = llamp_builder_create(2, "um.goal");
    add(b, 0, LLAMP_VERTEX_SEND, 8, 1, 3, 7);
    llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
    CHECK(g == NULL && strstr(err, "um.goal:7: unmatched send") != NULL);
    b = llamp_builder_create(2, "um.goal");
    add(b, 1, LLAMP_VERTEX_RECV, 8, 0, 3, 9);
    g = llamp_builder_finish(b, err, sizeof err);
    CHECK(g == NULL && strstr(err, "um.goal:9: unmatched receive") != NULL);
    b = llamp_builder_create(2, "um.goal");
    add(b, 0, LLAMP_VERTEX_CALC, 1, 0, 0, 1);
    add(b, 1, LLAMP_VERTEX_CALC, 1, 0, 0, 2);
    CHECK(add(b, 0, LLAMP_VERTEX_CALC, 1, 0, 0, 3) == -1); /* rank 0 again */
    CHECK(strstr(llamp_builder_error(b), "not contiguous") != NULL);
    CHECK(add(b, 5, LLAMP_VERTEX_CALC, 1, 0, 0, 4) == -1);
    CHECK(add(b, 1, LLAMP_VERTEX_CALC, -1, 0, 0, 5) == -1);
    llamp_builder_destroy(b);
  }
  /* many messages with reordered tags: matching stays linear (and correct) */
  {
    enum { N = 20000 };
    llamp_builder_t *b = llamp_builder_create(2, "bulk");
    for (int i = 0; i < N; i++) add(b, 0, LLAMP_VERTEX_SEND, 1 + i % 2, 1, 1 + i % 2, i);
    for (int i = 0; i < N / 2; i++) add(b, 1, LLAMP_VERTEX_RECV, 2, 0, 2, N + i);
    for (int i = 0; i < N / 2; i++) add(b, 1, LLAMP_VERTEX_RECV, 1, 0, 1, 2 * N + i);
    llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
    CHECK(g != NULL && llamp_graph_num_messages(g) == N);
    int ok = 1;
    for (uint64_t v = 0; g && v < llamp_graph_num_vertices(g); v++)
      if (llamp_graph_kind(g, v) == LLAMP_VERTEX_RECV)
        ok &= llamp_graph_value(g, llamp_graph_partner(g, v)) == llamp_graph_value(g, v);
    CHECK(ok);
    /* binary round trip, then truncation and corruption are errors */
    char path[] = "/tmp/llamp-test-graph-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK(llamp_graph_write_binary(g, path, err, sizeof err) == 0);
    CHECK(llamp_graph_is_binary(path) == 1);
    llamp_graph_t *h = llamp_graph_read_binary(path, err, sizeof err);
    CHECK(h != NULL && llamp_graph_num_vertices(h) == llamp_graph_num_vertices(g) &&
          llamp_graph_num_edges(h) == llamp_graph_num_edges(g));
    for (uint64_t v = 0; h && v < llamp_graph_num_vertices(h); v++)
      CHECK(llamp_graph_partner(h, v) == llamp_graph_partner(g, v));
    llamp_graph_destroy(h);
    FILE *f = fopen(path, "r+b");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    fputc(0x5a ^ fgetc(f), f); /* flip bits in the middle */
    fclose(f);
    CHECK(llamp_graph_read_binary(path, err, sizeof err) == NULL && strstr(err, path) != NULL);
    CHECK(truncate(path, size - 7) == 0);
    CHECK(llamp_graph_read_binary(path, err, sizeof err) == NULL && strstr(err, "truncated") != NULL);
    unlink(path);
    llamp_graph_destroy(g);
  }
  /* version 3 files (builder order + a topological index array) are read
   * into the locality layout: the same graph as its GOAL text, version 4
   * round trip identical */
  {
    llamp_graph_t *old = llamp_graph_read_binary("data/graph/random_v3.llg", err, sizeof err);
    llamp_graph_t *txt = llamp_goal_read("data/graph/random_v3.goal", NULL, err, sizeof err);
    CHECK(old != NULL && txt != NULL);
    if (old && txt) {
      CHECK(llamp_graph_num_vertices(old) == 459);
      CHECK(layout_ok(old) && layout_ok(txt));
      CHECK(llamp_graph_check(old, err, sizeof err) == 0);
      CHECK(same_graph(old, txt, 1e-12));
      char path[] = "/tmp/llamp-test-graph-XXXXXX";
      int fd = mkstemp(path);
      close(fd);
      CHECK(llamp_graph_write_binary(old, path, err, sizeof err) == 0);
      llamp_graph_t *h = llamp_graph_read_binary(path, err, sizeof err);
      CHECK(h != NULL && same_graph(old, h, 0) && llamp_graph_check(h, err, sizeof err) == 0);
      for (uint64_t v = 0; h && v < llamp_graph_num_vertices(h); v++) /* the layout is stored as is */
        CHECK(llamp_graph_id(h, v) == llamp_graph_id(old, v));
      llamp_graph_destroy(h);
      unlink(path);
    }
    llamp_graph_destroy(old);
    llamp_graph_destroy(txt);
  }
  /* a concatenation of builders holding rank ranges (some empty, some with
   * several ranks, blocks open or flushed, dependencies in or out of vertex
   * order) is the builder that held them all, on one thread or two; each
   * part's tags mapped where it has a context */
  for (int threads = 1; threads <= 2; threads++) {
    const uint32_t P = 13;
    const int steps = 40;
    llamp_builder_t *whole = llamp_builder_create(P, "ring");
    for (uint32_t r = 0; r < P; r++) ring_rank(whole, r, P, steps, 1000, r % 4 == 1);
    llamp_graph_t *g1 = llamp_builder_finish(whole, err, sizeof err);
    CHECK(g1 != NULL);
    /* parts: {} {0} {1 2 3} {} {4..8} {9} {10 11 12}; part 5 pre-mapped */
    const uint32_t lo[7] = {0, 0, 1, 4, 4, 9, 10}, hi[7] = {0, 1, 4, 4, 9, 10, 13};
    llamp_builder_t *parts[7];
    int calls[7] = {0};
    void *ctx[7];
    for (int i = 0; i < 7; i++) {
      parts[i] = llamp_builder_create(P, "ring");
      for (uint32_t r = lo[i]; r < hi[i]; r++) ring_rank(parts[i], r, P, steps, i == 5 ? 1000 : 0, r % 4 == 1);
      ctx[i] = i == 5 ? NULL : &calls[i];
    }
    llamp_builder_t *b = llamp_builder_concat(parts, 7, tag_plus_1000, ctx, threads, err, sizeof err);
    CHECK(b != NULL);
    CHECK(calls[5] == 0 && calls[4] == 5 * steps * 2 && calls[0] == 0);
    llamp_graph_t *g2 = b ? llamp_builder_finish(b, err, sizeof err) : NULL;
    CHECK(g2 != NULL && llamp_graph_check(g2, err, sizeof err) == 0);
    CHECK(g1 && g2 && identical(g1, g2));
    llamp_graph_destroy(g1);
    llamp_graph_destroy(g2);
    /* a rank in two parts is refused, naming it; every part is consumed */
    llamp_builder_t *twice[2] = {llamp_builder_create(P, "twice"), llamp_builder_create(P, "twice")};
    ring_rank(twice[0], 3, P, 2, 0, 0);
    ring_rank(twice[1], 3, P, 2, 0, 0);
    CHECK(llamp_builder_concat(twice, 2, NULL, NULL, threads, err, sizeof err) == NULL);
    CHECK(strstr(err, "rank 3") != NULL);
    llamp_builder_t *with_null[2] = {llamp_builder_create(P, "null"), NULL};
    CHECK(llamp_builder_concat(with_null, 2, NULL, NULL, threads, err, sizeof err) == NULL);
    CHECK(strstr(err, "without a builder") != NULL);
  }
  TEST_DONE();
}
