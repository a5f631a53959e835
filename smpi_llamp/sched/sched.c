/* sched.c - per-rank MPI call records -> execution DAG (Schedgen trace mode).
 *
 * One pass over each rank's records, rank by rank (the graph builder wants
 * each rank's operations contiguous).  Per rank we keep:
 *   R, I     the vertices the next program-order operation `requires` /
 *            `irequires` (usually one; a Sendrecv or a collective round
 *            leaves several, a Wait adds the completed operations);
 *   pending  the compute time since the last vertex-creating call (gaps
 *            around calls that create nothing are summed);
 *   requests id -> the vertex (or template, or collective's last round);
 *   comms    id -> size, this rank's position, member world ranks.
 * Operations go straight to the builder, except while a nonblocking
 * wildcard receive waits for its completion to reveal the source and tag:
 * from that receive on, operations and dependencies are buffered until it
 * is resolved, then flushed in order (the builder sees posting order and
 * concrete sources).  No allocation per record. */
#define _XOPEN_SOURCE 700
#include "llamp_sched.h"
#include "llamp_map.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_coll.h"
#include "llamp_par.h"

#define NONE32 UINT32_MAX
#define USER_TAG_LIMIT (1 << 29)  /* world user tags below this keep their value */
#define MAPPED_TAG_BASE (1 << 29) /* other (comm, tag) pairs: [2^29, 3 2^28); RMA stand-ins above */
#define COLL_TAG_BASE (1 << 30)   /* collectives: [2^30, 2^31) */
#define COLL_CIDX_BITS 14
#define COLL_SEQ_BITS 14
#define JOIN_MAX 8 /* more predecessors than this before a round: a join vertex */
#define FLUSH_OPS 4096

_Static_assert(LLAMP_COLL_MAX_TAGS <= 4, "collective tags need at most 2 bits");

/* ---- small containers ------------------------------------------------------------ */

typedef struct {
  uint32_t *v;
  uint32_t n, cap;
} vec_t;

static int vec_grow(vec_t *a) {
  uint32_t cap = a->cap ? a->cap * 2 : 16;
  uint32_t *v = realloc(a->v, (size_t)cap * sizeof *v);
  if (!v) return -1;
  a->v = v;
  a->cap = cap;
  return 0;
}

static inline int vec_push(vec_t *a, uint32_t x) {
  if (a->n == a->cap && vec_grow(a)) return -1;
  a->v[a->n++] = x;
  return 0;
}

static int vec_copy(vec_t *dst, const vec_t *src) {
  dst->n = 0;
  for (uint32_t i = 0; i < src->n; i++)
    if (vec_push(dst, src->v[i])) return -1;
  return 0;
}

/* ---- state ------------------------------------------------------------------------ */

enum { REQ_P2P = 0, REQ_PSEND, REQ_PRECV, REQ_COLL };

typedef struct {
  uint32_t op;    /* active vertex (local index) or NONE32 */
  uint8_t type;   /* REQ_* */
  uint8_t wild;   /* op's source (1) / tag (2) await the completion status */
  uint8_t freed;  /* persistent: freed while active */
  uint8_t recv;   /* a receive (its CPU time is spent where it completes) */
  uint32_t comm;  /* for tag mapping at resolution; templates */
  int32_t peer, tag; /* persistent template: peer, user tag */
  uint64_t bytes;
  uint32_t coff, clen; /* REQ_COLL: last round in the pool */
} req_t;

typedef struct {
  uint32_t id, size, pos;
  uint32_t members; /* first of its runs in the rank's run arena, NONE32 = identity (world) */
  uint32_t nruns;
  uint32_t seq;     /* collectives called on it so far */
  uint32_t cidx;    /* global dense index of the id */
} comm_t;

/* A one-sided window of this rank (docs/trace.md, "One-sided
 * communication"): its identity (communicator id, index there), the
 * operations it started that a later call may wait for (a Get's receive,
 * or a Put's or Accumulate's send),
 * and the groups of its post / start. */
typedef struct {
  uint32_t v, t; /* vertex; target | WIN_GET */
  uint64_t bytes;
} rma_op_t;
typedef struct {
  uint32_t comm, index;
  int live;
  rma_op_t *ops;
  uint32_t nops, capops;
  vec_t post, start;
} win_t;
#define WIN_GET 0x80000000u
enum { RMA_DATA = 0, RMA_SELF, RMA_POST, RMA_COMPLETE };

typedef struct sched sched_t;

typedef struct {
  sched_t *s;
  uint32_t rank;
  uint64_t recno; /* 1-based number of the current record */
  uint16_t recop;
  /* vertices: local index l has builder id first_id + l */
  uint32_t nlocal;
  int64_t first_id;
  /* buffered operations (local indices buf_first ..) and dependencies */
  uint32_t buf_first, nbuf, capbuf;
  uint8_t *bk;
  double *bv;
  int32_t *bp, *bt;
  uint32_t *bl;
  uint32_t nd, capd;
  uint32_t *da, *db, *dl; /* db: before | 1<<31 for irequires */
  uint32_t pending_wild;
  /* dependency state */
  vec_t R, I, round, saveR, saveI, tmp;
  vec_t waitR; /* R when a completion call began: its receives' CPU time follows it */
  double pending, prev_end;
  int started, finalized;
  /* requests */
  llamp_map_t reqmap;
  req_t *reqs;
  uint32_t nreqs, capreqs;
  vec_t freereq;
  vec_t pool; /* collective requests' last rounds */
  uint32_t pool_live;
  /* communicators */
  llamp_map_t commmap;
  comm_t *comms;
  uint32_t ncomms, capcomms;
  llamp_trace_run_t *runs; /* communicators' members (llamp_trace.h) */
  uint32_t nruns, capruns;
  /* one-sided windows */
  win_t *wins;
  uint32_t nwins, capwins;
  /* unmodelled name ids of this rank's trace -> global index */
  vec_t namecache;
  /* the last point-to-point send to each world rank: start time, bytes (< 0 none) */
  double *last_send_t, *last_send_b;
  vec_t sent_to; /* the peers set in last_send_b: reset per rank in O(peers), not O(ranks) */
} rank_t;

struct sched {
  llamp_builder_t *b;
  llamp_sched_options_t opt;
  llamp_coll_selection_t sel;
  uint32_t num_ranks;
  llamp_sched_stats_t *st;
  llamp_map_t cidx; /* comm id -> dense index */
  uint32_t ncidx;
  llamp_map_t tags; /* (comm << 32 | tag) -> mapped id */
  uint32_t ntags;
  /* the keys of both maps by id, in the order they were met: how a second
   * rank range's ids become the ones one pass would have given */
  vec_t cidx_ids, tag_comms, tag_tags;
  char *err;
  size_t errlen;
  llamp_trace_reader_t *reader;
};

static int rfail(rank_t *k, const char *fmt, ...) {
  sched_t *s = k->s;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (s->err && s->errlen)
    snprintf(s->err, s->errlen, "rank %u record %llu (%s): %s", k->rank,
             (unsigned long long)k->recno, llamp_trace_op_name((llamp_trace_op_t)k->recop), msg);
  return -1;
}

static int oom(rank_t *k) { return rfail(k, "out of memory"); }

static int bfail(rank_t *k) {
  sched_t *s = k->s;
  if (s->err && s->errlen) snprintf(s->err, s->errlen, "%s", llamp_builder_error(s->b));
  return -1;
}

/* ---- emitting vertices and dependencies ----------------------------------------- */

/* bk: the buffered send's LLAMP_VERTEX_F_* flags, shifted */
#define BUF_FLAG_SHIFT 5
#define BUF_FLAGS (LLAMP_VERTEX_F_ALL << BUF_FLAG_SHIFT)
_Static_assert((LLAMP_VERTEX_F_ALL << BUF_FLAG_SHIFT) <= 0xff && LLAMP_VERTEX_RECV < (1 << BUF_FLAG_SHIFT),
               "vertex kinds and flags share a byte");

/* Buffered dependencies keep their kind in the top bits of `before` (local
 * indices stay below 2^30). */
#define DEP_IREQ 0x80000000u
#define DEP_CPU 0x40000000u
#define DEP_INDEX 0x3fffffffu

static int flush(rank_t *k) {
  sched_t *s = k->s;
  for (uint32_t i = 0; i < k->nbuf; i++) {
    int64_t id = llamp_builder_add(s->b, k->rank, (llamp_vertex_kind_t)(k->bk[i] & ~BUF_FLAGS), k->bv[i],
                                   k->bp[i], k->bt[i], k->bl[i]);
    unsigned fl = (unsigned)(k->bk[i] & BUF_FLAGS) >> BUF_FLAG_SHIFT;
    if (id < 0 || (fl && llamp_builder_set_flags(s->b, id, fl)))
      return bfail(k);
    if (k->first_id < 0) k->first_id = id - (k->buf_first + i);
  }
  for (uint32_t i = 0; i < k->nd; i++) {
    uint32_t before = k->db[i] & DEP_INDEX;
    llamp_edge_kind_t kind = (k->db[i] & DEP_IREQ) ? LLAMP_EDGE_IREQUIRES
                             : (k->db[i] & DEP_CPU) ? LLAMP_EDGE_CPU
                                                    : LLAMP_EDGE_REQUIRES;
    if (llamp_builder_depend(s->b, k->first_id + k->da[i], k->first_id + before, kind, k->dl[i]))
      return bfail(k);
  }
  k->buf_first += k->nbuf;
  k->nbuf = 0;
  k->nd = 0;
  return 0;
}

static int buf_room(rank_t *k) {
  if (k->nbuf < k->capbuf) return 0;
  uint32_t cap = k->capbuf ? k->capbuf * 2 : 1024;
  uint8_t *bk = realloc(k->bk, cap);
  if (bk) k->bk = bk;
  double *bv = realloc(k->bv, cap * sizeof *bv);
  if (bv) k->bv = bv;
  int32_t *bp = realloc(k->bp, cap * sizeof *bp);
  if (bp) k->bp = bp;
  int32_t *bt = realloc(k->bt, cap * sizeof *bt);
  if (bt) k->bt = bt;
  uint32_t *bl = realloc(k->bl, cap * sizeof *bl);
  if (bl) k->bl = bl;
  if (!bk || !bv || !bp || !bt || !bl) return -1;
  k->capbuf = cap;
  return 0;
}

/* A new vertex of this rank; returns its local index or NONE32 on failure.
 * `buffer` forces buffering (a wildcard receive to be patched later). */
static uint32_t op_add(rank_t *k, llamp_vertex_kind_t kind, double value, int32_t peer,
                       int32_t tag, int buffer) {
  sched_t *s = k->s;
  if (k->nlocal >= (1u << 30)) {
    rfail(k, "more than 2^30 operations in one rank");
    return NONE32;
  }
  uint32_t line = k->recno > UINT32_MAX ? UINT32_MAX : (uint32_t)k->recno;
  uint32_t l = k->nlocal;
  if (!buffer && k->nbuf == 0 && k->pending_wild == 0) {
    int64_t id = llamp_builder_add(s->b, k->rank, kind, value, peer, tag, line);
    if (id < 0) {
      bfail(k);
      return NONE32;
    }
    if (k->first_id < 0) k->first_id = id - l;
    k->buf_first = l + 1;
  } else {
    if (buf_room(k)) {
      oom(k);
      return NONE32;
    }
    uint32_t i = k->nbuf++;
    k->bk[i] = (uint8_t)kind;
    k->bv[i] = value;
    k->bp[i] = peer;
    k->bt[i] = tag;
    k->bl[i] = line;
  }
  k->nlocal++;
  if (kind == LLAMP_VERTEX_CALC)
    s->st->calcs++;
  else if (kind == LLAMP_VERTEX_SEND)
    s->st->sends++;
  else
    s->st->recvs++;
  return l;
}

/* ireq: 0 requires, 1 irequires, DEP_KIND_CPU a receive's CPU time */
#define DEP_KIND_CPU 2
static int dep_add(rank_t *k, uint32_t after, uint32_t before, int ireq) {
  uint32_t line = k->recno > UINT32_MAX ? UINT32_MAX : (uint32_t)k->recno;
  if (k->nbuf == 0) {
    llamp_edge_kind_t kind = ireq == DEP_KIND_CPU ? LLAMP_EDGE_CPU : ireq ? LLAMP_EDGE_IREQUIRES : LLAMP_EDGE_REQUIRES;
    if (llamp_builder_depend(k->s->b, k->first_id + after, k->first_id + before, kind, line))
      return bfail(k);
    return 0;
  }
  if (k->nd == k->capd) {
    uint32_t cap = k->capd ? k->capd * 2 : 1024;
    uint32_t *a = realloc(k->da, cap * sizeof *a);
    if (a) k->da = a;
    uint32_t *b = realloc(k->db, cap * sizeof *b);
    if (b) k->db = b;
    uint32_t *c = realloc(k->dl, cap * sizeof *c);
    if (c) k->dl = c;
    if (!a || !b || !c) return oom(k);
    k->capd = cap;
  }
  k->da[k->nd] = after;
  k->db[k->nd] = before | (ireq == DEP_KIND_CPU ? DEP_CPU : ireq ? DEP_IREQ : 0);
  k->dl[k->nd] = line;
  k->nd++;
  return 0;
}

/* v starts after R completed and I started. */
static int attach(rank_t *k, uint32_t v) {
  for (uint32_t i = 0; i < k->R.n; i++)
    if (dep_add(k, v, k->R.v[i], 0)) return -1;
  for (uint32_t i = 0; i < k->I.n; i++)
    if (dep_add(k, v, k->I.v[i], 1)) return -1;
  return 0;
}

/* The next operation follows v alone. */
static int follow(rank_t *k, uint32_t v) {
  k->R.n = 0;
  k->I.n = 0;
  return vec_push(&k->R, v) ? oom(k) : 0;
}

/* A calc vertex of duration d after the current state, unless d is below
 * min_calc (then it is dropped and counted). */
