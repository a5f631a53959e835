/* synth.c - synthetic execution graphs: the pattern registry, the parameter
 * parser, the patterns themselves and the two sinks (graph builder, GOAL
 * text).  Reading order: emission helpers, patterns, registry, parameters,
 * llamp_synth_run, builder sink, GOAL writer. */
#include "llamp_synth.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_units.h"

#define SYNTH_MAX_PARAMS 16
#define SYNTH_MAX_SIZES 16

/* One parsed parameter value. */
typedef struct {
  uint64_t u; /* INT, BOOL, BYTES, TIME (ns) */
  double d;   /* PROB */
  uint64_t list[SYNTH_MAX_SIZES];
  int nlist; /* SIZES */
} synth_value_t;

struct llamp_synth_args {
  const llamp_synth_pattern_t *pat;
  synth_value_t v[SYNTH_MAX_PARAMS];
};

/* The emission state shared by every pattern: the sink, counters, and the
 * per-rank local index (so that a NULL sink can still count). */
struct llamp_synth_out {
  const llamp_synth_sink_t *sink;
  llamp_synth_stats_t st;
  const char *pattern;
  uint32_t num_ranks;
  int began;
  int64_t cur_rank;
  int64_t next_local;
  char *err;
  size_t errlen;
};

typedef struct llamp_synth_args synth_args_t;
typedef struct llamp_synth_out synth_out_t;

/* ---- emission helpers ----------------------------------------------------- */

/* Record a sink failure as "<pattern>: <sink message>". */
static void out_sink_error(synth_out_t *o, const char *what) {
  const char *msg = NULL;
  if (o->sink && o->sink->error) msg = o->sink->error(o->sink->ctx);
  snprintf(o->err, o->errlen, "%s: %s", o->pattern, msg && *msg ? msg : what);
}

/* Start the emission for `num_ranks` ranks (calls the sink's begin). */
static int out_begin(synth_out_t *o, uint32_t num_ranks) {
  o->num_ranks = num_ranks;
  o->st.num_ranks = num_ranks;
  o->began = 1;
  if (o->sink && o->sink->begin && o->sink->begin(o->sink->ctx, num_ranks) != 0) {
    out_sink_error(o, "sink refused to begin");
    return -1;
  }
  return 0;
}

/* Emit one operation and count it; returns its local index or -1.  Also
 * enforces the sink contract (ranks non-decreasing, local indices 0,1,2..). */
static int64_t out_op(synth_out_t *o, uint32_t rank, llamp_vertex_kind_t kind, uint64_t value,
                      int32_t peer, int32_t tag) {
  if (rank >= o->num_ranks || (int64_t)rank < o->cur_rank) {
    snprintf(o->err, o->errlen, "%s: internal error: rank %" PRIu32 " emitted out of order",
             o->pattern, rank);
    return -1;
  }
  if ((int64_t)rank != o->cur_rank) {
    o->cur_rank = rank;
    o->next_local = 0;
  }
  int64_t expect = o->next_local++;
  o->st.ops++;
  switch (kind) {
  case LLAMP_VERTEX_CALC:
    o->st.calcs++;
    o->st.compute_ns += value;
    break;
  case LLAMP_VERTEX_SEND:
    o->st.sends++;
    o->st.bytes += value;
    break;
  default:
    o->st.recvs++;
    break;
  }
  if (!o->sink) return expect;
  int64_t id = o->sink->op(o->sink->ctx, rank, kind, value, peer, tag);
  if (id < 0) {
    out_sink_error(o, "sink failed on an operation");
    return -1;
  }
  if (id != expect) {
    snprintf(o->err, o->errlen,
             "%s: sink numbered operation %" PRId64 " of rank %" PRIu32 " as %" PRId64,
             o->pattern, expect, rank, id);
    return -1;
  }
  return id;
}

/* Emit one dependency of the current rank; 0 or -1. */
static int out_dep(synth_out_t *o, int64_t after, int64_t before, llamp_edge_kind_t kind) {
  if (kind == LLAMP_EDGE_IREQUIRES)
    o->st.irequires++;
  else
    o->st.requires++;
  if (!o->sink) return 0;
  if (o->sink->dep(o->sink->ctx, (uint32_t)o->cur_rank, after, before, kind) != 0) {
    out_sink_error(o, "sink failed on a dependency");
    return -1;
  }
  return 0;
}

/* A rank's program built as a chain of steps: a sequential op requires the
 * whole current front and becomes the new front; parallel ops (nonblocking
 * Isend/Irecv posted together) each require the front and, once joined,
 * together form the next front.  This is Schedgen's model: nonblocking ops
 * `requires` the preceding op, the next op `requires` all of them. */
#define CHAIN_MAX 32
typedef struct {
  synth_out_t *o;
  uint32_t rank;
  int64_t front[CHAIN_MAX];
  int nfront;
  int64_t grp[CHAIN_MAX];
  int ngrp;
} chain_t;

static void chain_init(chain_t *c, synth_out_t *o, uint32_t rank) {
  c->o = o;
  c->rank = rank;
  c->nfront = c->ngrp = 0;
}

/* Emit an op requiring every op of the front; returns its local index. */
static int64_t chain_emit(chain_t *c, llamp_vertex_kind_t kind, uint64_t value, int32_t peer,
                          int32_t tag) {
  int64_t id = out_op(c->o, c->rank, kind, value, peer, tag);
  if (id < 0) return -1;
  for (int i = 0; i < c->nfront; i++)
    if (out_dep(c->o, id, c->front[i], LLAMP_EDGE_REQUIRES) != 0) return -1;
  return id;
}

/* A sequential (blocking) op: it becomes the whole front. */
static int chain_seq(chain_t *c, llamp_vertex_kind_t kind, uint64_t value, int32_t peer,
                     int32_t tag) {
  int64_t id = chain_emit(c, kind, value, peer, tag);
  if (id < 0) return -1;
  c->front[0] = id;
  c->nfront = 1;
  return 0;
}

/* A parallel (nonblocking) op of the current group. */
static int chain_par(chain_t *c, llamp_vertex_kind_t kind, uint64_t value, int32_t peer,
                     int32_t tag) {
  int64_t id = chain_emit(c, kind, value, peer, tag);
  if (id < 0) return -1;
  c->grp[c->ngrp++] = id; /* callers never exceed CHAIN_MAX (12 at most) */
  return 0;
}

/* Close the group: its ops become the front (an empty group changes nothing). */
static void chain_join(chain_t *c) {
  if (!c->ngrp) return;
  memcpy(c->front, c->grp, (size_t)c->ngrp * sizeof c->grp[0]);
  c->nfront = c->ngrp;
  c->ngrp = 0;
}

/* ---- parameter access ------------------------------------------------------ */

static const synth_value_t *arg(const synth_args_t *a, const char *key) {
  for (int i = 0; a->pat->params[i].key; i++)
    if (strcmp(a->pat->params[i].key, key) == 0) return &a->v[i];
  abort(); /* a pattern asked for a key its own table lacks: programming error */
}
static uint64_t arg_u(const synth_args_t *a, const char *key) { return arg(a, key)->u; }
static double arg_d(const synth_args_t *a, const char *key) { return arg(a, key)->d; }

