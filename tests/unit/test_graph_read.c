/* Reading a version-4 .llg file (graph/binary.c): the checksum and the
 * bounds checks run chunk by chunk on two threads.  A file whose bytes are
 * changed and whose checksum is then made right again must fail with the
 * message of the sequential checks (the first offender of the first check
 * that fails), wherever the change lies: in the first chunk, in a later
 * one, or in two places at once.  A good file gives the graph's longest
 * in-edge and self messages as the in-memory graph counts them. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llamp_graph.h"
#include "llamp_synth.h"
#include "llamp_test.h"
#include "llg_checksum.h"

static uint8_t *file_bytes(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  rewind(f);
  uint8_t *d = malloc(*size);
  if (d && fread(d, 1, *size, f) != *size) {
    free(d);
    d = NULL;
  }
  fclose(f);
  return d;
}

/* The bytes, changed, written to a file and read back: the reader's error
 * (empty when it read a graph). */
static const char *read_changed(const uint8_t *d, size_t size, void (*change)(uint8_t *, const uint64_t *, uint64_t),
                                uint64_t v, int fix, char *err, size_t errlen) {
  static const char *path = "test_graph_read_changed.llg";
  uint8_t *c = malloc(size);
  memcpy(c, d, size);
  uint64_t off[LLG_SECTIONS], bytes[LLG_SECTIONS], n, m;
  uint32_t P;
  memcpy(&P, c + 12, 4);
  memcpy(&n, c + 16, 8);
  memcpy(&m, c + 24, 8);
  llg_layout(P, n, m, off, bytes);
  change(c, off, v);
  if (fix) llg_fix_checksum(c, size);
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(c, 1, size, f) == size);
  if (f) fclose(f);
  free(c);
  err[0] = 0;
  llamp_graph_t *g = llamp_graph_read_binary(path, err, errlen);
  if (g) err[0] = 0;
  llamp_graph_destroy(g);
  unlink(path);
  return err;
}

static void value_negative(uint8_t *c, const uint64_t *off, uint64_t v) {
  double x = -1e-9;
  memcpy(c + off[2] + 8 * v, &x, 8);
}
static void value_nan(uint8_t *c, const uint64_t *off, uint64_t v) {
  double x = NAN;
  memcpy(c + off[2] + 8 * v, &x, 8);
}
static void kind_bad(uint8_t *c, const uint64_t *off, uint64_t v) { c[off[0] + v] = 9; }
static void rank_bad(uint8_t *c, const uint64_t *off, uint64_t v) {
  uint32_t P;
  memcpy(&P, c + 12, 4);
  memcpy(c + off[1] + 4 * v, &P, 4);
}
static void source_not_before(uint8_t *c, const uint64_t *off, uint64_t v) {
  uint32_t e, w;
  memcpy(&e, c + off[6] + 4 * v, 4);
  memcpy(&w, c + off[7] + 4 * (uint64_t)e, 4);
  w = (w & ~LLAMP_EDGE_SRC_MASK) | (uint32_t)v; /* the vertex itself */
  memcpy(c + off[7] + 4 * (uint64_t)e, &w, 4);
}
static void offsets_swapped(uint8_t *c, const uint64_t *off, uint64_t v) {
  uint32_t a, b;
  memcpy(&a, c + off[6] + 4 * v, 4);
  memcpy(&b, c + off[6] + 4 * (v + 1), 4);
  a = b + 1; /* in_off[v] > in_off[v + 1] */
  memcpy(c + off[6] + 4 * v, &a, 4);
}
static void messages_plus_one(uint8_t *c, const uint64_t *off, uint64_t v) {
  (void)off, (void)v;
  uint64_t k;
  memcpy(&k, c + 32, 8);
  k++;
  memcpy(c + 32, &k, 8);
}
/* a kind out of range at v and a negative value at the last vertex: the
 * vertices' check comes before the values' */
