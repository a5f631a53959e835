/* llamp_graph.h - the execution DAG of an MPI run (calc / send / recv vertices).
 *
 * Error rule for every function here: functions returning int return 0 on
 * success and -1 on failure; functions returning pointers return NULL on
 * failure.  On failure a one-line message is available from llamp_graph_error()
 * (or from the builder's own error buffer); the library never prints.
 *
 * Life cycle: a llamp_builder_t collects the operations of each rank in program
 * order plus their dependencies (GOAL `requires` / `irequires`), then
 * llamp_builder_finish() matches sends to receives, checks the result and
 * freezes it into a compact llamp_graph_t whose vertices are renumbered in a
 * topological order that keeps each vertex near its predecessors (by level,
 * then builder id: the locality layout) and whose in-edges are stored
 * CSR-style.  llamp_graph_id() maps a vertex back to its builder id.
 *
 * Units are SI: calc durations in seconds, message sizes in bytes. */
#ifndef LLAMP_GRAPH_H
#define LLAMP_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  LLAMP_VERTEX_CALC = 0, /* compute burst: cost = duration */
  LLAMP_VERTEX_SEND = 1, /* message injection: cost = o */
  LLAMP_VERTEX_RECV = 2  /* message reception: cost = o (+ rendezvous terms) */
} llamp_vertex_kind_t;

/* In-edge kinds.  "end" means the source vertex's finish time, "start" its
 * start time.  Message edges always go from a send to its matched receive. */
typedef enum {
  LLAMP_EDGE_REQUIRES = 0,  /* end(u)   -> start(v), cost 0 (program order) */
  LLAMP_EDGE_IREQUIRES = 1, /* start(u) -> start(v), cost 0 (nonblocking start) */
  LLAMP_EDGE_MESSAGE = 2,   /* end(send) -> start(recv), cost by the protocol */
  /* end(u) -> start of receive v's CPU time (its o): SMPI spends a
   * receive's smpi/or in the call that completes it (MPI_Wait*, MPI_Test*,
   * a collective's waitall), after what the rank did before that call and
   * after the receives that call completed before it.  The engine makes it
   * an edge from u's end (a send's own end, not its completion: an Isend
   * the call has not completed yet) into an eager receive whose CPU time is not zero (its
   * start is then no longer its data's arrival: it leaves the NIC rule's
   * receive chain), and drops it into a receive that starts at its match
   * (docs/model.md, "Receive overhead"). */
  LLAMP_EDGE_CPU = 3
} llamp_edge_kind_t;

#define LLAMP_ANY_SOURCE (-1)
#define LLAMP_ANY_TAG (-1)
/* A message from a rank to itself never crosses the network: the engine and
 * the LP charge it no L and no G (docs/model.md, "Messages to oneself"),
 * except when its tag is in [LLAMP_TAG_NET_SELF, LLAMP_TAG_NET_SELF_END):
 * sched's stand-ins for a network transfer (an RMA Get's data, a Put's
 * arrival awaited by a flush), which cost L like any message. */
#define LLAMP_TAG_NET_SELF (3 << 28)
#define LLAMP_TAG_NET_SELF_END (1 << 30)

/* An affine cost c0 + nL*L + nG*G + no*o + ng*g (DESIGN §3). */
typedef struct {
  double c0, nL, nG, no, ng;
} llamp_affine_t;

typedef struct llamp_graph llamp_graph_t;
typedef struct llamp_builder llamp_builder_t;

/* ---- builder ---------------------------------------------------------- */

/* Create a builder for `num_ranks` ranks; `source` names the input in error
 * messages (a file name, "capture", ...). */
llamp_builder_t *llamp_builder_create(uint32_t num_ranks, const char *source);
void llamp_builder_destroy(llamp_builder_t *b);
/* Threads for llamp_builder_finish's passes: 1 (or less), 2 (or more), or 0
 * (the default) = two when the graph has 65536 operations or more and two
 * CPUs are online (llamp_par_halves).  The graph is the same whatever the
 * count. */
void llamp_builder_set_threads(llamp_builder_t *b, int threads);
/* Operations added so far (0 for NULL). */
uint64_t llamp_builder_num_ops(const llamp_builder_t *b);
/* Called as each stage of llamp_builder_finish ends, with its name
 * ("matching", "levels", "relayout"), on the calling thread: the caller
 * times them (LLAMP_TIMING).  NULL (the default): no calls. */