static int bad_param(synth_out_t *o, const char *fmt, ...) {
  int n = snprintf(o->err, o->errlen, "%s: ", o->pattern);
  if (n < 0 || (size_t)n >= o->errlen) return -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o->err + n, o->errlen - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- pattern: halo exchange on a 2-D or 3-D grid ---------------------------- */

/* Every rank, each iteration: calc, then Irecv from each neighbour and Isend
 * to each neighbour (all requiring the calc); the next calc requires all of
 * them.  Message direction d (+x, -x, +y, -y, +z, -z) is the tag, so
 * neighbours that coincide (a periodic dimension of 2) still match
 * correctly; a neighbour equal to the rank itself (periodic dimension of 1)
 * is dropped, as is a neighbour off a non-periodic edge. */
static int halo_run(const synth_args_t *a, synth_out_t *o, int nd) {
  static const char *keys[3] = {"px", "py", "pz"};
  uint64_t dim[3] = {1, 1, 1};
  uint64_t p = 1;
  for (int d = 0; d < nd; d++) {
    dim[d] = arg_u(a, keys[d]);
    p *= dim[d];
  }
  if (p > INT32_MAX) return bad_param(o, "%" PRIu64 " ranks is more than 2^31-1", p);
  int periodic = (int)arg_u(a, "periodic");
  uint64_t iters = arg_u(a, "iters"), bytes = arg_u(a, "bytes"), comp = arg_u(a, "compute");
  if (out_begin(o, (uint32_t)p) != 0) return -1;

  for (uint64_t r = 0; r < p; r++) {
    uint64_t c[3] = {r % dim[0], (r / dim[0]) % dim[1], r / (dim[0] * dim[1])};
    /* neighbour rank in direction (d, sign) or -1 */
    int64_t nb[3][2];
    for (int d = 0; d < nd; d++)
      for (int s = 0; s < 2; s++) {
        uint64_t cc[3] = {c[0], c[1], c[2]};
        int ok = 1;
        if (s == 0) { /* minus side */
          if (cc[d] > 0) cc[d]--;
          else if (periodic) cc[d] = dim[d] - 1;
          else ok = 0;
        } else {
          if (cc[d] + 1 < dim[d]) cc[d]++;
          else if (periodic) cc[d] = 0;
          else ok = 0;
        }
        int64_t q = (int64_t)(cc[0] + dim[0] * (cc[1] + dim[1] * cc[2]));
        nb[d][s] = ok && q != (int64_t)r ? q : -1;
      }
    chain_t ch;
    chain_init(&ch, o, (uint32_t)r);
    for (uint64_t it = 0; it < iters; it++) {
      if (chain_seq(&ch, LLAMP_VERTEX_CALC, comp, 0, 0) != 0) return -1;
      /* receives: from the minus neighbour comes the message travelling + */
      for (int d = 0; d < nd; d++) {
        if (nb[d][0] >= 0 &&
            chain_par(&ch, LLAMP_VERTEX_RECV, bytes, (int32_t)nb[d][0], 2 * d) != 0)
          return -1;
        if (nb[d][1] >= 0 &&
            chain_par(&ch, LLAMP_VERTEX_RECV, bytes, (int32_t)nb[d][1], 2 * d + 1) != 0)
          return -1;
      }
      for (int d = 0; d < nd; d++) {
        if (nb[d][1] >= 0 &&
            chain_par(&ch, LLAMP_VERTEX_SEND, bytes, (int32_t)nb[d][1], 2 * d) != 0)
          return -1;
        if (nb[d][0] >= 0 &&
            chain_par(&ch, LLAMP_VERTEX_SEND, bytes, (int32_t)nb[d][0], 2 * d + 1) != 0)
          return -1;
      }
      chain_join(&ch);
    }
  }
  return 0;
}

static int pat_halo2d(const synth_args_t *a, synth_out_t *o) { return halo_run(a, o, 2); }
static int pat_halo3d(const synth_args_t *a, synth_out_t *o) { return halo_run(a, o, 3); }

/* ---- pattern: recursive-doubling allreduce --------------------------------- */

/* Each iteration: calc, then MPICH's recursive doubling on `ranks` ranks.
 * With pof2 the largest power of two <= p and rem = p - pof2, the first
 * 2*rem ranks fold: even ranks send their vector to rank+1 and wait for the
 * result at the end; odd ranks receive it (optional reduce calc) and take
 * part as rank/2.  The log2(pof2) exchange steps post Irecv + Isend to
 * the partner together; the next step requires both (plus the reduce calc
 * when reduce > 0).  Every message carries the whole vector (`bytes`). */
static int pat_allreduce_recdoub(const synth_args_t *a, synth_out_t *o) {
  uint64_t p = arg_u(a, "ranks"), iters = arg_u(a, "iters"), bytes = arg_u(a, "bytes");
  uint64_t comp = arg_u(a, "compute"), red = arg_u(a, "reduce");
  uint64_t pof2 = 1;
  while (pof2 * 2 <= p) pof2 *= 2;
  uint64_t rem = p - pof2;
  if (out_begin(o, (uint32_t)p) != 0) return -1;

  for (uint64_t r = 0; r < p; r++) {
    chain_t ch;
    chain_init(&ch, o, (uint32_t)r);
    int64_t newrank = r < 2 * rem ? (r % 2 ? (int64_t)(r / 2) : -1) : (int64_t)(r - rem);
    for (uint64_t it = 0; it < iters; it++) {
      if (chain_seq(&ch, LLAMP_VERTEX_CALC, comp, 0, 0) != 0) return -1;
      if (r < 2 * rem) {
        if (r % 2 == 0) {
          if (chain_seq(&ch, LLAMP_VERTEX_SEND, bytes, (int32_t)(r + 1), 0) != 0) return -1;
        } else {
          if (chain_seq(&ch, LLAMP_VERTEX_RECV, bytes, (int32_t)(r - 1), 0) != 0) return -1;
          if (red && chain_seq(&ch, LLAMP_VERTEX_CALC, red, 0, 0) != 0) return -1;
        }
      }
      if (newrank >= 0) {
        for (uint64_t mask = 1; mask < pof2; mask <<= 1) {
          uint64_t nd = (uint64_t)newrank ^ mask;
          int32_t dst = (int32_t)(nd < rem ? nd * 2 + 1 : nd + rem);
          if (chain_par(&ch, LLAMP_VERTEX_RECV, bytes, dst, 0) != 0 ||
              chain_par(&ch, LLAMP_VERTEX_SEND, bytes, dst, 0) != 0)
            return -1;
          chain_join(&ch);
          if (red && chain_seq(&ch, LLAMP_VERTEX_CALC, red, 0, 0) != 0) return -1;
        }
      }
      if (r < 2 * rem) {
        if (r % 2) {
          if (chain_seq(&ch, LLAMP_VERTEX_SEND, bytes, (int32_t)(r - 1), 0) != 0) return -1;
        } else {
          if (chain_seq(&ch, LLAMP_VERTEX_RECV, bytes, (int32_t)(r + 1), 0) != 0) return -1;
        }
      }
    }
  }
  return 0;
}

/* ---- pattern: ring allreduce ----------------------------------------------- */

/* Each iteration: calc, then p-1 reduce-scatter steps and p-1 allgather
 * steps; in each step a rank posts Irecv from its left neighbour and Isend
 * to its right one (chunk = ceil(bytes/p)), and the next step requires both
 * (plus a reduce calc after each reduce-scatter step when reduce > 0). */
static int pat_allreduce_ring(const synth_args_t *a, synth_out_t *o) {
  uint64_t p = arg_u(a, "ranks"), iters = arg_u(a, "iters"), bytes = arg_u(a, "bytes");
  uint64_t comp = arg_u(a, "compute"), red = arg_u(a, "reduce");
  uint64_t chunk = (bytes + p - 1) / p;
  if (out_begin(o, (uint32_t)p) != 0) return -1;
  for (uint64_t r = 0; r < p; r++) {
    chain_t ch;
    chain_init(&ch, o, (uint32_t)r);
    int32_t left = (int32_t)((r + p - 1) % p), right = (int32_t)((r + 1) % p);
    for (uint64_t it = 0; it < iters; it++) {
      if (chain_seq(&ch, LLAMP_VERTEX_CALC, comp, 0, 0) != 0) return -1;
      for (uint64_t step = 0; p > 1 && step < 2 * (p - 1); step++) {
        if (chain_par(&ch, LLAMP_VERTEX_RECV, chunk, left, 0) != 0 ||
            chain_par(&ch, LLAMP_VERTEX_SEND, chunk, right, 0) != 0)
          return -1;
        chain_join(&ch);
        if (red && step < p - 1 && chain_seq(&ch, LLAMP_VERTEX_CALC, red, 0, 0) != 0) return -1;
      }
    }
  }
  return 0;
}

/* ---- pattern: 2-D wavefront sweep ------------------------------------------ */

/* Sweep3D-like pipeline on a px x py grid.  In each sweep a rank receives
 * (blocking) from its upstream x then y neighbour, computes, and sends
 * (blocking) to its downstream x then y neighbour.  Sweep s starts from
 * corner s mod `corners` of the list (0,0), (px-1,py-1), (px-1,0), (0,py-1)
 * -- corners=1 always sweeps from (0,0). */
static int pat_wavefront(const synth_args_t *a, synth_out_t *o) {
  uint64_t px = arg_u(a, "px"), py = arg_u(a, "py"), sweeps = arg_u(a, "sweeps");
  uint64_t bytes = arg_u(a, "bytes"), comp = arg_u(a, "compute"), corners = arg_u(a, "corners");
  if (corners != 1 && corners != 2 && corners != 4)
    return bad_param(o, "corners=%" PRIu64 ": expected 1, 2 or 4", corners);
  if (px * py > INT32_MAX) return bad_param(o, "%" PRIu64 " ranks is more than 2^31-1", px * py);
  static const int dirs[4][2] = {{1, 1}, {-1, -1}, {-1, 1}, {1, -1}};
  if (out_begin(o, (uint32_t)(px * py)) != 0) return -1;
  for (uint64_t r = 0; r < px * py; r++) {
    int64_t x = (int64_t)(r % px), y = (int64_t)(r / px);
    chain_t ch;
    chain_init(&ch, o, (uint32_t)r);
    for (uint64_t s = 0; s < sweeps; s++) {
      int dx = dirs[s % corners][0], dy = dirs[s % corners][1];
      int64_t ux = x - dx, uy = y - dy, dwx = x + dx, dwy = y + dy;
      if (ux >= 0 && ux < (int64_t)px &&
          chain_seq(&ch, LLAMP_VERTEX_RECV, bytes, (int32_t)(ux + y * (int64_t)px), 0) != 0)
        return -1;
      if (uy >= 0 && uy < (int64_t)py &&
          chain_seq(&ch, LLAMP_VERTEX_RECV, bytes, (int32_t)(x + uy * (int64_t)px), 0) != 0)
        return -1;
      if (chain_seq(&ch, LLAMP_VERTEX_CALC, comp, 0, 0) != 0) return -1;
      if (dwx >= 0 && dwx < (int64_t)px &&
          chain_seq(&ch, LLAMP_VERTEX_SEND, bytes, (int32_t)(dwx + y * (int64_t)px), 0) != 0)
        return -1;
      if (dwy >= 0 && dwy < (int64_t)py &&
          chain_seq(&ch, LLAMP_VERTEX_SEND, bytes, (int32_t)(x + dwy * (int64_t)px), 0) != 0)
        return -1;
    }
  }
  return 0;
}

/* ---- pattern: ping-pong ---------------------------------------------------- */

/* Two ranks: rank 0 computes, sends, and waits for the reply; rank 1 receives
 * and sends back.  T = iters * (compute + 2 * one-way time): handy for
 * closed-form engine tests. */
static int pat_pingpong(const synth_args_t *a, synth_out_t *o) {
  uint64_t iters = arg_u(a, "iters"), bytes = arg_u(a, "bytes"), comp = arg_u(a, "compute");
  if (out_begin(o, 2) != 0) return -1;
  for (uint32_t r = 0; r < 2; r++) {
    chain_t ch;
    chain_init(&ch, o, r);
    for (uint64_t it = 0; it < iters; it++) {
      if (r == 0) {
        if (chain_seq(&ch, LLAMP_VERTEX_CALC, comp, 0, 0) != 0 ||
            chain_seq(&ch, LLAMP_VERTEX_SEND, bytes, 1, 0) != 0 ||
            chain_seq(&ch, LLAMP_VERTEX_RECV, bytes, 1, 0) != 0)
          return -1;
      } else {
        if (chain_seq(&ch, LLAMP_VERTEX_RECV, bytes, 0, 0) != 0 ||
            chain_seq(&ch, LLAMP_VERTEX_SEND, bytes, 0, 0) != 0)
          return -1;
      }
    }
  }
  return 0;
}

/* ---- pattern: random trace-like DAG ----------------------------------------- */

/* splitmix64: the finaliser hashes, the stream draws. */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static uint64_t hash3(uint64_t a, uint64_t b, uint64_t c) {
  return mix64(mix64(mix64(a + 0x9e3779b97f4a7c15ULL) ^ b) + c);
}
typedef struct {
  uint64_t s;
} rng_t;
static uint64_t rng_next(rng_t *g) { return mix64(g->s += 0x9e3779b97f4a7c15ULL); }
static double rng_unit(rng_t *g) { return (double)(rng_next(g) >> 11) * 0x1.0p-53; }

/* Fixed shape constants of the random pattern (documented in generate.md). */
#define RND_PCALC 0.5     /* a calc before a rank's event in a round */
#define RND_PCOMM 0.8     /* a paired couple communicates in a round */
#define RND_PEXCH 0.25    /* ... and the event is an exchange (both directions) */
#define RND_PEND_MAX 16   /* at most this many nonblocking ops pending */

/* One rank's program in the random pattern: each op `requires` the previous
 * one, or `irequires` it when that one was nonblocking; a "wait" makes the
 * op `require` every pending nonblocking op. */
typedef struct {
  synth_out_t *o;
  uint32_t rank;
  int64_t last;
  int last_nb;
  int64_t pend[RND_PEND_MAX];
  int npend;
} rprog_t;

static int rp_emit(rprog_t *p, llamp_vertex_kind_t kind, uint64_t value, int32_t peer,
                   int32_t tag, int nb, int wait_all) {
  int64_t id = out_op(p->o, p->rank, kind, value, peer, tag);
  if (id < 0) return -1;
  int waited_last = 0;
  if (wait_all) {
    for (int i = 0; i < p->npend; i++) {
      if (out_dep(p->o, id, p->pend[i], LLAMP_EDGE_REQUIRES) != 0) return -1;
      if (p->pend[i] == p->last) waited_last = 1;
    }
    p->npend = 0;
  }
  if (p->last >= 0 && !waited_last &&
      out_dep(p->o, id, p->last, p->last_nb ? LLAMP_EDGE_IREQUIRES : LLAMP_EDGE_REQUIRES) != 0)
    return -1;
  p->last = id;
  p->last_nb = nb;
  if (nb) p->pend[p->npend++] = id;
  return 0;
}

/* Emit a communication op: nonblocking with probability `pnb`; before it,
 * wait for the pending ops with probability `pwait` (always when full). */
static int rp_comm(rprog_t *p, rng_t *g, llamp_vertex_kind_t kind, uint64_t bytes, int32_t peer,
                   int32_t tag, double pnb, double pwait) {
  int wait = p->npend > 0 && (p->npend == RND_PEND_MAX || rng_unit(g) < pwait);
  int nb = rng_unit(g) < pnb;
  return rp_emit(p, kind, bytes, peer, tag, nb, wait);
}

/* The random pattern.  A global sequence of rounds; in round t the ranks
 * are paired by the involution pos -> (c_t - pos) mod p on a seeded random
 * permutation of the ranks (c_t drawn from the seed), so each rank finds its
 * partner in O(1) and the streams of different ranks can be generated one
 * after another.  A couple {a, b} communicates in round t with probability
 * 0.8 (a one-way message or, one time in four, an exchange where the lower
 * rank sends first); size, tag and direction come from a hash of
 * (seed, t, a, b), so both sides agree.  Every rank appends its events in
 * round order, i.e. in the same global order on both sides, which keeps
 * the graph acyclic under eager and under rendezvous semantics and makes
 * FIFO matching pair exactly the intended send and receive.  Rank-local
 * choices (calc before the event and its duration, blocking or not, wait
 * points, ANY_TAG receives) come from a per-rank stream. */
static int pat_random(const synth_args_t *a, synth_out_t *o) {
  uint64_t p = arg_u(a, "ranks"), ops = arg_u(a, "ops"), seed = arg_u(a, "seed");
  uint64_t comp = arg_u(a, "compute"), ntags = arg_u(a, "tags");
  double pnb = arg_d(a, "nonblocking"), pany = arg_d(a, "anytag"), pwait = arg_d(a, "wait");
  const synth_value_t *sz = arg(a, "sizes");
  double per_round = RND_PCALC + (double)(p - 1) / (double)p * RND_PCOMM * (1 + RND_PEXCH);
  uint64_t rounds = (uint64_t)ceil((double)ops / per_round);

  uint32_t *perm = malloc(p * sizeof *perm), *inv = malloc(p * sizeof *inv);
  if (!perm || !inv) {
    free(perm);
    free(inv);
    return bad_param(o, "out of memory for %" PRIu64 " ranks", p);
  }
  rng_t pg = {hash3(seed, 0x5045524dULL, 0)}; /* Fisher-Yates from the seed */
  for (uint64_t i = 0; i < p; i++) perm[i] = (uint32_t)i;
  for (uint64_t i = p; i > 1; i--) {
    uint64_t j = rng_next(&pg) % i;
    uint32_t t = perm[i - 1];
    perm[i - 1] = perm[j];
    perm[j] = t;
  }
  for (uint64_t i = 0; i < p; i++) inv[perm[i]] = (uint32_t)i;

  int rc = out_begin(o, (uint32_t)p);
  for (uint64_t r = 0; rc == 0 && r < p; r++) {
    rng_t g = {hash3(seed, 0x52414e4bULL, r)};
    rprog_t pr = {o, (uint32_t)r, -1, 0, {0}, 0};
    uint64_t pos = perm[r];
    for (uint64_t t = 0; rc == 0 && t < rounds; t++) {
      if (rng_unit(&g) < RND_PCALC) {
        uint64_t dur = comp ? rng_next(&g) % (2 * comp + 1) : 0;
        int wait = pr.npend > 0 && rng_unit(&g) < pwait;
        if ((rc = rp_emit(&pr, LLAMP_VERTEX_CALC, dur, 0, 0, 0, wait)) != 0) break;
      }
      uint64_t ct = hash3(seed, 0x524f554eULL, t) % p;
      uint64_t qpos = (ct + p - pos) % p;
      if (qpos == pos) continue;
      uint64_t q = inv[qpos];
      uint64_t lo = r < q ? r : q, hi = r < q ? q : r;
      uint64_t h = hash3(seed ^ 0x455645ULL, t, lo * 0x100000001ULL + hi);
      rng_t eg = {h};
      if (rng_unit(&eg) >= RND_PCOMM) continue;
      int exch = rng_unit(&eg) < RND_PEXCH;
      int lo_sends = (rng_next(&eg) & 1) != 0;
      uint64_t s1 = sz->list[rng_next(&eg) % (uint64_t)sz->nlist];
      int32_t t1 = (int32_t)(rng_next(&eg) % ntags);
      uint64_t s2 = sz->list[rng_next(&eg) % (uint64_t)sz->nlist];
      int32_t t2 = (int32_t)(rng_next(&eg) % ntags);
      int i_am_lo = r == lo;
      int32_t peer = (int32_t)q;
      if (exch) { /* lo: send s1 then recv s2; hi: recv s1 then send s2 */
        if (i_am_lo) {
          rc = rp_comm(&pr, &g, LLAMP_VERTEX_SEND, s1, peer, t1, pnb, pwait);
          if (rc == 0)
            rc = rp_comm(&pr, &g, LLAMP_VERTEX_RECV, s2, peer,
                         rng_unit(&g) < pany ? LLAMP_ANY_TAG : t2, pnb, pwait);
        } else {
          rc = rp_comm(&pr, &g, LLAMP_VERTEX_RECV, s1, peer,
                       rng_unit(&g) < pany ? LLAMP_ANY_TAG : t1, pnb, pwait);
          if (rc == 0) rc = rp_comm(&pr, &g, LLAMP_VERTEX_SEND, s2, peer, t2, pnb, pwait);
        }
      } else if (i_am_lo == lo_sends) {
        rc = rp_comm(&pr, &g, LLAMP_VERTEX_SEND, s1, peer, t1, pnb, pwait);
      } else {
        rc = rp_comm(&pr, &g, LLAMP_VERTEX_RECV, s1, peer,
                     rng_unit(&g) < pany ? LLAMP_ANY_TAG : t1, pnb, pwait);
      }
    }
    /* a final calc waits for whatever is still pending (MPI_Waitall) */
    if (rc == 0 && pr.npend > 0) {
      uint64_t dur = comp ? rng_next(&g) % (2 * comp + 1) : 0;
      rc = rp_emit(&pr, LLAMP_VERTEX_CALC, dur, 0, 0, 0, 1);
    }
  }
  free(perm);
  free(inv);
  return rc;
}

/* ---- the registry ------------------------------------------------------------ */

#define P_END {NULL, LLAMP_SYNTH_INT, NULL, 0, 0, NULL}
#define MAXDIM 65536
#define MAXRANKS 2147483647ULL
#define MAXCOUNT 1000000000000ULL /* 10^12 */
#define MAXBYTES (1ULL << 50)
#define MAXNS (1ULL << 53)

static const llamp_synth_param_t halo2d_params[] = {
    {"px", LLAMP_SYNTH_INT, "4", 1, MAXDIM, "ranks along x"},
    {"py", LLAMP_SYNTH_INT, "4", 1, MAXDIM, "ranks along y"},
    {"periodic", LLAMP_SYNTH_BOOL, "yes", 0, 0, "wrap around (torus) or not"},
    {"iters", LLAMP_SYNTH_INT, "10", 0, MAXCOUNT, "iterations"},
    {"bytes", LLAMP_SYNTH_BYTES, "8KiB", 0, MAXBYTES, "bytes per message"},
    {"compute", LLAMP_SYNTH_TIME, "10us", 0, MAXNS, "compute per iteration"},
    P_END};
static const llamp_synth_param_t halo3d_params[] = {
    {"px", LLAMP_SYNTH_INT, "4", 1, MAXDIM, "ranks along x"},
    {"py", LLAMP_SYNTH_INT, "4", 1, MAXDIM, "ranks along y"},
    {"pz", LLAMP_SYNTH_INT, "4", 1, MAXDIM, "ranks along z"},
    {"periodic", LLAMP_SYNTH_BOOL, "yes", 0, 0, "wrap around (torus) or not"},
    {"iters", LLAMP_SYNTH_INT, "10", 0, MAXCOUNT, "iterations"},
    {"bytes", LLAMP_SYNTH_BYTES, "8KiB", 0, MAXBYTES, "bytes per message"},
    {"compute", LLAMP_SYNTH_TIME, "10us", 0, MAXNS, "compute per iteration"},
    P_END};
static const llamp_synth_param_t recdoub_params[] = {
    {"ranks", LLAMP_SYNTH_INT, "8", 1, MAXRANKS, "number of ranks (any, not only 2^k)"},
    {"iters", LLAMP_SYNTH_INT, "10", 0, MAXCOUNT, "allreduce calls"},
    {"bytes", LLAMP_SYNTH_BYTES, "8", 0, MAXBYTES, "vector size = bytes per message"},
    {"compute", LLAMP_SYNTH_TIME, "10us", 0, MAXNS, "compute before each allreduce"},
    {"reduce", LLAMP_SYNTH_TIME, "0", 0, MAXNS, "local reduction per step (0: no vertex)"},
    P_END};
static const llamp_synth_param_t ring_params[] = {
    {"ranks", LLAMP_SYNTH_INT, "8", 1, MAXRANKS, "number of ranks"},
    {"iters", LLAMP_SYNTH_INT, "10", 0, MAXCOUNT, "allreduce calls"},
    {"bytes", LLAMP_SYNTH_BYTES, "1MiB", 0, MAXBYTES, "vector size; messages carry ceil(bytes/ranks)"},
    {"compute", LLAMP_SYNTH_TIME, "10us", 0, MAXNS, "compute before each allreduce"},
    {"reduce", LLAMP_SYNTH_TIME, "0", 0, MAXNS,
     "local reduction per reduce-scatter step (0: no vertex)"},
    P_END};
static const llamp_synth_param_t wavefront_params[] = {
    {"px", LLAMP_SYNTH_INT, "4", 1, MAXDIM, "ranks along x"},
    {"py", LLAMP_SYNTH_INT, "4", 1, MAXDIM, "ranks along y"},
    {"sweeps", LLAMP_SYNTH_INT, "4", 0, MAXCOUNT, "number of sweeps"},
    {"corners", LLAMP_SYNTH_INT, "1", 1, 4, "starting corners cycled through: 1, 2 or 4"},
    {"bytes", LLAMP_SYNTH_BYTES, "8KiB", 0, MAXBYTES, "bytes per message"},
    {"compute", LLAMP_SYNTH_TIME, "10us", 0, MAXNS, "compute per rank and sweep"},
    P_END};
static const llamp_synth_param_t pingpong_params[] = {
    {"iters", LLAMP_SYNTH_INT, "10", 0, MAXCOUNT, "round trips"},
    {"bytes", LLAMP_SYNTH_BYTES, "8", 0, MAXBYTES, "bytes per message"},
    {"compute", LLAMP_SYNTH_TIME, "0", 0, MAXNS, "compute on rank 0 before each round trip"},
    P_END};
static const llamp_synth_param_t random_params[] = {
    {"ranks", LLAMP_SYNTH_INT, "8", 1, 1u << 28, "number of ranks"},
    {"ops", LLAMP_SYNTH_INT, "1000", 0, MAXCOUNT, "operations per rank (on average)"},
    {"seed", LLAMP_SYNTH_INT, "1", 0, UINT64_MAX, "random seed; same seed, same graph"},
    {"compute", LLAMP_SYNTH_TIME, "5us", 0, MAXNS / 2, "mean calc duration (uniform on [0, 2x])"},
    {"sizes", LLAMP_SYNTH_SIZES, "8:64:1KiB:8KiB:64KiB:300KiB:1MiB", 0, MAXBYTES,
     "message sizes drawn uniformly (':'-separated)"},
    {"nonblocking", LLAMP_SYNTH_PROB, "0.3", 0, 0, "fraction of nonblocking send/recv"},
    {"wait", LLAMP_SYNTH_PROB, "0.3", 0, 0, "chance that an op first waits for pending ones"},
    {"anytag", LLAMP_SYNTH_PROB, "0.05", 0, 0, "fraction of receives with ANY_TAG"},
    {"tags", LLAMP_SYNTH_INT, "4", 1, 1u << 24, "number of distinct tags"},
    P_END};

static const llamp_synth_pattern_t patterns[] = {
    {"halo2d", "2-D halo exchange (calc, then Irecv/Isend with 4 neighbours)", halo2d_params,
     pat_halo2d},
    {"halo3d", "3-D halo exchange (calc, then Irecv/Isend with 6 neighbours)", halo3d_params,
     pat_halo3d},
    {"allreduce_recdoub", "recursive-doubling allreduce, any rank count (fold for non-2^k)",
     recdoub_params, pat_allreduce_recdoub},
    {"allreduce_ring", "ring allreduce: reduce-scatter + allgather, 2(p-1) steps", ring_params,
     pat_allreduce_ring},
    {"wavefront", "2-D pipelined sweep: recv west/north, calc, send east/south",
     wavefront_params, pat_wavefront},
    {"pingpong", "two ranks bouncing a message", pingpong_params, pat_pingpong},
    {"random", "seeded trace-like random DAG, deadlock-free, eager and rendezvous",
     random_params, pat_random},
};
#define NUM_PATTERNS (sizeof patterns / sizeof patterns[0])

const llamp_synth_pattern_t *llamp_synth_patterns(size_t *count) {
  if (count) *count = NUM_PATTERNS;
  return patterns;
}

const llamp_synth_pattern_t *llamp_synth_find(const char *name) {
  for (size_t i = 0; name && i < NUM_PATTERNS; i++)
    if (strcmp(patterns[i].name, name) == 0) return &patterns[i];
  return NULL;
}

/* "unknown pattern 'x' (valid: a, b, c)" */
static void unknown_pattern(const char *name, char *err, size_t errlen) {
  int n = snprintf(err, errlen, "unknown pattern '%s' (valid:", name ? name : "");
  for (size_t i = 0; i < NUM_PATTERNS && n >= 0 && (size_t)n < errlen; i++)
    n += snprintf(err + n, errlen - (size_t)n, "%s %s", i ? "," : "", patterns[i].name);
  if (n >= 0 && (size_t)n < errlen) snprintf(err + n, errlen - (size_t)n, ")");
}

void llamp_synth_print_list(FILE *out) {
  for (size_t i = 0; i < NUM_PATTERNS; i++)
    fprintf(out, "  %-18s %s\n", patterns[i].name, patterns[i].help);
}

int llamp_synth_print_help(const char *pattern, FILE *out, char *err, size_t errlen) {
  const llamp_synth_pattern_t *pat = llamp_synth_find(pattern);
  if (!pat) {
    unknown_pattern(pattern, err, errlen);
    return -1;
  }
  fprintf(out, "%s: %s\nparameters (key=value, default shown):\n", pat->name, pat->help);
  for (const llamp_synth_param_t *p = pat->params; p->key; p++) {
    char kv[96];
    snprintf(kv, sizeof kv, "%s=%s", p->key, p->def);
    if (strlen(kv) > 28)
      fprintf(out, "  %s\n  %-28s %s\n", kv, "", p->help);
    else
      fprintf(out, "  %-28s %s\n", kv, p->help);
  }
  return 0;
}

/* ---- parameter parsing ---------------------------------------------------------- */

/* What a parameter type accepts, for error messages. */
static void expected(const llamp_synth_param_t *p, char *buf, size_t len) {
  switch (p->type) {
  case LLAMP_SYNTH_INT:
    snprintf(buf, len, "an integer in [%" PRIu64 ", %" PRIu64 "] (suffix k, M, G allowed)",
             p->min, p->max);
    break;
  case LLAMP_SYNTH_BOOL: snprintf(buf, len, "yes/no, true/false, on/off or 1/0"); break;
  case LLAMP_SYNTH_BYTES:
    snprintf(buf, len, "a whole number of bytes such as 8, 8KiB or 1MB, at most %" PRIu64,
             p->max);
    break;
  case LLAMP_SYNTH_TIME:
    snprintf(buf, len, "a duration such as 500 (ns), 10us or 1ms, at most %" PRIu64 " ns",
             p->max);
    break;
  case LLAMP_SYNTH_PROB: snprintf(buf, len, "a probability in [0, 1]"); break;
  case LLAMP_SYNTH_SIZES:
    snprintf(buf, len, "1 to %d sizes separated by ':' such as 8:1KiB:300KiB", SYNTH_MAX_SIZES);
    break;
  }
}

/* Parse one size with units into whole bytes; 0 or -1 (why in err). */
static int parse_bytes(const char *text, uint64_t max, uint64_t *out, char *err, size_t errlen) {
  double v;
  if (llamp_units_parse(text, LLAMP_UNIT_BYTES, "B", &v, err, errlen) != 0) return -1;
  if (v != floor(v) || v > (double)max) {
    snprintf(err, errlen, "'%s' is not a whole number of bytes <= %" PRIu64, text, max);
    return -1;
  }
  *out = (uint64_t)v;
  return 0;
}

/* Parse `text` as parameter p into v; on failure a one-line reason in err
 * ("halo2d: px=abc: expected an integer in [1, 65536] ..."). */
static int parse_value(const char *pattern, const llamp_synth_param_t *p, const char *text,
                       synth_value_t *v, char *err, size_t errlen) {
  char why[200] = "", exp[160];
  expected(p, exp, sizeof exp);
  char *end = NULL;
  switch (p->type) {
  case LLAMP_SYNTH_INT: {
    if (*text < '0' || *text > '9') break;
    errno = 0;
    unsigned long long x = strtoull(text, &end, 10);
    uint64_t mul = 1;
    if (*end == 'k') mul = 1000ULL, end++;
    else if (*end == 'M') mul = 1000000ULL, end++;
    else if (*end == 'G') mul = 1000000000ULL, end++;
    if (errno || *end || (x && mul > UINT64_MAX / x)) break;
    x *= mul;
    if (x < p->min || x > p->max) break;
    v->u = x;
    return 0;
  }
  case LLAMP_SYNTH_BOOL:
    if (!strcmp(text, "1") || !strcmp(text, "yes") || !strcmp(text, "true") ||
        !strcmp(text, "on")) {
      v->u = 1;
      return 0;
    }
    if (!strcmp(text, "0") || !strcmp(text, "no") || !strcmp(text, "false") ||
        !strcmp(text, "off")) {
      v->u = 0;
      return 0;
    }
    break;
  case LLAMP_SYNTH_BYTES:
    if (parse_bytes(text, p->max, &v->u, why, sizeof why) != 0) break;
    if (v->u < p->min) break;
    return 0;
  case LLAMP_SYNTH_TIME: {
    double s;
    if (llamp_units_parse(text, LLAMP_UNIT_TIME, "ns", &s, why, sizeof why) != 0) break;
    double ns = floor(s * 1e9 + 0.5);
    if (ns > (double)p->max || ns < (double)p->min) break;
    v->u = (uint64_t)ns;
    return 0;
  }
  case LLAMP_SYNTH_PROB: {
    errno = 0;
    double d = strtod(text, &end);
    if (end == text || *end || errno || !(d >= 0 && d <= 1)) break;
    v->d = d;
    return 0;
  }
  case LLAMP_SYNTH_SIZES: {
    const char *s = text;
    v->nlist = 0;
    int ok = 1;
    while (ok) {
      const char *colon = strchr(s, ':');
      size_t len = colon ? (size_t)(colon - s) : strlen(s);
      char item[64];
      if (len == 0 || len >= sizeof item || v->nlist == SYNTH_MAX_SIZES) {
        ok = 0;
        break;
      }
      memcpy(item, s, len);
      item[len] = 0;
      if (parse_bytes(item, p->max, &v->list[v->nlist], why, sizeof why) != 0) {
        ok = 0;
        break;
      }
      v->nlist++;
      if (!colon) break;
      s = colon + 1;
    }
    if (!ok) break;
    return 0;
  }
  }
  if (*why)
    snprintf(err, errlen, "%s: %s=%s: %s; expected %s", pattern, p->key, text, why, exp);
  else
    snprintf(err, errlen, "%s: %s=%s: expected %s", pattern, p->key, text, exp);
  return -1;
}

/* "halo2d: unknown parameter 'pz' (valid: px, py, ...)" */
static void unknown_key(const llamp_synth_pattern_t *pat, const char *key, size_t keylen,
                        char *err, size_t errlen) {
  int n = snprintf(err, errlen, "%s: unknown parameter '%.*s' (valid:", pat->name, (int)keylen,
                   key);
  for (int i = 0; pat->params[i].key && n >= 0 && (size_t)n < errlen; i++)
    n += snprintf(err + n, errlen - (size_t)n, "%s %s", i ? "," : "", pat->params[i].key);
  if (n >= 0 && (size_t)n < errlen) snprintf(err + n, errlen - (size_t)n, ")");
}

/* Fill args with the defaults, then apply each "key=value" (a later value of
 * the same key wins). */
static int parse_args(const llamp_synth_pattern_t *pat, int argc, char *const *argv,
                      synth_args_t *a, char *err, size_t errlen) {
  a->pat = pat;
  for (int i = 0; pat->params[i].key; i++)
    if (parse_value(pat->name, &pat->params[i], pat->params[i].def, &a->v[i], err, errlen) != 0)
      return -1; /* a bad default: caught by the unit test over the registry */
  for (int k = 0; k < argc; k++) {
    const char *eq = strchr(argv[k], '=');
    if (!eq || eq == argv[k]) {
      snprintf(err, errlen, "%s: '%s' is not key=value", pat->name, argv[k]);
      return -1;
    }
    size_t klen = (size_t)(eq - argv[k]);
    int found = -1;
    for (int i = 0; pat->params[i].key; i++)
      if (strlen(pat->params[i].key) == klen && !strncmp(pat->params[i].key, argv[k], klen))
        found = i;
    if (found < 0) {
      unknown_key(pat, argv[k], klen, err, errlen);
      return -1;
    }
    if (parse_value(pat->name, &pat->params[found], eq + 1, &a->v[found], err, errlen) != 0)
      return -1;
  }
  return 0;
}

/* ---- running ------------------------------------------------------------------- */

int llamp_synth_run(const char *pattern, int argc, char *const *argv,
                    const llamp_synth_sink_t *sink, llamp_synth_stats_t *stats, char *err,
                    size_t errlen) {
  char dummy[8];
  if (!err || !errlen) err = dummy, errlen = sizeof dummy;
  *err = 0;
  const llamp_synth_pattern_t *pat = llamp_synth_find(pattern);
  if (!pat) {
    unknown_pattern(pattern, err, errlen);
    return -1;
  }
  synth_args_t a;
  if (parse_args(pat, argc, argv, &a, err, errlen) != 0) return -1;
  synth_out_t o;
  memset(&o, 0, sizeof o);
  o.sink = sink;
  o.pattern = pat->name;
  o.cur_rank = -1;
  o.err = err;
  o.errlen = errlen;
  int rc = pat->run(&a, &o);
  if (rc == 0 && sink && sink->end && sink->end(sink->ctx) != 0) {
    out_sink_error(&o, "sink failed at the end");
    rc = -1;
  }
  if (stats) *stats = o.st;
  return rc;
}

/* Split "a=1,b=2 c=3" into words (at most 64) in buf and call llamp_synth_run. */
int llamp_synth_run_str(const char *pattern, const char *params, const llamp_synth_sink_t *sink,
                        llamp_synth_stats_t *stats, char *err, size_t errlen) {
  char buf[2048];
  char *words[64];
  int n = 0;
  if (!params) params = "";
  if (strlen(params) >= sizeof buf) {
    snprintf(err, errlen, "%s: parameter string too long", pattern);
    return -1;
  }
  strcpy(buf, params);
  for (char *tok = strtok(buf, ", \t\n"); tok; tok = strtok(NULL, ", \t\n")) {
    if (n == 64) {
      snprintf(err, errlen, "%s: too many parameters", pattern);
      return -1;
    }
    words[n++] = tok;
  }
  return llamp_synth_run(pattern, n, words, sink, stats, err, errlen);
}

/* ---- sink 1: the graph builder --------------------------------------------------- */

/* Keeps the builder ids of the current rank's ops: local index -> id. */
typedef struct {
  llamp_builder_t *b;
  const char *source;
  int64_t *ids;
  size_t n, cap;
  int64_t cur_rank;
  char msg[256];
} bsink_t;

static int bsink_begin(void *ctx, uint32_t num_ranks) {
  bsink_t *s = ctx;
  s->b = llamp_builder_create(num_ranks, s->source);
  if (!s->b) {
    snprintf(s->msg, sizeof s->msg, "cannot create a graph builder for %" PRIu32 " ranks",
             num_ranks);
    return -1;
  }
  return 0;
}

static int64_t bsink_op(void *ctx, uint32_t rank, llamp_vertex_kind_t kind, uint64_t value,
                        int32_t peer, int32_t tag) {
  bsink_t *s = ctx;
  if ((int64_t)rank != s->cur_rank) {
    s->cur_rank = rank;
    s->n = 0;
  }
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 1024;
    int64_t *ids = realloc(s->ids, cap * sizeof *ids);
    if (!ids) {
      snprintf(s->msg, sizeof s->msg, "out of memory");
      return -1;
    }
    s->ids = ids;
    s->cap = cap;
  }
  double v = kind == LLAMP_VERTEX_CALC ? (double)value * 1e-9 : (double)value;
  int64_t id = llamp_builder_add(s->b, rank, kind, v, peer, tag, 0);
  if (id < 0) return -1;
  s->ids[s->n] = id;
  return (int64_t)s->n++;
}