static int calc_vertex(rank_t *k, double d) {
  sched_t *s = k->s;
  if (!(d > 0)) return 0;
  if (d < s->opt.min_calc) {
    s->st->dropped_calcs++;
    s->st->dropped_calc_time += d;
    return 0;
  }
  uint32_t v = op_add(k, LLAMP_VERTEX_CALC, d, -1, 0, 0);
  if (v == NONE32 || attach(k, v)) return -1;
  return follow(k, v);
}

/* Emit the compute time gathered since the last vertex. */
static int materialize(rank_t *k) {
  double d = k->pending;
  k->pending = 0;
  return calc_vertex(k, d);
}

/* Local operation l, a send, gets LLAMP_VERTEX_F_* flags: SYNC for a
 * synchronous send (MPI_Ssend, MPI_Issend: SMPI starts it at its match and
 * its sender waits for the data whatever its size), ISEND for one SMPI
 * charges as an MPI_Isend (smpi/ois: MPI_Isend and its kin, Sendrecv's
 * send, collectives' Request::isend and sendrecv). */
static int mark(rank_t *k, uint32_t l, unsigned flags) {
  if (l >= k->buf_first) {
    k->bk[l - k->buf_first] |= (uint8_t)(flags << BUF_FLAG_SHIFT);
    return 0;
  }
  return llamp_builder_set_flags(k->s->b, k->first_id + l, flags) ? bfail(k) : 0;
}

/* A blocking operation: after the state, the next op requires it. */
static int blocking(rank_t *k, llamp_vertex_kind_t kind, uint64_t bytes, int32_t peer, int32_t tag) {
  uint32_t v = op_add(k, kind, (double)bytes, peer, tag, 0);
  if (v == NONE32 || attach(k, v)) return -1;
  return follow(k, v);
}

/* v completed: the next operation requires it. */
static int completed(rank_t *k, uint32_t v) {
  for (uint32_t i = 0; i < k->I.n; i++)
    if (k->I.v[i] == v) {
      k->I.v[i] = k->I.v[--k->I.n];
      break;
    }
  for (uint32_t i = 0; i < k->R.n; i++)
    if (k->R.v[i] == v) return 0;
  return vec_push(&k->R, v) ? oom(k) : 0;
}

/* ---- tags and peers ------------------------------------------------------------------ */

/* The graph tag of user tag `tag` (>= 0) on communicator `comm`. */
/* net_self: a message to oneself standing for a network transfer, mapped
 * into [LLAMP_TAG_NET_SELF, LLAMP_TAG_NET_SELF_END) (llamp_graph.h). */
static int map_tag_as(rank_t *k, uint32_t comm, int32_t tag, int net_self, int32_t *out);
static int map_tag(rank_t *k, uint32_t comm, int32_t tag, int32_t *out) {
  return map_tag_as(k, comm, tag, 0, out);
}
static int map_tag_as(rank_t *k, uint32_t comm, int32_t tag, int net_self, int32_t *out) {
  if (tag < 0) {
    *out = LLAMP_ANY_TAG;
    return 0;
  }
  if (comm == LLAMP_TRACE_COMM_WORLD && tag < USER_TAG_LIMIT) {
    *out = tag;
    return 0;
  }
  sched_t *s = k->s;
  uint64_t key = ((uint64_t)comm << 32) | (uint32_t)tag;
  uint32_t *p = llamp_map_find(&s->tags, key);
  if (!p) {
    if (s->ntags >= LLAMP_TAG_NET_SELF - MAPPED_TAG_BASE)
      return rfail(k, "more than 2^28 distinct (communicator, tag) pairs");
    if (llamp_map_put(&s->tags, key, s->ntags) || vec_push(&s->tag_comms, comm) ||
        vec_push(&s->tag_tags, (uint32_t)tag))
      return oom(k);
    p = llamp_map_find(&s->tags, key);
    s->ntags++;
  }
  *out = (int32_t)((net_self ? LLAMP_TAG_NET_SELF : MAPPED_TAG_BASE) + *p);
  return 0;
}

/* Check a point-to-point peer: 1 = a rank, 0 = MPI_PROC_NULL (no vertex). */
static int check_peer(rank_t *k, int32_t peer, int is_recv) {
  if (peer == LLAMP_TRACE_NO_PEER) return 0;
  if ((is_recv && peer == LLAMP_TRACE_ANY_SOURCE) || (peer >= 0 && (uint32_t)peer < k->s->num_ranks))
    return 1;
  return rfail(k, "%s %d out of range (%u ranks)", is_recv ? "source" : "destination", peer,
               k->s->num_ranks);
}

/* ---- requests ---------------------------------------------------------------------------- */

static req_t *req_new(rank_t *k, uint64_t id) {
  if (id == LLAMP_TRACE_NO_REQ) {
    rfail(k, "missing request id");
    return NULL;
  }
  int found;
  uint32_t *p = llamp_map_upsert(&k->reqmap, id, NONE32, &found);
  if (!p) {
    oom(k);
    return NULL;
  }
  if (!found) { /* (found: an id reused while active; the old request is forgotten) */
    if (k->freereq.n) {
      *p = k->freereq.v[--k->freereq.n];
    } else {
      if (k->nreqs == k->capreqs) {
        uint32_t cap = k->capreqs ? k->capreqs * 2 : 256;
        req_t *r = realloc(k->reqs, cap * sizeof *r);
        if (!r) {
          oom(k);
          return NULL;
        }
        k->reqs = r;
        k->capreqs = cap;
      }
      *p = k->nreqs++;
    }
  }
  req_t *r = &k->reqs[*p];
  memset(r, 0, sizeof *r);
  r->op = NONE32;
  return r;
}

/* Forget request r, found in slot `mslot` of the request map. */
static void req_drop(rank_t *k, uint64_t mslot, req_t *r) {
  if (r->type == REQ_COLL && r->clen && --k->pool_live == 0) k->pool.n = 0;
  llamp_map_del_slot(&k->reqmap, mslot);
  vec_push(&k->freereq, (uint32_t)(r - k->reqs)); /* cannot fail: capacity grows with nreqs */
}

/* The request with this id (and its map slot), or NULL. */
static req_t *req_find(rank_t *k, uint64_t id, uint64_t *mslot) {
  if (id == LLAMP_TRACE_NO_REQ) return NULL;
  uint64_t i = llamp_map_slot(&k->reqmap, id);
  if (i == UINT64_MAX) return NULL;
  if (mslot) *mslot = i;
  return &k->reqs[k->reqmap.vals[i]];
}

/* Post a nonblocking send or receive (also a persistent Start): its vertex
 * follows the state; the next op irequires a send and inherits a receive's
 * predecessors (irequiring a receive would wait for the message: a receive
 * vertex starts when its message has arrived). */
static int post(rank_t *k, req_t *r, int is_recv, uint32_t comm, int32_t peer, int32_t tag,
                uint64_t bytes) {
  int ok = check_peer(k, peer, is_recv);
  if (ok < 0) return -1;
  r->comm = comm;
  r->op = NONE32;
  r->wild = 0;
  r->recv = (uint8_t)(is_recv != 0);
  if (!ok) return 0; /* MPI_PROC_NULL */
  if (!is_recv && tag < 0) return rfail(k, "bad tag %d", tag);
  int32_t gtag;
  if (map_tag(k, comm, tag, &gtag)) return -1;
  uint8_t wild = (uint8_t)((is_recv && peer < 0 ? 1 : 0) | (is_recv && tag < 0 ? 2 : 0));
  uint32_t v = op_add(k, is_recv ? LLAMP_VERTEX_RECV : LLAMP_VERTEX_SEND, (double)bytes, peer,
                      gtag, wild != 0);
  if (v == NONE32 || attach(k, v)) return -1;
  r->op = v;
  r->wild = wild;
  if (wild) k->pending_wild++;
  if (!is_recv) {
    k->R.n = 0;
    k->I.n = 0;
    if (vec_push(&k->I, v)) return oom(k);
  }
  return 0;
}

/* Resolve a buffered wildcard receive from a completion status word. */
static int resolve(rank_t *k, req_t *r, uint64_t status) {
  if (!r->wild) return 0;
  uint32_t i = r->op - k->buf_first; /* still buffered: flushes wait for it */
  int32_t src = llamp_trace_status_source(status), tag = llamp_trace_status_tag(status);
  if (r->wild & 1) {
    if (src >= 0 && (uint32_t)src >= k->s->num_ranks)
      return rfail(k, "completed receive's source %d out of range", src);
    if (src >= 0) k->bp[i] = src;
  }
  if ((r->wild & 2) && tag >= 0 && map_tag(k, r->comm, tag, &k->bt[i])) return -1;
  if (((r->wild & 1) && src < 0) || ((r->wild & 2) && tag < 0)) k->s->st->unresolved_wildcards++;
  r->wild = 0;
  k->pending_wild--;
  return 0;
}

/* Receive v completes in a call that began after `before` (the rank's
 * state then) and after the receive that call completed before it
 * (*prev): SMPI sleeps smpi/or there, one completed receive after the
 * other (Request::finish_wait, and Waitall as a loop of Waitany), so its
 * CPU time follows them (LLAMP_EDGE_CPU).  The order within one call is
 * the call's array order. */
static int cpu_after(rank_t *k, uint32_t v, const vec_t *before, uint32_t *prev) {
  for (uint32_t i = 0; i < before->n; i++)
    if (before->v[i] != v && dep_add(k, v, before->v[i], DEP_KIND_CPU)) return -1;
  if (*prev != NONE32 && dep_add(k, v, *prev, DEP_KIND_CPU)) return -1;
  *prev = v;
  return 0;
}

/* Request `id` completed with `status`; *prev_recv: the receive this call
 * completed last (NULL: no CPU edges, the request's own wait is elsewhere). */
static int complete(rank_t *k, uint64_t id, uint64_t status, uint32_t *prev_recv) {
  if (id == LLAMP_TRACE_NO_REQ) return 0;
  uint64_t ms;
  req_t *r = req_find(k, id, &ms);
  if (!r) {
    k->s->st->unknown_requests++;
    return 0;
  }
  if (r->type == REQ_COLL) {
    for (uint32_t i = 0; i < r->clen; i++)
      if (completed(k, k->pool.v[r->coff + i])) return -1;
    req_drop(k, ms, r);
    return 0;
  }
  if (r->op != NONE32) {
    if (prev_recv && r->recv && cpu_after(k, r->op, &k->waitR, prev_recv)) return -1;
    if (resolve(k, r, status) || completed(k, r->op)) return -1;
    r->op = NONE32;
  }
  if (r->type == REQ_P2P || r->freed) req_drop(k, ms, r);
  return 0;
}

/* ---- communicators ------------------------------------------------------------------------ */

static comm_t *comm_find(rank_t *k, uint32_t id) {
  uint32_t *p = llamp_map_find(&k->commmap, id);
  return p ? &k->comms[*p] : NULL;
}

/* A new entry of this rank's communicator table, mapped from `id`. */
static int comm_slot(rank_t *k, uint32_t id, uint32_t *slot) {
  if (k->ncomms == k->capcomms) {
    uint32_t cap = k->capcomms ? k->capcomms * 2 : 16;
    comm_t *c = realloc(k->comms, cap * sizeof *c);
    if (!c) return oom(k);
    k->comms = c;
    k->capcomms = cap;
  }
  *slot = k->ncomms++;
  if (llamp_map_put(&k->commmap, id, *slot)) return oom(k);
  return 0;
}

/* Room for one more run in the rank's arena. */
static int run_room(rank_t *k) {
  if (k->nruns < k->capruns) return 0;
  uint32_t cap = k->capruns ? k->capruns * 2 : 64;
  llamp_trace_run_t *r = realloc(k->runs, (size_t)cap * sizeof *r);
  if (!r) return oom(k);
  k->runs = r;
  k->capruns = cap;
  return 0;
}

/* Words of a COMM_* payload's member list: runs (LLAMP_TRACE_F_COMM_RUNS)
 * or the plain list (older traces, and lists runs would not shorten). */
static uint64_t comm_member_words(const llamp_trace_rec_t *rec, const uint64_t *pl) {
  if (rec->nwords < 2) return 0;
  if (!(rec->flags & LLAMP_TRACE_F_COMM_RUNS)) return pl[1];
  return rec->nwords < 3 || pl[2] > rec->nwords ? UINT64_MAX : 1 + 3 * pl[2];
}

/* The members of a COMM_* record as runs appended to the rank's arena,
 * checked: world ranks in range, as many members as the size says. */
static int comm_runs(rank_t *k, const llamp_trace_rec_t *rec, const uint64_t *pl, uint64_t id, uint64_t size) {
  uint64_t words = comm_member_words(rec, pl);
  if (size > k->s->num_ranks || words == UINT64_MAX || rec->nwords < 2 + words)
    return rfail(k, "communicator %llu of %llu members with %u payload words", (unsigned long long)id,
                 (unsigned long long)size, rec->nwords);
  uint32_t off = k->nruns;
  if (!(rec->flags & LLAMP_TRACE_F_COMM_RUNS)) {
    for (uint64_t i = 0; i < size; i++) {
      uint64_t m = pl[2 + i];
      if (m >= k->s->num_ranks)
        return rfail(k, "communicator %llu: member %llu out of range", (unsigned long long)id,
                     (unsigned long long)m);
      if (run_room(k)) return -1;
      uint32_t n = k->nruns - off;
      llamp_trace_runs_push(k->runs + off, &n, (uint32_t)m);
      k->nruns = off + n;
    }
    return 0;
  }
  uint64_t nruns = pl[2], total = 0;
  for (uint64_t i = 0; i < nruns; i++) {
    uint64_t first = pl[3 + 3 * i], count = pl[5 + 3 * i];
    int64_t stride = llamp_trace_unzigzag(pl[4 + 3 * i]);
    /* the last member, in 128 bits: a corrupt stride must not wrap into range */
    __int128 last = (__int128)first + (__int128)stride * (__int128)(count ? count - 1 : 0);
    if (count == 0 || count > size - total || first >= k->s->num_ranks || last < 0 ||
        last >= (__int128)k->s->num_ranks || stride < INT32_MIN || stride > INT32_MAX)
      return rfail(k, "communicator %llu: member run %llu (first %llu, stride %lld, count %llu) out of range",
                   (unsigned long long)id, (unsigned long long)i, (unsigned long long)first, (long long)stride,
                   (unsigned long long)count);
    if (run_room(k)) return -1;
    k->runs[k->nruns++] = (llamp_trace_run_t){(uint32_t)total, (uint32_t)first, (int32_t)stride, (uint32_t)count};
    total += count;
  }
  if (total != size)
    return rfail(k, "communicator %llu: its member runs hold %llu members, not %llu", (unsigned long long)id,
                 (unsigned long long)total, (unsigned long long)size);
  return 0;
}

