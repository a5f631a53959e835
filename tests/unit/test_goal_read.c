/* GOAL reader: the NOTES-GOAL example, wildcard matching, comments, units,
 * ignored options and layout freedom.  Errors are in test_goal_errors.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_goal.h"
#include "llamp_test.h"

#define DATA "data/goal/"

/* Vertex with local index `li` on rank r, or UINT64_MAX. */
static uint64_t vtx(const llamp_graph_t *g, uint32_t r, uint64_t li) {
  for (uint64_t v = 0; v < llamp_graph_num_vertices(g); v++)
    if (llamp_graph_rank(g, v) == r && llamp_graph_local_index(g, v) == li) return v;
  return UINT64_MAX;
}

/* Does v have an in-edge of `kind` from u? */
static int has_edge(const llamp_graph_t *g, uint64_t u, uint64_t v, llamp_edge_kind_t kind) {
  uint64_t e0, e1;
  llamp_graph_in_edges(g, v, &e0, &e1);
  for (uint64_t e = e0; e < e1; e++)
    if (llamp_graph_edge_source(g, e) == u && llamp_graph_edge_kind(g, e) == kind) return 1;
  return 0;
}

static llamp_graph_t *read_ok(const char *path, const llamp_goal_options_t *opt) {
  char err[512] = "";
  llamp_graph_t *g = llamp_goal_read(path, opt, err, sizeof err);
  if (!g) fprintf(stderr, "unexpected error reading %s: %s\n", path, err);
  CHECK(g != NULL);
  if (g) {
    CHECK(llamp_graph_check(g, err, sizeof err) == 0);
  }
  return g;
}

static llamp_graph_t *parse_ok(const char *text) {
  char err[512] = "";
  llamp_graph_t *g = llamp_goal_read_buffer(text, strlen(text), NULL, err, sizeof err);
  if (!g) fprintf(stderr, "unexpected error: %s\n--- input:\n%s\n", err, text);
  CHECK(g != NULL);
  return g;
}

static void test_example(void) {
  llamp_graph_t *g = read_ok(DATA "example.goal", NULL);
  if (!g) return;
  CHECK(llamp_graph_num_ranks(g) == 2);
  CHECK(llamp_graph_num_vertices(g) == 4);
  CHECK(llamp_graph_num_edges(g) == 3);
  CHECK(llamp_graph_num_messages(g) == 1);
  uint64_t a = vtx(g, 0, 0), b = vtx(g, 0, 1), x = vtx(g, 1, 0), z = vtx(g, 1, 1);
  CHECK(llamp_graph_kind(g, a) == LLAMP_VERTEX_CALC);
  CHECK_NEAR(llamp_graph_value(g, a), 5000e-9, 1e-15);
  CHECK(llamp_graph_kind(g, b) == LLAMP_VERTEX_SEND);
  CHECK(llamp_graph_value(g, b) == 1024.0);
  CHECK(llamp_graph_peer(g, b) == 1);
  CHECK(llamp_graph_tag(g, b) == 5);
  CHECK(llamp_graph_kind(g, x) == LLAMP_VERTEX_RECV);
  CHECK(llamp_graph_peer(g, x) == 0);
  CHECK(llamp_graph_partner(g, x) == b && llamp_graph_partner(g, b) == x);
  CHECK(llamp_graph_kind(g, z) == LLAMP_VERTEX_CALC);
  CHECK_NEAR(llamp_graph_value(g, z), 100e-9, 1e-15);
  CHECK(has_edge(g, a, b, LLAMP_EDGE_REQUIRES));
  CHECK(has_edge(g, x, z, LLAMP_EDGE_REQUIRES));
  CHECK(has_edge(g, b, x, LLAMP_EDGE_MESSAGE));
  llamp_graph_destroy(g);
}

/* ANY_SOURCE takes the smallest (sender op index, source rank); ANY_TAG the
 * earliest send of that source; equal (source, destination, tag) messages
 * match in posting order. */
