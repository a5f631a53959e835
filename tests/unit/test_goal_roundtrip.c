/* GOAL writer: read -> write -> read gives the same graph (per rank the same
 * operations in posting order, the same dependency edges, the same message
 * matches), and a second write is byte-identical to the first.  Inputs: the
 * data files and random graphs built with the builder (wildcards included). */
#define _POSIX_C_SOURCE 200809L /* open_memstream, mkstemp */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llamp_goal.h"
#include "llamp_test.h"

#define DATA "data/goal/"

/* Position of every vertex as (rank, local index), and back. */
typedef struct {
  uint64_t *first; /* per rank + 1 */
  uint64_t *at;    /* first[r] + local -> vertex */
} posmap_t;

static void posmap_build(const llamp_graph_t *g, posmap_t *pm) {
  uint32_t R = llamp_graph_num_ranks(g);
  uint64_t n = llamp_graph_num_vertices(g);
  pm->first = calloc(R + 1, sizeof *pm->first);
  pm->at = malloc((n ? n : 1) * sizeof *pm->at);
  for (uint64_t v = 0; v < n; v++) pm->first[llamp_graph_rank(g, v) + 1]++;
  for (uint32_t r = 0; r < R; r++) pm->first[r + 1] += pm->first[r];
  for (uint64_t v = 0; v < n; v++)
    pm->at[pm->first[llamp_graph_rank(g, v)] + llamp_graph_local_index(g, v)] = v;
}

static void posmap_free(posmap_t *pm) {
  free(pm->first);
  free(pm->at);
}

/* Global position key of v: first[rank] + local. */
static uint64_t key(const llamp_graph_t *g, const posmap_t *pm, uint64_t v) {
  return pm->first[llamp_graph_rank(g, v)] + llamp_graph_local_index(g, v);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sorted (kind, source key) in-edges of v, encoded as kind + 4 * key. */
static size_t in_keys(const llamp_graph_t *g, const posmap_t *pm, uint64_t v, uint64_t *out) {
  uint64_t e0, e1;
  size_t k = 0;
  llamp_graph_in_edges(g, v, &e0, &e1);
  for (uint64_t e = e0; e < e1; e++)
    out[k++] = (uint64_t)llamp_graph_edge_kind(g, e) + 4 * key(g, pm, llamp_graph_edge_source(g, e));
  qsort(out, k, sizeof *out, cmp_u64);
  return k;
}

/* Same graph up to vertex numbering; calc values within calc_tol seconds. */
static int same_graph(const llamp_graph_t *a, const llamp_graph_t *b, double calc_tol) {
  if (llamp_graph_num_ranks(a) != llamp_graph_num_ranks(b) ||
      llamp_graph_num_vertices(a) != llamp_graph_num_vertices(b) ||
      llamp_graph_num_edges(a) != llamp_graph_num_edges(b) ||
      llamp_graph_num_messages(a) != llamp_graph_num_messages(b))
    return 0;
  posmap_t pa, pb;
  posmap_build(a, &pa);
  posmap_build(b, &pb);
  uint64_t n = llamp_graph_num_vertices(a), m = llamp_graph_num_edges(a);
  uint64_t *ka = malloc((m + 1) * sizeof *ka), *kb = malloc((m + 1) * sizeof *kb);
  int same = 1;
  for (uint32_t r = 0; r <= llamp_graph_num_ranks(a) && same; r++)
    same = pa.first[r] == pb.first[r];
  for (uint64_t i = 0; i < n && same; i++) {
    uint64_t u = pa.at[i], v = pb.at[i];
    llamp_vertex_kind_t kind = llamp_graph_kind(a, u);
    if (kind != llamp_graph_kind(b, v)) same = 0;
    double x = llamp_graph_value(a, u), y = llamp_graph_value(b, v);
    if (kind == LLAMP_VERTEX_CALC ? !(x - y <= calc_tol && y - x <= calc_tol) : x != y) same = 0;
    if (llamp_graph_flags(a, u) != llamp_graph_flags(b, v)) same = 0;
    if (kind != LLAMP_VERTEX_CALC) {
      if (llamp_graph_peer(a, u) != llamp_graph_peer(b, v)) same = 0;
      if (llamp_graph_tag(a, u) != llamp_graph_tag(b, v)) same = 0;
      if (key(a, &pa, llamp_graph_partner(a, u)) != key(b, &pb, llamp_graph_partner(b, v))) same = 0;
    }
    size_t na = in_keys(a, &pa, u, ka), nb = in_keys(b, &pb, v, kb);
    if (na != nb || memcmp(ka, kb, na * sizeof *ka) != 0) same = 0;
    if (!same) fprintf(stderr, "graphs differ at rank %u op %llu\n", llamp_graph_rank(a, u),
                       (unsigned long long)llamp_graph_local_index(a, u));
  }
  free(ka);
  free(kb);
  posmap_free(&pa);
  posmap_free(&pb);
  return same;
}

/* Write g as GOAL into a malloc'ed string (NULL on failure, message in err). */
static char *write_mem(const llamp_graph_t *g, const llamp_goal_options_t *opt, size_t *len,
                       char *err, size_t errlen) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  if (!f) return NULL;
  int rc = llamp_goal_write_stream(g, f, opt, err, errlen);
  fclose(f);
  if (rc) {
    free(text);
    return NULL;
  }
  return text;
}