typedef void (*llamp_stage_hook_t)(void *arg, const char *stage);
void llamp_builder_set_stage_hook(llamp_builder_t *b, llamp_stage_hook_t fn, void *arg);
/* Room for `ops` operations and `deps` dependencies before the arrays grow
 * (a hint: more still works).  Growing by doubling copies each array into
 * fresh pages (a quarter of a trace's DAG construction); room that is never
 * used is never touched, so a generous hint costs address space only.
 * Returns 0, or -1 when out of memory (the builder is then unchanged). */
int llamp_builder_reserve(llamp_builder_t *b, uint64_t ops, uint64_t deps);

/* Append an operation to `rank`.  Returns the builder-wide operation id (>=0)
 * or -1.  All operations of one rank must be added contiguously (rank blocks
 * in any order, each rank once), in the rank's posting order.  calc: `value` = duration in seconds, peer/tag ignored.
 * send: `value` = bytes, peer = destination rank.  recv: `value` = bytes,
 * peer = source rank or LLAMP_ANY_SOURCE, tag may be LLAMP_ANY_TAG.
 * `line` is the source line (0 if none) quoted in later errors. */
int64_t llamp_builder_add(llamp_builder_t *b, uint32_t rank, llamp_vertex_kind_t kind,
                          double value, int32_t peer, int32_t tag, uint64_t line);

/* Vertex flags.  LLAMP_VERTEX_F_SYNC: a synchronous send (MPI_Ssend,
 * MPI_Issend): whatever its size, its transfer starts when its receive is
 * matched and the send completes only when the data has arrived, as a
 * message above S (SMPI 3.32 never detaches it; docs/model.md). */
#define LLAMP_VERTEX_F_SYNC 0x1u
/* LLAMP_VERTEX_F_ISEND: a send SMPI charges as an MPI_Isend (smpi/ois, not
 * os), even when the next operation waits for it: MPI_Sendrecv's send and
 * the sends of collectives made of Request::isend or sendrecv.  A send some
 * operation irequires is one already (docs/model.md, "CPU"). */
#define LLAMP_VERTEX_F_ISEND 0x2u
/* LLAMP_VERTEX_F_OS: a send SMPI charges as a blocking one (smpi/os when
 * detached) although the next operation only irequires it: the MPI_Start of
 * an MPI_Send_init request, which has no MPI_REQ_ISEND (Request::start).
 * The next operation waits for that os.  Wins over an irequires edge, not
 * over LLAMP_VERTEX_F_ISEND. */
#define LLAMP_VERTEX_F_OS 0x4u
#define LLAMP_VERTEX_F_ALL (LLAMP_VERTEX_F_SYNC | LLAMP_VERTEX_F_ISEND | LLAMP_VERTEX_F_OS)
/* Set operation `id`'s flags (LLAMP_VERTEX_F_*; on sends only; flags set
 * twice add up).
 * 0 / -1 (bad id or flag, out of memory). */
int llamp_builder_set_flags(llamp_builder_t *b, int64_t id, unsigned flags);

/* `after` may start only once `before` completed (REQUIRES) or started
 * (IREQUIRES).  Both ids must belong to the same rank, the rank whose block
 * of operations is being added (a rank's dependencies are given before the
 * next rank's first operation). */
int llamp_builder_depend(llamp_builder_t *b, int64_t after, int64_t before,
                         llamp_edge_kind_t kind, uint64_t line);

/* Move every operation and dependency of `src` after those of `b`, as if
 * src's rank blocks had been added to b (in src's order) after b's: ids of
 * src's operations grow by b's count.  No rank may have operations in both.
 * map_tag (NULL = none) rewrites each moved send's and receive's tag, for
 * callers whose tag numbering src did not share.  This lets two threads
 * build the blocks of two rank ranges side by side.  src is consumed
 * (destroyed) in every case; on failure b holds the error and fails later
 * calls.  0 / -1. */
int llamp_builder_append(llamp_builder_t *b, llamp_builder_t *src,
                         int32_t (*map_tag)(void *ctx, int32_t tag), void *ctx);

/* A new builder holding the operations and dependencies of parts[0..count)
 * in that order: the builder a chain of llamp_builder_append calls into an
 * empty one gives (the graph is byte for byte the same), with the copies
 * split over `threads` as llamp_builder_set_threads counts them.  When
 * map_tag is given, part i's sends' and receives' tags go through
 * map_tag(ctx[i], tag) where ctx[i] is not NULL.  Every part is consumed
 * (destroyed); NULL with a message in err on failure. */