static int bsink_dep(void *ctx, uint32_t rank, int64_t after, int64_t before,
                     llamp_edge_kind_t kind) {
  bsink_t *s = ctx;
  (void)rank;
  return llamp_builder_depend(s->b, s->ids[after], s->ids[before], kind, 0);
}

static const char *bsink_error(void *ctx) {
  bsink_t *s = ctx;
  if (*s->msg) return s->msg;
  return s->b ? llamp_builder_error(s->b) : NULL;
}

llamp_graph_t *llamp_synth_build(const char *pattern, int argc, char *const *argv,
                                 llamp_synth_stats_t *stats, char *err, size_t errlen) {
  char source[96];
  snprintf(source, sizeof source, "synth:%s", pattern ? pattern : "");
  bsink_t s;
  memset(&s, 0, sizeof s);
  s.source = source;
  s.cur_rank = -1;
  llamp_synth_sink_t sink = {&s, bsink_begin, bsink_op, bsink_dep, NULL, bsink_error};
  int rc = llamp_synth_run(pattern, argc, argv, &sink, stats, err, errlen);
  free(s.ids);
  if (rc != 0) {
    if (s.b) llamp_builder_destroy(s.b);
    return NULL;
  }
  if (!s.b) { /* a pattern always begins; be safe anyway */
    snprintf(err, errlen, "%s: nothing was generated", pattern);
    return NULL;
  }
  return llamp_builder_finish(s.b, err, errlen);
}

