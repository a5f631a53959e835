/* LP export: the engine's model as a CPLEX-LP or free-MPS file.
 *
 * Every row has the shape
 *     X_plus - y_minus - nl*l - nG*G - no*o - ng*gap >= rhs
 * with X_plus = y<w> or t and y_minus optional.  Rows are generated on the
 * fly from the graph arrays by edge_rows() / vertex_rows(), in one fixed
 * order; the CPLEX writer prints them row by row, the MPS writer (column
 * oriented) walks the same generators column by column, using an out-edge
 * index to find every row a y<v> appears in.  The costs mirror
 * engine.c vcost()/ecost()/build_plan() term by term:
 *
 *   requires u->w   y_w >= end(u)                     end(u) = y_u + cost(u)
 *      u a rendezvous send: y_w >= y_u + o  and  y_w >= y_r + l + bw(s) G
 *   irequires u->w  y_w >= y_u
 *   message u->r    eager: y_r >= y_u + o + l + bw(s) G;  rendezvous: y_r >= y_u + o + l
 *   gap (g > 0)     y_v >= y_prev + gap   (previous send / recv of the rank)
 *   end             t >= y_v + cost(v);  rendezvous recv also t >= y_v + l + bw(s) G
 *   cost(v)         calc: duration; send, eager recv: o; rendezvous recv: 2l + bw(s) G + o
 *   bw(s)           s - 1 (s >= 1; 0 for s = 0), or s with size_g_full
 *   async_small     (SMPI's smpi/async-small-thresh A) a message of s >= A
 *                   bytes is charged as a direct rendezvous one (its receive
 *                   holds the transfer), but its sender waits only when s > S
 *   size-dependent  (p->net) every o of a send or receive gains its constant
 *                   cpu(v), every l + bw(s) G becomes l + c(s) + k(s) G, and
 *                   an irequires edge from an Isend costs its cpu(u)
 *                   (llamp_netmodel_vertex), constants on the right-hand side
 *   per-pair costs  (p->pairs) each latency term l of a message of kind k is
 *                   l + c0[k] + sum_x coef[k][x] X_x (the X_x, l_wire,
 *                   d_switch ..., are columns too) and each byte G gscale[k];
 *                   a message to oneself has no l, no G, no X_x: its host's
 *                   route to itself, constants (engine.c build_kinds)
 *
 * An end row is left out when v has a `requires` or message out-edge: that
 * edge's row and its target's end already imply it (all costs are >= 0), so
 * the feasible set, the optimum and the duals are unchanged. */
#include "llamp_lp.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define US LLAMP_LP_UNITS_PER_SECOND
#define NONE UINT64_MAX

/* ---- buffered output ------------------------------------------------------ */

typedef struct {
  FILE *f;
  size_t n;
  int failed;
  char buf[1 << 16];
} out_t;

static void out_flush(out_t *o) {
  if (o->n && !o->failed && fwrite(o->buf, 1, o->n, o->f) != o->n) o->failed = 1;
  o->n = 0;
}

static inline void put_mem(out_t *o, const char *s, size_t len) {
  if (o->n + len > sizeof o->buf) {
    out_flush(o);
    if (len > sizeof o->buf) {
      if (!o->failed && fwrite(s, 1, len, o->f) != len) o->failed = 1;
      return;
    }
  }
  memcpy(o->buf + o->n, s, len);
  o->n += len;
}

static inline void put_str(out_t *o, const char *s) { put_mem(o, s, strlen(s)); }

static inline void put_ch(out_t *o, char c) {
  if (o->n == sizeof o->buf) out_flush(o);
  o->buf[o->n++] = c;
}

static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
                                     "25262728293031323334353637383940414243444546474849"
                                     "50515253545556575859606162636465666768697071727374"
                                     "75767778798081828384858687888990919293949596979899";

static inline void put_u64(out_t *o, uint64_t x) {
  char tmp[24];
  int k = 24;
  while (x >= 100) {
    unsigned d = (unsigned)(x % 100) * 2;
    x /= 100;
    tmp[--k] = digit_pairs[d + 1];
    tmp[--k] = digit_pairs[d];
  }
  if (x >= 10) {
    tmp[--k] = digit_pairs[x * 2 + 1];
    tmp[--k] = digit_pairs[x * 2];
  } else {
    tmp[--k] = (char)('0' + x);
  }
  put_mem(o, tmp + k, (size_t)(24 - k));
}

/* A number: integers as integers; a value within 2 ulp of a short decimal
 * r / 10^k (k <= 9: a nanosecond-resolution duration in us, 0.1 us scaled
 * from 1e-7 s...) as that decimal -- the seconds-to-microseconds scaling
 * itself is only exact to about 1 ulp; anything else with 17 significant
 * digits (an exact round trip). */
static void put_num(out_t *o, double x) {
  static const double p10[10] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
  if (x == 0) {
    put_ch(o, '0');
    return;
  }
  double ax = fabs(x);
  if (ax < 1e15) {
    for (int k = 0; k <= 9; k++) {
      double r = nearbyint(ax * p10[k]);
      if (r >= 9007199254740992.0) break; /* 2^53: no longer exact */
      if (fabs(r / p10[k] - ax) > 4.5e-16 * ax) continue;
      uint64_t ir = (uint64_t)r;
      if (x < 0) put_ch(o, '-');
      put_u64(o, ir / (uint64_t)p10[k]);
      if (k) {
        char frac[10];
        uint64_t f = ir % (uint64_t)p10[k];
        for (int i = k - 1; i >= 0; i--) {
          frac[i] = (char)('0' + f % 10);
          f /= 10;
        }
        int len = k;
        while (len > 0 && frac[len - 1] == '0') len--;
        put_ch(o, '.');
        put_mem(o, frac, (size_t)len);
      }
      return;
    }
  }
  char tmp[40];
  int len = snprintf(tmp, sizeof tmp, "%.17g", x);
  put_mem(o, tmp, (size_t)len);
}

/* ---- the model ------------------------------------------------------------ */

typedef struct {
  char tag;       /* 'e' in-edge, 'c' rendezvous completion, 's' gap, 'b' burst, 'x' end, 'd' done */
  uint64_t id;    /* edge index for e/c, vertex id for s/x/d */
  uint64_t plus;  /* y<plus>, or NONE for t */
  uint64_t minus; /* y<minus>, or NONE */
  double nl, nG, no, ng, rhs;
  double nx[LLAMP_MAX_XPARAMS]; /* the per-pair costs' extra parameters */
} row_t;

