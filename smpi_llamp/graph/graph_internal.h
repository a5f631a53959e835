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
  uint32_t *local;   /* index within the rank's posting order */
  uint32_t *partner; /* matched send/recv, LLAMP_NONE32 for calc */
  uint32_t *in_beg, *in_end; /* v's in-edges are in_src[in_beg[v] .. in_end[v]) */
  uint32_t *in_src;  /* m: source | kind << 30 (segments in builder order) */
};

llamp_graph_t *llamp_graph_alloc(uint32_t num_ranks, uint64_t n, uint64_t m);
#endif