llamp_graph_t *llamp_synth_graph(const char *pattern, const char *params, char *err,
                                 size_t errlen) {
  char buf[2048];
  char *words[64];
  int n = 0;
  if (!params) params = "";
  if (strlen(params) >= sizeof buf) {
    snprintf(err, errlen, "%s: parameter string too long", pattern);
    return NULL;
  }
  strcpy(buf, params);
  for (char *tok = strtok(buf, ", \t\n"); tok; tok = strtok(NULL, ", \t\n")) {
    if (n == 64) {
      snprintf(err, errlen, "%s: too many parameters", pattern);
      return NULL;
    }
    words[n++] = tok;
  }
  return llamp_synth_build(pattern, n, words, NULL, err, errlen);
}

/* ---- sink 2: streaming GOAL text ----------------------------------------------------- */

#define GOAL_BUF (4u << 20) /* 4 MiB */
#define GOAL_LINE_MAX 128   /* longest line we ever format */

struct llamp_synth_goal {
  FILE *f;
  char name[256];
  char *buf;
  size_t pos;
  uint64_t written;
  uint32_t num_ranks;
  int64_t cur_rank; /* rank whose block is open, -1 none */
  int64_t next_local;
  int failed;
  char msg[512];
};

/* "00".."99" for two digits at a time. */
static const char digits2[201] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243"
    "4445464748495051525354555657585960616263646566676869707172737475767778798081828384858687"
    "888990919293949596979899";

