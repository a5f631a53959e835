/* The execution graph: builder (collect, match, sort, freeze) and accessors.
 *
 * Memory is the design constraint (10^8-event graphs must fit), so:
 * - dependencies go straight into an in-edge CSR, one rank at a time (a
 *   rank's dependencies are buffered until its block ends), with one slot
 *   per receive reserved for its message edge;
 * - matching uses hash tables keyed by (source, destination, tag);
 * - levels come from a depth-first search over in-edges (no out-edge lists);
 * - the frozen graph is renumbered by (level, builder id), one array at a
 *   time out of place (the rank array is rebuilt from the ids, so the peak is
 *   one edge array plus one offset array above the graph itself).  Passes
 *   over 0..n-1 then read every array in a sliding window (about a level
 *   wide) instead of jumping between ranks' blocks: 3-8x faster evaluation
 *   on 10^7-10^8 events. */
#include <math.h>
#include <sys/mman.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "llamp_map.h"
#include "llamp_mem.h"
#include "llamp_par.h"

#define DEP_IREQ_BIT 0x80000000u
#define DEP_CPU_BIT 0x40000000u

struct llamp_builder {
  uint32_t num_ranks;
  char source[256];
  char err[512];
  uint64_t n, cap;
  uint8_t *kind;
  uint32_t *rank;
  double *value;
  int32_t *peer, *tag;
  uint32_t *line;
  uint64_t *flagged, nflagged, capflagged; /* id << 8 | LLAMP_VERTEX_F_*, the flagged ops (few) */
  uint64_t *first, *count; /* per rank: first op id and op count */
  uint8_t *seen;           /* per rank: has a block of ops */
  int64_t cur_rank;
  /* in-edge CSR in builder ids, filled when a rank's block ends */
  uint32_t *in_off; /* n+1 (grown with the vertex arrays) */
  uint32_t *in_src;
  uint64_t m, capm;
  uint64_t flushed; /* vertices [0, flushed) have their segments */
  /* the current rank's dependencies, until its block ends */
  uint64_t nd, capd;
  uint32_t *dep_after, *dep_before; /* before | DEP_IREQ_BIT or DEP_CPU_BIT */
  uint64_t pend_recv; /* receives in the current block (each gets a message slot) */
  int unsorted;       /* the current block's dependencies are not in vertex order */
  int failed;
  int threads;      /* for the finish's passes (llamp_builder_set_threads) */
  llamp_stage_hook_t stage_fn; /* llamp_builder_set_stage_hook */
  void *stage_arg;
  llamp_par_t *par; /* a concatenation's helper thread, kept for the finish */
};

static void berr(llamp_builder_t *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->err, sizeof b->err, fmt, ap);
  va_end(ap);
}

/* Grow one of the builder's arrays from `old` to `cap` items of `elem`
 * bytes (llamp_mem_grow: huge pages for all of it); 0 / -1. */
static int grow_array(void **p, size_t elem, uint64_t old, uint64_t cap) {
  return llamp_mem_grow(p, elem * old, elem * cap);
}

/* Grow a scratch array of `elem`-sized items to `cap` items; 0 / -1. */
static int grow(void **p, size_t elem, uint64_t cap) {
  void *q = realloc(*p, elem * cap);
  if (!q) return -1;
  llamp_mem_advise_huge(q, elem * cap);
  *p = q;
  return 0;
}

/* An array filled soon after: huge pages where possible.  A first touch of a
 * fresh 4 KiB page costs ~16 us on a VM (the partner array of a 27 M-vertex
 * graph: 0.4 s); a 2 MiB page clears the same memory at memory speed. */
static void *alloc_big(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  llamp_mem_advise_huge(p, bytes);
  return p;
}

llamp_builder_t *llamp_builder_create(uint32_t num_ranks, const char *source) {
  if (num_ranks == 0 || num_ranks > (1u << 30)) return NULL;
  llamp_builder_t *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->num_ranks = num_ranks;
  snprintf(b->source, sizeof b->source, "%s", source ? source : "graph");
  b->first = calloc(num_ranks, sizeof *b->first);
  b->count = calloc(num_ranks, sizeof *b->count);
  b->seen = calloc(num_ranks, 1);
  b->cur_rank = -1;
  if (!b->first || !b->count || !b->seen) {
    llamp_builder_destroy(b);
    return NULL;
  }
  return b;
}

int llamp_builder_reserve(llamp_builder_t *b, uint64_t ops, uint64_t deps) {
  if (ops > LLAMP_MAX_VERTICES) ops = LLAMP_MAX_VERTICES;
  if (deps > UINT32_MAX) deps = UINT32_MAX;
  if (ops > b->cap) {
    uint64_t c = b->cap, o = c ? c + 1 : 0; /* in_off: one entry more */
    if (grow_array((void **)&b->kind, 1, c, ops) || grow_array((void **)&b->rank, 4, c, ops) ||
        grow_array((void **)&b->value, 8, c, ops) || grow_array((void **)&b->peer, 4, c, ops) ||
        grow_array((void **)&b->tag, 4, c, ops) || grow_array((void **)&b->line, 4, c, ops) ||
        grow_array((void **)&b->in_off, 4, o, ops + 1))
      return -1; /* the arrays that grew keep the old contents: cap stays */
    b->cap = ops;
  }
  if (deps > b->capd) {
    if (grow_array((void **)&b->dep_after, 4, b->capd, deps) || grow_array((void **)&b->dep_before, 4, b->capd, deps))
      return -1;
    b->capd = deps;
  }
  /* the in-edges: the dependencies and a message edge per receive */
  uint64_t edges = deps + ops < UINT32_MAX ? deps + ops : UINT32_MAX;
  if (edges > b->capm) {
    if (grow_array((void **)&b->in_src, 4, b->capm, edges)) return -1;
    b->capm = edges;
  }
  return 0;
}

void llamp_builder_destroy(llamp_builder_t *b) {
  if (!b) return;
  free(b->kind);
  free(b->rank);
  free(b->value);
  free(b->peer);
  free(b->tag);
  free(b->line);
  free(b->flagged);
  free(b->first);
  free(b->count);
  free(b->seen);
  free(b->dep_after);
  free(b->dep_before);
  free(b->in_off);
  free(b->in_src);
  llamp_par_destroy(b->par);
  free(b);
}

void llamp_builder_set_threads(llamp_builder_t *b, int threads) { b->threads = threads; }

uint64_t llamp_builder_num_ops(const llamp_builder_t *b) { return b ? b->n : 0; }

void llamp_builder_set_stage_hook(llamp_builder_t *b, llamp_stage_hook_t fn, void *arg) {
  if (!b) return;
  b->stage_fn = fn;
  b->stage_arg = arg;
}

/* A stage of the finish has ended: the caller's hook, if any. */
/* An array's block cut to its first `bytes` (in place; its tail goes back
 * to the heap or, for a mapped block, to the kernel). */
static void shrink_block(void **p, size_t bytes) {
  void *q = realloc(*p, bytes ? bytes : 1);
  if (q) *p = q;
}
static void stage_end(const llamp_builder_t *b, const char *stage) {
  if (b->stage_fn) b->stage_fn(b->stage_arg, stage);
}

const char *llamp_builder_error(const llamp_builder_t *b) { return b ? b->err : "no builder"; }

static inline uint32_t dep_word(uint32_t before) {
  uint32_t kind = (before & DEP_IREQ_BIT)  ? LLAMP_EDGE_IREQUIRES
                  : (before & DEP_CPU_BIT) ? LLAMP_EDGE_CPU
                                           : LLAMP_EDGE_REQUIRES;
  return (before & LLAMP_EDGE_SRC_MASK) | (kind << LLAMP_EDGE_KIND_SHIFT);
}

/* The in-edge segments of the current block [flushed, n), whose
 * dependencies are in vertex order: off[v - flushed] = its first edge,
 * counted from k, each source plus `shift` (the block's place in a
 * concatenation).  Returns the end of the last segment. */
static uint32_t segments_sorted(const llamp_builder_t *b, uint32_t *off, uint32_t *in_src, uint32_t k,
                                uint32_t shift) {
  uint64_t lo = b->flushed, d = 0;
  for (uint64_t v = lo; v < b->n; v++) {
    off[v - lo] = k;
    if (b->kind[v] == LLAMP_VERTEX_RECV) in_src[k++] = shift; /* message slot, set after matching */
    for (; d < b->nd && b->dep_after[d] == v; d++) in_src[k++] = dep_word(b->dep_before[d]) + shift;
  }
  return k;
}

/* Close the current rank's block: append its vertices' in-edge segments
 * (message slot first for a receive, then its dependencies in the order
 * they were given) to the CSR, and forget the buffered dependencies. */
static int flush_rank(llamp_builder_t *b) {
  uint64_t lo = b->flushed, hi = b->n;
  uint64_t add = b->nd;
  uint32_t *cursor = NULL;
  int sorted = 1; /* dependencies given vertex by vertex (sched's order) */
  for (uint64_t v = lo; v < hi; v++) add += b->kind[v] == LLAMP_VERTEX_RECV;
  for (uint64_t d = 1; d < b->nd; d++) sorted &= b->dep_after[d - 1] <= b->dep_after[d];
  if (b->m + add >= UINT32_MAX) {
    berr(b, "%s: more than 2^32 edges are not supported", b->source);
    b->failed = 1;
    return -1;
  }
  if (b->m + add > b->capm) {
    uint64_t cap = b->capm ? b->capm : 1024;
    while (cap < b->m + add) cap *= 2;
    if (grow_array((void **)&b->in_src, 4, b->capm, cap)) goto oom;
    b->capm = cap;
  }
  uint32_t *off = b->in_off;
  if (sorted) { /* the segments in one pass, in order */
    off[hi] = segments_sorted(b, off + lo, b->in_src, (uint32_t)b->m, 0);
    goto done;
  }
  if (!(cursor = alloc_big((hi - lo) * sizeof *cursor))) goto oom;
  for (uint64_t v = lo; v < hi; v++) off[v + 1] = b->kind[v] == LLAMP_VERTEX_RECV;
  for (uint64_t d = 0; d < b->nd; d++) off[b->dep_after[d] + 1]++;
  off[lo] = (uint32_t)b->m;
  for (uint64_t v = lo; v < hi; v++) {
    off[v + 1] += off[v];
    cursor[v - lo] = off[v] + (b->kind[v] == LLAMP_VERTEX_RECV);
    if (b->kind[v] == LLAMP_VERTEX_RECV) b->in_src[off[v]] = 0; /* message slot, set after matching */
  }
  for (uint64_t d = 0; d < b->nd; d++) b->in_src[cursor[b->dep_after[d] - lo]++] = dep_word(b->dep_before[d]);
  free(cursor);
done:
  b->m += add;
  b->flushed = hi;
  b->nd = 0;
  b->pend_recv = 0;
  b->unsorted = 0;
  return 0;
oom:
  free(cursor);
  berr(b, "%s: out of memory after %llu edges", b->source, (unsigned long long)b->m);
  b->failed = 1;
  return -1;
}