typedef struct {
  const llamp_graph_t *g;
  llamp_graph_arrays_t a;
  double S;        /* a sender above it waits for its transfer */
  double M;        /* a message above it starts at its match (S, or below A: engine.c leave_max) */
  int full, gap, direct; /* direct: SMPI-like rendezvous (llamp_params_t.rndv_direct) */
  int nic;               /* the NIC rule: a gap row also costs the previous message's bytes */
  uint32_t *prev_msg, *next_msg; /* gap pairs (gap on), UINT32_MAX = none */
  const uint32_t *burst_from;    /* the NIC rule's runs (receive -> their first send), or NULL */
  const double *ahead_bytes, *ahead_count; /* what is ahead of those receives' messages */
  const double *chain_bytes;               /* a receive chain edge's bytes beyond its own */
  const uint8_t *chain_reads;    /* 1: a rendezvous receive after the previous one's read, or NULL */
  uint32_t *burst_off, *burst_to; /* the same inverted: a send's burst receives (MPS only) */
  uint8_t *end_out;              /* 1: has a requires or message out-edge */
  uint8_t *cpu_on;               /* 1: a receive whose CPU edges bind (engine.c plan_cpu_edges), or NULL */
  uint32_t *out_off, *out_e, *out_w; /* out-edges: edge index, target (MPS only) */
  const llamp_netmodel_t *net;       /* size-dependent costs, or NULL */
  uint8_t *nonblocking;              /* net: send charged as an MPI_Isend (irequired or F_ISEND) */
  const llamp_pairs_t *pairs;        /* per-pair costs, or NULL */
  const double *observed;            /* observed transfer times per receive (engine.c observed_excess) */
  double at[LLAMP_NUM_PARAMS + LLAMP_MAX_XPARAMS]; /* the creation point they hold at, in LP units */
  uint32_t K;                        /* their extra parameters (columns after gap) */
  unsigned wrt;                      /* MAX_LATENCY: the maximised parameter's column */
} model_t;

static inline double bw_bytes(double s, int full) { return full ? s : (s >= 1 ? s - 1 : 0); }

/* The send's message starts at its match (its receive's cost holds the
 * transfer); the sender waits for it only above S.  A synchronous send
 * (LLAMP_VERTEX_F_SYNC) does both whatever its size (engine.c send_sync). */
static inline int send_sync(const model_t *m, uint64_t u) { return llamp_graph_arrays_sync(&m->a, u); }
static inline int send_at_match(const model_t *m, uint64_t u) { return m->a.value[u] > m->M || send_sync(m, u); }
static inline int send_waits(const model_t *m, uint64_t u) { return m->a.value[u] > m->S || send_sync(m, u); }

/* The send of a receive: its size decides the protocol and the charge. */
static inline double recv_size(const model_t *m, uint64_t v) {
  return m->a.value[llamp_graph_partner(m->g, v)];
}
static inline int recv_at_match(const model_t *m, uint64_t v) {
  return send_at_match(m, llamp_graph_partner(m->g, v));
}

/* The size-dependent costs of a send or receive vertex (zero without net). */
static void net_of(const model_t *m, uint64_t v, llamp_netmodel_vertex_t *x) {
  memset(x, 0, sizeof *x);
  if (!m->net || m->a.kind[v] == LLAMP_VERTEX_CALC) return;
  int send = m->a.kind[v] == LLAMP_VERTEX_SEND;
  uint64_t u = send ? v : llamp_graph_partner(m->g, v);
  llamp_netmodel_vertex(m->net, send, send ? m->nonblocking[v] : 0, m->a.value[u], m->S, send_sync(m, u), x);
}

/* A send or receive of a message from a rank to itself: no l, no G, no
 * extra parameter; its latency and time per byte are its host's route to
 * itself with per-pair costs, else 0 (docs/model.md, "Messages to oneself"). */
static inline int to_self(const model_t *m, uint64_t v) {
  if (m->a.kind[v] == LLAMP_VERTEX_CALC ||
      llamp_graph_rank(m->g, v) != llamp_graph_rank(m->g, llamp_graph_partner(m->g, v)))
    return 0;
  int32_t tag = llamp_graph_tag(m->g, v); /* sched's stand-ins for a transfer cost l (llamp_graph.h) */
  return !(tag >= LLAMP_TAG_NET_SELF && tag < LLAMP_TAG_NET_SELF_END);
}

/* The costs of vertex v's message kind, as engine.c's build_kinds: a latency
 * term costs kl l + c0 + coef . X, a byte kg G + kb. */
typedef struct {
  double kl, c0, kg, kb;
  const double *coef; /* K entries, or NULL */
} mkind_t;

static inline void kind_of(const model_t *m, uint64_t v, mkind_t *k) {
  const llamp_pairs_t *q = m->pairs;
  uint32_t r = llamp_graph_rank(m->g, v);
  k->coef = NULL;
  if (to_self(m, v)) {
    k->kl = k->kg = 0;
    k->c0 = q && q->self_lat ? q->self_lat[r] : 0;
    k->kb = q && q->self_G ? q->self_G[r] : 0;
    return;
  }
  k->kl = k->kg = 1;
  k->c0 = k->kb = 0;
  if (!q) return;
  uint32_t o = llamp_graph_rank(m->g, llamp_graph_partner(m->g, v));
  uint32_t kk = m->a.kind[v] == LLAMP_VERTEX_SEND ? llamp_pairs_kind(q, r, o) : llamp_pairs_kind(q, o, r);
  if (kk >= q->num_kinds) kk = 0; /* the engine refuses such a graph before any export */
  k->c0 = q->c0[kk];
  k->kg = q->gscale[kk];
  if (m->K) k->coef = q->coef + (size_t)kk * m->K;
}

/* n latency terms of vertex v's message. */
static inline void add_lat(const model_t *m, uint64_t v, double n, row_t *r) {
  mkind_t k;
  kind_of(m, v, &k);
  r->nl += n * k.kl;
  r->rhs += n * k.c0 * US;
  if (k.coef)
    for (uint32_t x = 0; x < m->K; x++) r->nx[x] += n * k.coef[x];
}

/* b bytes of vertex v's message charged at G. */
static inline void add_bytes(const model_t *m, uint64_t v, double b, row_t *r) {
  mkind_t k;
  kind_of(m, v, &k);
  r->nG += b * k.kg;
  r->rhs += b * k.kb * US;
}

/* A message's transfer l + bw(s) G, or l + c(s) + k(s) G (s sent by v); a
 * message to oneself's c(s) scales with its route's latency (engine.c self_c),
 * and so does any message's with SimGrid's factors (engine.c costs_fill).
 * With observed transfer times its constant makes it cost the observed one
 * at the creation point (engine.c observed_excess). */