/* Decimal digits of v at p; returns the end.  Counts the digits first, then
 * fills them backwards two at a time straight into the buffer (no memcpy). */
static inline char *put_u64(char *p, uint64_t v) {
  unsigned n = 1;
  for (uint64_t t = v; t >= 10; t /= 10) n++;
  char *e = p + n, *q = e;
  while (v >= 100) {
    unsigned i = (unsigned)(v % 100) * 2;
    v /= 100;
    q -= 2;
    q[0] = digits2[i];
    q[1] = digits2[i + 1];
  }
  if (v >= 10) {
    q[-2] = digits2[v * 2];
    q[-1] = digits2[v * 2 + 1];
  } else {
    q[-1] = (char)('0' + v);
  }
  return e;
}
static char *put_i32(char *p, int32_t v) {
  if (v < 0) {
    *p++ = '-';
    return put_u64(p, (uint64_t)(-(int64_t)v));
  }
  return put_u64(p, (uint64_t)v);
}
#define PUT_LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* Write the buffer out; on a short write remember the error. */
static int goal_flush(llamp_synth_goal_t *w) {
  if (w->pos && !w->failed) {
    size_t n = fwrite(w->buf, 1, w->pos, w->f);
    w->written += n;
    if (n != w->pos) {
      w->failed = 1;
      snprintf(w->msg, sizeof w->msg, "%s: write failed: %s", w->name,
               errno ? strerror(errno) : "short write");
    }
  }
  w->pos = 0;
  return w->failed ? -1 : 0;
}