int64_t llamp_builder_add(llamp_builder_t *b, uint32_t rank, llamp_vertex_kind_t kind,
                          double value, int32_t peer, int32_t tag, uint64_t line) {
  if (b->failed) return -1;
  if (rank >= b->num_ranks) {
    berr(b, "%s:%llu: rank %u out of range (num_ranks %u)", b->source, (unsigned long long)line,
         rank, b->num_ranks);
    return -1;
  }
  if ((int64_t)rank != b->cur_rank) {
    if (b->cur_rank >= 0 && flush_rank(b)) return -1;
    if (b->seen[rank]) {
      berr(b, "%s:%llu: operations of rank %u are not contiguous (rank given twice)", b->source,
           (unsigned long long)line, rank);
      return -1;
    }
    b->seen[rank] = 1;
    b->first[rank] = b->n;
    b->cur_rank = rank;
  }
  if (!(value >= 0) || !isfinite(value)) {
    berr(b, "%s:%llu: %s value must be a finite non-negative number", b->source,
         (unsigned long long)line, kind == LLAMP_VERTEX_CALC ? "calc" : "message size");
    return -1;
  }
  if (kind == LLAMP_VERTEX_SEND && (peer < 0 || (uint32_t)peer >= b->num_ranks)) {
    berr(b, "%s:%llu: send destination %d out of range 0..%u", b->source,
         (unsigned long long)line, peer, b->num_ranks - 1);
    return -1;
  }
  if (kind == LLAMP_VERTEX_RECV && (peer < -1 || (peer >= 0 && (uint32_t)peer >= b->num_ranks))) {
    berr(b, "%s:%llu: recv source %d out of range -1..%u", b->source, (unsigned long long)line,
         peer, b->num_ranks - 1);
    return -1;
  }
  if (kind != LLAMP_VERTEX_CALC && (tag < -1 || (kind == LLAMP_VERTEX_SEND && tag < 0))) {
    berr(b, "%s:%llu: bad tag %d", b->source, (unsigned long long)line, tag);
    return -1;
  }
  if (b->n >= LLAMP_MAX_VERTICES) {
    berr(b, "%s:%llu: more than %llu operations are not supported", b->source,
         (unsigned long long)line, (unsigned long long)LLAMP_MAX_VERTICES);
    return -1;
  }
  if (b->n == b->cap) {
    uint64_t cap = b->cap ? b->cap * 2 : 1024;
    uint64_t c = b->cap, o = c ? c + 1 : 0; /* in_off: one entry more */
    if (grow_array((void **)&b->kind, 1, c, cap) || grow_array((void **)&b->rank, 4, c, cap) ||
        grow_array((void **)&b->value, 8, c, cap) || grow_array((void **)&b->peer, 4, c, cap) ||
        grow_array((void **)&b->tag, 4, c, cap) || grow_array((void **)&b->line, 4, c, cap) ||
        grow_array((void **)&b->in_off, 4, o, cap + 1)) {
      berr(b, "%s: out of memory after %llu operations", b->source, (unsigned long long)b->n);
      b->failed = 1;
      return -1;
    }
    b->cap = cap;
  }
  uint64_t id = b->n++;
  b->kind[id] = (uint8_t)kind;
  b->rank[id] = rank;
  b->value[id] = value;
  b->peer[id] = kind == LLAMP_VERTEX_CALC ? -1 : peer;
  b->tag[id] = kind == LLAMP_VERTEX_CALC ? 0 : tag;
  b->line[id] = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
  b->count[rank]++;
  b->pend_recv += kind == LLAMP_VERTEX_RECV;
  return (int64_t)id;
}

int llamp_builder_depend(llamp_builder_t *b, int64_t after, int64_t before, llamp_edge_kind_t kind,
                         uint64_t line) {
  if (b->failed) return -1;
  if (after < 0 || before < 0 || (uint64_t)after >= b->n || (uint64_t)before >= b->n) {
    berr(b, "%s:%llu: dependency on an unknown operation", b->source, (unsigned long long)line);
    return -1;
  }
  if (b->rank[after] != b->rank[before]) {
    berr(b, "%s:%llu: dependency between ranks %u and %u (only within a rank)", b->source,
         (unsigned long long)line, b->rank[after], b->rank[before]);
    return -1;
  }
  if ((uint64_t)after < b->flushed || (uint64_t)before < b->flushed) {
    berr(b, "%s:%llu: dependency of rank %u given after its block ended (give a rank's "
         "dependencies while its operations are being added)", b->source,
         (unsigned long long)line, b->rank[after]);
    return -1;
  }
  if (after == before) {
    berr(b, "%s:%llu: operation depends on itself", b->source, (unsigned long long)line);
    return -1;
  }
  if (kind != LLAMP_EDGE_REQUIRES && kind != LLAMP_EDGE_IREQUIRES && kind != LLAMP_EDGE_CPU) {
    berr(b, "%s:%llu: bad dependency kind", b->source, (unsigned long long)line);
    return -1;
  }
  if (kind == LLAMP_EDGE_CPU && b->kind[after] != LLAMP_VERTEX_RECV) {
    berr(b, "%s:%llu: a CPU dependency (cpurequires) of an operation that is not a receive",
         b->source, (unsigned long long)line);
    return -1;
  }
  if (b->nd == b->capd) {
    uint64_t cap = b->capd ? b->capd * 2 : 1024;
    if (grow_array((void **)&b->dep_after, 4, b->capd, cap) || grow_array((void **)&b->dep_before, 4, b->capd, cap)) {
      berr(b, "%s: out of memory", b->source);
      b->failed = 1;
      return -1;
    }
    b->capd = cap;
  }
  if (b->nd && (uint32_t)after < b->dep_after[b->nd - 1]) b->unsorted = 1;
  b->dep_after[b->nd] = (uint32_t)after;
  b->dep_before[b->nd] = (uint32_t)before | (kind == LLAMP_EDGE_IREQUIRES ? DEP_IREQ_BIT
                                              : kind == LLAMP_EDGE_CPU    ? DEP_CPU_BIT
                                                                          : 0);
  b->nd++;
  return 0;
}

/* ---- matching ------------------------------------------------------------ */

/* The pages of a moved array leave the resident set, unless the heap is
 * kept for an analysis that reallocates them at once (the capture's): each
 * reuse would then be a page fault again (bench_capture64's engine: 2700
 * faults, 0.03 s of the last MPI_Finalize), for the same peak. */
int llamp_builder_set_flags(llamp_builder_t *b, int64_t id, unsigned flags) {
  if (b->failed) return -1;
  if (id < 0 || (uint64_t)id >= b->n || (flags & ~LLAMP_VERTEX_F_ALL) ||
      (flags && b->kind[id] != LLAMP_VERTEX_SEND)) {
    berr(b, "%s: flags %#x on operation %lld: expected a send's LLAMP_VERTEX_F_SYNC or ISEND", b->source, flags,
         (long long)id);
    return -1;
  }
  if (!flags) return 0;
  if (b->nflagged == b->capflagged) {
    uint64_t cap = b->capflagged ? 2 * b->capflagged : 16;
    if (grow((void **)&b->flagged, 8, cap)) {
      berr(b, "%s: out of memory after %llu operations", b->source, (unsigned long long)b->n);
      b->failed = 1;
      return -1;
    }
    b->capflagged = cap;
  }
  b->flagged[b->nflagged++] = (uint64_t)id << 8 | flags;
  return 0;
}

/* src's flagged operations after b's, their ids grown by `shift`.  0 / -1. */
static int move_flagged(llamp_builder_t *b, const llamp_builder_t *src, uint64_t shift) {
  if (!src->nflagged) return 0;
  uint64_t need = b->nflagged + src->nflagged;
  if (need > b->capflagged) {
    if (grow((void **)&b->flagged, 8, need)) return -1;
    b->capflagged = need;
  }
  for (uint64_t i = 0; i < src->nflagged; i++) b->flagged[b->nflagged++] = src->flagged[i] + (shift << 8);
  return 0;
}

static void drop_moved(const void *p, size_t bytes) {
  if (!llamp_mem_freed_kept()) llamp_graph_drop_range(p, bytes);
}

/* Copy n items of `elem` bytes from src[0..) to dst[at..) and free src. */
static void move_array(void *dst, uint64_t at, void *src, size_t elem, uint64_t n) {
  if (n) memcpy((char *)dst + at * elem, src, n * elem);
  drop_moved(src, n * elem);
  free(src);
}

/* src's vertices to b[at..), each send's and receive's tag through map_tag
 * (NULL = as is) first; src's vertex arrays are freed. */
static void move_vertices(llamp_builder_t *b, uint64_t at, llamp_builder_t *src,
                          int32_t (*map_tag)(void *ctx, int32_t tag), void *ctx) {
  uint64_t n = at, n2 = src->n;
  if (map_tag)
    for (uint64_t v = 0; v < n2; v++)
      if (src->kind[v] != LLAMP_VERTEX_CALC) src->tag[v] = map_tag(ctx, src->tag[v]);
  move_array(b->kind, n, src->kind, 1, n2);
  move_array(b->rank, n, src->rank, 4, n2);
  move_array(b->value, n, src->value, 8, n2);
  move_array(b->peer, n, src->peer, 4, n2);
  move_array(b->tag, n, src->tag, 4, n2);
  move_array(b->line, n, src->line, 4, n2);
  src->kind = NULL;
  src->rank = NULL;
  src->value = NULL;
  src->peer = src->tag = NULL;
  src->line = NULL;
}

int llamp_builder_append(llamp_builder_t *b, llamp_builder_t *src,
                         int32_t (*map_tag)(void *ctx, int32_t tag), void *ctx) {
  if (b->failed) goto fail;
  if (src->failed) {
    snprintf(b->err, sizeof b->err, "%s", src->err);
    goto failed;
  }
  if (src->num_ranks != b->num_ranks) {
    berr(b, "%s: appended builder has %u ranks (expected %u)", b->source, src->num_ranks, b->num_ranks);
    goto failed;
  }
  for (uint32_t r = 0; r < b->num_ranks; r++)
    if (b->seen[r] && src->seen[r]) {
      berr(b, "%s: operations of rank %u are not contiguous (rank given twice)", b->source, r);
      goto failed;
    }
  if (b->cur_rank >= 0 && flush_rank(b)) goto fail;
  if (src->cur_rank >= 0 && flush_rank(src)) {
    snprintf(b->err, sizeof b->err, "%s", src->err);
    goto failed;
  }
  uint64_t n = b->n, m = b->m, n2 = src->n, m2 = src->m;
  if (n + n2 > LLAMP_MAX_VERTICES || m + m2 >= UINT32_MAX) {
    berr(b, "%s: more than %llu operations or 2^32 edges are not supported", b->source,
         (unsigned long long)LLAMP_MAX_VERTICES);
    goto failed;
  }
  /* room grows by half at least: a stream appends rank after rank */
  uint64_t ops = n + n2 > b->cap && n + n2 < b->cap + b->cap / 2 ? b->cap + b->cap / 2 : n + n2;
  uint64_t edges = m + m2 > b->capm && m + m2 < b->capm + b->capm / 2 ? b->capm + b->capm / 2 : m + m2;
  if (edges >= UINT32_MAX) edges = m + m2;
  if (llamp_builder_reserve(b, ops, b->capd) ||
      (edges > b->capm && grow_array((void **)&b->in_src, 4, b->capm, edges))) {
    berr(b, "%s: out of memory after %llu operations", b->source, (unsigned long long)n);
    goto failed;
  }
  if (edges > b->capm) b->capm = edges;
  if (move_flagged(b, src, n)) {
    berr(b, "%s: out of memory after %llu operations", b->source, (unsigned long long)n);
    goto failed;
  }
  move_vertices(b, n, src, map_tag, ctx);
  /* in-edges: offsets shift by b's edges, sources by b's operations (the
   * receives' message slots are set after matching) */
  for (uint64_t v = 0; v < n2; v++) b->in_off[n + v] = src->in_off[v] + (uint32_t)m;
  b->in_off[n + n2] = (uint32_t)(m + m2);
  for (uint64_t e = 0; e < m2; e++) b->in_src[m + e] = src->in_src[e] + (uint32_t)n;
  drop_moved(src->in_off, (n2 + 1) * sizeof *src->in_off);
  drop_moved(src->in_src, m2 * sizeof *src->in_src);
  for (uint32_t r = 0; r < b->num_ranks; r++)
    if (src->seen[r]) {
      b->seen[r] = 1;
      b->first[r] = src->first[r] + n;
      b->count[r] = src->count[r];
    }
  b->n = n + n2;
  b->m = m + m2;
  b->flushed = b->n;
  if (src->cur_rank >= 0) b->cur_rank = src->cur_rank;
  llamp_builder_destroy(src);
  return 0;
failed:
  b->failed = 1;
fail:
  llamp_builder_destroy(src);
  return -1;
}