static void test_wildcards(void) {
  llamp_graph_t *g = read_ok(DATA "wildcards.goal", NULL);
  if (!g) return;
  CHECK(llamp_graph_num_ranks(g) == 6);
  uint64_t s0 = vtx(g, 0, 1), s1 = vtx(g, 1, 0), r0 = vtx(g, 2, 0), r1 = vtx(g, 2, 1);
  CHECK(llamp_graph_partner(g, r0) == s1); /* index 0 on rank 1 beats index 1 on rank 0 */
  CHECK(llamp_graph_partner(g, r1) == s0);
  CHECK(llamp_graph_peer(g, r0) == 1 && llamp_graph_peer(g, r1) == 0);
  uint64_t a = vtx(g, 3, 0), b = vtx(g, 3, 1), c = vtx(g, 3, 2);
  uint64_t x = vtx(g, 4, 0), y = vtx(g, 4, 1), z = vtx(g, 4, 2);
  CHECK(llamp_graph_partner(g, x) == b); /* tag 3: first tag-3 send */
  CHECK(llamp_graph_partner(g, y) == a); /* any tag: earliest remaining send */
  CHECK(llamp_graph_partner(g, z) == c);
  llamp_graph_destroy(g);

  /* tie on the sender's op index: the smaller source rank wins */
  g = parse_ok("num_ranks 3\n"
               "rank 2 { s: send 5b to 0 tag 9 }\n"
               "rank 1 { s: send 6b to 0 tag 9 }\n"
               "rank 0 {\nr: recv 6b from -1 tag 9\nq: recv 5b from -1 tag -1\n}\n");
  if (g) {
    CHECK(llamp_graph_partner(g, vtx(g, 0, 0)) == vtx(g, 1, 0));
    CHECK(llamp_graph_partner(g, vtx(g, 0, 1)) == vtx(g, 2, 0));
    llamp_graph_destroy(g);
  }
  /* posting order per (source, destination, tag), tags interleaved */
  g = parse_ok("num_ranks 2\nrank 0 {\n"
               "send 1b to 1 tag 1\nsend 2b to 1 tag 2\nsend 3b to 1 tag 1\nsend 4b to 1 tag 2\n}\n"
               "rank 1 {\n"
               "recv 2b from 0 tag 2\nrecv 4b from 0 tag 2\nrecv 1b from 0 tag 1\nrecv 3b from 0 tag 1\n}\n");
  if (g) {
    CHECK(llamp_graph_partner(g, vtx(g, 1, 0)) == vtx(g, 0, 1));
    CHECK(llamp_graph_partner(g, vtx(g, 1, 1)) == vtx(g, 0, 3));
    CHECK(llamp_graph_partner(g, vtx(g, 1, 2)) == vtx(g, 0, 0));
    CHECK(llamp_graph_partner(g, vtx(g, 1, 3)) == vtx(g, 0, 2));
    llamp_graph_destroy(g);
  }
}

static void test_comments(void) {
  llamp_graph_t *g = read_ok(DATA "comments.goal", NULL);
  if (!g) return;
  CHECK(llamp_graph_num_vertices(g) == 3);
  uint64_t a = vtx(g, 0, 0), b = vtx(g, 0, 1), r = vtx(g, 1, 0);
  CHECK(has_edge(g, a, b, LLAMP_EDGE_REQUIRES));
  CHECK(llamp_graph_partner(g, r) == b);
  CHECK(llamp_graph_tag(g, b) == 2);
  llamp_graph_destroy(g);
  /* line numbers keep counting inside block comments: error on line 6 */
  const char *text = "/*\n\n*/ num_ranks 1\nrank 0 { /* x\ny */\nbogus\n}\n";
  char err[256];
  CHECK(llamp_goal_read_buffer(text, strlen(text), NULL, err, sizeof err) == NULL);
  CHECK(strncmp(err, "<buffer>:6: unknown keyword `bogus`", 35) == 0);
}