/* Room for one more line. */
static inline int goal_room(llamp_synth_goal_t *w) {
  if (w->pos + GOAL_LINE_MAX > GOAL_BUF) return goal_flush(w);
  return w->failed ? -1 : 0;
}

llamp_synth_goal_t *llamp_synth_goal_create(FILE *f, const char *name) {
  llamp_synth_goal_t *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->buf = malloc(GOAL_BUF);
  if (!w->buf) {
    free(w);
    return NULL;
  }
  w->f = f;
  snprintf(w->name, sizeof w->name, "%s", name ? name : "GOAL output");
  w->cur_rank = -1;
  return w;
}

static int goal_begin(void *ctx, uint32_t num_ranks) {
  llamp_synth_goal_t *w = ctx;
  w->num_ranks = num_ranks;
  if (goal_room(w) != 0) return -1;
  char *p = w->buf + w->pos;
  p = PUT_LIT(p, "num_ranks ");
  p = put_u64(p, num_ranks);
  *p++ = '\n';
  w->pos = (size_t)(p - w->buf);
  return 0;
}

/* Close the open rank block and emit empty blocks up to (excluding) `upto`. */
static int goal_advance(llamp_synth_goal_t *w, int64_t upto) {
  if (w->cur_rank >= 0) {
    if (goal_room(w) != 0) return -1;
    w->buf[w->pos++] = '}';
    w->buf[w->pos++] = '\n';
  }
  for (int64_t r = w->cur_rank + 1; r < upto; r++) {
    if (goal_room(w) != 0) return -1;
    char *p = w->buf + w->pos;
    p = PUT_LIT(p, "rank ");
    p = put_u64(p, (uint64_t)r);
    p = PUT_LIT(p, " {\n}\n");
    w->pos = (size_t)(p - w->buf);
  }
  return 0;
}