/* The concatenation's copies: each part whose first new id falls in the
 * half's range (all parts when the range reaches the end) is moved to its
 * place, its tags mapped, its edges shifted. */
typedef struct {
  llamp_builder_t *b, **parts;
  const uint64_t *n0, *m0; /* per part: its first new id and first new edge */
  uint32_t count;
  uint64_t total;
  int32_t (*map_tag)(void *ctx, int32_t tag);
  void *const *ctx;
} concat_t;

static void concat_copy(void *c, uint64_t lo, uint64_t hi, int h) {
  const concat_t *x = c;
  llamp_builder_t *b = x->b;
  for (uint32_t i = 0; i < x->count; i++) {
    if (h ? x->n0[i] < lo : x->n0[i] >= hi && hi < x->total) continue;
    llamp_builder_t *src = x->parts[i];
    uint64_t n = x->n0[i], m = x->m0[i], n2 = src->n, m2 = src->m;
    /* the flushed blocks' segments shifted; the open block's written in
     * place from its buffered dependencies (its own in-edges would be
     * fresh pages, written once and copied) */
    uint64_t fl = src->flushed;
    for (uint64_t v = 0; v < fl; v++) b->in_off[n + v] = src->in_off[v] + (uint32_t)m;
    for (uint64_t e = 0; e < m2; e++) b->in_src[m + e] = src->in_src[e] + (uint32_t)n;
    if (fl < n2) (void)segments_sorted(src, b->in_off + n + fl, b->in_src, (uint32_t)(m + m2), (uint32_t)n);
    drop_moved(src->in_off, (fl + 1) * sizeof *src->in_off);
    drop_moved(src->in_src, m2 * sizeof *src->in_src);
    void *ctx = x->map_tag ? x->ctx[i] : NULL; /* a part without a context keeps its tags */
    move_vertices(b, n, src, ctx ? x->map_tag : NULL, ctx);
  }
}

llamp_builder_t *llamp_builder_concat(llamp_builder_t **parts, uint32_t count,
                                      int32_t (*map_tag)(void *ctx, int32_t tag), void *const *ctx,
                                      int threads, char *err, size_t errlen) {
  llamp_builder_t *b = NULL;
  uint64_t *off = NULL, n = 0, m = 0;
  llamp_par_t *par = NULL;
  const char *why = NULL;
  for (uint32_t i = 0; i < count; i++)
    if (!parts[i]) {
      why = "a part without a builder";
      goto fail;
    }
  if (!count) {
    why = "no builder to concatenate";
    goto fail;
  }
  b = llamp_builder_create(parts[0]->num_ranks, parts[0]->source);
  off = calloc(2 * (size_t)count, sizeof *off);
  if (!b || !off) {
    why = "out of memory";
    goto fail;
  }
  for (uint32_t i = 0; i < count; i++) {
    llamp_builder_t *src = parts[i];
    /* an open block in vertex order is written by the copy */
    if (src->failed || (src->cur_rank >= 0 && src->unsorted && flush_rank(src))) {
      snprintf(b->err, sizeof b->err, "%s", src->err);
      goto fail;
    }
    if (src->num_ranks != b->num_ranks) {
      berr(b, "%s: appended builder has %u ranks (expected %u)", b->source, src->num_ranks, b->num_ranks);
      goto fail;
    }
    for (uint32_t r = 0; r < b->num_ranks; r++)
      if (src->seen[r]) {
        if (b->seen[r]) {
          berr(b, "%s: operations of rank %u are not contiguous (rank given twice)", b->source, r);
          goto fail;
        }
        b->seen[r] = 1;
        b->first[r] = src->first[r] + n;
        b->count[r] = src->count[r];
      }
    if (src->cur_rank >= 0) b->cur_rank = src->cur_rank;
    off[i] = n;
    off[count + i] = m;
    n += src->n;
    m += src->m + (src->flushed < src->n ? src->nd + src->pend_recv : 0);
    if (n > LLAMP_MAX_VERTICES || m >= UINT32_MAX) {
      berr(b, "%s: more than %llu operations or 2^32 edges are not supported", b->source,
           (unsigned long long)LLAMP_MAX_VERTICES);
      goto fail;
    }
  }
  /* one spare vertex slot: the finish then keeps its levels in the peers'
   * pages; the edges at their final size */
  if (grow_array((void **)&b->in_src, 4, 0, m + 1) || (b->capm = m + 1, llamp_builder_reserve(b, n + 1, 0))) {
    why = "out of memory";
    goto fail;
  }
  for (uint32_t i = 0; i < count; i++)
    if (move_flagged(b, parts[i], off[i])) {
      why = "out of memory";
      goto fail;
    }
  concat_t x = {b, parts, off, off + count, count, n, map_tag, ctx};
  par = llamp_par_create(llamp_par_halves(threads, n));
  if (!par) {
    why = "out of memory";
    goto fail;
  }
  llamp_par_run(par, n, concat_copy, &x);
  b->par = par; /* the finish's passes use it next */
  b->in_off[n] = (uint32_t)m;
  b->n = b->flushed = n;
  b->m = m;
  free(off);
  for (uint32_t i = 0; i < count; i++) llamp_builder_destroy(parts[i]);
  return b;
fail:
  if (err && errlen) {
    if (why) snprintf(err, errlen, "%s: %s", count && parts[0] ? parts[0]->source : "graph", why);
    else snprintf(err, errlen, "%s", b->err);
  }
  free(off);
  llamp_builder_destroy(b);
  for (uint32_t i = 0; i < count; i++) llamp_builder_destroy(parts[i]);
  return NULL;
}

static uint64_t pair_key(uint32_t src, uint32_t dst) { return ((uint64_t)src << 32) | dst; }

/* Match every receive to a send (rule in llamp_graph.h).  Fills partner[].
 *
 * Sends are bucketed by (source, destination, tag), each bucket in the
 * sender's posting order, so a receive with a fixed source and tag takes the
 * first unmatched send of one bucket in O(1) amortised.  Wildcards compare
 * the heads of several buckets: ANY_TAG those of its (source, destination)
 * pair, ANY_SOURCE those of its destination.  Only the destinations with
 * only[d] set take part (partner[] of the others is left alone). */
static int match_messages(llamp_builder_t *b, uint32_t *partner, const uint8_t *only) {
  uint64_t n = b->n;
  int rc = -1;
  llamp_map_t pairs = {0}, tags = {0};
  int found_ = 0;
  uint32_t *bcount = NULL, *boff = NULL, *items = NULL, *cursor = NULL, *bpair = NULL;
  uint32_t *pdst = NULL, *psrc = NULL, *pair_off = NULL, *pair_buckets = NULL;
  uint32_t *dst_off = NULL, *dst_buckets = NULL, *pos = NULL;
  int32_t *btag = NULL;
  uint64_t nsend = 0, nb = 0, np = 0, bcap = 1024, pcap = 1024;
#define SKIP_SEND(i) (b->kind[i] != LLAMP_VERTEX_SEND || !only[b->peer[i]])
  for (uint64_t i = 0; i < n; i++) nsend += !SKIP_SEND(i);
  if (llamp_map_init(&pairs, 1024) || llamp_map_init(&tags, 1024)) goto oom;
  bcount = malloc(bcap * sizeof *bcount);
  bpair = malloc(bcap * sizeof *bpair);
  btag = malloc(bcap * sizeof *btag);
  psrc = malloc(pcap * sizeof *psrc);
  pdst = malloc(pcap * sizeof *pdst);
  if (!bcount || !bpair || !btag || !psrc || !pdst) goto oom;
  /* pass 1: number the pairs and the (pair, tag) buckets, count sends */
  for (uint64_t i = 0; i < n; i++) {
    if (SKIP_SEND(i)) continue;
    uint32_t *ps = llamp_map_upsert(&pairs, pair_key(b->rank[i], (uint32_t)b->peer[i]), (uint32_t)np, &found_);
    if (!ps) goto oom;
    if (*ps == np) {
      if (np == pcap) {
        pcap *= 2;
        if (grow((void **)&psrc, 4, pcap) || grow((void **)&pdst, 4, pcap)) goto oom;
      }
      psrc[np] = b->rank[i];
      pdst[np] = (uint32_t)b->peer[i];
      np++;
    }
    uint32_t pair = *ps;
    uint32_t *bs = llamp_map_upsert(&tags, ((uint64_t)pair << 32) | (uint32_t)b->tag[i], (uint32_t)nb, &found_);
    if (!bs) goto oom;
    if (*bs == nb) {
      if (nb == bcap) {
        bcap *= 2;
        if (grow((void **)&bcount, 4, bcap) || grow((void **)&bpair, 4, bcap) ||
            grow((void **)&btag, 4, bcap))
          goto oom;
      }
      bcount[nb] = 0;
      bpair[nb] = pair;
      btag[nb] = b->tag[i];
      nb++;
    }
    bcount[*bs]++;
  }
  boff = malloc((nb + 1) * sizeof *boff);
  cursor = malloc((nb + 1) * sizeof *cursor);
  items = alloc_big(nsend * sizeof *items);
  pair_off = calloc(np + 1, sizeof *pair_off);
  pair_buckets = malloc((nb ? nb : 1) * sizeof *pair_buckets);
  dst_off = calloc((size_t)b->num_ranks + 1, sizeof *dst_off);
  dst_buckets = malloc((nb ? nb : 1) * sizeof *dst_buckets);
  pos = calloc((size_t)(np > b->num_ranks ? np : b->num_ranks) + 1, sizeof *pos);
  if (!boff || !cursor || !items || !pair_off || !pair_buckets || !dst_off || !dst_buckets || !pos)
    goto oom;
  boff[0] = 0;
  for (uint64_t k = 0; k < nb; k++) boff[k + 1] = boff[k] + bcount[k];
  for (uint64_t k = 0; k < nb; k++) cursor[k] = boff[k];
  /* pass 2: fill buckets in op-id order = each sender's posting order */
  for (uint64_t i = 0; i < n; i++) {
    if (SKIP_SEND(i)) continue;
    uint32_t pair = *llamp_map_find(&pairs, pair_key(b->rank[i], (uint32_t)b->peer[i]));
    uint32_t k = *llamp_map_find(&tags, ((uint64_t)pair << 32) | (uint32_t)b->tag[i]);
    items[cursor[k]++] = (uint32_t)i;
  }
  for (uint64_t k = 0; k < nb; k++) cursor[k] = boff[k];
  /* buckets grouped by pair (for ANY_TAG) and by destination (for ANY_SOURCE) */
  for (uint64_t k = 0; k < nb; k++) pair_off[bpair[k] + 1]++, dst_off[pdst[bpair[k]] + 1]++;
  for (uint64_t q = 0; q < np; q++) pair_off[q + 1] += pair_off[q];
  for (uint32_t r = 0; r < b->num_ranks; r++) dst_off[r + 1] += dst_off[r];
  for (uint64_t k = 0; k < nb; k++) pair_buckets[pair_off[bpair[k]] + pos[bpair[k]]++] = (uint32_t)k;
  memset(pos, 0, ((np > b->num_ranks ? np : b->num_ranks) + 1) * sizeof *pos);
  for (uint64_t k = 0; k < nb; k++) {
    uint32_t d = pdst[bpair[k]];
    dst_buckets[dst_off[d] + pos[d]++] = (uint32_t)k;
  }

  for (uint64_t j = 0; j < n; j++) {
    if (b->kind[j] != LLAMP_VERTEX_RECV || !only[b->rank[j]]) continue;
    uint32_t d = b->rank[j];
    int32_t s = b->peer[j], t = b->tag[j];
    uint32_t best = LLAMP_NONE32, single = 0;
    uint64_t best_local = UINT64_MAX;
    const uint32_t *list = NULL;
    uint32_t count = 0;
    if (s >= 0) {
      uint32_t *pp = llamp_map_find(&pairs, pair_key((uint32_t)s, d));
      if (pp && t != LLAMP_ANY_TAG) {
        uint32_t *kp = llamp_map_find(&tags, ((uint64_t)*pp << 32) | (uint32_t)t);
        if (kp) single = *kp, list = &single, count = 1;
      } else if (pp) {
        list = pair_buckets + pair_off[*pp];
        count = pair_off[*pp + 1] - pair_off[*pp];
      }
    } else {
      list = dst_buckets + dst_off[d];
      count = dst_off[d + 1] - dst_off[d];
    }
    for (uint32_t q = 0; q < count; q++) {
      uint32_t k = list[q];
      if (t != LLAMP_ANY_TAG && btag[k] != t) continue;
      while (cursor[k] < boff[k + 1] && partner[items[cursor[k]]] != LLAMP_NONE32) cursor[k]++;
      if (cursor[k] == boff[k + 1]) continue;
      uint32_t i = items[cursor[k]];
      uint64_t local = i - b->first[b->rank[i]];
      if (local < best_local || (local == best_local && b->rank[i] < b->rank[best])) {
        best = i;
        best_local = local;
      }
    }
    if (best == LLAMP_NONE32) {
      char src[32], tag[32];
      snprintf(src, sizeof src, s < 0 ? "any source" : "rank %d", s);
      snprintf(tag, sizeof tag, t < 0 ? "any tag" : "tag %d", t);
      berr(b, "%s:%u: unmatched receive: rank %u receives %.0f bytes from %s %s, but no send is left to match it",
           b->source, b->line[j], d, b->value[j], src, tag);
      goto out;
    }
    partner[best] = (uint32_t)j;
    partner[j] = best;
  }
  for (uint64_t i = 0; i < n; i++)
    if (!SKIP_SEND(i) && partner[i] == LLAMP_NONE32) {
      berr(b, "%s:%u: unmatched send: rank %u sends %.0f bytes to rank %d tag %d, but no receive matches it",
           b->source, b->line[i], b->rank[i], b->value[i], b->peer[i], b->tag[i]);
      goto out;
    }
  rc = 0;
  goto out;
oom:
  berr(b, "%s: out of memory while matching messages", b->source);
out:
  llamp_map_free(&pairs);
  llamp_map_free(&tags);
  free(bcount);
  free(bpair);
  free(btag);
  free(psrc);
  free(pdst);
  free(boff);
  free(items);
  free(cursor);
  free(pair_off);
  free(pair_buckets);
  free(dst_off);
  free(dst_buckets);
  free(pos);
  return rc;
#undef SKIP_SEND
}