static void add_model_transfer(const model_t *m, uint64_t v, double s, row_t *r);
static inline void add_transfer(const model_t *m, uint64_t v, double s, row_t *r) {
  if (!m->observed || m->a.kind[v] == LLAMP_VERTEX_CALC) {
    add_model_transfer(m, v, s, r);
    return;
  }
  double x = m->observed[m->a.kind[v] == LLAMP_VERTEX_RECV ? v : llamp_graph_partner(m->g, v)];
  if (!isfinite(x)) {
    add_model_transfer(m, v, s, r);
    return;
  }
  row_t t;
  memset(&t, 0, sizeof t);
  add_model_transfer(m, v, s, &t);
  double at = t.nl * m->at[LLAMP_PARAM_L] + t.nG * m->at[LLAMP_PARAM_G] + t.no * m->at[LLAMP_PARAM_O] +
              t.ng * m->at[LLAMP_PARAM_GAP] + t.rhs;
  for (uint32_t c = 0; c < m->K; c++) at += t.nx[c] * m->at[LLAMP_NUM_PARAMS + c];
  r->nl += t.nl, r->nG += t.nG, r->no += t.no, r->ng += t.ng;
  for (uint32_t c = 0; c < LLAMP_MAX_XPARAMS; c++) r->nx[c] += t.nx[c];
  r->rhs += t.rhs + (x * US - at);
}
static void add_model_transfer(const model_t *m, uint64_t v, double s, row_t *r) {
  add_lat(m, v, 1, r);
  if (m->net) {
    llamp_netmodel_vertex_t x;
    net_of(m, v, &x);
    add_bytes(m, v, x.k, r);
    double c = x.c;
    if (to_self(m, v)) {
      mkind_t k;
      kind_of(m, v, &k);
      c = m->net->L_ref > 0 ? c * k.c0 / m->net->L_ref : 0;
    } else if (m->pairs && m->pairs->num_kinds) { /* SimGrid's lat-factor on the route's own latency */
      const llamp_pairs_t *q = m->pairs;
      uint32_t r = llamp_graph_rank(m->g, v), o = llamp_graph_rank(m->g, llamp_graph_partner(m->g, v));
      uint32_t kk = m->a.kind[v] == LLAMP_VERTEX_SEND ? llamp_pairs_kind(q, r, o) : llamp_pairs_kind(q, o, r);
      if (kk < q->num_kinds) c = llamp_netmodel_route_c(m->net, c, llamp_pairs_route_latency(q, kk));
    }
    r->rhs += c * US;
  } else {
    add_bytes(m, v, bw_bytes(s, m->full), r);
  }
}

/* Add cost(u) (the vertex's own duration) to a row. */
static inline void add_vertex_cost(const model_t *m, uint64_t u, row_t *r) {
  llamp_netmodel_vertex_t x;
  switch (m->a.kind[u]) {
  case LLAMP_VERTEX_CALC: r->rhs += m->a.value[u] * US; break;
  case LLAMP_VERTEX_SEND:
    r->no += 1;
    if (m->net) net_of(m, u, &x), r->rhs += x.cpu * US;
    break;
  default: {
    double s = recv_size(m, u);
    r->no += 1;
    if (m->net) net_of(m, u, &x), r->rhs += x.cpu * US;
    if (recv_at_match(m, u)) {
      if (!m->direct) add_lat(m, u, 1, r); /* RDMA read: the request; both: the data (next line) */
      add_transfer(m, u, s, r);
    }
  }
  }
}

static inline void row_init(row_t *r, char tag, uint64_t id, uint64_t plus, uint64_t minus) {
  r->tag = tag;
  r->id = id;
  r->plus = plus;
  r->minus = minus;
  r->nl = r->nG = r->no = r->ng = r->rhs = 0;
  memset(r->nx, 0, sizeof r->nx);
}

/* Rows of in-edge e (target w): 1, or 2 for a rendezvous send's requires. */
static int edge_rows(const model_t *m, uint64_t w, uint64_t e, row_t *r) {
  uint32_t word = m->a.in_src[e];
  uint64_t u = word & LLAMP_EDGE_SRC_MASK;
  unsigned k = word >> LLAMP_EDGE_KIND_SHIFT;
  if (k == LLAMP_EDGE_CPU && !m->cpu_on[w]) return 0; /* dropped, as the engine's plan does */
  row_init(&r[0], 'e', e, w, u);
  if (k == LLAMP_EDGE_IREQUIRES) {
    if (m->net && m->a.kind[u] == LLAMP_VERTEX_SEND) { /* an Isend's CPU time */
      llamp_netmodel_vertex_t x;
      net_of(m, u, &x);
      r[0].rhs += x.start * US;
    }
    return 1;
  }
  if (k == LLAMP_EDGE_CPU) { /* binding: after u's end (a send's own, not its completion) */
    add_vertex_cost(m, u, &r[0]);
    return 1;
  }
  if (k == LLAMP_EDGE_MESSAGE) {
    add_vertex_cost(m, u, &r[0]); /* from the end of the send */
    if (!send_at_match(m, u)) add_transfer(m, u, m->a.value[u], &r[0]);
    else if (!m->direct) add_lat(m, u, 1, &r[0]); /* the RDMA read's request; a direct rendezvous has none */
    return 1;
  }
  if (m->a.kind[u] == LLAMP_VERTEX_SEND && send_waits(m, u)) {
    add_vertex_cost(m, u, &r[0]); /* end(u) = y_u + o ... */
    uint64_t rv = llamp_graph_partner(m->g, u);
    row_init(&r[1], 'c', e, w, rv);
    add_transfer(m, rv, m->a.value[u], &r[1]); /* ... and the data has been read: start(recv) + l + bw G */
    return 2;
  }
  add_vertex_cost(m, u, &r[0]);
  return 1;
}

/* Rows attached to vertex v: its burst row, its gap row, its end row, its
 * completion row. */