/* g -> text -> g2 -> text2: g2 equals g, text2 equals text. */
static void roundtrip(const llamp_graph_t *g, const llamp_goal_options_t *opt, double calc_tol,
                      const char *what) {
  char err[512] = "";
  size_t len1 = 0, len2 = 0;
  char *t1 = write_mem(g, opt, &len1, err, sizeof err);
  CHECK(t1 != NULL);
  if (!t1) {
    fprintf(stderr, "%s: write failed: %s\n", what, err);
    return;
  }
  llamp_graph_t *g2 = llamp_goal_read_buffer(t1, len1, opt, err, sizeof err);
  if (!g2) fprintf(stderr, "%s: re-read failed: %s\n--- text:\n%s", what, err, t1);
  CHECK(g2 != NULL);
  if (g2) {
    int same = same_graph(g, g2, calc_tol);
    if (!same) fprintf(stderr, "%s: round trip changed the graph\n", what);
    CHECK(same);
    char *t2 = write_mem(g2, opt, &len2, err, sizeof err);
    CHECK(t2 != NULL && len2 == len1 && memcmp(t1, t2, len1) == 0);
    free(t2);
    llamp_graph_destroy(g2);
  }
  free(t1);
}

static void test_files(void) {
  static const char *files[] = {"example.goal", "wildcards.goal", "comments.goal", "crlf.goal", "sync.goal"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[256], err[512];
    snprintf(path, sizeof path, DATA "%s", files[i]);
    llamp_graph_t *g = llamp_goal_read(path, NULL, err, sizeof err);
    CHECK(g != NULL);
    if (!g) continue;
    if (!strcmp(files[i], "sync.goal")) { /* 2 sync, 2 isend sends (one both), 1 os */
      unsigned nsync = 0, nisend = 0, nos = 0;
      for (uint64_t v = 0; v < llamp_graph_num_vertices(g); v++) {
        nsync += (llamp_graph_flags(g, v) & LLAMP_VERTEX_F_SYNC) != 0;
        nisend += (llamp_graph_flags(g, v) & LLAMP_VERTEX_F_ISEND) != 0;
        nos += (llamp_graph_flags(g, v) & LLAMP_VERTEX_F_OS) != 0;
      }
      CHECK(nsync == 2 && nisend == 2 && nos == 1);
    }
    roundtrip(g, NULL, 0.0, path);
    llamp_graph_destroy(g);
  }
}

/* The exact text of the NOTES-GOAL example after a round trip. */
static void test_expected_text(void) {
  char err[512];
  llamp_graph_t *g = llamp_goal_read(DATA "example.goal", NULL, err, sizeof err);
  CHECK(g != NULL);
  if (!g) return;
  size_t len;
  char *t = write_mem(g, NULL, &len, err, sizeof err);
  const char *want = "num_ranks 2\nrank 0 {\nl0: calc 5000\nl1: send 1024b to 1 tag 5\n"
                     "l1 requires l0\n}\nrank 1 {\nl0: recv 1024b from 0 tag 5\nl1: calc 100\n"
                     "l1 requires l0\n}\n";
  CHECK(t && strcmp(t, want) == 0);
  free(t);
  /* in microseconds 5000 ns -> 5 and 100 ns -> 0 (rounded to nearest) */
  llamp_goal_options_t opt;
  llamp_goal_options_default(&opt);
  opt.time_unit = LLAMP_GOAL_US;
  t = write_mem(g, &opt, &len, err, sizeof err);
  CHECK(t && strstr(t, "l0: calc 5\n") && strstr(t, "l1: calc 0\n"));
  free(t);

  /* the path variant; an unwritable path fails with its name */
  char path[] = "/tmp/test_goal_rt_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) {
    close(fd);
    CHECK(llamp_goal_write(g, path, NULL, err, sizeof err) == 0);
    llamp_graph_t *g2 = llamp_goal_read(path, NULL, err, sizeof err);
    CHECK(g2 && same_graph(g, g2, 0.0));
    llamp_graph_destroy(g2);
    unlink(path);
  }
  CHECK(llamp_goal_write(g, "/nonexistent-dir/x.goal", NULL, err, sizeof err) == -1);
  CHECK(strncmp(err, "/nonexistent-dir/x.goal: cannot open", 36) == 0);
  opt.time_unit = (llamp_goal_time_unit_t)9;
  CHECK(llamp_goal_write_stream(g, stdout, &opt, err, sizeof err) == -1);
  llamp_graph_destroy(g);
}