static int64_t goal_op(void *ctx, uint32_t rank, llamp_vertex_kind_t kind, uint64_t value,
                       int32_t peer, int32_t tag) {
  llamp_synth_goal_t *w = ctx;
  if ((int64_t)rank != w->cur_rank) {
    if ((int64_t)rank < w->cur_rank || rank >= w->num_ranks) {
      snprintf(w->msg, sizeof w->msg, "%s: rank %" PRIu32 " out of order", w->name, rank);
      return -1;
    }
    if (goal_advance(w, rank) != 0) return -1;
    if (goal_room(w) != 0) return -1;
    char *p = w->buf + w->pos;
    p = PUT_LIT(p, "rank ");
    p = put_u64(p, rank);
    p = PUT_LIT(p, " {\n");
    w->pos = (size_t)(p - w->buf);
    w->cur_rank = rank;
    w->next_local = 0;
  }
  if (goal_room(w) != 0) return -1;
  int64_t id = w->next_local++;
  char *p = w->buf + w->pos;
  *p++ = 'l';
  p = put_u64(p, (uint64_t)id);
  switch (kind) {
  case LLAMP_VERTEX_CALC:
    p = PUT_LIT(p, ": calc ");
    p = put_u64(p, value);
    break;
  case LLAMP_VERTEX_SEND:
    p = PUT_LIT(p, ": send ");
    p = put_u64(p, value);
    p = PUT_LIT(p, "b to ");
    p = put_i32(p, peer);
    p = PUT_LIT(p, " tag ");
    p = put_i32(p, tag);
    break;
  default:
    p = PUT_LIT(p, ": recv ");
    p = put_u64(p, value);
    p = PUT_LIT(p, "b from ");
    p = put_i32(p, peer);
    p = PUT_LIT(p, " tag ");
    p = put_i32(p, tag);
    break;
  }
  *p++ = '\n';
  w->pos = (size_t)(p - w->buf);
  return id;
}