static void test_units_and_options(void) {
  llamp_goal_options_t opt;
  llamp_goal_options_default(&opt);
  CHECK(opt.time_unit == LLAMP_GOAL_NS && opt.source == NULL);
  static const struct {
    const char *name;
    double seconds; /* of "calc 5000" */
  } units[] = {{"ps", 5e-9}, {"ns", 5e-6}, {"us", 5e-3}, {"ms", 5.0}, {"s", 5000.0}};
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    CHECK(llamp_goal_time_unit_parse(units[i].name, &opt.time_unit) == 0);
    CHECK(strcmp(llamp_goal_time_unit_name(opt.time_unit), units[i].name) == 0);
    llamp_graph_t *g = read_ok(DATA "example.goal", &opt);
    if (g) {
      CHECK(llamp_graph_value(g, vtx(g, 0, 0)) == units[i].seconds);
      llamp_graph_destroy(g);
    }
  }
  CHECK(llamp_goal_time_unit_parse("min", &opt.time_unit) == -1);
  CHECK(llamp_goal_time_unit_parse(NULL, &opt.time_unit) == -1);

  /* the source name replaces the path in messages */
  char err[256];
  opt.time_unit = LLAMP_GOAL_NS;
  opt.source = "trace.goal";
  CHECK(llamp_goal_read_buffer("num_ranks 1\nfoo", 16, &opt, err, sizeof err) == NULL);
  CHECK(strncmp(err, "trace.goal:2: ", 14) == 0);
  opt.time_unit = (llamp_goal_time_unit_t)17;
  CHECK(llamp_goal_read_buffer("num_ranks 1\n", 12, &opt, err, sizeof err) == NULL);
}

/* Layout freedom: CRLF, spaces before `b`, defaults (tag 0), cpu / nic in any
 * order, rank blocks in any order, one-line blocks, missing blocks, labels
 * named like option keywords, a buffer without a final newline. */
static void test_layout(void) {
  llamp_graph_t *g = read_ok(DATA "crlf.goal", NULL);
  if (g) {
    CHECK(llamp_graph_num_vertices(g) == 2);
    uint64_t r = vtx(g, 1, 0), s = vtx(g, 0, 0);
    CHECK(llamp_graph_partner(g, r) == s);
    CHECK(llamp_graph_tag(g, s) == 0 && llamp_graph_value(g, r) == 4.0);
    llamp_graph_destroy(g);
  }
  g = parse_ok("num_ranks 3\n\n\t rank 1 {\n  tag: calc 7 cpu 2\n\tcpu: calc 8\n"
               "  cpu requires tag\n tag_2 : calc 9\ntag_2 irequires cpu\n}");
  if (g) {
    CHECK(llamp_graph_num_vertices(g) == 3 && llamp_graph_num_edges(g) == 2);
    CHECK(has_edge(g, vtx(g, 1, 0), vtx(g, 1, 1), LLAMP_EDGE_REQUIRES));
    CHECK(has_edge(g, vtx(g, 1, 1), vtx(g, 1, 2), LLAMP_EDGE_IREQUIRES));
    llamp_graph_destroy(g);
  }
  /* statements without labels; unlabelled ops still count in posting order */
  g = parse_ok("num_ranks 2\nrank 0 {\ncalc 1\nsend 0b to 1\nl: calc 2\n}\nrank 1 {recv 0b from 0\n}\n");
  if (g) {
    CHECK(llamp_graph_num_vertices(g) == 4);
    CHECK(llamp_graph_kind(g, vtx(g, 0, 2)) == LLAMP_VERTEX_CALC);
    CHECK(llamp_graph_value(g, vtx(g, 0, 1)) == 0.0);
    llamp_graph_destroy(g);
  }
  /* only num_ranks: an empty graph */
  g = parse_ok("num_ranks 4\n");
  if (g) {
    CHECK(llamp_graph_num_ranks(g) == 4 && llamp_graph_num_vertices(g) == 0);
    llamp_graph_destroy(g);
  }
  /* large values: 2^53 bytes, self message, ANY_SOURCE receive of a self send */
  g = parse_ok("num_ranks 1\nrank 0 {\ns: send 9007199254740992b to 0 tag 2147483647\n"
               "r: recv 9007199254740992b from -1 tag -1\n}\n");
  if (g) {
    CHECK(llamp_graph_value(g, vtx(g, 0, 0)) == 9007199254740992.0);
    CHECK(llamp_graph_tag(g, vtx(g, 0, 0)) == 2147483647);
    CHECK(llamp_graph_partner(g, vtx(g, 0, 1)) == vtx(g, 0, 0));
    llamp_graph_destroy(g);
  }
}

