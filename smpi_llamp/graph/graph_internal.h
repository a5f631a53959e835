/* Private layout of llamp_graph_t, shared by graph.c and binary.c only. */
#ifndef LLAMP_GRAPH_INTERNAL_H
#define LLAMP_GRAPH_INTERNAL_H
#include "llamp_graph.h"

#define LLAMP_NONE32 UINT32_MAX
/* Vertex ids are stored in the low 30 bits of an edge word. */
#define LLAMP_MAX_VERTICES ((uint64_t)LLAMP_EDGE_SRC_MASK)

struct llamp_graph {
  uint32_t num_ranks;
  uint64_t n, m, num_messages;
  uint8_t *kind;     /* llamp_vertex_kind_t */
  uint32_t *rank;
  double *value;     /* calc: seconds; send/recv: bytes */
  int32_t *tag;      /* resolved tag (a receive gets its send's tag) */
  uint32_t *partner; /* matched send/recv, LLAMP_NONE32 for calc */
  uint32_t *in_off;  /* n+1: v's in-edges are in_src[in_off[v] .. in_off[v+1]) */
  uint32_t *in_src;  /* m: source | kind << 30 */
  uint32_t *topo;    /* n: the vertices in a topological order */
  uint64_t *rank_first; /* num_ranks+1: a rank's vertices are contiguous, in posting order */
};

llamp_graph_t *llamp_graph_alloc(uint32_t num_ranks, uint64_t n, uint64_t m);
#endif