/* xorshift64* */
static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(uint64_t n) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (rng_state * 2685821657736338717ull) % n;
}

/* A random graph through the builder: per rank a random mix of calc, send and
 * receive (wildcard sources and tags included), program-order requires chains
 * plus random irequires / requires (cpurequires into receives) to earlier ops.  Messages are generated as
 * pairs so that every send has a receive; returns NULL if the builder rejects
 * it (a deadlock through the random placement). */
static llamp_graph_t *random_graph(uint32_t R, uint32_t msgs, uint32_t calcs, int exact) {
  typedef struct {
    int kind;
    int32_t peer, tag;
    double value;
  } op_t;
  op_t **ops = calloc(R, sizeof *ops);
  uint32_t *cnt = calloc(R, sizeof *cnt), *cap = calloc(R, sizeof *cap);
#define PUSH(r, o)                                                   \
  do {                                                               \
    if (cnt[r] == cap[r]) {                                          \
      cap[r] = cap[r] ? 2 * cap[r] : 16;                             \
      ops[r] = realloc(ops[r], cap[r] * sizeof **ops);               \
    }                                                                \
    uint32_t at = (uint32_t)rnd(cnt[r] + 1);                         \
    memmove(&ops[r][at + 1], &ops[r][at], (cnt[r] - at) * sizeof **ops); \
    ops[r][at] = (o);                                                \
    cnt[r]++;                                                        \
  } while (0)
  for (uint32_t i = 0; i < msgs; i++) {
    uint32_t s = (uint32_t)rnd(R), d = (uint32_t)rnd(R);
    int32_t tag = (int32_t)rnd(3);
    double size = (double)rnd(100000);
    op_t snd = {LLAMP_VERTEX_SEND, (int32_t)d, tag, size};
    op_t rcv = {LLAMP_VERTEX_RECV, rnd(4) == 0 ? LLAMP_ANY_SOURCE : (int32_t)s,
                rnd(4) == 0 ? LLAMP_ANY_TAG : tag, size};
    PUSH(s, snd);
    PUSH(d, rcv);
  }
  for (uint32_t i = 0; i < calcs; i++) {
    uint32_t r = (uint32_t)rnd(R);
    /* N / 1e9 is what the reader computes for `calc N`; others are sub-ns */
    double d = (double)rnd(1000000);
    op_t c = {LLAMP_VERTEX_CALC, 0, 0, exact ? d / 1e9 : d * 1.37e-10};
    PUSH(r, c);
  }
#undef PUSH
  llamp_builder_t *b = llamp_builder_create(R, "random");
  for (uint32_t r = 0; r < R; r++) {
    int64_t first = -1;
    for (uint32_t i = 0; i < cnt[r]; i++) {
      op_t *o = &ops[r][i];
      int64_t id = llamp_builder_add(b, r, (llamp_vertex_kind_t)o->kind, o->value, o->peer, o->tag, 0);
      if (i == 0) first = id;
      if (i > 0 && rnd(3) != 0)
        llamp_builder_depend(b, id, id - 1, rnd(5) == 0 ? LLAMP_EDGE_IREQUIRES : LLAMP_EDGE_REQUIRES, 0);
      if (i > 1 && rnd(4) == 0) /* a receive's CPU edge too (cpurequires) */
        llamp_builder_depend(b, id, first + (int64_t)rnd(i - 1),
                             o->kind == LLAMP_VERTEX_RECV && rnd(3) == 0 ? LLAMP_EDGE_CPU
                             : rnd(2)                                    ? LLAMP_EDGE_IREQUIRES
                                                                         : LLAMP_EDGE_REQUIRES,
                             0);
    }
    free(ops[r]);
  }
  free(ops);
  free(cnt);
  free(cap);
  char err[512];
  return llamp_builder_finish(b, err, sizeof err);
}

static void test_random(void) {
  int built = 0;
  llamp_goal_options_t opt;
  llamp_goal_options_default(&opt);
  for (int seed = 0; seed < 400; seed++) {
    uint32_t R = 1 + (uint32_t)rnd(6);
    /* integral nanoseconds round-trip exactly; sub-ns values within 0.5 ns */
    int exact = seed % 2 == 0;
    llamp_graph_t *g = random_graph(R, (uint32_t)rnd(40), (uint32_t)rnd(30), exact);
    if (!g) continue;
    built++;
    char what[64];
    snprintf(what, sizeof what, "random graph %d", seed);
    roundtrip(g, &opt, exact ? 0.0 : 0.5e-9 * 1.000001, what);
    llamp_graph_destroy(g);
  }
  fprintf(stderr, "random graphs round-tripped: %d built of 400 tried\n", built);
  CHECK(built >= 50);
}

int main(void) {
  test_files();
  test_expected_text();
  test_random();
  TEST_DONE();
}