static int comm_define(rank_t *k, const llamp_trace_rec_t *rec, const uint64_t *pl) {
  if (rec->nwords < 2) return 0; /* MPI_COMM_NULL */
  uint64_t id = pl[0], size = pl[1];
  if (size == 0 || id == UINT64_MAX) return 0;
  if (id > UINT32_MAX) return rfail(k, "communicator id %llu out of range", (unsigned long long)id);
  if (id == LLAMP_TRACE_COMM_WORLD) return rfail(k, "new communicator with the id of MPI_COMM_WORLD");
  uint32_t off = k->nruns;
  if (comm_runs(k, rec, pl, id, size)) return -1;
  int64_t at = llamp_trace_runs_index(k->runs + off, k->nruns - off, k->rank);
  if (at < 0) {
    k->nruns = off; /* not a member: MPI_COMM_NULL here */
    return 0;
  }
  uint32_t pos = (uint32_t)at;
  uint32_t *p = llamp_map_find(&k->commmap, (uint32_t)id);
  uint32_t slot;
  if (p) {
    slot = *p;
  } else {
    if (comm_slot(k, (uint32_t)id, &slot)) return -1;
  }
  sched_t *s = k->s;
  uint32_t *ci = llamp_map_find(&s->cidx, id);
  if (!ci) {
    if (llamp_map_put(&s->cidx, id, s->ncidx++) || vec_push(&s->cidx_ids, (uint32_t)id)) return oom(k);
    ci = llamp_map_find(&s->cidx, id);
  }
  comm_t *c = &k->comms[slot];
  c->id = (uint32_t)id;
  c->size = (uint32_t)size;
  c->pos = pos;
  c->members = off;
  c->nruns = k->nruns - off;
  c->seq = 0;
  c->cidx = *ci;
  return 0;
}

/* ---- collectives ----------------------------------------------------------------------------- */

typedef struct {
  rank_t *k;
  const llamp_trace_run_t *runs; /* members; NULL = identity */
  uint32_t nruns;
  int32_t tagbase;
  int rounds;
  int failed; /* a callback failed: the message is already in s->err */
  uint32_t round_recv;  /* the round's last receive (NONE32: none yet) */
  uint32_t round_first; /* its first receive */
  uint32_t round_isend; /* its last Request::isend (NONE32: none yet) */
} cemit_t;

static int round_op(cemit_t *e, uint32_t v) {
  rank_t *k = e->k;
  if (attach(k, v)) return -1;
  if (vec_push(&k->round, v)) return oom(k);
  return 0;
}

/* Before a round's first operation: many predecessors and a round that may
 * hold many operations would need |R| x |round| edges; a join vertex
 * (calc 0) needs |R| + |round|. */
static int round_begin(cemit_t *e) {
  rank_t *k = e->k;
  if (k->round.n || k->R.n + k->I.n <= JOIN_MAX) return 0;
  uint32_t j = op_add(k, LLAMP_VERTEX_CALC, 0.0, -1, 0, 0);
  if (j == NONE32 || attach(k, j)) return -1;
  return follow(k, j);
}

/* SMPI posts a round's requests one call after the other, each Isend
 * sleeping smpi/ois: what follows an isend in its round starts after it
 * (irequires: its ois). */
static int ce_msg(cemit_t *e, llamp_vertex_kind_t kind, int peer, uint64_t bytes, int tag) {
  rank_t *k = e->k;
  if (round_begin(e)) return -1;
  int32_t w = e->runs ? (int32_t)llamp_trace_runs_world(e->runs, e->nruns, (uint32_t)peer) : peer;
  uint32_t v = op_add(k, kind, (double)bytes, w, e->tagbase | tag, 0);
  if (v == NONE32 || round_op(e, v)) return -1;
  return e->round_isend != NONE32 ? dep_add(k, v, e->round_isend, 1) : 0;
}

/* SimGrid's Request::isend / sendrecv (ois), or its blocking Request::send */
static int ce_send(void *ctx, int peer, uint64_t bytes, int tag) {
  cemit_t *e = ctx;
  if (ce_msg(e, LLAMP_VERTEX_SEND, peer, bytes, tag) || mark(e->k, e->k->round.v[e->k->round.n - 1], LLAMP_VERTEX_F_ISEND))
    return e->failed = -1;
  e->round_isend = e->k->round.v[e->k->round.n - 1];
  return 0;
}
static int ce_send_blocking(void *ctx, int peer, uint64_t bytes, int tag) {
  cemit_t *e = ctx;
  if (ce_msg(e, LLAMP_VERTEX_SEND, peer, bytes, tag)) return e->failed = -1;
  return 0;
}
/* A round's receives complete in SMPI's waitall (or one blocking receive
 * after the other): each one's CPU time (smpi/or) after the one before. */
static int ce_recv(void *ctx, int peer, uint64_t bytes, int tag) {
  cemit_t *e = ctx;
  rank_t *k = e->k;
  if (ce_msg(e, LLAMP_VERTEX_RECV, peer, bytes, tag)) return e->failed = -1;
  uint32_t v = k->round.v[k->round.n - 1];
  if (e->round_recv != NONE32 && dep_add(k, v, e->round_recv, DEP_KIND_CPU)) return e->failed = -1;
  if (e->round_recv == NONE32) e->round_first = v;
  e->round_recv = v;
  return 0;
}
static int ce_calc(void *ctx, uint64_t bytes) {
  cemit_t *e = ctx;
  rank_t *k = e->k;
  double d = (double)bytes * k->s->opt.reduce_cost;
  if (!(d > 0)) return 0;
  if (d < k->s->opt.min_calc) {
    k->s->st->dropped_calcs++;
    k->s->st->dropped_calc_time += d;
    return 0;
  }
  uint32_t v;
  if (round_begin(e) || (v = op_add(k, LLAMP_VERTEX_CALC, d, -1, 0, 0)) == NONE32 || round_op(e, v))
    return e->failed = -1;
  return 0;
}
static int ce_end_round(void *ctx) {
  cemit_t *e = ctx;
  rank_t *k = e->k;
  if (k->round.n == 0) return 0; /* everything in it was dropped */
  /* the waitall, and its receives' CPU time, after the round's last isend */
  if (e->round_first != NONE32 && e->round_isend != NONE32 &&
      dep_add(k, e->round_first, e->round_isend, DEP_KIND_CPU))
    return e->failed = -1;
  vec_t t = k->R;
  k->R = k->round;
  k->round = t;
  k->round.n = 0;
  k->I.n = 0;
  e->rounds++;
  e->round_recv = e->round_first = e->round_isend = NONE32;
  return 0;
}

static const llamp_coll_kind_t coll_of_op[LLAMP_OP_COUNT_] = {
    [LLAMP_OP_BARRIER] = LLAMP_COLL_BARRIER,
    [LLAMP_OP_BCAST] = LLAMP_COLL_BCAST,
    [LLAMP_OP_REDUCE] = LLAMP_COLL_REDUCE,
    [LLAMP_OP_ALLREDUCE] = LLAMP_COLL_ALLREDUCE,
    [LLAMP_OP_GATHER] = LLAMP_COLL_GATHER,
    [LLAMP_OP_GATHERV] = LLAMP_COLL_GATHERV,
    [LLAMP_OP_SCATTER] = LLAMP_COLL_SCATTER,
    [LLAMP_OP_SCATTERV] = LLAMP_COLL_SCATTERV,
    [LLAMP_OP_ALLGATHER] = LLAMP_COLL_ALLGATHER,
    [LLAMP_OP_ALLGATHERV] = LLAMP_COLL_ALLGATHERV,
    [LLAMP_OP_ALLTOALL] = LLAMP_COLL_ALLTOALL,
    [LLAMP_OP_ALLTOALLV] = LLAMP_COLL_ALLTOALLV,
    [LLAMP_OP_REDUCE_SCATTER] = LLAMP_COLL_REDUCE_SCATTER,
    [LLAMP_OP_REDUCE_SCATTER_BLOCK] = LLAMP_COLL_REDUCE_SCATTER_BLOCK,
    [LLAMP_OP_SCAN] = LLAMP_COLL_SCAN,
    [LLAMP_OP_EXSCAN] = LLAMP_COLL_EXSCAN,
    [LLAMP_OP_IBARRIER] = LLAMP_COLL_BARRIER,
    [LLAMP_OP_IBCAST] = LLAMP_COLL_BCAST,
    [LLAMP_OP_IREDUCE] = LLAMP_COLL_REDUCE,
    [LLAMP_OP_IALLREDUCE] = LLAMP_COLL_ALLREDUCE,
    [LLAMP_OP_IGATHER] = LLAMP_COLL_GATHER,
    [LLAMP_OP_IGATHERV] = LLAMP_COLL_GATHERV,
    [LLAMP_OP_ISCATTER] = LLAMP_COLL_SCATTER,
    [LLAMP_OP_ISCATTERV] = LLAMP_COLL_SCATTERV,
    [LLAMP_OP_IALLGATHER] = LLAMP_COLL_ALLGATHER,
    [LLAMP_OP_IALLGATHERV] = LLAMP_COLL_ALLGATHERV,
    [LLAMP_OP_IALLTOALL] = LLAMP_COLL_ALLTOALL,
    [LLAMP_OP_IALLTOALLV] = LLAMP_COLL_ALLTOALLV,
    [LLAMP_OP_IREDUCE_SCATTER] = LLAMP_COLL_REDUCE_SCATTER,
    [LLAMP_OP_ISCAN] = LLAMP_COLL_SCAN,
    [LLAMP_OP_IEXSCAN] = LLAMP_COLL_EXSCAN,
};

/* The communicator `id` of this rank (MPI_COMM_WORLD is made on first use:
 * its collective sequence lives in the table too); NULL = unknown. */
static comm_t *comm_of(rank_t *k, uint32_t id) {
  if (id != LLAMP_TRACE_COMM_WORLD) return comm_find(k, id);
  comm_t *c = comm_find(k, 0);
  if (c) return c;
  uint32_t slot;
  if (comm_slot(k, 0, &slot)) return NULL;
  c = &k->comms[slot];
  c->id = 0;
  c->size = k->s->num_ranks;
  c->pos = k->rank;
  c->members = NONE32;
  c->nruns = 0;
  c->seq = 0;
  c->cidx = 0;
  return c;
}

/* The runs of c's members (NULL: the identity). */
static const llamp_trace_run_t *comm_members(const rank_t *k, const comm_t *c) {
  return c->members == NONE32 ? NULL : k->runs + c->members;
}

/* An emitter for the next collective sequence number of communicator c. */
static cemit_t coll_emitter(rank_t *k, comm_t *c) {
  uint32_t seq = c->seq++;
  cemit_t e = {k, comm_members(k, c), c->nruns,
               (int32_t)(COLL_TAG_BASE | ((c->cidx & ((1u << COLL_CIDX_BITS) - 1)) << (COLL_SEQ_BITS + 2)) |
                         ((seq & ((1u << COLL_SEQ_BITS) - 1)) << 2)),
               0, 0, NONE32, NONE32, NONE32};
  return e;
}

/* Expand `algo` (NULL: the selection's algorithm for `kind`) for this rank's
 * position in c, or nothing when a is NULL (SMPI sent nothing); a
 * nonblocking one leaves its last round in a collective request `req`. */
static int expand(rank_t *k, comm_t *c, llamp_coll_kind_t kind, const llamp_coll_algo_t *algo,
                  const llamp_coll_args_t *a, int nonblocking, uint64_t req) {
  cemit_t e = coll_emitter(k, c);
  if (nonblocking && (vec_copy(&k->saveR, &k->R) || vec_copy(&k->saveI, &k->I))) return oom(k);
  llamp_coll_emit_t em = {&e, ce_send, ce_recv, ce_calc, ce_end_round, ce_send_blocking};
  char cerr[300];
  k->round.n = 0;
  if (a && (algo ? llamp_coll_run(algo, a, &em, cerr, sizeof cerr)
                : llamp_coll_run_selected(&k->s->sel, kind, a, &em, cerr, sizeof cerr))) {
    if (e.failed) return -1;
    return rfail(k, "%s", cerr);
  }
  if (k->round.n) ce_end_round(&e); /* defensive: every round should be closed */
  if (!nonblocking) return 0;
  /* without a request and messages (SMPI returns MPI_REQUEST_NULL on a
   * communicator of one rank) there is nothing to complete */
  if (req != LLAMP_TRACE_NO_REQ || e.rounds) {
    req_t *r = req_new(k, req);
    if (!r) return -1;
    r->type = REQ_COLL;
    if (e.rounds) {
      r->coff = k->pool.n;
      r->clen = k->R.n;
      for (uint32_t i = 0; i < k->R.n; i++)
        if (vec_push(&k->pool, k->R.v[i])) return oom(k);
      k->pool_live++;
    }
  }
  /* the next op inherits the collective's predecessors */
  vec_t t = k->R;
  k->R = k->saveR;
  k->saveR = t;
  t = k->I;
  k->I = k->saveI;
  k->saveI = t;
  return 0;
}