/* The common case without hashing every message: per (source, destination)
 * pair, the sends in posting order; a receive with a fixed source and tag
 * scans its pair from the first unmatched send for its tag.  Programs
 * receive nearly in the order messages were sent, so the scan is short and
 * the working set is one cursor per pair (collectives give every message
 * its own tag: a (pair, tag) table then held one bucket per message, and
 * its cache misses made the build 3x slower).  A destination with a
 * wildcard receive, a scan longer than FAST_SCAN, or anything unmatched
 * is left to match_messages (complex[d] = 1; its partners reset).
 *
 * A rank's operations are one block, so the pair of a send is found in a
 * table indexed by destination, filled for its source's block alone, and
 * the pair of a receive in one indexed by source, filled for its
 * destination's block (a hash lookup per message was a third of the
 * matching of a collective-heavy trace).  Each pair's sends are in posting
 * order whatever the order of the blocks, as with one pass over the ids. */
#define FAST_SCAN 256
/* The receives of destinations [lo, hi): each takes the first unmatched
 * send of its pair with its tag.  A send has one destination, so halves of
 * the destinations touch disjoint sends, pairs and receives.  The halves
 * are [0, split) and [split, P), split where the ranks' operations are
 * halved: collectives give a root most of the receives (a CG's rank 0: a
 * third of them; with the ranks halved, one half matched 62 %). */
typedef struct {
  const llamp_builder_t *b;
  uint32_t *partner, *slot[2], *pcount;
  uint8_t *complex, *taken;
  const uint32_t *psrc, *poff, *items, *doff, *dpairs;
  const int32_t *itag;
  uint32_t split;
} match_dest_t;

static void match_dests(void *c, uint64_t lo, uint64_t hi, int h) {
  const match_dest_t *x = c;
  lo = lo ? x->split : 0; /* llamp_par_run over 2 items: the halves */
  hi = hi < 2 ? x->split : x->b->num_ranks;
  const llamp_builder_t *b = x->b;
  uint32_t *partner = x->partner, *slot = x->slot[h], *pcount = x->pcount;
  uint8_t *complex = x->complex, *taken = x->taken;
  const uint32_t *psrc = x->psrc, *poff = x->poff, *items = x->items, *doff = x->doff, *dpairs = x->dpairs;
  const int32_t *itag = x->itag;
  for (uint64_t d = lo; d < hi; d++) {
    if (complex[d]) continue;
    for (uint32_t q = doff[d]; q < doff[d + 1]; q++) slot[psrc[dpairs[q]]] = dpairs[q];
    for (uint64_t j = b->first[d], e = j + b->count[d]; j < e && !complex[d]; j++) {
      if (b->kind[j] != LLAMP_VERTEX_RECV) continue;
      uint32_t q = slot[b->peer[j]];
      if (q == LLAMP_NONE32) {
        complex[d] = 1;
        break;
      }
      uint32_t end = poff[q + 1], k = pcount[q];
      while (k < end && taken[k]) k++;
      pcount[q] = k;
      for (uint32_t steps = 0;; k++, steps++) {
        if (k == end || steps == FAST_SCAN) {
          complex[d] = 1;
          break;
        }
        /* the pair's sends' tags and matched marks lie beside the cursor:
         * the sends themselves (other ranks' blocks) are only written */
        if (!taken[k] && itag[k] == b->tag[j]) {
          uint32_t i = items[k];
          taken[k] = 1;
          partner[i] = (uint32_t)j;
          partner[j] = i;
          break;
        }
      }
    }
    for (uint32_t q = doff[d]; q < doff[d + 1]; q++) slot[psrc[dpairs[q]]] = LLAMP_NONE32;
  }
}

static int match_fast(llamp_builder_t *b, uint32_t *partner, uint8_t *complex, llamp_par_t *par) {
  const uint32_t P = b->num_ranks;
  uint64_t n = b->n, np = 0, pcap = 1024;
  int rc = -1;
  /* pairs are numbered source by source: rank r's are [sfirst[r], sfirst[r + 1]) */
  uint32_t *slot = NULL, *slot2 = NULL, *sfirst = NULL, *psrc = NULL, *pdst = NULL, *pcount = NULL, *poff = NULL;
  uint32_t *items = NULL, *doff = NULL, *dpairs = NULL;
  int32_t *itag = NULL;
  uint8_t *taken = NULL;
  if (!(slot = malloc((size_t)P * sizeof *slot)) || !(sfirst = malloc(((size_t)P + 1) * sizeof *sfirst)) ||
      !(doff = calloc((size_t)P + 1, sizeof *doff)) || !(psrc = malloc(pcap * sizeof *psrc)) ||
      !(pdst = malloc(pcap * sizeof *pdst)) || !(pcount = malloc(pcap * sizeof *pcount)))
    goto out;
  for (uint32_t r = 0; r < P; r++) slot[r] = LLAMP_NONE32;
  for (uint32_t r = 0; r < P; r++) {
    sfirst[r] = (uint32_t)np;
    for (uint64_t i = b->first[r], e = i + b->count[r]; i < e; i++) {
      if (b->kind[i] == LLAMP_VERTEX_RECV && (b->peer[i] < 0 || b->tag[i] < 0)) complex[r] = 1;
      if (b->kind[i] != LLAMP_VERTEX_SEND) continue;
      uint32_t d = (uint32_t)b->peer[i], q = slot[d];
      if (q == LLAMP_NONE32) {
        if (np == pcap) {
          pcap *= 2;
          if (grow((void **)&psrc, 4, pcap) || grow((void **)&pdst, 4, pcap) || grow((void **)&pcount, 4, pcap))
            goto out;
        }
        q = slot[d] = (uint32_t)np++;
        psrc[q] = r;
        pdst[q] = d;
        pcount[q] = 0;
        doff[d + 1]++;
      }
      pcount[q]++;
    }
    for (uint64_t q = sfirst[r]; q < np; q++) slot[pdst[q]] = LLAMP_NONE32;
  }
  sfirst[P] = (uint32_t)np;
  uint64_t nsend = 0;
  if (!(poff = malloc((np + 1) * sizeof *poff))) goto out;
  for (uint64_t q = 0; q < np; q++) poff[q] = (uint32_t)nsend, nsend += pcount[q];
  poff[np] = (uint32_t)nsend;
  if (!(items = alloc_big((nsend ? nsend : 1) * sizeof *items)) || !(itag = alloc_big((nsend ? nsend : 1) * sizeof *itag)) ||
      !(taken = calloc(nsend ? nsend : 1, 1)))
    goto out;
  memcpy(pcount, poff, np * sizeof *pcount); /* pcount: each pair's fill cursor, then its head */
  for (uint32_t r = 0; r < P; r++) {
    for (uint32_t q = sfirst[r]; q < sfirst[r + 1]; q++) slot[pdst[q]] = q;
    for (uint64_t i = b->first[r], e = i + b->count[r]; i < e; i++)
      if (b->kind[i] == LLAMP_VERTEX_SEND) {
        uint32_t at = pcount[slot[b->peer[i]]]++;
        items[at] = (uint32_t)i;
        itag[at] = b->tag[i];
      }
    for (uint32_t q = sfirst[r]; q < sfirst[r + 1]; q++) slot[pdst[q]] = LLAMP_NONE32;
  }
  memcpy(pcount, poff, np * sizeof *pcount);
  /* the pairs by destination */
  for (uint32_t d = 0; d < P; d++) doff[d + 1] += doff[d];
  if (!(dpairs = malloc((np ? np : 1) * sizeof *dpairs))) goto out;
  for (uint64_t q = 0; q < np; q++) dpairs[doff[pdst[q]]++] = (uint32_t)q;
  for (uint32_t d = P; d > 0; d--) doff[d] = doff[d - 1];
  doff[0] = 0;
  if (!(slot2 = malloc((size_t)P * sizeof *slot2))) goto out;
  for (uint32_t r = 0; r < P; r++) slot2[r] = LLAMP_NONE32;
  uint32_t split = 0;
  uint64_t below = 0; /* operations of ranks [0, split) */
  for (; split < P && 2 * (below + b->count[split]) <= n; split++) below += b->count[split];
  if (split < P && below + b->count[split] - n / 2 < n / 2 - below) split++; /* the nearer of the two */
  match_dest_t md = {b, partner, {slot, slot2}, pcount, complex, taken, psrc, poff, items, doff, dpairs, itag, split};
  llamp_par_run(par, 2, match_dests, &md);
  int any = 0;
  for (uint64_t i = 0; i < n; i++) {
    if (b->kind[i] == LLAMP_VERTEX_SEND && partner[i] == LLAMP_NONE32) complex[b->peer[i]] = 1;
  }
  for (uint32_t d = 0; d < P; d++) any |= complex[d];
  for (uint64_t i = 0; any && i < n; i++) { /* the complex destinations start over (match_messages) */
    uint32_t d = b->kind[i] == LLAMP_VERTEX_SEND ? (uint32_t)b->peer[i] : b->rank[i];
    if (b->kind[i] != LLAMP_VERTEX_CALC && complex[d]) partner[i] = LLAMP_NONE32;
  }
  rc = 0;
out:
  if (rc) berr(b, "%s: out of memory while matching messages", b->source);
  free(slot);
  free(slot2);
  free(sfirst);
  free(psrc);
  free(pdst);
  free(pcount);
  free(poff);
  free(items);
  free(itag);
  free(taken);
  free(doff);
  free(dpairs);
  return rc;
}