static void kind_and_value(uint8_t *c, const uint64_t *off, uint64_t v) {
  uint64_t n;
  memcpy(&n, c + 16, 8);
  kind_bad(c, off, v);
  value_negative(c, off, n - 1);
}
/* a vertex whose first in-edge is a message edge points at itself */
static uint64_t with_edge(const llamp_graph_t *g, uint64_t from) {
  for (uint64_t v = from; v < llamp_graph_num_vertices(g); v++) {
    uint64_t a, b;
    llamp_graph_in_edges(g, v, &a, &b);
    if (b > a) return v;
  }
  return from;
}

int main(void) {
  char err[512];
  /* 16 ranks x 300 iterations: ~50 k vertices, several chunks of 8192 */
  llamp_graph_t *mem = llamp_synth_graph("halo2d", "px=4,py=4,iters=300", err, sizeof err);
  CHECK(mem != NULL);
  if (!mem) return 1;
  uint64_t n = llamp_graph_num_vertices(mem);
  CHECK(n > 4 * 8192);
  const char *path = "test_graph_read.llg";
  CHECK(llamp_graph_write_binary(mem, path, err, sizeof err) == 0);
  llamp_graph_t *g = llamp_graph_read_binary(path, err, sizeof err);
  CHECK(g != NULL);
  if (g) {
    /* the reader's counts (from its checks) against the in-memory graph's */
    CHECK(llamp_graph_reach(g) == llamp_graph_reach(mem) && llamp_graph_reach(g) > 0);
    CHECK(llamp_graph_num_self_messages(g) == llamp_graph_num_self_messages(mem));
    CHECK(llamp_graph_num_messages(g) == llamp_graph_num_messages(mem));
    CHECK(llamp_graph_check(g, err, sizeof err) == 0);
  }
  llamp_graph_destroy(g);
  size_t size = 0;
  uint8_t *d = file_bytes(path, &size);
  CHECK(d != NULL);
  unlink(path);
  if (!d) return 1;
  /* an early vertex, one in a middle chunk, the last one */
  uint64_t where[3] = {5, 3 * 8192 + 17, n - 1};
  char want[256];
  for (int w = 0; w < 3; w++) {
    uint64_t v = where[w], ve = with_edge(mem, v);
    read_changed(d, size, value_negative, v, 1, err, sizeof err);
    CHECK(strstr(err, "invalid graph: a cost or size is not finite and non-negative") != NULL);
    read_changed(d, size, value_nan, v, 1, err, sizeof err);
    CHECK(strstr(err, "invalid graph: a cost or size is not finite and non-negative") != NULL);
    snprintf(want, sizeof want, "invalid graph: vertex %llu: kind, rank, id or partner out of range",
             (unsigned long long)v);
    read_changed(d, size, kind_bad, v, 1, err, sizeof err);
    CHECK(strstr(err, want) != NULL);
    read_changed(d, size, rank_bad, v, 1, err, sizeof err);
    CHECK(strstr(err, want) != NULL);
    read_changed(d, size, kind_and_value, v, 1, err, sizeof err);
    CHECK(strstr(err, want) != NULL);
    snprintf(want, sizeof want, "invalid graph: vertex %llu: an in-edge's source is not before it",
             (unsigned long long)ve);
    read_changed(d, size, source_not_before, ve, 1, err, sizeof err);
    CHECK(strstr(err, want) != NULL);
    if (v + 1 < n) {
      read_changed(d, size, offsets_swapped, v, 1, err, sizeof err);
      CHECK(strstr(err, "invalid graph: edge offsets out of order") != NULL);
    }
    /* the checksum's mismatch comes first */
    read_changed(d, size, kind_bad, v, 0, err, sizeof err);
    CHECK(strstr(err, "checksum mismatch") != NULL);
  }
  read_changed(d, size, messages_plus_one, 0, 1, err, sizeof err);
  CHECK(strstr(err, "invalid graph: message count mismatch") != NULL);
  free(d);
  llamp_graph_destroy(mem);
  if (llamp_test_failures) fprintf(stderr, "%d failure(s)\n", llamp_test_failures);
  return llamp_test_failures != 0;
}