static int collective(rank_t *k, const llamp_trace_rec_t *rec, const uint64_t *pl, int nonblocking) {
  sched_t *s = k->s;
  llamp_coll_kind_t kind = coll_of_op[rec->op];
  if (nonblocking) kind = llamp_coll_kind_to_nonblocking(kind); /* SMPI runs other algorithms */
  comm_t *c = comm_of(k, rec->comm);
  if (!c) {
    if (rec->comm == LLAMP_TRACE_COMM_WORLD) return -1; /* out of memory, said */
    return rfail(k, "unknown communicator %u (no MPI_Comm_split/dup/create made it here)", rec->comm);
  }
  const llamp_trace_run_t *members = comm_members(k, c);
  llamp_coll_args_t a;
  memset(&a, 0, sizeof a);
  a.size = (int)c->size;
  a.rank = (int)c->pos;
  a.bytes = rec->bytes;
  a.elem = rec->tag > 0 ? (uint64_t)rec->tag : 0; /* collective records: tag = datatype size */
  if (llamp_coll_kind_rooted(kind)) {
    if (rec->peer < 0) return rfail(k, "rooted collective without a root");
    int root = -1;
    if (!members) {
      root = rec->peer < (int32_t)c->size ? rec->peer : -1;
    } else {
      int64_t at = llamp_trace_runs_index(members, c->nruns, (uint32_t)rec->peer);
      root = at >= 0 && at < (int64_t)c->size ? (int)at : -1;
    }
    if (root < 0) return rfail(k, "root %d is not in communicator %u", rec->peer, rec->comm);
    a.root = root;
  }
  const llamp_coll_kind_t bkind = llamp_coll_kind_blocking(kind);
  uint32_t need = bkind == LLAMP_COLL_ALLTOALLV ? 2 * c->size : c->size;
  switch (bkind) {
  case LLAMP_COLL_GATHERV:
  case LLAMP_COLL_SCATTERV:
  case LLAMP_COLL_ALLGATHERV:
  case LLAMP_COLL_REDUCE_SCATTER:
  case LLAMP_COLL_ALLTOALLV:
    if (rec->nwords >= need) {
      a.counts = pl;
      if (bkind == LLAMP_COLL_ALLTOALLV) a.rcounts = pl + c->size;
    }
    break;
  default:
    break;
  }
  if (!nonblocking && (rec->flags & (LLAMP_TRACE_F_RED_NONCOMMUTATIVE | LLAMP_TRACE_F_RED_DERIVED))) {
    /* SMPI's default reduce and allreduce switch algorithms on these */
    a.flags = ((rec->flags & LLAMP_TRACE_F_RED_NONCOMMUTATIVE) ? LLAMP_COLL_F_NONCOMMUTATIVE : 0) |
              ((rec->flags & LLAMP_TRACE_F_RED_DERIVED) ? LLAMP_COLL_F_DERIVED : 0);
    s->st->special_reductions++;
    if (!llamp_coll_flags_followed(&s->sel, kind, &a)) s->st->approx_reductions++;
  }
  s->st->collectives++;
  s->st->coll_calls[kind]++;
  const llamp_coll_algo_t *algo = NULL;
  if ((rec->flags & LLAMP_TRACE_F_COLL_EMPTY) && bkind == LLAMP_COLL_ALLTOALLV &&
      (nonblocking || s->sel.algo[kind] == llamp_coll_find(kind, "linear")))
    return expand(k, c, kind, NULL, NULL, nonblocking, rec->req); /* SMPI's ialltoallv sent nothing */
  if (bkind == LLAMP_COLL_ALLTOALLV && (rec->flags & LLAMP_TRACE_F_ALLTOALLW)) {
    /* MPI_(I)Alltoallw: SMPI's ialltoallw, every receive then every send
     * in rank order, whatever smpi/alltoallv selects */
    if (!(algo = llamp_coll_find(kind, "linear"))) return rfail(k, "no linear alltoallv in the collective registry");
  }
  return expand(k, c, kind, algo, &a, nonblocking, rec->req);
}

/* ---- what SMPI communicates to make a communicator ------------------------------------------------ */

/* SMPI 3.32's Comm::split (MPI_Comm_split, MPI_Cart_sub): the parent's rank 0
 * gathers every member's (color, key) (8 B each, SMPI's gather__default:
 * an igather posting all receives at once, then a wait), then sends each member of each new group a group handle (8 B),
 * group after group (a waitall each); the members receive theirs.  On the
 * parent's rank 0 the payload lists the groups after this rank's members:
 * ngroups, then per group n and the n world ranks it sends to. */
static int split_messages(rank_t *k, const llamp_trace_rec_t *rec, const uint64_t *pl) {
  comm_t *c = comm_of(k, rec->comm);
  if (!c) {
    if (rec->comm == LLAMP_TRACE_COMM_WORLD) return -1;
    return rfail(k, "MPI_Comm_split on unknown communicator %u", rec->comm);
  }
  if (c->size < 2) return 0;
  const llamp_trace_run_t *members = comm_members(k, c);
  uint32_t root_world = members ? members[0].first : 0;
  const llamp_coll_algo_t *gather = llamp_coll_find(LLAMP_COLL_GATHER, "linear_nb");
  if (!gather) return rfail(k, "no linear_nb gather in the collective registry");
  llamp_coll_args_t a;
  memset(&a, 0, sizeof a);
  a.size = (int)c->size;
  a.rank = (int)c->pos;
  a.bytes = 8;
  a.root = 0;
  if (expand(k, c, LLAMP_COLL_GATHER, gather, &a, 0, 0)) return -1;
  /* the group handles: a collective step of the parent of its own */
  cemit_t e = coll_emitter(k, c);
  e.runs = NULL; /* peers below are world ranks */
  k->round.n = 0;
  int member = rec->nwords >= 2 && pl[0] != UINT32_MAX && pl[1] > 0;
  if (c->pos != 0) {
    if (member) {
      if (ce_recv(&e, (int)root_world, 8, 1)) return -1;
      ce_end_round(&e);
    }
    return 0;
  }
  uint64_t mw = comm_member_words(rec, pl);
  if (member && mw > rec->nwords) return rfail(k, "MPI_Comm_split: its members are cut short");
  uint64_t off = member ? 2 + mw : 2;
  if (rec->nwords < off + 1) return rfail(k, "MPI_Comm_split on the parent's rank 0 without its groups");
  uint64_t ngroups = pl[off++];
  for (uint64_t g = 0; g < ngroups; g++) {
    if (off >= rec->nwords) return rfail(k, "MPI_Comm_split: group %llu is cut short", (unsigned long long)g);
    uint64_t n = pl[off++];
    if (n > c->size || off + n > rec->nwords)
      return rfail(k, "MPI_Comm_split: group %llu of %llu members is cut short", (unsigned long long)g,
                   (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++) {
      uint64_t w = pl[off + i];
      if (w >= k->s->num_ranks) return rfail(k, "MPI_Comm_split: member %llu out of range", (unsigned long long)w);
      if (ce_send(&e, (int)w, 8, 1)) return -1;
    }
    off += n;
    ce_end_round(&e);
  }
  return 0;
}

/* A COMM_SPLIT / DUP / CREATE record: SMPI's messages (split, then the new
 * communicator's id broadcast by its rank 0 with the broadcast algorithm in
 * use), and the new communicator's membership. */
static int comm_record(rank_t *k, const llamp_trace_rec_t *rec, const uint64_t *pl) {
  if ((rec->flags & LLAMP_TRACE_F_COMM_SPLIT) && split_messages(k, rec, pl)) return -1;
  if (comm_define(k, rec, pl)) return -1;
  if (!(rec->flags & LLAMP_TRACE_F_COMM_BCAST) || rec->nwords < 2 || pl[0] > UINT32_MAX) return 0;
  comm_t *c = comm_find(k, (uint32_t)pl[0]);
  if (!c || c->size < 2) return 0;
  llamp_coll_args_t a;
  memset(&a, 0, sizeof a);
  a.size = (int)c->size;
  a.rank = (int)c->pos;
  a.bytes = 4;
  a.root = 0;
  return expand(k, c, LLAMP_COLL_BCAST, NULL, &a, 0, 0); /* SMPI: colls::bcast, as selected */
}

/* ---- unmodelled functions ----------------------------------------------------------------------- */

/* The index of `name` in st's unmodelled functions, added with count 0 if
 * new.  0 / -1 (out of memory). */
static int unmodelled_index(llamp_sched_stats_t *st, const char *name, size_t *gout) {
  size_t g;
  for (g = 0; g < st->num_unmodelled; g++)
    if (!strcmp(st->unmodelled[g].name, name)) break;
  if (g == st->num_unmodelled) {
    llamp_sched_unmodelled_t *u = realloc(st->unmodelled, (g + 1) * sizeof *u);
    if (!u) return -1;
    st->unmodelled = u;
    u[g].name = strdup(name);
    if (!u[g].name) return -1;
    u[g].count = 0;
    st->num_unmodelled++;
  }
  *gout = g;
  return 0;
}

/* One more call of the unmodelled function `name`; its global index in *g. */
static int unmodelled_named(rank_t *k, const char *name, size_t *gout) {
  llamp_sched_stats_t *st = k->s->st;
  size_t g;
  if (unmodelled_index(st, name, &g)) return oom(k);
  st->unmodelled[g].count++;
  if (gout) *gout = g;
  return 0;
}

static int unmodelled(rank_t *k, int32_t id, llamp_trace_reader_t *rd) {
  llamp_sched_stats_t *st = k->s->st;
  if (id >= 0 && (uint32_t)id < k->namecache.n && k->namecache.v[id] != NONE32) {
    st->unmodelled[k->namecache.v[id]].count++;
    return 0;
  }
  const char *name = id >= 0 ? llamp_trace_name(rd, id) : NULL;
  if (!name) name = "(unnamed MPI function)";
  size_t g;
  if (unmodelled_named(k, name, &g)) return -1;
  if (id >= 0 && id < (1 << 24)) {
    while (k->namecache.n <= (uint32_t)id)
      if (vec_push(&k->namecache, NONE32)) return oom(k);
    k->namecache.v[id] = (uint32_t)g;
  }
  return 0;
}

/* ---- one-sided communication ------------------------------------------------------------------ */
/* SMPI 3.32's RMA (smpi_win.cpp) as messages, docs/trace.md "One-sided
 * communication": Put / Accumulate data is a message origin -> target whose
 * receive the target's next fence / Win_wait / Win_free waits for (the
 * capture lists those messages in that record); a Get's data is sent by the
 * target when the origin calls Get, which the DAG writes as a message of
 * the origin to itself (same size, same L); when the origin waits for its
 * Put to arrive (Accumulate, flush, unlock), a message of the origin to
 * itself that starts with the Put stands for that arrival. */

static void note_send(rank_t *k, int32_t peer, uint64_t bytes, double t);

static win_t *win_find(rank_t *k, uint32_t comm, int32_t index) {
  for (uint32_t i = 0; i < k->nwins; i++)
    if (k->wins[i].live && k->wins[i].comm == comm && (int32_t)k->wins[i].index == index) return &k->wins[i];
  return NULL;
}

static int rma_tag(rank_t *k, const win_t *w, int kind, int32_t *out) {
  return map_tag_as(k, 0x80000000u | w->comm, (int32_t)((w->index & 0x0fffffffu) * 4 + (uint32_t)kind),
                    kind == RMA_SELF, out);
}

/* A message of this rank to itself (a Get's data, or the arrival of a Put):
 * after the state (after = NONE32) or starting with vertex `after`.  The
 * receive's local index in *recv. */
static int rma_self(rank_t *k, const win_t *w, uint64_t bytes, uint32_t after, uint32_t *recv) {
  int32_t tag;
  if (rma_tag(k, w, RMA_SELF, &tag)) return -1;
  uint32_t sv = op_add(k, LLAMP_VERTEX_SEND, (double)bytes, (int32_t)k->rank, tag, 0);
  if (sv == NONE32) return -1;
  uint32_t rv = op_add(k, LLAMP_VERTEX_RECV, (double)bytes, (int32_t)k->rank, tag, 0);
  if (rv == NONE32) return -1;
  if (after == NONE32) {
    if (attach(k, sv) || attach(k, rv)) return -1;
    k->R.n = 0;
    k->I.n = 0;
    if (vec_push(&k->I, sv)) return oom(k);
  } else if (dep_add(k, sv, after, 1) || dep_add(k, rv, after, 1)) {
    return -1;
  }
  *recv = rv;
  return 0;
}

/* The operations of w this rank waits for now: `target` (NONE32: every
 * target), Gets only (`local`) or also the arrival of Puts and Accumulates
 * (SMPI's flush(target) waits for the target's receives from this rank;
 * flush(this rank) only for this rank's own requests). */
static int win_flush(rank_t *k, win_t *w, uint32_t target, int local) {
  uint32_t keep = 0;
  if (target == k->rank) local = 1, target = NONE32;
  for (uint32_t i = 0; i < w->nops; i++) {
    rma_op_t o = w->ops[i];
    int get = (o.t & WIN_GET) != 0;
    if ((target != NONE32 && (o.t & ~WIN_GET) != target) || (!get && local)) {
      w->ops[keep++] = o;
      continue;
    }
    uint32_t v = o.v;
    if (!get && rma_self(k, w, o.bytes, o.v, &v)) return -1;
    if (completed(k, v)) return -1;
  }
  w->nops = keep;
  return 0;
}

static int win_pending(rank_t *k, win_t *w, uint32_t v, uint32_t t, uint64_t bytes) {
  if (w->nops == w->capops) {
    uint32_t cap = w->capops ? 2 * w->capops : 16;
    rma_op_t *o = realloc(w->ops, cap * sizeof *o);
    if (!o) return oom(k);
    w->ops = o;
    w->capops = cap;
  }
  w->ops[w->nops++] = (rma_op_t){v, t, bytes};
  return 0;
}

/* The end of an epoch on this rank (fence, Win_free, Win_wait): SMPI waits
 * for every request in the window: the messages to this rank listed in the
 * record (their receives are made here, in the order sent, with no other
 * predecessor: the origin posted them when it sent) and this rank's Gets.
 * Puts need nothing more from their origin (SMPI's sends are detached). */
static int win_epoch_end(rank_t *k, win_t *w, const llamp_trace_rec_t *rec, const uint64_t *pl) {
  uint64_t n = rec->nwords ? pl[0] : 0;
  if (1 + 2 * n > rec->nwords && n)
    return rfail(k, "%llu incoming messages in %u payload words", (unsigned long long)n, rec->nwords);
  int32_t tag = 0;
  if (n && rma_tag(k, w, RMA_DATA, &tag)) return -1;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t o = pl[1 + 2 * i], b = pl[2 + 2 * i];
    if (o >= k->s->num_ranks) return rfail(k, "origin %llu out of range", (unsigned long long)o);
    uint32_t v = op_add(k, LLAMP_VERTEX_RECV, (double)b, (int32_t)o, tag, 0);
    if (v == NONE32 || completed(k, v)) return -1;
  }
  for (uint32_t i = 0; i < w->nops; i++)
    if ((w->ops[i].t & WIN_GET) && completed(k, w->ops[i].v)) return -1;
  w->nops = 0;
  return 0;
}