/* ---- topological order ---------------------------------------------------- */

#define DFS_GRAY (LLAMP_NONE32 - 1)

/* Depth-first search over in-edges; when a vertex is finished (post-order)
 * all its predecessors are, so its level (1 + the largest level of a
 * predecessor, 0 without one) is known: level[v].  Needs no out-edge lists;
 * the explicit stack is as deep as the longest dependency chain.  On a cycle
 * returns the builder id of a vertex on it (its predecessor chain leads back
 * to itself), else n. */
static uint64_t dfs_levels(uint64_t n, const uint32_t *in_off, const uint32_t *in_src,
                           uint32_t *level, int *oom) {
  uint64_t cap = 1024, sp = 0;
  uint32_t *sv = malloc(cap * sizeof *sv), *se = malloc(cap * sizeof *se);
  *oom = 0;
  if (!sv || !se) goto nomem;
  for (uint64_t v = 0; v < n; v++) level[v] = LLAMP_NONE32;
  for (uint64_t root = 0; root < n; root++) {
    if (level[root] != LLAMP_NONE32) continue;
    sv[0] = (uint32_t)root;
    se[0] = in_off[root];
    level[root] = DFS_GRAY;
    sp = 1;
    while (sp) {
      uint32_t v = sv[sp - 1];
      if (se[sp - 1] < in_off[v + 1]) {
        uint32_t u = in_src[se[sp - 1]++] & LLAMP_EDGE_SRC_MASK;
        if (level[u] == LLAMP_NONE32) {
          if (sp == cap) {
            cap *= 2;
            if (grow((void **)&sv, 4, cap) || grow((void **)&se, 4, cap)) goto nomem;
          }
          sv[sp] = u;
          se[sp] = in_off[u];
          level[u] = DFS_GRAY;
          sp++;
        } else if (level[u] == DFS_GRAY) { /* u is on the stack: a cycle */
          free(sv);
          free(se);
          return u;
        }
      } else {
        uint32_t lv = 0;
        for (uint32_t e = in_off[v]; e < in_off[v + 1]; e++) {
          uint32_t lu = level[in_src[e] & LLAMP_EDGE_SRC_MASK] + 1;
          if (lu > lv) lv = lu;
        }
        level[v] = lv;
        sp--;
      }
    }
  }
  free(sv);
  free(se);
  return n;
nomem:
  free(sv);
  free(se);
  *oom = 1;
  return n;
}

#define SWEEP_AHEAD 8 /* vertices ahead whose message's level is prefetched */
#define SWEEP_WAIT (LLAMP_NONE32 - 1) /* a receive waiting for its message's level */
#define SWEEP_WAITED (LLAMP_NONE32 - 2) /* a send not swept yet whose receive waits (the
                                           smallest mark: levels at or above it are unknown) */

/* The level of receive v (its message from msg), all of whose predecessors
 * have theirs: max + 1. */
static inline uint32_t level_of(const uint32_t *in_off, const uint32_t *in_src, const uint32_t *level,
                                uint64_t v, uint32_t msg) {
  uint32_t lv = level[msg] + 1, e = in_off[v] + 1; /* the message slot, written beside, is msg */
  for (; e < in_off[v + 1]; e++) {
    uint32_t lu = level[in_src[e] & LLAMP_EDGE_SRC_MASK] + 1;
    if (lu > lv) lv = lu;
  }
  return lv;
}

/* The levels dfs_levels computes (longest chains are unique), rank by rank
 * in posting order, each access near a rank's cursor where the depth-first
 * search jumped between ranks' blocks.  A receive whose message has no level
 * yet waits aside (SWEEP_WAIT; its rank goes on: an Irecv is posted before
 * the sends the other rank waits for) and gets its level with its send's; a
 * vertex needing a waiting receive stops its rank until then.  Needs the
 * matched partners.  Returns 0; 1 when a vertex needs one that comes later
 * in its rank, or a cycle (the caller then runs dfs_levels, which also names
 * a vertex of the cycle); -1 when out of memory. */
static int sweep_levels(const llamp_builder_t *b, const uint32_t *partner, uint32_t *level, uint32_t *maxl) {
  const uint32_t P = b->num_ranks;
  const uint32_t *in_off = b->in_off, *in_src = b->in_src;
  uint64_t *cur = malloc((size_t)P * sizeof *cur);
  uint32_t *stack = malloc((size_t)P * sizeof *stack), *stopped = malloc((size_t)P * sizeof *stopped);
  int rc = -1;
  if (!cur || !stack || !stopped) goto out;
  for (uint64_t v = 0; v < b->n; v++) level[v] = LLAMP_NONE32;
  uint32_t sp = 0, top = 0;
  for (uint32_t r = P; r-- > 0;) { /* stopped[r]: the vertex r waits for, NONE32 when queued */
    cur[r] = b->first[r];
    stopped[r] = LLAMP_NONE32;
    if (b->count[r]) stack[sp++] = r;
  }
  while (sp) {
    uint32_t r = stack[--sp];
    uint64_t v = cur[r], end = b->first[r] + b->count[r];
    for (; v < end; v++) {
      /* a receive's message lies in another rank's block: a cache miss
       * each, asked for a few vertices ahead */
      if (v + SWEEP_AHEAD < end) {
        uint32_t ahead = partner[v + SWEEP_AHEAD];
        if (ahead != LLAMP_NONE32) __builtin_prefetch(level + ahead);
      }
      uint32_t e = in_off[v], e1 = in_off[v + 1], lv = 0, wait = 0, msg = 0;
      if (b->kind[v] == LLAMP_VERTEX_RECV) { /* the message slot first (written beside: its partner) */
        msg = partner[v];
        e++;
        uint32_t lm = level[msg];
        wait = lm >= SWEEP_WAITED;
        lv = wait ? 0 : lm + 1;
      }
      for (; e < e1; e++) {
        uint32_t lu = level[in_src[e] & LLAMP_EDGE_SRC_MASK];
        if (lu >= SWEEP_WAITED) break;
        if (lu + 1 > lv) lv = lu + 1;
      }
      if (e < e1) {
        stopped[r] = in_src[e] & LLAMP_EDGE_SRC_MASK;
        break;
      }
      if (wait) {
        level[v] = SWEEP_WAIT;
        level[msg] = SWEEP_WAITED; /* its send will look at it (a line just read) */
        continue;
      }
      /* a send looks at its receive only when marked: the receive sits in
       * another rank's block, a cache miss per message otherwise */
      uint32_t was = level[v];
      level[v] = lv;
      if (lv > top) top = lv;
      if (was == SWEEP_WAITED && level[partner[v]] == SWEEP_WAIT) {
        uint32_t j = partner[v], q = b->rank[j];
        level[j] = level_of(in_off, in_src, level, j, partner[j]);
        if (level[j] > top) top = level[j];
        if (stopped[q] == j) stopped[q] = LLAMP_NONE32, stack[sp++] = q;
      }
    }
    cur[r] = v;
  }
  rc = 0;
  for (uint32_t r = 0; r < P; r++)
    if (cur[r] < b->first[r] + b->count[r]) rc = 1;
  *maxl = top;
out:
  free(cur);
  free(stack);
  free(stopped);
  return rc;
}


/* ---- the locality layout ------------------------------------------------------ */

/* The ranks' id blocks (empty ranks left out), sorted by first id: the rank
 * of each builder id is found by a search in them. */
typedef struct {
  uint64_t first;
  uint32_t rank;
} block_t;
static int block_cmp(const void *a, const void *b) {
  uint64_t x = ((const block_t *)a)->first, y = ((const block_t *)b)->first;
  return x < y ? -1 : x > y;
}

typedef struct {
  llamp_graph_t *g;
  uint32_t *level; /* level, then position, of each builder id */
  uint32_t *inv;   /* builder id at each position */
  uint32_t *off;   /* new in_off (in the old rank's pages) */
  uint32_t *cnt[2];  /* per half: vertices per level, then the half's next position */
  uint32_t *rcnt[2]; /* per half: vertices per rank */
  uint32_t maxl[2];
  uint64_t mid;      /* the first position of the second half */
  uint64_t deg[2];   /* per half: in-edges of its vertices placed before mid */
  const void *src;   /* a gather's source array */
  void *dst;         /* and its destination */
  const void *src2;  /* rl_gather_rest: kind's */
  void *dst2, *dst3; /* kind's and rank's destinations */
  const block_t *blk; /* the ranks' id blocks, nb of them, sorted by first id */
  uint32_t nb;
  const uint32_t *coarse; /* per 2^shift ids: the block holding the first of them */
  uint32_t shift;
} relayout_t;

static void rl_maxlevel(void *c, uint64_t lo, uint64_t hi, int h) {
  relayout_t *x = c;
  uint32_t mx = 0;
  for (uint64_t v = lo; v < hi; v++)
    if (x->level[v] > mx) mx = x->level[v];
  x->maxl[h] = mx;
}
static void rl_count(void *c, uint64_t lo, uint64_t hi, int h) {
  relayout_t *x = c;
  uint32_t *cnt = x->cnt[h], *rc = x->rcnt[h];
  const uint32_t *rank = x->g->rank;
  for (uint64_t v = lo; v < hi; v++) {
    cnt[x->level[v]]++;
    rc[rank[v]]++;
  }
}
/* position = (level, builder id): each half starts a level where the
 * previous half's vertices of that level end (a stable counting sort) */
static void rl_position(void *c, uint64_t lo, uint64_t hi, int h) {
  relayout_t *x = c;
  uint32_t *cnt = x->cnt[h], *lv = x->level, *inv = x->inv;
  const uint32_t *in_off = x->g->in_off;
  uint64_t before = 0, mid = x->mid; /* where the second half's in-edges will start */
  for (uint64_t v = lo; v < hi; v++) {
    uint32_t p = cnt[lv[v]]++;
    lv[v] = p;
    inv[p] = (uint32_t)v;
    if (p < mid) before += in_off[v + 1] - in_off[v];
  }
  x->deg[h] = before;
}
/* each in-edge segment copied to its new place in dst with its sources
 * renumbered (the second half after the first half's edges) */