/* Label tables: growth inside a big rank, reuse and shrinking between ranks,
 * the same label names in every rank. */
static void test_many_labels(void) {
  static const uint32_t ops[] = {5000, 3, 2000, 0, 1500};
  size_t cap = 1 << 20, len = 0;
  char *text = malloc(cap);
  len += (size_t)snprintf(text + len, cap - len, "num_ranks 5\n");
  uint64_t deps = 0, total = 0;
  for (uint32_t r = 0; r < 5; r++) {
    len += (size_t)snprintf(text + len, cap - len, "rank %u {\n", r);
    for (uint32_t i = 0; i < ops[r]; i++) {
      len += (size_t)snprintf(text + len, cap - len, "op_%u: calc %u\n", i, i);
      if (i) len += (size_t)snprintf(text + len, cap - len, "op_%u requires op_%u\n", i, i - 1), deps++;
    }
    if (ops[r] > 2) {
      len += (size_t)snprintf(text + len, cap - len, "op_%u irequires op_0\n", ops[r] - 1);
      deps++;
    }
    len += (size_t)snprintf(text + len, cap - len, "}\n");
    total += ops[r];
  }
  char err[256];
  llamp_graph_t *g = llamp_goal_read_buffer(text, len, NULL, err, sizeof err);
  CHECK(g != NULL);
  if (g) {
    CHECK(llamp_graph_num_vertices(g) == total && llamp_graph_num_edges(g) == deps);
    CHECK(has_edge(g, vtx(g, 2, 0), vtx(g, 2, 1999), LLAMP_EDGE_IREQUIRES));
    CHECK(llamp_graph_value(g, vtx(g, 4, 1499)) == 1499e-9);
    llamp_graph_destroy(g);
  }
  /* a duplicate deep inside a grown table */
  len -= 2; /* drop the last "}\n" */
  len += (size_t)snprintf(text + len, cap - len, "op_1234: calc 1\n}\n");
  CHECK(llamp_goal_read_buffer(text, len, NULL, err, sizeof err) == NULL);
  CHECK(strstr(err, ": duplicate label `op_1234` in rank 4 (first defined at line") != NULL);
  free(text);
}

static void test_io_errors(void) {
  char err[256] = "";
  CHECK(llamp_goal_read(DATA "does-not-exist.goal", NULL, err, sizeof err) == NULL);
  CHECK(strstr(err, "does-not-exist.goal: cannot open") != NULL);
  llamp_graph_t *g = llamp_goal_read(DATA "example.goal", NULL, NULL, 0);
  CHECK(g != NULL);
  llamp_graph_destroy(g);
  /* file-based errors go through the mmap path */
  CHECK(llamp_goal_read(DATA "err_truncated.goal", NULL, err, sizeof err) == NULL);
  CHECK(strcmp(err, DATA "err_truncated.goal:5: unexpected end of file: expected `}` to close "
                    "rank 0 (opened at line 2)") == 0);
  CHECK(llamp_goal_read(DATA "err_comment.goal", NULL, err, sizeof err) == NULL);
  CHECK(strcmp(err, DATA "err_comment.goal:4: unterminated /* comment") == 0);
}

int main(void) {
  test_example();
  test_wildcards();
  test_comments();
  test_units_and_options();
  test_layout();
  test_many_labels();
  test_io_errors();
  TEST_DONE();
}
