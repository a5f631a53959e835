/* Private layout of llamp_graph_t, shared by graph.c and binary.c only. */
#ifndef LLAMP_GRAPH_INTERNAL_H
#define LLAMP_GRAPH_INTERNAL_H
#include "llamp_graph.h"

#define LLAMP_NONE32 UINT32_MAX
/* Vertex ids are stored in the low 30 bits of an edge word. */
#define LLAMP_MAX_VERTICES ((uint64_t)LLAMP_EDGE_SRC_MASK)

/* Vertices are numbered in a topological order by (level, builder id): the
 * level is the longest chain of edges before the vertex, so a vertex sits
 * about one level's width after its predecessors and a pass over 0..n-1
 * touches memory in a sliding window (the locality layout). */
struct llamp_graph {
  uint32_t num_ranks;
  uint64_t n, m, num_messages;
  uint8_t *kind;     /* llamp_vertex_kind_t */
  uint32_t *rank;
  double *value;     /* calc: seconds; send/recv: bytes */
  int32_t *tag;      /* resolved tag (a receive gets its send's tag) */
  uint32_t *partner; /* matched send/recv, LLAMP_NONE32 for calc */
  uint8_t *flags;    /* n: LLAMP_VERTEX_F_*; NULL when no vertex has one */
  uint32_t *id;      /* n: builder id (a rank's ids are contiguous, in posting order) */
  uint32_t *in_off;  /* n+1: v's in-edges are in_src[in_off[v] .. in_off[v+1]) */
  uint32_t *in_src;  /* m: source | kind << 30, every source < v */
  uint64_t *rank_first; /* num_ranks+1: a rank's builder ids start here */
  void *map;            /* non-NULL: the arrays point into this read-only mapping */
  size_t map_len;
  int map_big; /* the file is over half the memory: reading drops each pass's pages */
  /* llamp_graph_num_self_messages, counted once: by the reader's bounds
   * check (whose pages are dropped after) or on first use */
  int self_known;
  uint64_t self_messages;
  /* llamp_graph_reach, the same way */
  int reach_known;
  uint64_t reach;
};

/* Send vertex v's message goes to its own rank and is not one of sched's
 * network stand-ins (llamp_graph.h, LLAMP_TAG_NET_SELF). */
static inline int llamp_graph_self_send(const llamp_graph_t *g, uint64_t v) {
  uint32_t pr = g->partner[v];
  if (g->kind[v] != LLAMP_VERTEX_SEND || pr >= g->n || g->rank[pr] != g->rank[v]) return 0;
  return !(g->tag[v] >= LLAMP_TAG_NET_SELF && g->tag[v] < LLAMP_TAG_NET_SELF_END);
}

llamp_graph_t *llamp_graph_alloc(uint32_t num_ranks, uint64_t n, uint64_t m);

/* Renumber a graph whose vertices are builder ids (sources, partners and
 * rank_first in builder ids, id unset) into the locality layout; level[v]
 * is v's level, in an array of n + 1 entries (consumed: its memory becomes
 * the new in_off, or is freed on failure); g->id NULL, or an array of n
 * entries whose memory takes the ids.  threads: 1, 2, or 0 = two when the
 * graph is large and two CPUs are online (the result is the same).
 * 0 / -1 (out of memory). */
int llamp_graph_relayout(llamp_graph_t *g, uint32_t *level, int threads);

/* Memory-safety checks of a graph read from a file, one streaming pass per
 * array: offsets, sources before their vertex, kinds, ranks, partners and
 * values in range.  0 / -1 with a message. */
int llamp_graph_check_bounds(const llamp_graph_t *g, char *err, size_t errlen);
/* Its first checks, whole-graph: the edge offsets' ends and the ranks'
 * first vertices.  0 / -1 with a message (err may be NULL). */
int llamp_graph_bounds_ends(const llamp_graph_t *g, char *err, size_t errlen);
/* Its checks on the vertices [v0, v1) (the reader runs them chunk by chunk
 * beside the checksum): each returns the first offending vertex, or v1.
 * Offsets first (the edges' pass reads in_src by them); the edges' pass
 * raises *reach to the longest in-edge, the vertices' pass adds the sends
 * and the self messages. */
uint64_t llamp_graph_bounds_offsets(const llamp_graph_t *g, uint64_t v0, uint64_t v1);
uint64_t llamp_graph_bounds_edges(const llamp_graph_t *g, uint64_t v0, uint64_t v1, uint64_t *reach);
uint64_t llamp_graph_bounds_vertices(const llamp_graph_t *g, uint64_t v0, uint64_t v1, uint64_t *sends,
                                     uint64_t *self);
/* 0 / -1: a cost or size in [v0, v1) is negative, infinite or NaN */
int llamp_graph_bounds_values(const llamp_graph_t *g, uint64_t v0, uint64_t v1);
/* What the checks found, cached in the graph: the longest in-edge and the
 * number of self messages, once every check passed. */
void llamp_graph_bounds_found(llamp_graph_t *g, uint64_t reach, uint64_t self);
/* The whole pages inside [p, p + bytes) leave the resident set (mapped
 * files: the page cache keeps them). */
void llamp_graph_drop_range(const void *p, size_t bytes);

#endif