static int goal_dep(void *ctx, uint32_t rank, int64_t after, int64_t before,
                    llamp_edge_kind_t kind) {
  llamp_synth_goal_t *w = ctx;
  if ((int64_t)rank != w->cur_rank || after < 0 || before < 0 || after >= w->next_local ||
      before >= w->next_local) {
    snprintf(w->msg, sizeof w->msg, "%s: dependency l%" PRId64 " -> l%" PRId64
             " of rank %" PRIu32 " names an op not yet written", w->name, after, before, rank);
    return -1;
  }
  if (goal_room(w) != 0) return -1;
  char *p = w->buf + w->pos;
  *p++ = 'l';
  p = put_u64(p, (uint64_t)after);
  if (kind == LLAMP_EDGE_IREQUIRES)
    p = PUT_LIT(p, " irequires l");
  else
    p = PUT_LIT(p, " requires l");
  p = put_u64(p, (uint64_t)before);
  *p++ = '\n';
  w->pos = (size_t)(p - w->buf);
  return 0;
}

static int goal_end(void *ctx) {
  llamp_synth_goal_t *w = ctx;
  return goal_advance(w, (int64_t)w->num_ranks);
}

static const char *goal_error(void *ctx) {
  llamp_synth_goal_t *w = ctx;
  return w->msg;
}

void llamp_synth_goal_sink(llamp_synth_goal_t *w, llamp_synth_sink_t *sink) {
  sink->ctx = w;
  sink->begin = goal_begin;
  sink->op = goal_op;
  sink->dep = goal_dep;
  sink->end = goal_end;
  sink->error = goal_error;
}

int llamp_synth_goal_finish(llamp_synth_goal_t *w, uint64_t *bytes, char *err, size_t errlen) {
  int rc = goal_flush(w);
  if (rc == 0 && fflush(w->f) != 0) {
    snprintf(w->msg, sizeof w->msg, "%s: write failed: %s", w->name, strerror(errno));
    rc = -1;
  }
  if (rc != 0) snprintf(err, errlen, "%s", w->msg);
  if (bytes) *bytes = w->written;
  free(w->buf);
  free(w);
  return rc;
}

int llamp_synth_write_goal(const char *pattern, int argc, char *const *argv, const char *path,
                           llamp_synth_stats_t *stats, uint64_t *bytes, char *err,
                           size_t errlen) {
  /* check the pattern name and parameters before creating the file */
  const llamp_synth_pattern_t *pat = llamp_synth_find(pattern);
  synth_args_t a;
  if (!pat) {
    unknown_pattern(pattern, err, errlen);
    return -1;
  }
  if (parse_args(pat, argc, argv, &a, err, errlen) != 0) return -1;
  int to_stdout = !strcmp(path, "-");
  FILE *f = to_stdout ? stdout : fopen(path, "wb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    return -1;
  }
  llamp_synth_goal_t *w = llamp_synth_goal_create(f, to_stdout ? "stdout" : path);
  if (!w) {
    snprintf(err, errlen, "%s: out of memory", path);
    if (!to_stdout) fclose(f);
    return -1;
  }
  llamp_synth_sink_t sink;
  llamp_synth_goal_sink(w, &sink);
  int rc = llamp_synth_run(pattern, argc, argv, &sink, stats, err, errlen);
  char ferr[512];
  if (llamp_synth_goal_finish(w, bytes, ferr, sizeof ferr) != 0 && rc == 0) {
    snprintf(err, errlen, "%s", ferr);
    rc = -1;
  }
  if (!to_stdout && fclose(f) != 0 && rc == 0) {
    snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
    rc = -1;
  }
  if (rc != 0 && !to_stdout) remove(path); /* no partial file left behind */
  return rc;
}