static void rl_edges(void *c, uint64_t lo, uint64_t hi, int h) {
  relayout_t *x = c;
  const uint32_t *in_off = x->g->in_off, *inv = x->inv, *in_src = x->g->in_src, *pos = x->level;
  uint32_t *dst = x->dst;
  uint64_t k = h ? x->deg[0] + x->deg[1] : 0;
  for (uint64_t p = lo; p < hi; p++) {
    uint32_t v = inv[p], d = in_off[v + 1] - in_off[v];
    const uint32_t *from = in_src + in_off[v];
    for (uint32_t e = 0; e < d; e++) {
      uint32_t w = from[e];
      dst[k + e] = pos[w & LLAMP_EDGE_SRC_MASK] | (w & ~LLAMP_EDGE_SRC_MASK);
    }
    k += d;
  }
}
/* the new offsets from the old ones (in the same halves as rl_edges) */
static void rl_offsets(void *c, uint64_t lo, uint64_t hi, int h) {
  relayout_t *x = c;
  const uint32_t *in_off = x->g->in_off, *inv = x->inv;
  uint32_t *off = x->off;
  uint64_t k = h ? x->deg[0] + x->deg[1] : 0;
  for (uint64_t p = lo; p < hi; p++) {
    uint32_t v = inv[p];
    off[p] = (uint32_t)k;
    k += in_off[v + 1] - in_off[v];
  }
}
/* partner by position, renumbered */
static void rl_gather_partner(void *c, uint64_t lo, uint64_t hi, int h) {
  (void)h;
  relayout_t *x = c;
  const uint32_t *inv = x->inv, *pos = x->level, *src = x->src;
  uint32_t *dst = x->dst;
  for (uint64_t p = lo; p < hi; p++) {
    uint32_t w = src[inv[p]];
    dst[p] = w != LLAMP_NONE32 ? pos[w] : LLAMP_NONE32;
  }
}
static void rl_gather_value(void *c, uint64_t lo, uint64_t hi, int h) {
  (void)h;
  relayout_t *x = c;
  const uint32_t *inv = x->inv;
  const double *src = x->src;
  double *dst = x->dst;
  for (uint64_t p = lo; p < hi; p++) dst[p] = src[inv[p]];
}
/* tag, kind and rank by position in one pass.  The rank comes from the id
 * blocks: coarse[id >> shift] is the block holding id's coarse start, and
 * with 2^shift a quarter of a block's mean size the block is mostly that one. */
static void rl_gather_rest(void *c, uint64_t lo, uint64_t hi, int h) {
  (void)h;
  relayout_t *x = c;
  const uint32_t *inv = x->inv, *tag = x->src, *coarse = x->coarse;
  const uint8_t *kind = x->src2;
  const block_t *blk = x->blk;
  uint32_t *tag_dst = x->dst, *rank_dst = x->dst3, nb = x->nb, shift = x->shift;
  uint8_t *kind_dst = x->dst2;
  for (uint64_t p = lo; p < hi; p++) {
    uint32_t v = inv[p], at = coarse[v >> shift];
    tag_dst[p] = tag[v];
    kind_dst[p] = kind[v];
    while (at + 1 < nb && blk[at + 1].first <= v) at++;
    rank_dst[p] = blk[at].rank;
  }
}

/* Gather array *a by position into *spare with `pass`, then swap: *a is the
 * laid-out array, *spare the old one (the next spare).  The spares are
 * arrays already touched: fresh pages cost a kernel page clear each, which
 * on this VM took longer than the gathers themselves. */
static void rl_swap_gather(relayout_t *x, llamp_par_t *par, void (*pass)(void *, uint64_t, uint64_t, int),
                           void **a, void **spare) {
  x->src = *a;
  x->dst = *spare;
  llamp_par_run(par, x->g->n, pass, x);
  void *t = *a;
  *a = *spare;
  *spare = t;
}

static int relayout(llamp_graph_t *g, uint32_t *level, llamp_par_t *par, uint32_t maxl);

int llamp_graph_relayout(llamp_graph_t *g, uint32_t *level, int threads) {
  /* one helper thread for all the passes (at 600 k vertices: one thread
   * 12.7-13.1 ms, two 10.7-10.9 ms, 13-17 ms with a thread created per pass) */
  llamp_par_t *par = llamp_par_create(llamp_par_halves(threads, g->n));
  if (!par) {
    free(level);
    return -1;
  }
  int rc = relayout(g, level, par, LLAMP_NONE32);
  llamp_par_destroy(par);
  return rc;
}

/* maxl: the largest level, LLAMP_NONE32 when unknown (found by a pass).
 * The arrays at the peak (the new in-edges beside the old ones) are the
 * graph's, the positions and the ids: the old rank is freed before, the new
 * offsets are written in the positions' pages once they are dead (28 +
 * 8 x edges/vertex bytes a vertex, with 32-bit ids). */
static int relayout(llamp_graph_t *g, uint32_t *level, llamp_par_t *par, uint32_t maxl) {
  uint64_t n = g->n, m = g->m;
  uint32_t P = g->num_ranks;
  relayout_t x;
  memset(&x, 0, sizeof x);
  x.g = g;
  x.level = level;
  void *spare = NULL;
  block_t *blk = NULL;
  uint32_t *coarse = NULL;
  uint8_t *kind = NULL;
  if (maxl == LLAMP_NONE32) {
    llamp_par_run(par, n, rl_maxlevel, &x);
    maxl = x.maxl[0] > x.maxl[1] ? x.maxl[0] : x.maxl[1];
  }
  for (int h = 0; h < 2; h++) {
    if (!(x.cnt[h] = alloc_big(((size_t)maxl + 1) * sizeof *x.cnt[h])) ||
        !(x.rcnt[h] = calloc((size_t)P + 1, sizeof *x.rcnt[h])))
      goto oom;
    memset(x.cnt[h], 0, ((size_t)maxl + 1) * sizeof *x.cnt[h]);
  }
  llamp_par_run(par, n, rl_count, &x);
  uint64_t at = 0;
  for (uint64_t l = 0; l <= maxl; l++) { /* each half's first position in each level */
    uint32_t c0 = x.cnt[0][l], c1 = x.cnt[1][l];
    x.cnt[0][l] = (uint32_t)at;
    x.cnt[1][l] = (uint32_t)(at + c0);
    at += (uint64_t)c0 + c1;
  }
  x.inv = g->id; /* NULL, or n entries of dead pages for it */
  g->id = NULL;
  if (!x.inv && !(x.inv = alloc_big((n ? n : 1) * sizeof *x.inv))) goto oom;
  x.mid = llamp_par_mid(par, n);
  llamp_par_run(par, n, rl_position, &x);
  free(x.cnt[0]);
  free(x.cnt[1]);
  x.cnt[0] = x.cnt[1] = NULL;
  /* the ranks' id blocks (empty ranks left out): rank is rebuilt from the
   * ids at the end, in the old offsets' pages (one array fewer at the peak) */
  uint32_t nb = 0;
  if (!(blk = calloc((size_t)P + 1, sizeof *blk))) goto oom;
  for (uint32_t r = 0; r < P; r++)
    if (x.rcnt[0][r] + x.rcnt[1][r]) blk[nb++] = (block_t){g->rank_first[r], r};
  qsort(blk, nb, sizeof *blk, block_cmp);
  while (nb && (n >> x.shift) > 4 * (uint64_t)nb) x.shift++; /* mostly no step */
  if (!(coarse = malloc(((n >> x.shift) + 1) * sizeof *coarse))) goto oom;
  for (uint64_t cb = 0, at = 0; cb <= n >> x.shift; cb++) {
    while (at + 1 < nb && blk[at + 1].first <= cb << x.shift) at++;
    coarse[cb] = (uint32_t)at;
  }
  free(g->rank); /* rebuilt from the blocks at the end */
  g->rank = NULL;
  /* the in-edges into a spare array, which then becomes in_src; the old
   * in_src is the spare of the gathers if it is large enough */
  if (!(spare = alloc_big((m ? m : 1) * sizeof(uint32_t)))) goto oom;
  x.dst = spare;
  llamp_par_run(par, n, rl_edges, &x);
  spare = g->in_src;
  g->in_src = x.dst;
  if (4 * m < 8 * n) {
    free(spare);
    if (!(spare = alloc_big((n ? n : 1) * 8))) goto oom;
  }
  /* value into the old in_src, partner (renumbered) into the old value;
   * then the positions are dead: the new offsets into their pages (n + 1
   * entries), and tag, kind and rank in one pass into the old partner, a
   * new array and the old offsets */
  rl_swap_gather(&x, par, rl_gather_value, (void **)&g->value, &spare);
  rl_swap_gather(&x, par, rl_gather_partner, (void **)&g->partner, &spare);
  /* value sits in the old in_src's block, partner in the old value's: their
   * tails (touched by the old arrays) would stay with the graph */
  shrink_block((void **)&g->value, 8 * n);
  shrink_block((void **)&g->partner, 4 * n);
  if (!(kind = malloc(n ? n : 1))) goto oom;
  x.off = level;
  x.level = level = NULL;
  llamp_par_run(par, n, rl_offsets, &x);
  x.off[n] = (uint32_t)m;
  uint32_t *old_off = g->in_off;
  g->in_off = x.off;
  x.off = NULL;
  x.src = g->tag;
  x.dst = spare;
  x.src2 = g->kind;
  x.dst2 = kind;
  x.dst3 = old_off;
  x.blk = blk;
  x.nb = nb;
  x.coarse = coarse;
  if (n) llamp_par_run(par, n, rl_gather_rest, &x);
  free(g->tag);
  free(g->kind);
  g->tag = spare;
  g->kind = kind;
  g->rank = old_off;
  spare = NULL;
  free(blk);
  free(coarse);
  free(x.rcnt[0]);
  free(x.rcnt[1]);
  g->id = x.inv;
  return 0;
oom:
  free(level);
  free(x.cnt[0]);
  free(x.cnt[1]);
  free(x.rcnt[0]);
  free(x.rcnt[1]);
  free(x.inv);
  free(x.off);
  free(spare);
  free(blk);
  free(coarse);
  free(kind);
  return -1;
}

/* ---- finish ------------------------------------------------------------------ */

llamp_graph_t *llamp_graph_alloc(uint32_t num_ranks, uint64_t n, uint64_t m) {
  llamp_graph_t *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->num_ranks = num_ranks;
  g->n = n;
  g->m = m;
  size_t nn = n ? n : 1;
  g->kind = malloc(nn);
  g->rank = malloc(nn * 4);
  g->value = malloc(nn * 8);
  g->tag = malloc(nn * 4);
  g->partner = malloc(nn * 4);
  g->id = malloc(nn * 4);
  g->in_off = malloc((n + 1) * 4);
  g->in_src = malloc((m ? m : 1) * 4);
  g->rank_first = malloc(((size_t)num_ranks + 1) * 8);
  if (!g->kind || !g->rank || !g->value || !g->tag || !g->partner || !g->id || !g->in_off ||
      !g->in_src || !g->rank_first) {
    llamp_graph_destroy(g);
    return NULL;
  }
  return g;
}

static void fail_copy(llamp_builder_t *b, char *err, size_t errlen) {
  if (err && errlen) snprintf(err, errlen, "%s", b->err[0] ? b->err : "graph build failed");
}

/* The levels (half 0) and, meanwhile, what needs only the matching (half
 * 1): each receive's message slot and tag (its send's), and the count of
 * messages.  The sweep reads none of them (a receive's message is its
 * partner), so they overlap; with one half both run in turn.  The
 * depth-first fallback, which reads the slots, runs after. */
typedef struct {
  llamp_builder_t *b;
  const uint32_t *partner;
  uint32_t *level, maxl;
  int swept;
  uint64_t messages;
} beside_sweep_t;