llamp_builder_t *llamp_builder_concat(llamp_builder_t **parts, uint32_t count,
                                      int32_t (*map_tag)(void *ctx, int32_t tag), void *const *ctx,
                                      int threads, char *err, size_t errlen);

/* Match messages, sort topologically, freeze.  Matching rule: for each
 * destination rank, receives are taken in posting order (operation id order
 * within the rank) and each is matched to the earliest not yet matched send
 * (in the sender's posting order) whose (source, destination, tag) fits,
 * wildcards included; among several sources for an ANY_SOURCE receive the
 * send with the smallest (sender operation index, source rank) wins.
 * Fails with a message on an unmatched send or receive, or a cycle.
 * The builder is consumed (destroyed) in every case. */
llamp_graph_t *llamp_builder_finish(llamp_builder_t *b, char *err, size_t errlen);

/* Last error of a builder call (valid until the next call). */
const char *llamp_builder_error(const llamp_builder_t *b);

/* ---- the frozen graph --------------------------------------------------- */

void llamp_graph_destroy(llamp_graph_t *g);

uint32_t llamp_graph_num_ranks(const llamp_graph_t *g);
uint64_t llamp_graph_num_vertices(const llamp_graph_t *g);
uint64_t llamp_graph_num_edges(const llamp_graph_t *g);
uint64_t llamp_graph_num_messages(const llamp_graph_t *g);
/* Messages from a rank to itself that cost no L (see LLAMP_TAG_NET_SELF),
 * counted once (a read graph knows it from its bounds check, so the engine
 * need not touch every rank and partner again). */
uint64_t llamp_graph_num_self_messages(const llamp_graph_t *g);
/* The longest in-edge, in vertices back (v - u for an edge u -> v): how far
 * behind a pass in stored order must remember.  Counted once, like the
 * self-messages. */
uint64_t llamp_graph_reach(const llamp_graph_t *g);

/* Vertices are numbered 0..n-1 in a topological order (every in-edge's
 * source has a smaller number), by level (the longest chain of edges before
 * the vertex), ties by builder id.  llamp_graph_topo(g, i) is i (kept for
 * callers written for the older layout). */
uint64_t llamp_graph_topo(const llamp_graph_t *g, uint64_t i);
/* The builder id of v (llamp_builder_add's return value): a rank's ids are
 * contiguous, in posting order. */
uint64_t llamp_graph_id(const llamp_graph_t *g, uint64_t v);
llamp_vertex_kind_t llamp_graph_kind(const llamp_graph_t *g, uint64_t v);
uint32_t llamp_graph_rank(const llamp_graph_t *g, uint64_t v);
double llamp_graph_value(const llamp_graph_t *g, uint64_t v); /* seconds or bytes */
int32_t llamp_graph_peer(const llamp_graph_t *g, uint64_t v); /* partner's rank, -1 for calc */
int32_t llamp_graph_tag(const llamp_graph_t *g, uint64_t v);  /* resolved: a recv gets its send's tag */
unsigned llamp_graph_flags(const llamp_graph_t *g, uint64_t v); /* LLAMP_VERTEX_F_* */
/* Does any vertex have a flag? */
int llamp_graph_has_flags(const llamp_graph_t *g);
/* Index of v within its rank's program (posting) order. */
uint64_t llamp_graph_local_index(const llamp_graph_t *g, uint64_t v);

/* In-edges of v: indices [first, last) into the edge arrays. */
void llamp_graph_in_edges(const llamp_graph_t *g, uint64_t v, uint64_t *first, uint64_t *last);
uint64_t llamp_graph_edge_source(const llamp_graph_t *g, uint64_t e);
llamp_edge_kind_t llamp_graph_edge_kind(const llamp_graph_t *g, uint64_t e);

/* The matched partner of a send or receive vertex (the other end of its
 * message edge), or UINT64_MAX for calc vertices. */
uint64_t llamp_graph_partner(const llamp_graph_t *g, uint64_t v);

/* Raw arrays for the engine's hot loops (read only, valid while g lives).
 * v's in-edges are in_src[in_beg[v] .. in_end[v]) with in_src[e] = source |
 * (kind << 30), every source < v; topo is NULL: 0..n-1 is the topological
 * order (it was an index array before the locality layout). */