/* One of SMPI's collectives inside a window call, on the window's
 * communicator, with the algorithm SimGrid runs for it. */
static int win_coll(rank_t *k, comm_t *c, llamp_coll_kind_t kind, uint64_t bytes) {
  if (c->size < 2) return 0;
  llamp_coll_args_t a;
  memset(&a, 0, sizeof a);
  a.size = (int)c->size;
  a.rank = (int)c->pos;
  a.bytes = bytes;
  a.root = 0;
  k->s->st->collectives++;
  k->s->st->coll_calls[kind]++;
  return expand(k, c, kind, NULL, &a, 0, 0);
}

/* Messages of 0 bytes to (send) or from each member of a group but this rank
 * (Win_post / start / complete / wait: SMPI's blocking waitall on them); the
 * next operation requires all of them. */
static int win_group_msgs(rank_t *k, const win_t *w, const vec_t *g, int recv, int kind) {
  int32_t tag;
  if (rma_tag(k, w, kind, &tag)) return -1;
  vec_t *v = &k->round;
  v->n = 0;
  for (uint32_t i = 0; i < g->n; i++) {
    if (g->v[i] == k->rank) continue;
    if (g->v[i] >= k->s->num_ranks) return rfail(k, "group member %u out of range", g->v[i]);
    uint32_t x = op_add(k, recv ? LLAMP_VERTEX_RECV : LLAMP_VERTEX_SEND, 0.0, (int32_t)g->v[i], tag, 0);
    if (x == NONE32 || attach(k, x)) return -1;
    if (vec_push(v, x)) return oom(k);
  }
  if (!v->n) return 0;
  vec_t t = k->R;
  k->R = *v;
  *v = t;
  v->n = 0;
  k->I.n = 0;
  return 0;
}

static int read_group(rank_t *k, const llamp_trace_rec_t *rec, const uint64_t *pl, vec_t *g) {
  g->n = 0;
  uint64_t n = rec->nwords ? pl[0] : 0;
  if (n && 1 + n > rec->nwords)
    return rfail(k, "group of %llu in %u payload words", (unsigned long long)n, rec->nwords);
  for (uint64_t i = 0; i < n; i++)
    if (vec_push(g, (uint32_t)pl[1 + i])) return oom(k);
  return 0;
}

static int win_create(rank_t *k, const llamp_trace_rec_t *rec) {
  comm_t *c = comm_of(k, rec->comm);
  if (!c) return rec->comm == LLAMP_TRACE_COMM_WORLD ? -1 : rfail(k, "unknown communicator %u", rec->comm);
  if (rec->tag < 0) return rfail(k, "window without an index");
  win_t *w = NULL;
  for (uint32_t i = 0; i < k->nwins && !w; i++)
    if (!k->wins[i].live) w = &k->wins[i];
  if (!w) {
    if (k->nwins == k->capwins) {
      uint32_t cap = k->capwins ? 2 * k->capwins : 4;
      win_t *t = realloc(k->wins, cap * sizeof *t);
      if (!t) return oom(k);
      memset(t + k->capwins, 0, (cap - k->capwins) * sizeof *t);
      k->wins = t;
      k->capwins = cap;
    }
    w = &k->wins[k->nwins++];
  }
  w->comm = rec->comm;
  w->index = (uint32_t)rec->tag;
  w->live = 1;
  w->nops = 0;
  w->post.n = w->start.n = 0;
  /* Win_allocate_shared: the root's pointer broadcast, then a barrier;
   * every window: SMPI's Win constructor allgathers the window objects */
  if ((rec->flags & LLAMP_TRACE_F_WIN_SHARED) &&
      (win_coll(k, c, LLAMP_COLL_BCAST, 8) || win_coll(k, c, LLAMP_COLL_BARRIER, 0)))
    return -1;
  return win_coll(k, c, LLAMP_COLL_ALLGATHER, 8);
}

static int rma_request(rank_t *k, const llamp_trace_rec_t *rec, uint32_t v) {
  if (rec->req == LLAMP_TRACE_NO_REQ) return 0;
  req_t *r = req_new(k, rec->req);
  if (!r) return -1;
  r->type = REQ_P2P;
  r->op = v;
  return 0;
}

static int rma_record(rank_t *k, const llamp_trace_rec_t *rec, const uint64_t *pl) {
  uint16_t op = rec->op;

  if (op == LLAMP_OP_WIN_CREATE) return win_create(k, rec);
  win_t *w = win_find(k, rec->comm, rec->tag);
  if (!w) /* made by a call the capture did not see: counted, not modelled */
    return unmodelled_named(k, llamp_trace_op_name((llamp_trace_op_t)op), NULL);
  comm_t *c = comm_of(k, w->comm);
  if (!c) return rfail(k, "window on unknown communicator %u", w->comm);
  uint32_t t = NONE32;
  if (rec->peer >= 0) {
    if ((uint32_t)rec->peer >= k->s->num_ranks) return rfail(k, "target %d out of range", rec->peer);
    t = (uint32_t)rec->peer;
  } else if ((op >= LLAMP_OP_RMA_PUT && op <= LLAMP_OP_WIN_UNLOCK) || op == LLAMP_OP_WIN_FLUSH ||
             op == LLAMP_OP_WIN_FLUSH_LOCAL) {
    return 0; /* MPI_PROC_NULL */
  }
  switch (op) {
  case LLAMP_OP_WIN_FREE:
  case LLAMP_OP_WIN_FENCE: {
    /* SMPI: barrier, wait for the window's requests, barrier (a fence with
     * MPI_MODE_NOPRECEDE: the last barrier only) */
    int full = op == LLAMP_OP_WIN_FREE || !(rec->flags & LLAMP_TRACE_F_WIN_NOPRECEDE);
    if (full && (win_coll(k, c, LLAMP_COLL_BARRIER, 0) || win_epoch_end(k, w, rec, pl))) return -1;
    if (win_coll(k, c, LLAMP_COLL_BARRIER, 0)) return -1;
    if (op == LLAMP_OP_WIN_FREE) w->live = 0;
    return 0;
  }
  case LLAMP_OP_RMA_PUT:
  case LLAMP_OP_RMA_ACC: {
    uint32_t v = NONE32;
    if (t != k->rank) {
      int32_t tag;
      if (rma_tag(k, w, RMA_DATA, &tag)) return -1;
      note_send(k, (int32_t)t, rec->bytes, rec->t_start);
      v = op_add(k, LLAMP_VERTEX_SEND, (double)rec->bytes, (int32_t)t, tag, 0);
      if (v == NONE32 || attach(k, v)) return -1;
      k->R.n = 0;
      k->I.n = 0;
      if (vec_push(&k->I, v)) return oom(k);
      if (win_pending(k, w, v, t, rec->bytes)) return -1;
    } else if (op == LLAMP_OP_RMA_ACC) { /* to oneself: a message too, waited for at once */
      uint32_t rv;
      if (rma_self(k, w, rec->bytes, NONE32, &rv)) return -1;
      v = k->I.v[0];
      if (completed(k, rv)) return -1;
    }
    if (rma_request(k, rec, v)) return -1;
    /* SMPI's Accumulate ends with flush(target) */
    return op == LLAMP_OP_RMA_ACC ? win_flush(k, w, t, 0) : 0;
  }
  case LLAMP_OP_RMA_GET:
  case LLAMP_OP_RMA_GET_ACC:
  case LLAMP_OP_RMA_CAS: {
    uint32_t rv = NONE32; /* to oneself: a copy */
    if (t != k->rank && rma_self(k, w, rec->bytes, NONE32, &rv)) return -1;
    if (op == LLAMP_OP_RMA_GET) {
      if (rec->req != LLAMP_TRACE_NO_REQ) return rma_request(k, rec, rv); /* Rget: its Wait */
      return rv == NONE32 ? 0 : win_pending(k, w, rv, t | WIN_GET, rec->bytes);
    }
    /* Get_accumulate and Compare_and_swap wait for their Get, then
     * accumulate (with its flush) or, when the values matched, Put */
    if (rv != NONE32 && completed(k, rv)) return -1;
    llamp_trace_rec_t r2 = *rec;
    r2.req = LLAMP_TRACE_NO_REQ;
    r2.nwords = 0;
    if (op == LLAMP_OP_RMA_GET_ACC && !(rec->flags & LLAMP_TRACE_F_RMA_NO_OP)) {
      if (rec->nwords < 1) return rfail(k, "no accumulate size");
      r2.op = LLAMP_OP_RMA_ACC;
      r2.bytes = pl[0];
      return rma_record(k, &r2, NULL);
    }
    if (op == LLAMP_OP_RMA_CAS && (rec->flags & LLAMP_TRACE_F_RMA_SWAPPED)) {
      r2.op = LLAMP_OP_RMA_PUT;
      return rma_record(k, &r2, NULL);
    }
    return 0;
  }
  case LLAMP_OP_WIN_LOCK: /* SMPI's lock is a mutex (no message), then flush(target) */
  case LLAMP_OP_WIN_UNLOCK:
  case LLAMP_OP_WIN_FLUSH:
    return win_flush(k, w, t, 0);
  case LLAMP_OP_WIN_FLUSH_LOCAL:
    return win_flush(k, w, t, 1);
  case LLAMP_OP_WIN_LOCK_ALL: /* lock / unlock of every rank in turn */
  case LLAMP_OP_WIN_UNLOCK_ALL:
  case LLAMP_OP_WIN_FLUSH_ALL:
    return win_flush(k, w, NONE32, 0);
  case LLAMP_OP_WIN_FLUSH_LOCAL_ALL:
    return win_flush(k, w, NONE32, 1);
  case LLAMP_OP_WIN_POST:
    return read_group(k, rec, pl, &w->post) || win_group_msgs(k, w, &w->post, 0, RMA_POST) ? -1 : 0;
  case LLAMP_OP_WIN_START:
    return read_group(k, rec, pl, &w->start) || win_group_msgs(k, w, &w->start, 1, RMA_POST) ? -1 : 0;
  case LLAMP_OP_WIN_COMPLETE:
    if (win_group_msgs(k, w, &w->start, 0, RMA_COMPLETE) || win_flush(k, w, NONE32, 1)) return -1;
    w->nops = 0; /* the Puts are their targets' to wait for (Win_wait) */
    return 0;
  case LLAMP_OP_WIN_WAIT:
    return win_group_msgs(k, w, &w->post, 1, RMA_COMPLETE) || win_epoch_end(k, w, rec, pl) ? -1 : 0;
  default:
    return rfail(k, "unknown record kind %u", op);
  }
}

/* ---- one rank ------------------------------------------------------------------------------------ */

static void rank_reset(rank_t *k, uint32_t rank) {
  k->rank = rank;
  k->recno = 0;
  k->recop = LLAMP_OP_INIT;
  k->nlocal = 0;
  k->first_id = -1;
  k->buf_first = 0;
  k->nbuf = k->nd = 0;
  k->pending_wild = 0;
  k->R.n = k->I.n = k->round.n = 0;
  k->pending = 0;
  k->prev_end = 0;
  k->started = k->finalized = 0;
  llamp_map_clear(&k->reqmap);
  k->nreqs = 0;
  k->freereq.n = 0;
  k->pool.n = 0;
  k->pool_live = 0;
  llamp_map_clear(&k->commmap);
  k->ncomms = 0;
  k->nruns = 0;
  k->namecache.n = 0;
  for (uint32_t i = 0; i < k->nwins; i++) k->wins[i].live = 0;
  if (k->last_send_b)
    for (uint32_t i = 0; i < k->sent_to.n; i++) k->last_send_b[k->sent_to.v[i]] = -1;
  k->sent_to.n = 0;
}

static void rank_free(rank_t *k) {
  free(k->last_send_t);
  free(k->last_send_b);
  free(k->bk);
  free(k->bv);
  free(k->bp);
  free(k->bt);
  free(k->bl);
  free(k->da);
  free(k->db);
  free(k->dl);
  vec_t *vs[] = {&k->R, &k->I, &k->round, &k->saveR, &k->saveI, &k->tmp, &k->waitR, &k->freereq, &k->pool,
                 &k->namecache, &k->sent_to};
  for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) free(vs[i]->v);
  llamp_map_free(&k->reqmap);
  llamp_map_free(&k->commmap);
  for (uint32_t i = 0; i < k->nwins; i++) {
    free(k->wins[i].ops);
    free(k->wins[i].post.v);
    free(k->wins[i].start.v);
  }
  free(k->wins);
  free(k->reqs);
  free(k->comms);
  free(k->runs);
}