static void levels_and_slots(void *c, uint64_t lo, uint64_t hi, int h) {
  (void)h;
  beside_sweep_t *x = c;
  llamp_builder_t *b = x->b;
  if (lo == 0) x->swept = sweep_levels(b, x->partner, x->level, &x->maxl);
  if (hi < 2) return;
  const uint32_t *partner = x->partner;
  uint64_t sends = 0;
  for (uint64_t v = 0; v < b->n; v++) {
    if (b->kind[v] == LLAMP_VERTEX_RECV) {
      b->in_src[b->in_off[v]] = partner[v] | ((uint32_t)LLAMP_EDGE_MESSAGE << LLAMP_EDGE_KIND_SHIFT);
      b->tag[v] = b->tag[partner[v]];
    }
    sends += b->kind[v] == LLAMP_VERTEX_SEND;
  }
  x->messages = sends;
}

llamp_graph_t *llamp_builder_finish(llamp_builder_t *b, char *err, size_t errlen) {
  llamp_graph_t *g = NULL;
  uint32_t *partner = NULL, *order = NULL, *g_id = NULL;
  if (!b) {
    if (err && errlen) snprintf(err, errlen, "no builder");
    return NULL;
  }
  if (b->failed) goto fail;
  if (!b->in_off && grow_array((void **)&b->in_off, 4, 0, 1)) goto oom;
  b->in_off[b->flushed] = (uint32_t)b->m;
  if (flush_rank(b)) goto fail;
  free(b->dep_after);
  free(b->dep_before);
  b->dep_after = b->dep_before = NULL;
  uint64_t n = b->n, m = b->m;
  if (!b->par) b->par = llamp_par_create(llamp_par_halves(b->threads, n)); /* NULL: one thread */
  partner = alloc_big(n * sizeof *partner);
  if (!partner) goto oom;
  for (uint64_t i = 0; i < n; i++) partner[i] = LLAMP_NONE32;
  uint8_t *complex = calloc(b->num_ranks, 1);
  if (!complex) goto oom;
  int any = 0;
  if (match_fast(b, partner, complex, b->par) == 0) {
    for (uint32_t r = 0; r < b->num_ranks; r++) any |= complex[r];
    if (any && match_messages(b, partner, complex)) any = -1;
  } else {
    any = -1;
  }
  free(complex);
  if (any < 0) goto fail;
  stage_end(b, "matching");

  /* the levels, then the relayout's offsets (n + 1 entries), in the pages
   * of the peers (fresh pages cost more than the sweep) */
  if (b->cap > n) {
    order = (uint32_t *)b->peer;
    b->peer = NULL;
  } else {
    order = alloc_big((n + 1) * sizeof *order);
    if (!order) goto oom;
  }
  free(b->peer);
  b->peer = NULL;
  beside_sweep_t bs = {b, partner, order, LLAMP_NONE32, 0, 0};
  llamp_par_run(b->par, 2, levels_and_slots, &bs);
  int oom_flag = 0, swept = bs.swept;
  if (swept < 0) goto oom;
  uint64_t cyc = swept ? dfs_levels(n, b->in_off, b->in_src, order, &oom_flag) : n;
  if (oom_flag) goto oom;
  stage_end(b, "levels");
  if (cyc < n) {
    berr(b, "%s:%u: dependency cycle (or deadlock) involving rank %u operation %llu", b->source,
         b->line[cyc], b->rank[cyc], (unsigned long long)(cyc - b->first[b->rank[cyc]]));
    goto fail;
  }
  g_id = b->line; /* dead (n entries or more): its pages take the relayout's ids */
  b->line = NULL;

  /* freeze: hand the builder's arrays to the graph, then lay them out */
  g = calloc(1, sizeof *g);
  if (!g) goto oom;
  g->num_ranks = b->num_ranks;
  g->n = n;
  g->m = m;
  g->rank_first = malloc(((size_t)b->num_ranks + 1) * sizeof *g->rank_first);
  if (!g->rank_first) goto oom;
  for (uint32_t r = 0; r < b->num_ranks; r++) g->rank_first[r] = b->count[r] ? b->first[r] : 0;
  g->rank_first[b->num_ranks] = n;
  g->id = g_id;
  g_id = NULL;
  g->in_src = b->in_src;
  g->in_off = b->in_off;
  b->in_src = NULL;
  b->in_off = NULL;
  g->partner = partner;
  partner = NULL;
  g->kind = b->kind;
  g->rank = b->rank;
  g->value = b->value;
  g->tag = b->tag;
  b->kind = NULL;
  b->rank = NULL;
  b->value = NULL;
  b->tag = NULL;
  g->num_messages = bs.messages;
  uint32_t *lv = order;
  order = NULL;
  /* the builder's arrays to their size before the relayout's peak: their
   * room beyond it is partly resident (a huge page's first touch maps all of
   * it): 7 MB on an 8.65 M-vertex halo */
  shrink_block((void **)&g->kind, n);
  shrink_block((void **)&g->rank, 4 * n);
  shrink_block((void **)&g->value, 8 * n);
  shrink_block((void **)&g->tag, 4 * n);
  shrink_block((void **)&g->in_src, 4 * (m ? m : 1));
  shrink_block((void **)&g->in_off, 4 * (n + 1));
  shrink_block((void **)&g->id, 4 * n);
  shrink_block((void **)&lv, 4 * (n + 1));
  if (relayout(g, lv, b->par, swept ? LLAMP_NONE32 : bs.maxl)) goto oom;
  if (b->nflagged) { /* by builder id, then by position */
    uint8_t *by_id = calloc(n, 1);
    if (!by_id || !(g->flags = malloc(n))) {
      free(by_id);
      goto oom;
    }
    for (uint64_t i = 0; i < b->nflagged; i++) by_id[b->flagged[i] >> 8] |= (uint8_t)b->flagged[i];
    for (uint64_t v = 0; v < n; v++) g->flags[v] = by_id[g->id[v]];
    free(by_id);
  }
  stage_end(b, "relayout");
  llamp_builder_destroy(b);
  return g;

oom:
  berr(b, "%s: out of memory while building the graph", b->source);
fail:
  fail_copy(b, err, errlen);
  free(partner);
  free(order);
  free(g_id);
  llamp_graph_destroy(g);
  llamp_builder_destroy(b);
  return NULL;
}

/* ---- accessors -------------------------------------------------------------- */

void llamp_graph_drop_range(const void *p, size_t bytes) {
  uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, b = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
  if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
}

void llamp_graph_drop_sparse(const llamp_graph_t *g) {
  if (!g->map) return;
  llamp_graph_drop_range(g->rank, 4 * g->n);
  llamp_graph_drop_range(g->tag, 4 * g->n);
  llamp_graph_drop_range(g->partner, 4 * g->n);
  llamp_graph_drop_range(g->id, 4 * g->n);
}

void llamp_graph_drop_pages(const llamp_graph_t *g, uint64_t v_end) {
  if (!g->map) return;
  if (v_end > g->n) v_end = g->n;
  llamp_graph_drop_range(g->kind, v_end);
  llamp_graph_drop_range(g->rank, 4 * v_end);
  llamp_graph_drop_range(g->value, 8 * v_end);
  llamp_graph_drop_range(g->tag, 4 * v_end);
  llamp_graph_drop_range(g->partner, 4 * v_end);
  llamp_graph_drop_range(g->id, 4 * v_end);
  llamp_graph_drop_range(g->in_off, 4 * v_end);
  llamp_graph_drop_range(g->in_src, 4 * (size_t)g->in_off[v_end]);
}

void llamp_graph_destroy(llamp_graph_t *g) {
  if (!g) return;
  if (g->map) {
    munmap(g->map, g->map_len);
    free(g);
    return;
  }
  free(g->kind);
  free(g->rank);
  free(g->value);
  free(g->tag);
  free(g->partner);
  free(g->in_off);
  free(g->in_src);
  free(g->id);
  free(g->flags);
  free(g->rank_first);
  free(g);
}

uint32_t llamp_graph_num_ranks(const llamp_graph_t *g) { return g->num_ranks; }
uint64_t llamp_graph_num_vertices(const llamp_graph_t *g) { return g->n; }
uint64_t llamp_graph_num_edges(const llamp_graph_t *g) { return g->m; }
uint64_t llamp_graph_num_messages(const llamp_graph_t *g) { return g->num_messages; }
uint64_t llamp_graph_reach(const llamp_graph_t *g) {
  if (!g->reach_known) {
    uint64_t r = 0;
    for (uint64_t v = 0; v < g->n; v++)
      for (uint32_t e = g->in_off[v]; e < g->in_off[v + 1]; e++) {
        uint64_t d = v - (g->in_src[e] & LLAMP_EDGE_SRC_MASK);
        if (d > r) r = d;
      }
    llamp_graph_t *w = (llamp_graph_t *)g; /* a cache of the graph's own content */
    w->reach = r;
    w->reach_known = 1;
  }
  return g->reach;
}

uint64_t llamp_graph_num_self_messages(const llamp_graph_t *g) {
  if (!g->self_known) {
    uint64_t c = 0;
    for (uint64_t v = 0; v < g->n; v++) c += (uint64_t)llamp_graph_self_send(g, v);
    llamp_graph_t *w = (llamp_graph_t *)g; /* a cache of the graph's own content */
    w->self_messages = c;
    w->self_known = 1;
  }
  return g->self_messages;
}
llamp_vertex_kind_t llamp_graph_kind(const llamp_graph_t *g, uint64_t v) {
  return (llamp_vertex_kind_t)g->kind[v];
}
uint32_t llamp_graph_rank(const llamp_graph_t *g, uint64_t v) { return g->rank[v]; }
double llamp_graph_value(const llamp_graph_t *g, uint64_t v) { return g->value[v]; }
int32_t llamp_graph_peer(const llamp_graph_t *g, uint64_t v) {
  return g->partner[v] == LLAMP_NONE32 ? -1 : (int32_t)g->rank[g->partner[v]];
}
int32_t llamp_graph_tag(const llamp_graph_t *g, uint64_t v) { return g->tag[v]; }
unsigned llamp_graph_flags(const llamp_graph_t *g, uint64_t v) { return g->flags ? g->flags[v] : 0; }
int llamp_graph_has_flags(const llamp_graph_t *g) { return g->flags != NULL; }
uint64_t llamp_graph_local_index(const llamp_graph_t *g, uint64_t v) {
  return g->id[v] - g->rank_first[g->rank[v]];
}
uint64_t llamp_graph_id(const llamp_graph_t *g, uint64_t v) { return g->id[v]; }
uint64_t llamp_graph_topo(const llamp_graph_t *g, uint64_t i) {
  (void)g;
  return i;
}
void llamp_graph_in_edges(const llamp_graph_t *g, uint64_t v, uint64_t *first, uint64_t *last) {
  *first = g->in_off[v];
  *last = g->in_off[v + 1];
}
uint64_t llamp_graph_edge_source(const llamp_graph_t *g, uint64_t e) {
  return g->in_src[e] & LLAMP_EDGE_SRC_MASK;
}
llamp_edge_kind_t llamp_graph_edge_kind(const llamp_graph_t *g, uint64_t e) {
  return (llamp_edge_kind_t)(g->in_src[e] >> LLAMP_EDGE_KIND_SHIFT);
}
uint64_t llamp_graph_partner(const llamp_graph_t *g, uint64_t v) {
  return g->partner[v] == LLAMP_NONE32 ? UINT64_MAX : g->partner[v];
}

void llamp_graph_arrays(const llamp_graph_t *g, llamp_graph_arrays_t *out) {
  out->n = g->n;
  out->m = g->m;
  out->kind = g->kind;
  out->rank = g->rank;
  out->value = g->value;
  out->in_beg = g->in_off;
  out->in_end = g->in_off + 1;
  out->topo = NULL;
  out->in_src = g->in_src;
  out->flags = g->flags;
}