typedef struct {
  uint64_t n, m;
  const uint8_t *kind;
  const uint32_t *rank;
  const double *value;
  const uint32_t *in_beg, *in_end;
  const uint32_t *in_src;
  const uint32_t *topo;
  const uint8_t *flags; /* LLAMP_VERTEX_F_* per vertex; NULL: no vertex has one */
} llamp_graph_arrays_t;
#define LLAMP_EDGE_SRC_MASK 0x3fffffffu
#define LLAMP_EDGE_KIND_SHIFT 30
void llamp_graph_arrays(const llamp_graph_t *g, llamp_graph_arrays_t *out);
/* Is send v synchronous (LLAMP_VERTEX_F_SYNC)?  For the hot loops. */
static inline int llamp_graph_arrays_sync(const llamp_graph_arrays_t *a, uint64_t v) {
  return a->flags && (a->flags[v] & LLAMP_VERTEX_F_SYNC);
}
/* How SMPI charges send v that an operation irequires: 1 as an MPI_Isend
 * (ois), 2 as a blocking send whose call returns after os
 * (LLAMP_VERTEX_F_OS without LLAMP_VERTEX_F_ISEND). */
static inline int llamp_graph_send_charge(const llamp_graph_arrays_t *a, uint64_t v) {
  return a->flags && (a->flags[v] & (LLAMP_VERTEX_F_OS | LLAMP_VERTEX_F_ISEND)) == LLAMP_VERTEX_F_OS ? 2 : 1;
}

/* Invariant checker (hwloc_topology_check style): topological numbering,
 * every message matched with a consistent partner, costs finite and
 * non-negative, edge kinds valid.  Returns 0, or -1 with a message in err. */
int llamp_graph_check(const llamp_graph_t *g, char *err, size_t errlen);

/* ---- compact binary file ----------------------------------------------- */

/* Write / read the frozen graph (little-endian, versioned header, checksum).
 * Reading validates sizes and runs the checker; errors name the file. */
int llamp_graph_write_binary(const llamp_graph_t *g, const char *path, char *err, size_t errlen);
llamp_graph_t *llamp_graph_read_binary(const char *path, char *err, size_t errlen);
/* Does the file start with the binary magic? (1 yes, 0 no, -1 unreadable) */
int llamp_graph_is_binary(const char *path);

/* A binary graph written vertex by vertex, for graphs larger than memory
 * (10^9 events: 36 GB): the caller gives the vertices in a topological
 * order (every in-edge's source already given) with their final numbers,
 * and the counts up front; each array goes to its place in the file through
 * a small buffer.  Closing writes the rank blocks, reads the file back once
 * for the checksum and writes the header: the file is then the one
 * llamp_graph_write_binary writes for the same arrays, byte for byte.
 * in_src[i] = source | kind << LLAMP_EDGE_KIND_SHIFT; partner and id as
 * llamp_graph_partner / llamp_graph_id (UINT32_MAX: no partner). */
typedef struct llamp_graph_stream llamp_graph_stream_t;
llamp_graph_stream_t *llamp_graph_stream_create(const char *path, uint32_t num_ranks, uint64_t n,
                                                uint64_t m, uint64_t num_messages, char *err,
                                                size_t errlen);
int llamp_graph_stream_vertex(llamp_graph_stream_t *s, unsigned kind, uint32_t rank, double value,
                              int32_t tag, uint32_t partner, uint32_t id, uint32_t nin,
                              const uint32_t *in_src);
/* rank_first: num_ranks + 1 builder ids (llamp_graph.h); checks that n
 * vertices, m edges and num_messages sends were given.  Frees s. */
int llamp_graph_stream_close(llamp_graph_stream_t *s, const uint64_t *rank_first, char *err,
                             size_t errlen);
/* Without closing (an error on the caller's side): the file is removed. */
void llamp_graph_stream_abort(llamp_graph_stream_t *s);
/* A graph read from a file: drop the pages of vertices [0, v_end) and of
 * their in-edges from the process's resident set (the page cache keeps
 * them; reading them again maps them again).  For one pass over a file
 * larger than memory; a no-op for graphs built in memory. */
void llamp_graph_drop_pages(const llamp_graph_t *g, uint64_t v_end);
/* The same for the arrays an analysis reads only a vertex here and there
 * (ranks, tags, partners, ids; the critical path's few thousand vertices):
 * the kernel maps 16 pages around each touched one, so a few thousand reads
 * keep a whole array resident.  Call after such reads; a no-op in memory. */
void llamp_graph_drop_sparse(const llamp_graph_t *g);

#ifdef __cplusplus
}
#endif
#endif