/* Completion records: which of the listed requests completed. */
static int completion(rank_t *k, const llamp_trace_rec_t *rec, const uint64_t *pl) {
  int all = rec->op == LLAMP_OP_WAIT || rec->op == LLAMP_OP_WAITALL ||
            ((rec->op == LLAMP_OP_TEST || rec->op == LLAMP_OP_TESTALL) &&
             (rec->flags & LLAMP_TRACE_F_COMPLETED));
  uint32_t n = rec->nwords / 2, prev = NONE32;
  /* the call begins after R's ends and after the calls I started returned */
  if (vec_copy(&k->waitR, &k->R)) return oom(k);
  for (uint32_t i = 0; i < k->I.n; i++)
    if (vec_push(&k->waitR, k->I.v[i])) return oom(k);
  if (n == 0 && rec->req != LLAMP_TRACE_NO_REQ && all) {
    uint64_t st = llamp_trace_pack_status(1, rec->status_source, rec->status_tag);
    return complete(k, rec->req, st, &prev);
  }
  for (uint32_t i = 0; i < n; i++) {
    uint64_t st = pl[2 * i + 1];
    if (all || llamp_trace_status_completed(st))
      if (complete(k, pl[2 * i], st, &prev)) return -1;
  }
  return 0;
}

/* Calls that never wait for another rank: their time is the rank's own, as
 * compute is (SMPI sleeps smpi/test and smpi/iprobe in each of them, 100 us
 * by default, growing with smpi/grow-injected-times; natively it is their CPU
 * time), so it joins the calc before them.  SMPI's MPI_Probe is such a loop:
 * its time is kept as it ran (exact at the capture's parameters, frozen
 * beyond them, as any polling loop). */
static int local_call(const llamp_trace_rec_t *rec) {
  switch (rec->op) {
  case LLAMP_OP_TEST:
  case LLAMP_OP_TESTALL:
  case LLAMP_OP_TESTANY:
  case LLAMP_OP_TESTSOME:
  case LLAMP_OP_IPROBE:
    return 1;
  case LLAMP_OP_PROBE: /* SMPI's: a loop of the above until the message is posted */
    return (rec->flags & LLAMP_TRACE_F_POLLED) != 0;
  default:
    return 0;
  }
}

/* Records that add nothing to the graph or the dependency state let their
 * gap run on into the next calc (a polling loop stays one calc). */
static int is_inert(const llamp_trace_rec_t *rec, const uint64_t *pl) {
  switch (rec->op) {
  case LLAMP_OP_PROBE:
  case LLAMP_OP_IPROBE:
  case LLAMP_OP_UNMODELLED:
  case LLAMP_OP_SEND_INIT:
  case LLAMP_OP_RECV_INIT:
  case LLAMP_OP_REQUEST_FREE:
  case LLAMP_OP_COMM_FREE:
  case LLAMP_OP_INIT:
    return 1;
  case LLAMP_OP_COMM_SPLIT:
  case LLAMP_OP_COMM_DUP:
  case LLAMP_OP_COMM_CREATE: /* unless SMPI communicated to make it */
    return !(rec->flags & (LLAMP_TRACE_F_COMM_BCAST | LLAMP_TRACE_F_COMM_SPLIT));
  case LLAMP_OP_TEST:
  case LLAMP_OP_TESTALL:
  case LLAMP_OP_TESTANY:
  case LLAMP_OP_TESTSOME:
    if (rec->flags & LLAMP_TRACE_F_COMPLETED) return 0;
    for (uint32_t i = 0; i + 1 < rec->nwords; i += 2)
      if (llamp_trace_status_completed(pl[i + 1])) return 0;
    return 1;
  default:
    return 0;
  }
}

/* A user point-to-point send to world rank `peer` starting at t: is it a
 * back-to-back send (docs/consistency.md, "Bursts")?  With one link per
 * pair, SimGrid shares it between this message and the previous one to the
 * same peer while both transfer: each takes min(s_prev G - gap, s G) longer,
 * which the DAG does not model.  Counted for the capture's diagnosis. */
static void note_send(rank_t *k, int32_t peer, uint64_t bytes, double t) {
  double G = k->s->opt.burst_G;
  if (!(G > 0) || peer < 0 || (uint32_t)peer >= k->s->num_ranks || !k->last_send_b) return;
  double pb = k->last_send_b[peer];
  if (pb >= 0) {
    double shared = fmin(pb * G - (t - k->last_send_t[peer]), (double)bytes * G);
    if (shared > 0) {
      k->s->st->bursts++;
      k->s->st->burst_time += shared;
    }
  }
  if (pb < 0 && vec_push(&k->sent_to, (uint32_t)peer)) return; /* out of memory: no count */
  k->last_send_t[peer] = t;
  k->last_send_b[peer] = (double)bytes;
}

static int record(rank_t *k, const llamp_trace_rec_t *rec, const uint64_t *pl,
                  llamp_trace_reader_t *rd) {
  sched_t *s = k->s;
  if (!isfinite(rec->t_start) || !isfinite(rec->t_end)) return rfail(k, "time is not a finite number");
  if (!k->started) {
    k->started = 1;
    k->prev_end = rec->t_end;
    if (rec->op == LLAMP_OP_INIT) return 0;
  } else {
    double gap = rec->t_start - k->prev_end;
    if (gap > 0) k->pending += gap;
    if (rec->t_end > k->prev_end) k->prev_end = rec->t_end;
  }
  if (local_call(rec)) {
    s->st->polls++;
    if (rec->t_end > rec->t_start) {
      k->pending += rec->t_end - rec->t_start;
      s->st->poll_time += rec->t_end - rec->t_start;
    }
  }
  if (!is_inert(rec, pl) && materialize(k)) return -1;
  switch (rec->op) {
  case LLAMP_OP_INIT:
    return 0;
  case LLAMP_OP_FINALIZE:
    k->finalized = 1;
    return 0;
  case LLAMP_OP_SEND:
  case LLAMP_OP_SSEND:
  case LLAMP_OP_BSEND:
  case LLAMP_OP_RSEND: {
    int ok = check_peer(k, rec->peer, 0);
    if (ok <= 0) return ok;
    int32_t tag;
    if (rec->tag < 0) return rfail(k, "bad tag %d", rec->tag);
    if (map_tag(k, rec->comm, rec->tag, &tag)) return -1;
    note_send(k, rec->peer, rec->bytes, rec->t_start);
    if (blocking(k, LLAMP_VERTEX_SEND, rec->bytes, rec->peer, tag)) return -1;
    return rec->op == LLAMP_OP_SSEND ? mark(k, k->nlocal - 1, LLAMP_VERTEX_F_SYNC) : 0;
  }
  case LLAMP_OP_RECV: {
    int ok = check_peer(k, rec->peer, 1);
    if (ok <= 0) return ok;
    int32_t src = rec->peer, tag = rec->tag;
    if (src < 0) src = rec->status_source;
    if (tag < 0) tag = rec->status_tag;
    if (src >= 0 && (uint32_t)src >= s->num_ranks) return rfail(k, "status source %d out of range", src);
    if (src < 0 || tag < 0) s->st->unresolved_wildcards++;
    if (src < 0) src = LLAMP_ANY_SOURCE;
    if (map_tag(k, rec->comm, tag, &tag)) return -1;
    return blocking(k, LLAMP_VERTEX_RECV, rec->bytes, src, tag);
  }
  case LLAMP_OP_SENDRECV:
  case LLAMP_OP_SENDRECV_REPLACE: {
    if (rec->nwords < 3) return rfail(k, "%u payload words, 3 expected", rec->nwords);
    int32_t rsrc = (int32_t)(uint32_t)pl[0], rtag = (int32_t)(uint32_t)pl[1];
    uint64_t rbytes = pl[2];
    int sok = check_peer(k, rec->peer, 0);
    int rok = sok < 0 ? -1 : check_peer(k, rsrc, 1);
    if (sok < 0 || rok < 0) return -1;
    /* with oneself both ways SMPI copies the buffer and returns: no message,
     * no overhead (smpi_request.cpp, Request::sendrecv) */
    if (sok && rok && rec->peer == (int32_t)k->rank && rsrc == (int32_t)k->rank) return 0;
    uint32_t v[2];
    uint32_t n = 0;
    if (sok) {
      int32_t tag;
      if (rec->tag < 0) return rfail(k, "bad tag %d", rec->tag);
      if (map_tag(k, rec->comm, rec->tag, &tag)) return -1;
      note_send(k, rec->peer, rec->bytes, rec->t_start);
      v[n] = op_add(k, LLAMP_VERTEX_SEND, (double)rec->bytes, rec->peer, tag, 0);
      if (v[n] == NONE32 || mark(k, v[n], LLAMP_VERTEX_F_ISEND)) return -1;
      n++;
    }
    if (rok) {
      if (rsrc < 0) rsrc = rec->status_source;
      if (rtag < 0) rtag = rec->status_tag;
      if (rsrc >= 0 && (uint32_t)rsrc >= s->num_ranks) return rfail(k, "status source %d out of range", rsrc);
      if (rsrc < 0 || rtag < 0) s->st->unresolved_wildcards++;
      if (rsrc < 0) rsrc = LLAMP_ANY_SOURCE;
      if (map_tag(k, rec->comm, rtag, &rtag)) return -1;
      v[n] = op_add(k, LLAMP_VERTEX_RECV, (double)rbytes, rsrc, rtag, 0);
      if (v[n] == NONE32) return -1;
      n++;
    }
    for (uint32_t i = 0; i < n; i++)
      if (attach(k, v[i])) return -1;
    /* SMPI posts the send as an Isend (ois) before the receive
     * (smpi_request.cpp, Request::sendrecv: isend_init, irecv_init, startall) */
    if (n == 2 && dep_add(k, v[1], v[0], 1)) return -1;
    if (n == 0) return 0;
    k->R.n = k->I.n = 0;
    for (uint32_t i = 0; i < n; i++)
      if (vec_push(&k->R, v[i])) return oom(k);
    return 0;
  }
  case LLAMP_OP_PROBE:
  case LLAMP_OP_IPROBE:
    return 0;
  case LLAMP_OP_ISEND:
  case LLAMP_OP_ISSEND:
  case LLAMP_OP_IBSEND:
  case LLAMP_OP_IRSEND:
  case LLAMP_OP_IRECV: {
    req_t *r = req_new(k, rec->req);
    if (!r) return -1;
    r->type = REQ_P2P;
    if (rec->op != LLAMP_OP_IRECV) note_send(k, rec->peer, rec->bytes, rec->t_start);
    if (post(k, r, rec->op == LLAMP_OP_IRECV, rec->comm, rec->peer, rec->tag, rec->bytes)) return -1;
    if (rec->op == LLAMP_OP_IRECV || r->op == NONE32) return 0;
    return mark(k, r->op, LLAMP_VERTEX_F_ISEND | (rec->op == LLAMP_OP_ISSEND ? LLAMP_VERTEX_F_SYNC : 0));
  }
  case LLAMP_OP_SEND_INIT:
  case LLAMP_OP_RECV_INIT: {
    int is_recv = rec->op == LLAMP_OP_RECV_INIT;
    if (check_peer(k, rec->peer, is_recv) < 0) return -1;
    if (!is_recv && rec->tag < 0) return rfail(k, "bad tag %d", rec->tag);
    req_t *r = req_new(k, rec->req);
    if (!r) return -1;
    r->type = is_recv ? REQ_PRECV : REQ_PSEND;
    r->comm = rec->comm;
    r->peer = rec->peer;
    r->tag = rec->tag;
    r->bytes = rec->bytes;
    return 0;
  }
  case LLAMP_OP_START:
  case LLAMP_OP_STARTALL: {
    uint32_t n = rec->op == LLAMP_OP_START && rec->nwords < 2 ? 1 : rec->nwords / 2;
    for (uint32_t i = 0; i < n; i++) {
      uint64_t id = rec->op == LLAMP_OP_START && rec->nwords < 2 ? rec->req : pl[2 * i];
      req_t *r = req_find(k, id, NULL);
      if (!r || (r->type != REQ_PSEND && r->type != REQ_PRECV))
        return rfail(k, "request %llu is not a persistent request", (unsigned long long)id);
      if (post(k, r, r->type == REQ_PRECV, r->comm, r->peer, r->tag, r->bytes)) return -1;
      /* SMPI's Request::start of a Send_init request (no MPI_REQ_ISEND) sleeps os */
      if (r->type == REQ_PSEND && r->op != NONE32 && mark(k, r->op, LLAMP_VERTEX_F_OS)) return -1;
    }
    return 0;
  }
  case LLAMP_OP_WAIT:
  case LLAMP_OP_WAITALL:
  case LLAMP_OP_WAITANY:
  case LLAMP_OP_WAITSOME:
  case LLAMP_OP_TEST:
  case LLAMP_OP_TESTALL:
  case LLAMP_OP_TESTANY:
  case LLAMP_OP_TESTSOME:
    return completion(k, rec, pl);
  case LLAMP_OP_REQUEST_FREE: {
    uint32_t n = rec->nwords ? rec->nwords / 2 : 1;
    for (uint32_t i = 0; i < n; i++) {
      uint64_t id = rec->nwords ? pl[2 * i] : rec->req;
      uint64_t ms;
      req_t *r = req_find(k, id, &ms);
      if (!r) continue;
      if ((r->type == REQ_PSEND || r->type == REQ_PRECV) && r->op != NONE32)
        r->freed = 1; /* completes later, then goes */
      else
        req_drop(k, ms, r);
    }
    return 0;
  }
  case LLAMP_OP_COMM_SPLIT:
  case LLAMP_OP_COMM_DUP:
  case LLAMP_OP_COMM_CREATE:
    return comm_record(k, rec, pl);
  case LLAMP_OP_COMM_FREE:
    if (rec->comm != LLAMP_TRACE_COMM_WORLD) llamp_map_del(&k->commmap, rec->comm);
    return 0;
  case LLAMP_OP_UNMODELLED:
    return unmodelled(k, rec->tag, rd);
  default:
    if (rec->op >= LLAMP_OP_WIN_CREATE && rec->op < LLAMP_OP_COUNT_) {
      /* a Put, Get or lock returns at once in SMPI (o = 0) unless it waited
       * for a window mutex another rank held while flushing: not in the DAG */
      if ((rec->op == LLAMP_OP_RMA_PUT || rec->op == LLAMP_OP_RMA_GET || rec->op == LLAMP_OP_WIN_LOCK ||
           rec->op == LLAMP_OP_WIN_LOCK_ALL) && rec->t_end > rec->t_start) {
        s->st->rma_waits++;
        s->st->rma_wait_time += rec->t_end - rec->t_start;
      }
      return rma_record(k, rec, pl);
    }
    if (rec->op < LLAMP_OP_COUNT_ && rec->op >= LLAMP_OP_BARRIER && rec->op <= LLAMP_OP_IEXSCAN)
      return collective(k, rec, pl, rec->op >= LLAMP_OP_IBARRIER);
    return rfail(k, "unknown record kind %u", rec->op);
  }
}