/* ---- invariant checker -------------------------------------------------------- */

/* The checks of llamp_graph_check_bounds on the vertices [v0, v1), each a
 * streaming pass over its arrays; the reader runs them chunk by chunk on two
 * threads beside the checksum (binary.c), this file's checker over the whole
 * graph.  Each returns the first offending vertex, or v1. */

/* in_off[v0 .. v1] in order and in_off[v1] <= m: with in_off[0] = 0 the
 * in-edges of [v0, v1) are inside in_src */
uint64_t llamp_graph_bounds_offsets(const llamp_graph_t *g, uint64_t v0, uint64_t v1) {
  uint32_t acc = g->in_off[v1] > g->m; /* branch-free; the offender is searched after */
  for (uint64_t v = v0; v < v1; v++) acc |= (uint32_t)(g->in_off[v + 1] < g->in_off[v]);
  if (!acc) return v1;
  for (uint64_t v = v0; v < v1; v++)
    if (g->in_off[v + 1] < g->in_off[v]) return v;
  return v1 ? v1 - 1 : 0;
}

/* every in-edge's source before its vertex and its kind known (offsets
 * checked first); *reach rises to the longest in-edge */
uint64_t llamp_graph_bounds_edges(const llamp_graph_t *g, uint64_t v0, uint64_t v1, uint64_t *reach) {
  uint32_t r = (uint32_t)*reach;
  for (uint64_t v = v0; v < v1; v++) {
    uint32_t lim = (uint32_t)v, bad = 0;
    for (uint32_t e = g->in_off[v]; e < g->in_off[v + 1]; e++) {
      uint32_t w = g->in_src[e], d = lim - (w & LLAMP_EDGE_SRC_MASK);
      bad |= (uint32_t)((w & LLAMP_EDGE_SRC_MASK) >= lim) | (uint32_t)((w >> LLAMP_EDGE_KIND_SHIFT) == LLAMP_EDGE_CPU &&
                                                                   g->kind[v] != LLAMP_VERTEX_RECV);
      r = d > r ? d : r;
    }
    if (bad) return v;
  }
  *reach = r;
  return v1;
}

static uint32_t vertex_bad(const llamp_graph_t *g, uint64_t v) {
  unsigned k = g->kind[v];
  uint32_t pr = g->partner[v];
  unsigned f = g->flags ? g->flags[v] : 0; /* known flags, on sends only */
  return (uint32_t)(k > LLAMP_VERTEX_RECV) | (uint32_t)(g->rank[v] >= g->num_ranks) | (uint32_t)(g->id[v] >= g->n) |
         (uint32_t)(k == LLAMP_VERTEX_CALC ? pr != LLAMP_NONE32 : pr >= g->n) |
         (uint32_t)((f & ~LLAMP_VERTEX_F_ALL) != 0 || (f && k != LLAMP_VERTEX_SEND));
}

/* kinds, ranks, ids and partners in range; *sends and *self count the sends
 * and the self messages (llamp_graph_num_self_messages) */
uint64_t llamp_graph_bounds_vertices(const llamp_graph_t *g, uint64_t v0, uint64_t v1, uint64_t *sends,
                                     uint64_t *self) {
  uint32_t acc = 0;
  for (uint64_t v = v0; v < v1; v++) acc |= vertex_bad(g, v);
  if (acc)
    for (uint64_t v = v0; v < v1; v++)
      if (vertex_bad(g, v)) return v;
  uint64_t s = 0, o = 0;
  for (uint64_t v = v0; v < v1; v++) {
    s += g->kind[v] == LLAMP_VERTEX_SEND;
    o += (uint64_t)llamp_graph_self_send(g, v); /* partners are in range now */
  }
  *sends += s;
  *self += o;
  return v1;
}

/* every cost and size finite and non-negative: 0 / -1 */
int llamp_graph_bounds_values(const llamp_graph_t *g, uint64_t v0, uint64_t v1) {
  double sum = 0; /* NaN or infinity propagate, negatives count */
  for (uint64_t v = v0; v < v1; v++) sum += g->value[v] * 0 + (g->value[v] < 0);
  return sum == 0 ? 0 : -1;
}

int llamp_graph_bounds_ends(const llamp_graph_t *g, char *err, size_t errlen) {
  if (g->in_off[0] != 0 || g->in_off[g->n] != g->m) {
    if (err && errlen) snprintf(err, errlen, "edge offsets inconsistent");
    return -1;
  }
  for (uint32_t r = 0; r <= g->num_ranks; r++)
    if (g->rank_first[r] > g->n) {
      if (err && errlen) snprintf(err, errlen, "rank %u: first vertex out of range", r);
      return -1;
    }
  return 0;
}

static void drop_behind(const llamp_graph_t *g, uint64_t v) {
  if (g->map_big) llamp_graph_drop_pages(g, v);
}

int llamp_graph_check_bounds(const llamp_graph_t *g, char *err, size_t errlen) {
#define BOUND_FAIL(...)                                    \
  do {                                                     \
    if (err && errlen) snprintf(err, errlen, __VA_ARGS__); \
    return -1;                                             \
  } while (0)
  uint64_t n = g->n;
  if (llamp_graph_bounds_ends(g, err, errlen)) return -1;
  /* each pass over all vertices, in chunks of 2^24: of a file over half the
   * memory the pages behind leave after each chunk */
  const uint64_t chunk = (uint64_t)1 << 24;
#define CHUNKS(v0, v1)                                                              \
  for (uint64_t v0 = 0, v1 = n < chunk ? n : chunk; v0 < n;                          \
       drop_behind(g, v1), v0 = v1, v1 = n - v0 > chunk ? v0 + chunk : n)
  CHUNKS(v0, v1) if (llamp_graph_bounds_offsets(g, v0, v1) < v1) BOUND_FAIL("edge offsets out of order");
  uint64_t reach = 0; /* the longest in-edge (llamp_graph_reach), while the edges are read anyway */
  CHUNKS(v0, v1) {
    uint64_t bad = llamp_graph_bounds_edges(g, v0, v1, &reach);
    if (bad < v1)
      BOUND_FAIL("vertex %llu: an in-edge's source is not before it or its kind is bad", (unsigned long long)bad);
  }
  uint64_t sends = 0, self = 0;
  CHUNKS(v0, v1) {
    uint64_t bad = llamp_graph_bounds_vertices(g, v0, v1, &sends, &self);
    if (bad < v1) BOUND_FAIL("vertex %llu: kind, rank, id or partner out of range", (unsigned long long)bad);
  }
  if (sends != g->num_messages) BOUND_FAIL("message count mismatch");
  CHUNKS(v0, v1) if (llamp_graph_bounds_values(g, v0, v1)) BOUND_FAIL("a cost or size is not finite and non-negative");
#undef CHUNKS
  llamp_graph_bounds_found((llamp_graph_t *)g, reach, self);
  return 0;
#undef BOUND_FAIL
}

void llamp_graph_bounds_found(llamp_graph_t *g, uint64_t reach, uint64_t self) {
  g->self_messages = self; /* the cache of llamp_graph_num_self_messages */
  g->self_known = 1;
  g->reach = reach; /* valid: every source is before its vertex */
  g->reach_known = 1;
}

int llamp_graph_check(const llamp_graph_t *g, char *err, size_t errlen) {
#define CHECK_FAIL(...)                                    \
  do {                                                     \
    if (err && errlen) snprintf(err, errlen, __VA_ARGS__); \
    free(seen);                                            \
    return -1;                                             \
  } while (0)
  uint8_t *seen = NULL;
  if (!g) CHECK_FAIL("no graph");
  if (llamp_graph_bounds_ends(g, err, errlen)) return -1; /* nothing allocated yet */
  /* the builder ids must be a permutation, each inside its rank's block */
  seen = calloc(g->n ? g->n : 1, 1);
  if (!seen) CHECK_FAIL("out of memory while checking");
  for (uint64_t v = 0; v < g->n; v++) {
    uint32_t id = g->id[v];
    if (id >= g->n || seen[id]) CHECK_FAIL("vertex ids are not a permutation");
    seen[id] = 1;
  }
  uint64_t sends = 0;
  for (uint64_t v = 0; v < g->n; v++) {
    unsigned k = g->kind[v];
    if (k > LLAMP_VERTEX_RECV) CHECK_FAIL("vertex %llu: bad kind %u", (unsigned long long)v, k);
    if (g->rank[v] >= g->num_ranks)
      CHECK_FAIL("vertex %llu: rank %u out of range", (unsigned long long)v, g->rank[v]);
    if (g->id[v] < g->rank_first[g->rank[v]])
      CHECK_FAIL("vertex %llu: before its rank's first vertex", (unsigned long long)v);
    if (!(g->value[v] >= 0) || !isfinite(g->value[v]))
      CHECK_FAIL("vertex %llu: cost/size %g is not finite and non-negative", (unsigned long long)v,
                 g->value[v]);
    if (g->in_off[v + 1] < g->in_off[v] || g->in_off[v + 1] > g->m)
      CHECK_FAIL("vertex %llu: edge offsets out of order or range", (unsigned long long)v);
    if (g->partner[v] != LLAMP_NONE32 && g->partner[v] >= g->n)
      CHECK_FAIL("vertex %llu: partner out of range", (unsigned long long)v);
    unsigned msg_in = 0;
    for (uint32_t e = g->in_off[v]; e < g->in_off[v + 1]; e++) {
      uint32_t u = g->in_src[e] & LLAMP_EDGE_SRC_MASK, ek = g->in_src[e] >> LLAMP_EDGE_KIND_SHIFT;
      if (u >= g->n) CHECK_FAIL("edge into %llu: source out of range", (unsigned long long)v);
      if (u >= v)
        CHECK_FAIL("edge %u -> %llu breaks the topological order (cycle?)", u, (unsigned long long)v);
      if (ek > LLAMP_EDGE_CPU) CHECK_FAIL("edge %u -> %llu: bad kind %u", u, (unsigned long long)v, ek);
      if (ek == LLAMP_EDGE_CPU && k != LLAMP_VERTEX_RECV)
        CHECK_FAIL("CPU edge %u -> %llu: not into a receive", u, (unsigned long long)v);
      if (ek == LLAMP_EDGE_MESSAGE) {
        msg_in++;
        if (k != LLAMP_VERTEX_RECV || g->kind[u] != LLAMP_VERTEX_SEND || g->partner[v] != u ||
            g->partner[u] != v)
          CHECK_FAIL("message edge %u -> %llu does not join a matched send and receive", u,
                     (unsigned long long)v);
      } else if (g->rank[u] != g->rank[v]) {
        CHECK_FAIL("dependency %u -> %llu crosses ranks", u, (unsigned long long)v);
      }
    }
    if (k == LLAMP_VERTEX_RECV && msg_in != 1)
      CHECK_FAIL("receive %llu (rank %u) has %u matching sends", (unsigned long long)v, g->rank[v], msg_in);
    if (k == LLAMP_VERTEX_SEND) {
      sends++;
      uint32_t r = g->partner[v];
      if (r == LLAMP_NONE32 || r >= g->n || g->kind[r] != LLAMP_VERTEX_RECV || g->partner[r] != v)
        CHECK_FAIL("send %llu (rank %u) is not matched", (unsigned long long)v, g->rank[v]);
    }
    if (k == LLAMP_VERTEX_CALC && g->partner[v] != LLAMP_NONE32)
      CHECK_FAIL("calc vertex %llu has a message partner", (unsigned long long)v);
  }
  if (sends != g->num_messages) CHECK_FAIL("message count mismatch");
  free(seen);
  return 0;
#undef CHECK_FAIL
}