static int vertex_rows(const model_t *m, uint64_t v, row_t *r) {
  int k = 0;
  if (m->burst_from && m->burst_from[v] != UINT32_MAX) {
    /* start(v) >= end(u) + the messages ahead of v's in u's run + v's transfer */
    uint64_t u = m->burst_from[v];
    row_init(&r[k], 'b', v, v, u);
    add_vertex_cost(m, u, &r[k]);
    /* a rendezvous receive's start is its read's: its transfer is in its cost */
    if (!recv_at_match(m, v)) add_transfer(m, llamp_graph_partner(m->g, v), recv_size(m, v), &r[k]);
    if (m->ahead_bytes) add_bytes(m, llamp_graph_partner(m->g, v), m->ahead_bytes[v], &r[k]);
    if (m->ahead_count) r[k].ng += m->ahead_count[v];
    k++;
  }
  if (m->gap && m->prev_msg[v] != UINT32_MAX) {
    row_init(&r[k], 's', v, v, m->prev_msg[v]);
    r[k].ng = 1;
    /* the NIC rule (the engine's plan, engine.c E_GAP / E_GAPR): a send
     * after the previous send: start(v) >= start(prev) + g + bw(s_prev) G;
     * an eager receive (its start is the end of its data) after the previous
     * receive: + g + bw(s_v) G, the message's own transfer; a rendezvous
     * receive: + g, or + g + bw(s_prev) G after a rendezvous receive whose
     * read it waits for (engine.c build_plan, llamp_engine_chain_reads) */
    uint64_t u = m->prev_msg[v];
    if (m->nic && m->a.kind[v] == LLAMP_VERTEX_RECV) {
      if (!recv_at_match(m, v)) u = v;
      /* the end of a burst to one host: its earlier messages' bytes too */
      if (u == v && m->chain_bytes) add_bytes(m, llamp_graph_partner(m->g, v), m->chain_bytes[v], &r[k]);
      else if (!(m->chain_reads && m->chain_reads[v] && recv_at_match(m, u))) u = NONE;
    }
    if (m->nic && u != NONE) {
      if (m->net) {
        llamp_netmodel_vertex_t x;
        net_of(m, u, &x);
        add_bytes(m, u, x.k, &r[k]);
      } else {
        add_bytes(m, u, bw_bytes(m->a.kind[u] == LLAMP_VERTEX_SEND ? m->a.value[u] : recv_size(m, u), m->full),
                  &r[k]);
      }
    }
    k++;
  }
  if (!m->end_out[v]) {
    row_init(&r[k], 'x', v, NONE, v);
    add_vertex_cost(m, v, &r[k]);
    k++;
  }
  if (m->a.kind[v] == LLAMP_VERTEX_RECV) {
    double s = recv_size(m, v);
    if (recv_at_match(m, v)) {
      row_init(&r[k], 'd', v, NONE, v);
      add_transfer(m, v, s, &r[k]);
      k++;
    }
  }
  return k;
}

static void put_row_name(out_t *o, const row_t *r) {
  switch (r->tag) {
  case 'e': put_ch(o, 'e'); break;
  case 'c': put_ch(o, 'c'); break;
  case 's': put_ch(o, 's'); break;
  case 'b': put_ch(o, 'b'); break;
  case 'x': put_mem(o, "end", 3); break;
  default: put_mem(o, "done", 4); break;
  }
  put_u64(o, r->id);
}

static inline void put_y(out_t *o, uint64_t v) {
  put_ch(o, 'y');
  put_u64(o, v);
}

/* ---- set-up ----------------------------------------------------------------- */

static void model_free(model_t *m) {
  free(m->burst_off);
  free(m->burst_to);
  free(m->prev_msg);
  free(m->next_msg);
  free(m->end_out);
  free(m->cpu_on);
  free(m->out_off);
  free(m->out_e);
  free(m->out_w);
  free(m->nonblocking);
}

