/* libFuzzer harness for the GOAL reader and writer (build: -DLLAMP_FUZZ=ON
 * with clang; see tests/goal.cmake and docs/goal.md).
 *
 * Oracle: the reader either returns a graph that passes llamp_graph_check, or
 * NULL with a non-empty one-line message.  An accepted graph must be
 * writable, and its text must read back into a graph of the same shape. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_goal.h"

/* The builder's memory and time grow with num_ranks even without operations;
 * skip inputs declaring huge rank counts so the fuzzer explores the parser
 * instead of running out of memory. */
static int too_many_ranks(const char *s, size_t n) {
  static const char kw[] = "num_ranks";
  for (size_t i = 0; i + sizeof kw - 1 < n; i++) {
    if (memcmp(s + i, kw, sizeof kw - 1) != 0) continue;
    size_t j = i + sizeof kw - 1;
    while (j < n && strchr(" \t\r\f\v", s[j]) && s[j]) j++; /* the lexer's blanks */
    uint64_t v = 0;
    while (j < n && s[j] >= '0' && s[j] <= '9' && v < (1u << 20)) v = v * 10 + (uint64_t)(s[j++] - '0');
    if (v > 4096) return 1;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  if (too_many_ranks(text, size)) return 0;
  char err[512] = "";
  llamp_graph_t *g = llamp_goal_read_buffer(text, size, NULL, err, sizeof err);
  if (!g) {
    if (err[0] == '\0' || strchr(err, '\n')) abort();
    return 0;
  }
  if (llamp_graph_check(g, err, sizeof err) != 0) abort();

  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  if (!f) abort();
  if (llamp_goal_write_stream(g, f, NULL, err, sizeof err) != 0) abort();
  fclose(f);
  llamp_graph_t *g2 = llamp_goal_read_buffer(out, len, NULL, err, sizeof err);
  if (!g2) abort();
  if (llamp_graph_num_ranks(g2) != llamp_graph_num_ranks(g) ||
      llamp_graph_num_vertices(g2) != llamp_graph_num_vertices(g) ||
      llamp_graph_num_edges(g2) != llamp_graph_num_edges(g) ||
      llamp_graph_num_messages(g2) != llamp_graph_num_messages(g))
    abort();
  llamp_graph_destroy(g2);
  llamp_graph_destroy(g);
  free(out);
  return 0;
}