/* The records rd has now (all of them, or a follower's so far). */
static int feed_rank(sched_t *s, rank_t *k, llamp_trace_reader_t *rd) {
  llamp_trace_rec_t rec;
  const uint64_t *pl;
  int rc;
  while ((rc = llamp_trace_next(rd, &rec, &pl, s->err, s->errlen)) == 1) {
    k->recno++;
    s->st->records++;
    if (k->finalized) {
      s->st->after_finalize++;
      continue;
    }
    k->recop = rec.op;
    if (record(k, &rec, pl, rd)) return -1;
    if (k->nbuf && !k->pending_wild && k->nbuf >= FLUSH_OPS && flush(k)) return -1;
  }
  return rc < 0 ? -1 : 0;
}

/* After the rank's last record. */
static int end_rank(sched_t *s, rank_t *k) {
  if (materialize(k)) return -1;
  s->st->unresolved_wildcards += k->pending_wild;
  return flush(k);
}

static int build_rank(sched_t *s, rank_t *k, llamp_trace_reader_t *rd, uint32_t rank) {
  rank_reset(k, rank);
  return feed_rank(s, k, rd) || end_rank(s, k) ? -1 : 0;
}

/* ---- entry points ------------------------------------------------------------------------------ */

void llamp_sched_options_default(llamp_sched_options_t *opt) {
  memset(opt, 0, sizeof *opt);
  opt->source = "trace";
}