static int model_init(model_t *m, const llamp_graph_t *g, const llamp_params_t *p, int maxobj,
                      llamp_param_t wrt, int need_out,
                      char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  m->g = g;
  llamp_graph_arrays(g, &m->a);
  m->S = p->S;
  m->M = llamp_params_leave_max(p);
  m->full = p->size_g_full != 0;
  m->direct = p->rndv_direct != 0;
  m->gap = p->g > 0 || p->nic;
  m->nic = p->nic != 0;
  m->net = p->net;
  m->pairs = p->pairs;
  m->observed = p->observed;
  for (uint32_t c = 0; c < llamp_params_count(p) && c < LLAMP_NUM_PARAMS + LLAMP_MAX_XPARAMS; c++)
    m->at[c] = llamp_params_get(p, (llamp_param_t)c) * US;
  m->K = p->pairs ? p->pairs->num_params : 0;
  uint64_t n = m->a.n, E = m->a.m;
  if (n >= UINT32_MAX || E >= UINT32_MAX) {
    snprintf(err, errlen, "graph too large for the LP exporter");
    return -1;
  }
  m->end_out = calloc(n ? n : 1, 1);
  if (!m->end_out) goto oom;
  /* A route's constant is below 0 when its reference latency is counted in
   * its parameters (l_wire x links...).  If a latency term can go negative
   * within the LP's bounds, an out-edge no longer implies its source's end:
   * then every end is written. */
  int negative = 0;
  const llamp_pairs_t *q = p->pairs;
  for (uint32_t k = 0; q && k < q->num_kinds; k++) {
    double lat = (maxobj && wrt == LLAMP_PARAM_L ? 0 : p->L) + q->c0[k];
    for (uint32_t x = 0; x < q->num_params; x++)
      lat += q->coef[(size_t)k * q->num_params + x] *
             (maxobj && wrt == LLAMP_PARAM_X(x) ? 0 : p->x[x]);
    negative |= lat < 0;
  }
  for (uint32_t r = 0; q && q->self_lat && r < q->ranks; r++) negative |= q->self_lat[r] < 0;
  for (uint64_t v = 0; v < n; v++) /* the receives whose CPU edges bind, as the engine's plan */
    for (uint32_t e = m->a.in_beg[v]; e < m->a.in_end[v]; e++) {
      if ((m->a.in_src[e] >> LLAMP_EDGE_KIND_SHIFT) != LLAMP_EDGE_CPU) continue;
      if (!m->cpu_on && !(m->cpu_on = calloc(n, 1))) goto oom;
      uint64_t u = llamp_graph_partner(g, v);
      m->cpu_on[v] = (uint8_t)llamp_params_cpu_edge_binds(p, p->net, m->a.value[u], send_sync(m, u));
      break;
    }
  for (uint64_t v = 0; v < n && !negative; v++)
    for (uint32_t e = m->a.in_beg[v]; e < m->a.in_end[v]; e++) {
      unsigned k = m->a.in_src[e] >> LLAMP_EDGE_KIND_SHIFT;
      if (k == LLAMP_EDGE_CPU && !m->cpu_on[v]) continue; /* dropped */
      if (k != LLAMP_EDGE_IREQUIRES) m->end_out[m->a.in_src[e] & LLAMP_EDGE_SRC_MASK] = 1;
    }
  if (m->net) {
    if (!(m->nonblocking = calloc(n ? n : 1, 1))) goto oom;
    for (uint64_t v = 0; m->a.flags && v < n; v++) /* charged as MPI_Isends (engine.c) */
      if (m->a.flags[v] & LLAMP_VERTEX_F_ISEND) m->nonblocking[v] = 1;
    for (uint64_t e = 0; e < E; e++) {
      uint32_t u = m->a.in_src[e] & LLAMP_EDGE_SRC_MASK;
      if ((m->a.in_src[e] >> LLAMP_EDGE_KIND_SHIFT) == LLAMP_EDGE_IREQUIRES && m->a.kind[u] == LLAMP_VERTEX_SEND)
        m->nonblocking[u] = (uint8_t)llamp_graph_send_charge(&m->a, u);
    }
  }
  if (m->gap && p->gap_prev) { /* the engine's chains (the NIC rule's receive order) */
    m->prev_msg = malloc((n ? n : 1) * 4);
    m->next_msg = malloc((n ? n : 1) * 4);
    if (!m->prev_msg || !m->next_msg) goto oom;
    for (uint64_t v = 0; v < n; v++) m->next_msg[v] = UINT32_MAX;
    for (uint64_t v = 0; v < n; v++) {
      m->prev_msg[v] = p->gap_prev[v];
      if (p->gap_prev[v] != UINT32_MAX) m->next_msg[p->gap_prev[v]] = (uint32_t)v;
    }
  } else if (m->gap) { /* previous / next send (recv) of the same rank in posting order */
    uint32_t P = llamp_graph_num_ranks(g);
    uint32_t *rank_off = calloc((size_t)P + 1, 4), *posting = malloc((n ? n : 1) * 4);
    m->prev_msg = malloc((n ? n : 1) * 4);
    m->next_msg = malloc((n ? n : 1) * 4);
    if (!rank_off || !posting || !m->prev_msg || !m->next_msg) {
      free(rank_off);
      free(posting);
      goto oom;
    }
    for (uint64_t v = 0; v < n; v++) rank_off[m->a.rank[v] + 1]++;
    for (uint32_t r = 0; r < P; r++) rank_off[r + 1] += rank_off[r];
    for (uint64_t v = 0; v < n; v++)
      posting[rank_off[m->a.rank[v]] + llamp_graph_local_index(g, v)] = (uint32_t)v;
    for (uint64_t v = 0; v < n; v++) m->prev_msg[v] = m->next_msg[v] = UINT32_MAX;
    for (uint32_t r = 0; r < P; r++) {
      uint32_t last[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
      for (uint32_t i = rank_off[r]; i < rank_off[r + 1]; i++) {
        uint32_t v = posting[i], k = m->a.kind[v];
        if (k == LLAMP_VERTEX_CALC || (m->cpu_on && m->cpu_on[v])) continue; /* as engine.c chain_step */
        m->prev_msg[v] = last[k];
        if (last[k] != UINT32_MAX) m->next_msg[last[k]] = v;
        last[k] = v;
      }
    }
    free(rank_off);
    free(posting);
  }
  if (m->nic) m->chain_reads = p->chain_reads;
  if (m->nic && p->burst_from) { /* the engine's bursts (the NIC rule) */
    m->burst_from = p->burst_from;
    m->ahead_bytes = p->ahead_bytes;
    m->ahead_count = p->ahead_count;
    m->chain_bytes = p->chain_bytes;
    if (need_out) {
      m->burst_off = calloc(n + 1, 4);
      m->burst_to = malloc((n ? n : 1) * 4);
      if (!m->burst_off || !m->burst_to) goto oom;
      for (uint64_t v = 0; v < n; v++)
        if (p->burst_from[v] != UINT32_MAX) m->burst_off[p->burst_from[v] + 1]++;
      for (uint64_t v = 0; v < n; v++) m->burst_off[v + 1] += m->burst_off[v];
      for (uint64_t v = 0; v < n; v++)
        if (p->burst_from[v] != UINT32_MAX) m->burst_to[m->burst_off[p->burst_from[v]]++] = (uint32_t)v;
      for (uint64_t v = n; v > 0; v--) m->burst_off[v] = m->burst_off[v - 1];
      m->burst_off[0] = 0;
    }
  }
  if (need_out) {
    m->out_off = calloc(n + 1, 4);
    m->out_e = malloc((E ? E : 1) * 4);
    m->out_w = malloc((E ? E : 1) * 4);
    if (!m->out_off || !m->out_e || !m->out_w) goto oom;
    for (uint64_t e = 0; e < E; e++) m->out_off[(m->a.in_src[e] & LLAMP_EDGE_SRC_MASK) + 1]++;
    for (uint64_t v = 0; v < n; v++) m->out_off[v + 1] += m->out_off[v];
    for (uint64_t w = 0; w < n; w++)
      for (uint64_t e = m->a.in_beg[w]; e < m->a.in_end[w]; e++) {
        uint32_t slot = m->out_off[m->a.in_src[e] & LLAMP_EDGE_SRC_MASK]++;
        m->out_e[slot] = (uint32_t)e;
        m->out_w[slot] = (uint32_t)w;
      }
    for (uint64_t v = n; v > 0; v--) m->out_off[v] = m->out_off[v - 1];
    m->out_off[0] = 0;
  }
  return 0;
oom:
  snprintf(err, errlen, "out of memory while preparing the LP export");
  model_free(m);
  return -1;
}

/* Target vertex of every edge: walk vertices in order (edges are CSR by target). */
/* Run the body (the trailing macro argument) for every row, in the file's
 * row order, with `rows[i]` the current row. */
#define FOR_EACH_ROW(m, rows, i, ...)                                            \
  for (uint64_t v_ = 0; v_ < (m)->a.n; v_++) {                                   \
    for (uint64_t e_ = (m)->a.in_beg[v_]; e_ < (m)->a.in_end[v_]; e_++) {    \
      int nr_ = edge_rows((m), v_, e_, rows);                                    \
      for (int i = 0; i < nr_; i++) __VA_ARGS__                                  \
    }                                                                            \
    {                                                                            \
      int nr_ = vertex_rows((m), v_, rows);                                      \
      for (int i = 0; i < nr_; i++) __VA_ARGS__                                  \
    }                                                                            \
  }

/* ---- parameter columns ---------------------------------------------------------- */

/* Columns of the parameters, numbered as llamp_param_t: l, G, o, gap, then
 * the per-pair costs' extra parameters (named after them). */
static const char *col_name(const model_t *m, unsigned c) {
  static const char *names[LLAMP_NUM_PARAMS] = {"l", "G", "o", "gap"};
  return c < LLAMP_NUM_PARAMS ? names[c] : m->pairs->name[c - LLAMP_NUM_PARAMS];
}

static inline unsigned num_cols(const model_t *m) { return LLAMP_NUM_PARAMS + m->K; }

static inline int col_present(const model_t *m, unsigned c) {
  return c != LLAMP_PARAM_GAP || m->gap;
}

static inline double row_coef(const row_t *r, unsigned c) {
  switch (c) {
  case LLAMP_PARAM_L: return r->nl;
  case LLAMP_PARAM_G: return r->nG;
  case LLAMP_PARAM_O: return r->no;
  case LLAMP_PARAM_GAP: return r->ng;
  default: return r->nx[c - LLAMP_NUM_PARAMS];
  }
}

/* ---- header ------------------------------------------------------------------- */

static void put_header(out_t *o, const model_t *m, const llamp_params_t *p, llamp_lp_format_t fmt,
                       llamp_lp_objective_t obj, double t_max) {
  const char *c = fmt == LLAMP_LP_CPLEX ? "\\ " : "* ";
  char line[512];
  put_str(o, c);
  put_str(o, "smpi-llamp LLAMP linear program (docs/lp.md)\n");
  put_str(o, c);
  put_str(o, "UNITS: microseconds. y<v>, t, l, o, gap and t_max in us; G in us per byte; "
             "sizes in bytes.\n");
  put_str(o, c);
  put_str(o, "y<v> = start time of graph vertex v; t = runtime; l = L, G = G, o = o, gap = g.\n");
  snprintf(line, sizeof line,
           "graph: %u ranks, %llu vertices, %llu edges; S = %.15g B, bandwidth term %s, gap %s\n",
           llamp_graph_num_ranks(m->g), (unsigned long long)m->a.n, (unsigned long long)m->a.m,
           p->S, m->full ? "s*G" : "(s-1)*G", m->gap ? "on" : "off");
  put_str(o, c);
  put_str(o, line);
  snprintf(line, sizeof line, "parameters (us): L = %.15g, o = %.15g, G = %.15g us/B, g = %.15g\n",
           p->L * US, p->o * US, p->G * US, m->gap ? p->g * US : 0.0);
  put_str(o, c);
  put_str(o, line);
  if (m->net) {
    snprintf(line, sizeof line,
             "size-dependent costs (docs/model.md): constants on the right-hand sides, L_ref = %.15g us; "
             "model %.300s\n", m->net->L_ref * US, m->net->source[0] ? m->net->source : "(unnamed)");
    put_str(o, c);
    put_str(o, line);
  }
  if (m->pairs) {
    int n = snprintf(line, sizeof line,
                     "per-pair costs (docs/topology.md): %u route kinds; a latency term = l + c0 + "
                     "coefficients x extra parameters (us):", m->pairs->num_kinds);
    for (uint32_t x = 0; x < m->K && n > 0 && (size_t)n < sizeof line; x++)
      n += snprintf(line + n, sizeof line - (size_t)n, " %s = %.15g", col_name(m, LLAMP_NUM_PARAMS + x),
                    p->x[x] * US);
    put_str(o, c);
    put_str(o, line);
    put_ch(o, '\n');
  }
  if (obj == LLAMP_LP_MIN_RUNTIME) {
    put_str(o, c);
    put_str(o, m->pairs ? "objective: min t (runtime, us); parameters bounded below by their values; "
                          "reduced cost of each parameter's column = its lambda\n"
                        : "objective: min t (runtime, us); parameters bounded below by their values; "
                          "reduced cost of l = lambda_L\n");
  } else if (m->wrt == LLAMP_PARAM_L) {
    snprintf(line, sizeof line,
             "objective: max l (largest latency, us) subject to t <= t_max = %.15g us; "
             "G, o, gap fixed%s\n",
             t_max * US, fmt == LLAMP_LP_MPS ? " (written as: min -l)" : "");
    put_str(o, c);
    put_str(o, line);
  } else {
    const char *w = col_name(m, m->wrt);
    char as[64] = "";
    if (fmt == LLAMP_LP_MPS) snprintf(as, sizeof as, " (written as: min -%s)", w);
    snprintf(line, sizeof line,
             "objective: max %s (its largest value, %s) subject to t <= t_max = %.15g us; "
             "the other parameters fixed%s\n",
             w, m->wrt == LLAMP_PARAM_G ? "us per byte" : "us", t_max * US, as);
    put_str(o, c);
    put_str(o, line);
  }
}

/* ---- CPLEX LP --------------------------------------------------------------- */

static void put_term(out_t *o, double coef, const char *name) {
  if (coef == 0) return;
  put_mem(o, " - ", 3);
  if (coef != 1) {
    put_num(o, coef);
    put_ch(o, ' ');
  }
  put_str(o, name);
}

/* The parameter columns' bounds: MIN_RUNTIME, each at least its value;
 * MAX_LATENCY, the maximised one at least 0, the others fixed. */
static void put_cplex_bounds(out_t *o, const model_t *m, const llamp_params_t *p,
                             llamp_lp_objective_t obj) {
  for (unsigned c = 0; c < num_cols(m); c++) {
    if (!col_present(m, c)) continue;
    put_ch(o, ' ');
    put_str(o, col_name(m, c));
    if (obj == LLAMP_LP_MAX_LATENCY && c == m->wrt) {
      put_str(o, " >= 0\n");
      continue;
    }
    put_str(o, obj == LLAMP_LP_MIN_RUNTIME ? " >= " : " = ");
    put_num(o, llamp_params_get(p, (llamp_param_t)c) * US);
    put_ch(o, '\n');
  }
}

static void write_cplex(out_t *o, const model_t *m, const llamp_params_t *p,
                        llamp_lp_objective_t obj, double t_max) {
  row_t rows[4];
  if (obj == LLAMP_LP_MIN_RUNTIME) put_str(o, "Minimize\n obj: t\n");
  else {
    put_str(o, "Maximize\n obj: ");
    put_str(o, col_name(m, m->wrt));
    put_ch(o, '\n');
  }
  put_str(o, "Subject To\n");
  FOR_EACH_ROW(m, rows, i, {
    const row_t *r = &rows[i];
    put_ch(o, ' ');
    put_row_name(o, r);
    put_mem(o, ": ", 2);
    if (r->plus == NONE) put_ch(o, 't');
    else put_y(o, r->plus);
    if (r->minus != NONE) {
      put_mem(o, " - ", 3);
      put_y(o, r->minus);
    }
    for (unsigned c = 0; c < num_cols(m); c++) put_term(o, row_coef(r, c), col_name(m, c));
    put_mem(o, " >= ", 4);
    put_num(o, r->rhs);
    put_ch(o, '\n');
  })
  put_str(o, "Bounds\n");
  put_cplex_bounds(o, m, p, obj);
  if (obj == LLAMP_LP_MAX_LATENCY) {
    put_str(o, " 0 <= t <= ");
    put_num(o, t_max * US);
    put_ch(o, '\n');
  }
  put_str(o, "End\n");
}

/* ---- free MPS ------------------------------------------------------------------ */

/* One COLUMNS entry: column y<v> (name == NULL) or a named column. */
static inline void put_entry(out_t *o, const char *name, uint64_t v, const row_t *r, double coef) {
  put_ch(o, ' ');
  if (name) put_str(o, name);
  else put_y(o, v);
  put_ch(o, ' ');
  put_row_name(o, r);
  put_ch(o, ' ');
  put_num(o, coef);
  put_ch(o, '\n');
}

/* Column of parameter `col` (a llamp_param_t), or of t (col < 0). */
static void put_param_column(out_t *o, const model_t *m, int col, double obj_coef) {
  row_t rows[4];
  const char *name = col < 0 ? "t" : col_name(m, (unsigned)col);
  put_ch(o, ' ');
  put_str(o, name);
  put_str(o, " obj ");
  put_num(o, obj_coef); /* always present, so the column exists even if unused */
  put_ch(o, '\n');
  FOR_EACH_ROW(m, rows, i, {
    const row_t *r = &rows[i];
    double c = col < 0 ? (r->plus == NONE ? 1.0 : 0.0) : -row_coef(r, (unsigned)col);
    if (c != 0) put_entry(o, name, NONE, r, c);
  })
}

static void write_mps(out_t *o, const model_t *m, const llamp_params_t *p, llamp_lp_objective_t obj,
                      double t_max) {
  row_t rows[4];
  put_str(o, "NAME llamp\nROWS\n N obj\n");
  FOR_EACH_ROW(m, rows, i, {
    put_mem(o, " G ", 3);
    put_row_name(o, &rows[i]);
    put_ch(o, '\n');
  })
  put_str(o, "COLUMNS\n");
  const llamp_graph_arrays_t *a = &m->a;
  for (uint64_t v = 0; v < a->n; v++) {
    int nr;
    /* rows of v's own in-edges (+1) and of its gap / end / done rows */
    for (uint64_t e = a->in_beg[v]; e < a->in_end[v]; e++) {
      nr = edge_rows(m, v, e, rows);
      for (int i = 0; i < nr; i++) put_entry(o, NULL, v, &rows[i], 1);
    }
    nr = vertex_rows(m, v, rows);
    for (int i = 0; i < nr; i++) put_entry(o, NULL, v, &rows[i], rows[i].plus == v ? 1 : -1);
    /* rows of its out-edges where it is the source */
    for (uint32_t j = m->out_off[v]; j < m->out_off[v + 1]; j++) {
      nr = edge_rows(m, m->out_w[j], m->out_e[j], rows);
      for (int i = 0; i < nr; i++)
        if (rows[i].minus == v) put_entry(o, NULL, v, &rows[i], -1);
    }
    /* a rendezvous receive: the completion rows of its send's requires successors */
    if (a->kind[v] == LLAMP_VERTEX_RECV && send_waits(m, llamp_graph_partner(m->g, v))) { /* its sender waits */
      uint64_t u = llamp_graph_partner(m->g, v);
      for (uint32_t j = m->out_off[u]; j < m->out_off[u + 1]; j++) {
        uint64_t e = m->out_e[j];
        if ((a->in_src[e] >> LLAMP_EDGE_KIND_SHIFT) != LLAMP_EDGE_REQUIRES) continue;
        nr = edge_rows(m, m->out_w[j], e, rows);
        for (int i = 0; i < nr; i++)
          if (rows[i].minus == v) put_entry(o, NULL, v, &rows[i], -1);
      }
    }
    /* the burst rows of the receives whose message left in v's burst */
    for (uint32_t j = m->burst_off ? m->burst_off[v] : 0; m->burst_off && j < m->burst_off[v + 1]; j++) {
      row_t r;
      row_init(&r, 'b', m->burst_to[j], m->burst_to[j], v);
      put_entry(o, NULL, v, &r, -1);
    }
    /* the gap row of the next message of the same kind */
    if (m->gap && m->next_msg[v] != UINT32_MAX) {
      row_t r;
      row_init(&r, 's', m->next_msg[v], m->next_msg[v], v);
      put_entry(o, NULL, v, &r, -1);
    }
  }
  int maxl = obj == LLAMP_LP_MAX_LATENCY;
  put_param_column(o, m, -1, maxl ? 0 : 1);
  for (unsigned c = 0; c < num_cols(m); c++)
    if (col_present(m, c)) put_param_column(o, m, (int)c, maxl && c == m->wrt ? -1 : 0);
  put_str(o, "RHS\n");
  FOR_EACH_ROW(m, rows, i, {
    if (rows[i].rhs != 0) {
      put_str(o, " RHS ");
      put_row_name(o, &rows[i]);
      put_ch(o, ' ');
      put_num(o, rows[i].rhs);
      put_ch(o, '\n');
    }
  })
  put_str(o, "BOUNDS\n");
  for (unsigned c = 0; c < num_cols(m); c++) {
    if (!col_present(m, c) || (maxl && c == m->wrt)) continue; /* that one: >= 0, MPS's default */
    put_str(o, maxl ? " FX BND " : " LO BND ");
    put_str(o, col_name(m, c));
    put_ch(o, ' ');
    put_num(o, llamp_params_get(p, (llamp_param_t)c) * US);
    put_ch(o, '\n');
  }
  if (maxl) {
    put_str(o, " UP BND t ");
    put_num(o, t_max * US);
    put_ch(o, '\n');
  }
  put_str(o, "ENDATA\n");
}

/* ---- entry points ------------------------------------------------------------- */

/* An extra parameter's name is a column name: an identifier that is none of
 * the LP's own columns or CPLEX-LP keywords. */
static int bad_column_name(const char *s) {
  static const char *taken[] = {"t", "l", "G", "o", "gap", "obj", "st", "end", "free", "inf",
                                "infinity", "bounds", "bound", "min", "max", "minimize", "maximize",
                                "subject", "to", "such", "that", "general", "generals", "binary",
                                "binaries", "integer", "integers"};
  if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return 1;
  for (const char *c = s; *c; c++)
    if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
      return 1;
  if (s[0] == 'y' && s[1] >= '0' && s[1] <= '9') return 1;
  for (size_t i = 0; i < sizeof taken / sizeof *taken; i++)
    if (!strcasecmp(s, taken[i])) return 1;
  return 0;
}

static int check_args(const llamp_graph_t *g, const llamp_params_t *p, llamp_lp_format_t fmt,
                      llamp_lp_objective_t obj, llamp_param_t wrt, double t_max, char *err,
                      size_t errlen) {
  if (!g || !p) {
    snprintf(err, errlen, "no graph or no parameters");
    return -1;
  }
  if (fmt != LLAMP_LP_CPLEX && fmt != LLAMP_LP_MPS) {
    snprintf(err, errlen, "unknown LP format %d", (int)fmt);
    return -1;
  }
  if (obj != LLAMP_LP_MIN_RUNTIME && obj != LLAMP_LP_MAX_LATENCY) {
    snprintf(err, errlen, "unknown LP objective %d", (int)obj);
    return -1;
  }
  if (!(p->L >= 0 && isfinite(p->L)) || !(p->o >= 0 && isfinite(p->o)) ||
      !(p->G >= 0 && isfinite(p->G)) || !(p->g >= 0 && isfinite(p->g)) || !(p->S >= 0)) {
    snprintf(err, errlen, "model parameters must be finite and non-negative");
    return -1;
  }
  const llamp_pairs_t *q = p->pairs;
  if (q && q->num_params <= LLAMP_MAX_XPARAMS) {
    for (uint32_t x = 0; x < q->num_params; x++) {
      if (bad_column_name(q->name[x])) {
        snprintf(err, errlen, "per-pair costs: parameter name '%.24s' is not usable as an LP column "
                 "(expected an identifier other than t, l, G, o, gap, y<N> and LP keywords)", q->name[x]);
        return -1;
      }
      if (!(p->x[x] >= 0 && isfinite(p->x[x]))) {
        snprintf(err, errlen, "per-pair costs: parameter %.24s = %g must be finite and non-negative",
                 q->name[x], p->x[x]);
        return -1;
      }
    }
    /* the columns are bounded below by their values: T must not decrease in them */
    for (uint64_t k = 0; k < (uint64_t)q->num_kinds * q->num_params; k++)
      if (!(q->coef[k] >= 0)) {
        snprintf(err, errlen, "per-pair costs: route kind %llu has a negative coefficient on %.24s",
                 (unsigned long long)(k / q->num_params), q->name[k % q->num_params]);
        return -1;
      }
    for (uint32_t k = 0; k < q->num_kinds; k++)
      if (!(q->gscale[k] >= 0)) {
        snprintf(err, errlen, "per-pair costs: route kind %u has a negative time per byte", k);
        return -1;
      }
    /* a sparse table (large runs) must know the route of every message */
    for (uint64_t v = 0; !q->pair_kind && v < llamp_graph_num_vertices(g); v++) {
      unsigned kv = llamp_graph_kind(g, v);
      if (kv != LLAMP_VERTEX_SEND) continue;
      uint32_t a = llamp_graph_rank(g, v), b = llamp_graph_rank(g, llamp_graph_partner(g, v));
      if (a < q->ranks && b < q->ranks && a != b && llamp_pairs_kind(q, a, b) == UINT32_MAX) {
        snprintf(err, errlen, "per-pair costs: no route from rank %u to rank %u in the table", a, b);
        return -1;
      }
    }
  }
  if ((unsigned)wrt >= llamp_params_count(p) ||
      (wrt == LLAMP_PARAM_GAP && !(p->g > 0 || p->nic))) {
    snprintf(err, errlen, "the LP has no column for parameter %d%s", (int)wrt,
             wrt == LLAMP_PARAM_GAP ? " (g is not modelled: g = 0 and no NIC rule)" : "");
    return -1;
  }
  if (obj == LLAMP_LP_MAX_LATENCY && !(t_max >= 0 && isfinite(t_max))) {
    snprintf(err, errlen, "the runtime budget t_max must be finite and non-negative");
    return -1;
  }
  /* Same protocol and per-pair checks as the engine (a rendezvous or gap
   * cycle is an error, route kinds in range). */
  llamp_engine_t *e = llamp_engine_create(g, p, err, errlen);
  if (!e) return -1;
  llamp_engine_destroy(e);
  return 0;
}

static int write_checked(const llamp_graph_t *g, const llamp_params_t *p, llamp_lp_format_t fmt,
                         llamp_lp_objective_t obj, llamp_param_t wrt, double t_max, FILE *f,
                         char *err, size_t errlen) {
  model_t m;
  if (model_init(&m, g, p, obj == LLAMP_LP_MAX_LATENCY, wrt, fmt == LLAMP_LP_MPS, err, errlen)) return -1;
  m.wrt = (unsigned)wrt;
  out_t *o = malloc(sizeof *o);
  if (!o) {
    model_free(&m);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  o->f = f;
  o->n = 0;
  o->failed = 0;
  put_header(o, &m, p, fmt, obj, t_max);
  if (fmt == LLAMP_LP_CPLEX) write_cplex(o, &m, p, obj, t_max);
  else write_mps(o, &m, p, obj, t_max);
  out_flush(o);
  int failed = o->failed || fflush(f) != 0 || ferror(f);
  free(o);
  model_free(&m);
  if (failed) {
    snprintf(err, errlen, "write error: %s", strerror(errno));
    return -1;
  }
  return 0;
}

int llamp_lp_write_stream_wrt(const llamp_graph_t *g, const llamp_params_t *p, llamp_lp_format_t fmt,
                              llamp_lp_objective_t obj, llamp_param_t wrt, double t_max, FILE *f,
                              char *err, size_t errlen) {
  if (check_args(g, p, fmt, obj, wrt, t_max, err, errlen)) return -1;
  if (!f) {
    snprintf(err, errlen, "no output stream");
    return -1;
  }
  return write_checked(g, p, fmt, obj, wrt, t_max, f, err, errlen);
}

int llamp_lp_write_wrt(const llamp_graph_t *g, const llamp_params_t *p, llamp_lp_format_t fmt,
                       llamp_lp_objective_t obj, llamp_param_t wrt, double t_max, const char *path,
                       char *err, size_t errlen) {
  if (!path) {
    snprintf(err, errlen, "no output path");
    return -1;
  }
  if (!strcmp(path, "-"))
    return llamp_lp_write_stream_wrt(g, p, fmt, obj, wrt, t_max, stdout, err, errlen);
  if (check_args(g, p, fmt, obj, wrt, t_max, err, errlen)) return -1; /* before touching the file */
  FILE *f = fopen(path, "w");
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  char e2[256];
  int rc = write_checked(g, p, fmt, obj, wrt, t_max, f, e2, sizeof e2);
  if (fclose(f) != 0 && rc == 0) {
    snprintf(e2, sizeof e2, "write error: %s", strerror(errno));
    rc = -1;
  }
  if (rc) {
    snprintf(err, errlen, "%s: %s", path, e2);
    remove(path);
  }
  return rc;
}

int llamp_lp_write_stream(const llamp_graph_t *g, const llamp_params_t *p, llamp_lp_format_t fmt,
                          llamp_lp_objective_t obj, double t_max, FILE *f, char *err,
                          size_t errlen) {
  return llamp_lp_write_stream_wrt(g, p, fmt, obj, LLAMP_PARAM_L, t_max, f, err, errlen);
}

int llamp_lp_write(const llamp_graph_t *g, const llamp_params_t *p, llamp_lp_format_t fmt,
                   llamp_lp_objective_t obj, double t_max, const char *path, char *err,
                   size_t errlen) {
  return llamp_lp_write_wrt(g, p, fmt, obj, LLAMP_PARAM_L, t_max, path, err, errlen);
}

const char *llamp_lp_format_name(llamp_lp_format_t fmt) {
  return fmt == LLAMP_LP_CPLEX ? "lp" : fmt == LLAMP_LP_MPS ? "mps" : "?";
}

int llamp_lp_format_parse(const char *name, llamp_lp_format_t *fmt) {
  if (!name) return -1;
  if (!strcmp(name, "lp") || !strcmp(name, "cplex")) *fmt = LLAMP_LP_CPLEX;
  else if (!strcmp(name, "mps") || !strcmp(name, "freemps")) *fmt = LLAMP_LP_MPS;
  else return -1;
  return 0;
}