static int cmp_unmodelled(const void *a, const void *b) {
  const llamp_sched_unmodelled_t *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The state of one pass over a range of ranks: its own builder, stats and
 * tag maps, so that two ranges can be read side by side.  0 / -1. */
/* records = 0: a stream's one rank, whose size is not known: small room
 * that grows (1024 ranks x the room for 1024 records was 100 MB). */
static int sched_open(sched_t *s, const sched_t *like, llamp_sched_stats_t *st, char *err, size_t errlen,
                      uint64_t records) {
  memset(s, 0, sizeof *s);
  s->opt = like->opt;
  s->sel = like->sel;
  s->num_ranks = like->num_ranks;
  s->st = st;
  s->err = err;
  s->errlen = errlen;
  s->b = llamp_builder_create(s->num_ranks, s->opt.source);
  /* room up front (a hint): up to 3 vertices and 6 dependencies per record; what is not used is never touched */
  if (s->b) {
    (void)llamp_builder_reserve(s->b, records ? 3 * records + 1024 : 64, records ? 6 * records + 1024 : 64);
    llamp_builder_set_threads(s->b, s->opt.threads);
  }
  if (!s->b || llamp_map_init(&s->cidx, records ? 64 : 8) || llamp_map_init(&s->tags, records ? 1024 : 16) ||
      llamp_map_put(&s->cidx, LLAMP_TRACE_COMM_WORLD, 0) || vec_push(&s->cidx_ids, LLAMP_TRACE_COMM_WORLD)) {
    snprintf(err, errlen, "%s: out of memory", s->opt.source);
    return -1;
  }
  s->ncidx = 1;
  return 0;
}

static void sched_close(sched_t *s) {
  llamp_builder_destroy(s->b);
  s->b = NULL;
  llamp_map_free(&s->cidx);
  llamp_map_free(&s->tags);
  free(s->cidx_ids.v);
  free(s->tag_comms.v);
  free(s->tag_tags.v);
}

static int rank_open(rank_t *k, sched_t *s, int small) {
  memset(k, 0, sizeof *k);
  k->s = s;
  if (llamp_map_init(&k->reqmap, small ? 64 : 1024) || llamp_map_init(&k->commmap, small ? 8 : 64)) return -1;
  if (s->opt.burst_G > 0) {
    if (!(k->last_send_t = malloc(s->num_ranks * sizeof(double))) ||
        !(k->last_send_b = malloc(s->num_ranks * sizeof(double))))
      return -1;
    for (uint32_t r = 0; r < s->num_ranks; r++) k->last_send_b[r] = -1;
  }
  return 0;
}

/* Ranks [lo, hi) into s's builder (progress: call the option's callback). */
static int build_range(sched_t *s, rank_t *k, llamp_trace_reader_t **ranks, uint32_t lo, uint32_t hi,
                       int progress) {
  for (uint32_t r = lo; r < hi; r++) {
    if (build_rank(s, k, ranks[r], r)) return -1;
    if (progress && s->opt.progress) s->opt.progress(s->opt.progress_ctx, r + 1, s->num_ranks, s->st->records);
  }
  return 0;
}

typedef struct {
  sched_t *s;
  rank_t *k;
  llamp_trace_reader_t **ranks;
  uint32_t lo, hi;
  int rc;
} range_job_t;

static void *range_run(void *arg) {
  range_job_t *j = arg;
  j->rc = build_range(j->s, j->k, j->ranks, j->lo, j->hi, 0);
  return NULL;
}

/* The second range's tag and communicator ids -> the ids one pass over all
 * ranks gives: the first range's where it met the same key, else the next
 * free ones in the order the second range met them (which is the order one
 * pass meets them in after the first range). */
typedef struct {
  uint32_t *tag, *cidx;
  uint32_t ntags, ncidx;
} id_remap_t;

static int32_t remap_tag(void *ctx, int32_t t) {
  const id_remap_t *m = ctx;
  if (t < MAPPED_TAG_BASE) return t;
  if (t < COLL_TAG_BASE) {
    int32_t base = t < LLAMP_TAG_NET_SELF ? MAPPED_TAG_BASE : LLAMP_TAG_NET_SELF;
    uint32_t i = (uint32_t)(t - base);
    return i < m->ntags ? base + (int32_t)m->tag[i] : t;
  }
  uint32_t u = (uint32_t)t, sh = COLL_SEQ_BITS + 2, mask = (1u << COLL_CIDX_BITS) - 1, c = (u >> sh) & mask;
  return c < m->ncidx ? (int32_t)((u & ~(mask << sh)) | ((m->cidx[c] & mask) << sh)) : t;
}

/* Fill m from s2's keys, adding the new ones to s.  1 = identity (no tag
 * changes), 0 = remap, -1 = not representable (a second range with more
 * communicators than a collective tag holds, or too many tags: the caller
 * reads that range again after the first). */
static int remap_build(sched_t *s, const sched_t *s2, id_remap_t *m) {
  int same = 1;
  if (s2->ncidx > (1u << COLL_CIDX_BITS) ||
      (uint64_t)s->ntags + s2->ntags > (uint64_t)(LLAMP_TAG_NET_SELF - MAPPED_TAG_BASE))
    return -1;
  m->ntags = s2->ntags;
  m->ncidx = s2->ncidx;
  if (!(m->tag = malloc((m->ntags + 1) * sizeof *m->tag)) || !(m->cidx = malloc((m->ncidx + 1) * sizeof *m->cidx)))
    return -1;
  for (uint32_t i = 0; i < s2->ntags; i++) {
    uint32_t comm = s2->tag_comms.v[i], tag = s2->tag_tags.v[i];
    uint64_t key = ((uint64_t)comm << 32) | tag;
    uint32_t *p = llamp_map_find(&s->tags, key);
    if (!p) {
      if (llamp_map_put(&s->tags, key, s->ntags) || vec_push(&s->tag_comms, comm) || vec_push(&s->tag_tags, tag))
        return -1;
      p = llamp_map_find(&s->tags, key);
      s->ntags++;
    }
    m->tag[i] = *p;
    same &= *p == i;
  }
  for (uint32_t i = 0; i < s2->ncidx; i++) {
    uint32_t id = s2->cidx_ids.v[i];
    uint32_t *p = llamp_map_find(&s->cidx, id);
    if (!p) {
      if (llamp_map_put(&s->cidx, id, s->ncidx) || vec_push(&s->cidx_ids, id)) return -1;
      p = llamp_map_find(&s->cidx, id);
      s->ncidx++;
    }
    m->cidx[i] = *p;
    same &= *p == i;
  }
  return same;
}

/* Add the second range's counts to the first's (the sums of durations are
 * added as two partial sums: they may differ from one pass's in the last
 * bit, and are reported only). */
static int stats_merge(llamp_sched_stats_t *st, llamp_sched_stats_t *st2) {
  st->records += st2->records;
  st->calcs += st2->calcs;
  st->sends += st2->sends;
  st->recvs += st2->recvs;
  st->collectives += st2->collectives;
  for (int c = 0; c < LLAMP_COLL_NUM_KINDS; c++) st->coll_calls[c] += st2->coll_calls[c];
  st->dropped_calcs += st2->dropped_calcs;
  st->dropped_calc_time += st2->dropped_calc_time;
  st->unresolved_wildcards += st2->unresolved_wildcards;
  st->unknown_requests += st2->unknown_requests;
  st->after_finalize += st2->after_finalize;
  st->polls += st2->polls;
  st->poll_time += st2->poll_time;
  st->bursts += st2->bursts;
  st->burst_time += st2->burst_time;
  st->rma_waits += st2->rma_waits;
  st->rma_wait_time += st2->rma_wait_time;
  st->special_reductions += st2->special_reductions;
  st->approx_reductions += st2->approx_reductions;
  for (size_t i = 0; i < st2->num_unmodelled; i++) {
    size_t g;
    if (unmodelled_index(st, st2->unmodelled[i].name, &g)) return -1;
    st->unmodelled[g].count += st2->unmodelled[i].count;
  }
  llamp_sched_stats_free(st2);
  return 0;
}

/* Where the second thread's ranks start: about half the records on each
 * side; num_ranks = one thread. */
static uint32_t split_point(llamp_trace_reader_t **ranks, uint32_t num_ranks, const llamp_sched_options_t *opt,
                            uint64_t records) {
  if (llamp_par_halves(opt->threads, records) < 2 || num_ranks < 2) return num_ranks;
  uint64_t acc = 0;
  for (uint32_t r = 0; r + 1 < num_ranks; r++) {
    acc += llamp_trace_reader_records(ranks[r]);
    if (2 * acc >= records) return r + 1;
  }
  return num_ranks - 1;
}

llamp_graph_t *llamp_sched_build(llamp_trace_reader_t **ranks, uint32_t num_ranks,
                                 const llamp_sched_options_t *opt, llamp_sched_stats_t *stats,
                                 char *err, size_t errlen) {
  llamp_sched_stats_t local, st2;
  llamp_sched_stats_t *st = stats ? stats : &local;
  memset(st, 0, sizeof *st);
  memset(&st2, 0, sizeof st2);
  char dummy[8], err2[1024];
  if (!err || !errlen) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = err2[0] = 0;
  sched_t like, s, s2;
  memset(&like, 0, sizeof like);
  memset(&s, 0, sizeof s);
  memset(&s2, 0, sizeof s2);
  rank_t k, k2;
  memset(&k, 0, sizeof k);
  memset(&k2, 0, sizeof k2);
  id_remap_t rm = {0};
  if (opt)
    like.opt = *opt;
  else
    llamp_sched_options_default(&like.opt);
  if (!like.opt.source) like.opt.source = "trace";
  like.num_ranks = num_ranks;
  llamp_graph_t *g = NULL;
  if (num_ranks == 0) {
    snprintf(err, errlen, "%s: no ranks", like.opt.source);
    goto done;
  }
  if (!(like.opt.reduce_cost >= 0) || !(like.opt.min_calc >= 0) || !isfinite(like.opt.reduce_cost) ||
      !isfinite(like.opt.min_calc)) {
    snprintf(err, errlen, "%s: reduce cost and minimum calc must be finite and >= 0", like.opt.source);
    goto done;
  }
  if (llamp_coll_parse_selection(like.opt.collectives, &like.sel, err, errlen)) goto done;
  uint64_t records = 0;
  for (uint32_t r = 0; r < num_ranks; r++) {
    if (!ranks[r] || llamp_trace_reader_rank(ranks[r]) != r ||
        llamp_trace_reader_world_size(ranks[r]) != num_ranks) {
      snprintf(err, errlen, "%s: trace %u is %s (expected rank %u of %u)", like.opt.source, r,
               ranks[r] ? "another rank's" : "missing", r, num_ranks);
      if (ranks[r])
        snprintf(err, errlen, "%s: trace %u holds rank %u of %u (expected rank %u of %u)",
                 like.opt.source, r, llamp_trace_reader_rank(ranks[r]),
                 llamp_trace_reader_world_size(ranks[r]), r, num_ranks);
      goto done;
    }
    records += llamp_trace_reader_records(ranks[r]);
  }
  /* two threads: ranks [0, split) here, [split, num_ranks) beside, each
   * into its own builder; the second's blocks are then appended, so the
   * graph is byte for byte the one a single pass builds */
  uint32_t split = split_point(ranks, num_ranks, &like.opt, records);
  if (sched_open(&s, &like, st, err, errlen, records) || rank_open(&k, &s, 0)) {
    snprintf(err, errlen, "%s: out of memory", like.opt.source);
    goto done;
  }
  pthread_t thread;
  range_job_t job = {&s2, &k2, ranks, split, num_ranks, -1};
  int beside = 0;
  if (split < num_ranks) {
    uint64_t rec2 = 0;
    for (uint32_t r = split; r < num_ranks; r++) rec2 += llamp_trace_reader_records(ranks[r]);
    beside = sched_open(&s2, &like, &st2, err2, sizeof err2, rec2) == 0 && rank_open(&k2, &s2, 0) == 0 &&
             pthread_create(&thread, NULL, range_run, &job) == 0;
  }
  int rc = build_range(&s, &k, ranks, 0, beside ? split : num_ranks, 1);
  if (beside) {
    pthread_join(thread, NULL);
    int same = rc || job.rc ? 0 : remap_build(&s, &s2, &rm);
    if (!rc && job.rc) {
      snprintf(err, errlen, "%s", err2);
      (void)stats_merge(st, &st2);
      rc = -1;
    } else if (!rc && same < 0) { /* read the second range again, after the first */
      llamp_sched_stats_free(&st2);
      for (uint32_t r = split; r < num_ranks && !rc; r++) rc = llamp_trace_reader_rewind(ranks[r], err, errlen);
      if (!rc) rc = build_range(&s, &k, ranks, split, num_ranks, 1);
    } else if (!rc) {
      if (stats_merge(st, &st2)) {
        snprintf(err, errlen, "%s: out of memory", like.opt.source);
        rc = -1;
      } else if (llamp_builder_append(s.b, s2.b, same ? NULL : remap_tag, &rm)) {
        rc = bfail(&k);
      }
      s2.b = NULL; /* consumed */
      if (!rc && s.opt.progress) s.opt.progress(s.opt.progress_ctx, num_ranks, num_ranks, st->records);
    }
  }
  if (rc) goto done;
  if (s.opt.stage) s.opt.stage(s.opt.stage_ctx, "records");
  llamp_builder_set_stage_hook(s.b, s.opt.stage, s.opt.stage_ctx);
  g = llamp_builder_finish(s.b, err, errlen);
  s.b = NULL;
  if (g) {
    st->vertices = llamp_graph_num_vertices(g);
    st->edges = llamp_graph_num_edges(g);
    st->messages = llamp_graph_num_messages(g);
  }
done:
  if (st->num_unmodelled) qsort(st->unmodelled, st->num_unmodelled, sizeof *st->unmodelled, cmp_unmodelled);
  st->approximate = st->num_unmodelled || st->unresolved_wildcards || st->unknown_requests || st->rma_waits ||
                    st->approx_reductions;
  sched_close(&s);
  sched_close(&s2);
  rank_free(&k);
  rank_free(&k2);
  llamp_sched_stats_free(&st2);
  free(rm.tag);
  free(rm.cidx);
  if (st == &local) llamp_sched_stats_free(&local);
  return g;
}

/* ---- streaming: the ranks' records as they come -------------------------------------------------- */

/* Each rank has the state and builder of a one-rank range.  At the finish
 * the ranks' builders are appended in rank order, with the tag and
 * communicator ids remapped as for the two-thread build (the graph is byte
 * for byte llamp_sched_build's), into one builder made there with room for
 * all of them: on the finishing thread, whose heap the capture has faulted
 * in.  Appended on the feeding thread as the ranks ended, the copies went
 * into fresh pages of that thread's heap, ~1 ms a rank at 5-10 us a page
 * fault, mostly after the last rank had left (bench_capture64: 0.06-0.12 s
 * in all). */
struct llamp_sched_stream {
  sched_t like;
  sched_t *s;
  rank_t *k;
  llamp_sched_stats_t *st;
  uint8_t *opened, *ended;
  int failed;
  char err[1024];
};

llamp_sched_stream_t *llamp_sched_stream_create(uint32_t num_ranks, const llamp_sched_options_t *opt, char *err,
                                                size_t errlen) {
  llamp_sched_stream_t *x = calloc(1, sizeof *x);
  if (!x || num_ranks == 0 || !(x->s = calloc(num_ranks, sizeof *x->s)) ||
      !(x->k = calloc(num_ranks, sizeof *x->k)) || !(x->st = calloc(num_ranks, sizeof *x->st)) ||
      !(x->opened = calloc(num_ranks, 1)) || !(x->ended = calloc(num_ranks, 1))) {
    if (err && errlen) snprintf(err, errlen, "%s", num_ranks ? "sched stream: out of memory" : "sched stream: no ranks");
    llamp_sched_stream_destroy(x);
    return NULL;
  }
  if (opt)
    x->like.opt = *opt;
  else
    llamp_sched_options_default(&x->like.opt);
  if (!x->like.opt.source) x->like.opt.source = "trace";
  x->like.opt.progress = NULL;
  x->like.num_ranks = num_ranks;
  if (!(x->like.opt.reduce_cost >= 0) || !(x->like.opt.min_calc >= 0) || !isfinite(x->like.opt.reduce_cost) ||
      !isfinite(x->like.opt.min_calc)) {
    if (err && errlen)
      snprintf(err, errlen, "%s: reduce cost and minimum calc must be finite and >= 0", x->like.opt.source);
    llamp_sched_stream_destroy(x);
    return NULL;
  }
  if (llamp_coll_parse_selection(x->like.opt.collectives, &x->like.sel, err, errlen)) {
    llamp_sched_stream_destroy(x);
    return NULL;
  }
  return x;
}

static int stream_fail(llamp_sched_stream_t *x) {
  x->failed = 1;
  return -1;
}

/* Rank r's state, made at its first use. */
static int stream_rank(llamp_sched_stream_t *x, uint32_t r) {
  if (x->failed) return -1;
  if (r >= x->like.num_ranks || x->ended[r]) {
    snprintf(x->err, sizeof x->err, "%s: rank %u %s", x->like.opt.source, r,
             r >= x->like.num_ranks ? "out of range" : "fed after its end");
    return stream_fail(x);
  }
  if (x->opened[r]) return 0;
  if (sched_open(&x->s[r], &x->like, &x->st[r], x->err, sizeof x->err, 0) || rank_open(&x->k[r], &x->s[r], 1)) {
    snprintf(x->err, sizeof x->err, "%s: out of memory", x->like.opt.source);
    return stream_fail(x);
  }
  x->opened[r] = 1;
  rank_reset(&x->k[r], r);
  return 0;
}

int llamp_sched_stream_feed(llamp_sched_stream_t *x, uint32_t rank, llamp_trace_reader_t *rd) {
  if (stream_rank(x, rank)) return -1;
  if (llamp_trace_reader_rank(rd) != rank || llamp_trace_reader_world_size(rd) != x->like.num_ranks) {
    snprintf(x->err, sizeof x->err, "%s: trace of rank %u of %u fed as rank %u of %u", x->like.opt.source,
             llamp_trace_reader_rank(rd), llamp_trace_reader_world_size(rd), rank, x->like.num_ranks);
    return stream_fail(x);
  }
  return feed_rank(&x->s[rank], &x->k[rank], rd) ? stream_fail(x) : 0;
}

int llamp_sched_stream_end_rank(llamp_sched_stream_t *x, uint32_t rank) {
  if (stream_rank(x, rank)) return -1;
  if (end_rank(&x->s[rank], &x->k[rank])) return stream_fail(x);
  rank_free(&x->k[rank]); /* the builder and the id tables stay for the finish */
  memset(&x->k[rank], 0, sizeof x->k[rank]);
  x->ended[rank] = 1;
  return 0;
}

void llamp_sched_stream_counts(const llamp_sched_stream_t *x, uint64_t *records, uint64_t *vertices) {
  uint64_t rec = 0, v = 0;
  for (uint32_t r = 0; x && r < x->like.num_ranks; r++)
    if (x->opened[r]) rec += x->st[r].records, v += llamp_builder_num_ops(x->s[r].b);
  *records = rec;
  *vertices = v;
}

/* Every rank's builder into one (llamp_builder_concat, its copies on two
 * threads), their tags and communicators renumbered as one pass over all
 * ranks numbers them; their statistics into rank 0's. */
static int stream_gather(llamp_sched_stream_t *x) {
  uint32_t P = x->like.num_ranks;
  id_remap_t *rm = calloc(P, sizeof *rm);
  void **ctx = calloc(P, sizeof *ctx);
  llamp_builder_t **parts = calloc(P, sizeof *parts);
  int rc = rm && ctx && parts ? 0 : -1, mapped = 0;
  if (rc) snprintf(x->err, sizeof x->err, "%s: out of memory", x->like.opt.source);
  for (uint32_t r = 1; r < P && !rc; r++) {
    int same = remap_build(&x->s[0], &x->s[r], &rm[r]);
    if (same < 0) {
      snprintf(x->err, sizeof x->err, "%s: too many tags or communicators to build the graph rank by rank",
               x->like.opt.source);
      rc = -1;
    } else if (stats_merge(&x->st[0], &x->st[r])) {
      snprintf(x->err, sizeof x->err, "%s: out of memory", x->like.opt.source);
      rc = -1;
    }
    if (!same) ctx[r] = &rm[r], mapped = 1;
  }
  if (!rc) {
    for (uint32_t r = 0; r < P; r++) {
      parts[r] = x->s[r].b;
      x->s[r].b = NULL; /* consumed by the concatenation, also on failure */
    }
    x->s[0].b = llamp_builder_concat(parts, P, mapped ? remap_tag : NULL, ctx, x->like.opt.threads, x->err,
                                     sizeof x->err);
    if (x->s[0].b) llamp_builder_set_threads(x->s[0].b, x->like.opt.threads);
    else rc = -1;
  }
  for (uint32_t r = 1; r < P; r++) {
    if (rm) free(rm[r].tag), free(rm[r].cidx);
    sched_close(&x->s[r]);
    x->opened[r] = 0;
    llamp_sched_stats_free(&x->st[r]);
  }
  free(rm);
  free(ctx);
  free(parts);
  return rc ? stream_fail(x) : 0;
}

llamp_graph_t *llamp_sched_stream_finish(llamp_sched_stream_t *x, llamp_sched_stats_t *stats, char *err,
                                         size_t errlen) {
  llamp_graph_t *g = NULL;
  for (uint32_t r = 0; r < x->like.num_ranks && !x->failed; r++)
    if (!x->ended[r]) {
      snprintf(x->err, sizeof x->err, "%s: rank %u has not ended", x->like.opt.source, r);
      stream_fail(x);
    }
  if (!x->failed) (void)stream_gather(x);
  if (!x->failed) {
    if (x->like.opt.stage) x->like.opt.stage(x->like.opt.stage_ctx, "gather");
    llamp_builder_set_stage_hook(x->s[0].b, x->like.opt.stage, x->like.opt.stage_ctx);
    g = llamp_builder_finish(x->s[0].b, x->err, sizeof x->err);
    x->s[0].b = NULL;
    if (!g) stream_fail(x);
  }
  llamp_sched_stats_t *st = &x->st[0];
  if (st->num_unmodelled) qsort(st->unmodelled, st->num_unmodelled, sizeof *st->unmodelled, cmp_unmodelled);
  st->approximate = st->num_unmodelled || st->unresolved_wildcards || st->unknown_requests || st->rma_waits ||
                    st->approx_reductions;
  if (g) {
    st->vertices = llamp_graph_num_vertices(g);
    st->edges = llamp_graph_num_edges(g);
    st->messages = llamp_graph_num_messages(g);
  }
  if (stats) { /* handed over: the names are the caller's now */
    *stats = *st;
    memset(st, 0, sizeof *st);
  }
  if (!g && err && errlen) snprintf(err, errlen, "%s", x->err);
  return g;
}

void llamp_sched_stream_destroy(llamp_sched_stream_t *x) {
  if (!x) return;
  for (uint32_t r = 0; x->opened && r < x->like.num_ranks; r++) {
    if (x->opened[r]) {
      sched_close(&x->s[r]);
      rank_free(&x->k[r]);
    }
    llamp_sched_stats_free(&x->st[r]);
  }
  free(x->s);
  free(x->k);
  free(x->st);
  free(x->opened);
  free(x->ended);
  free(x);
}

void llamp_sched_stats_free(llamp_sched_stats_t *st) {
  if (!st) return;
  for (size_t i = 0; i < st->num_unmodelled; i++) free(st->unmodelled[i].name);
  free(st->unmodelled);
  st->unmodelled = NULL;
  st->num_unmodelled = 0;
}

void llamp_sched_stats_print(const llamp_sched_stats_t *st, FILE *out) {
  fprintf(out, "trace: %llu records -> %llu vertices (%llu calc, %llu send, %llu recv), %llu messages, "
          "%llu collective calls expanded\n",
          (unsigned long long)st->records, (unsigned long long)st->vertices,
          (unsigned long long)st->calcs, (unsigned long long)st->sends,
          (unsigned long long)st->recvs, (unsigned long long)st->messages,
          (unsigned long long)st->collectives);
  if (st->dropped_calcs)
    fprintf(out, "dropped: %llu calc below the minimum (%.9g s in all)\n",
            (unsigned long long)st->dropped_calcs, st->dropped_calc_time);
  for (size_t i = 0; i < st->num_unmodelled; i++)
    fprintf(out, "not modelled: %s x %llu\n", st->unmodelled[i].name,
            (unsigned long long)st->unmodelled[i].count);
  if (st->unresolved_wildcards)
    fprintf(out, "unresolved wildcard receives: %llu (matched by the graph's rule)\n",
            (unsigned long long)st->unresolved_wildcards);
  if (st->unknown_requests)
    fprintf(out, "completions of unknown requests: %llu (ignored)\n",
            (unsigned long long)st->unknown_requests);
  if (st->after_finalize)
    fprintf(out, "records after MPI_Finalize: %llu (ignored)\n", (unsigned long long)st->after_finalize);
  if (st->bursts)
    fprintf(out, "back-to-back sends to one peer: %llu (%.9g s of shared transfer, not modelled)\n",
            (unsigned long long)st->bursts, st->burst_time);
  if (st->rma_waits)
    fprintf(out, "one-sided calls that waited on SMPI's window mutexes: %llu (%.9g s, not modelled)\n",
            (unsigned long long)st->rma_waits, st->rma_wait_time);
  if (st->approx_reductions)
    fprintf(out,
            "reductions with a non-commutative operation whose algorithm SimGrid switches in a way "
            "the DAG does not follow: %llu of %llu such calls\n",
            (unsigned long long)st->approx_reductions, (unsigned long long)st->special_reductions);
  if (st->approximate) fprintf(out, "approximate: the graph leaves out what is listed above\n");
}
