/* The LLAMP engine: the LP's optimum and reduced costs by one topological
 * pass over the DAG (max-plus longest path), carrying for each vertex the
 * largest and smallest coefficient of the varied parameter among its tied
 * longest paths (= the right and left derivatives of T).
 *
 * The graph is used in place when every message is eager and g is off.
 * Otherwise a private "plan" is built once: rendezvous edges (RTS, data,
 * sender completion) and gap edges are added and the vertices re-sorted. */
#include "llamp_engine.h"
#include "llamp_mem.h"
#include "llamp_par.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Plan edge types (the graph's own kinds 0..2 are the first three). */
enum {
  E_END = 0,      /* end(u)   + 0                         (requires) */
  E_START = 1,    /* start(u) + 0                         (irequires) */
  E_EAGER = 2,    /* end(u)   + L + bw(s)                 (eager message) */
  E_RTS = 3,      /* end(u)   + L                         (rendezvous request) */
  E_RNDV_DONE = 4,/* start(u) + L + bw(s), u = rndv recv  (sender completion) */
  E_GAP = 5,      /* start(u) + g [+ bw(s_u), NIC rule]   (consecutive messages; also a
                     rendezvous receive after one whose read it waits for: build_plan) */
  E_GAPR = 6,     /* start(u) + g + bw(s_v) into an eager receive v, start(u) + g into a
                     rendezvous one  (the NIC rule's receive chain, u the previous receive;
                     + the bytes of v's burst before it: ck) */
  E_BURST = 7     /* end(u) + L + bw(s_v) + ahead(v): v's message left the NIC after the
                     messages ahead of it in the run of sends u starts (the NIC rule; v an
                     eager receive; ahead = their count x g + their bytes at G) */
};
/* Plan vertex kinds: graph kinds plus a rendezvous receive (any message
 * that starts at its match: above S, or from A up with async_small). */
enum { K_CALC = 0, K_SEND = 1, K_RECV = 2, K_RECV_RNDV = 3 };

/* llamp_params_leave_max: above it a message starts at its match (a
 * K_RECV_RNDV receive); only above S does its sender wait (E_RNDV_DONE). */
double llamp_params_leave_max(const llamp_params_t *p) {
  return p->async_small ? fmin(p->S, p->A - 1) : p->S;
}

/* Send u is synchronous (MPI_Ssend, MPI_Issend; LLAMP_VERTEX_F_SYNC): SMPI
 * never detaches it, so whatever its size its transfer starts at its match
 * and its sender waits for the data, as above S (docs/model.md). */
static inline int send_sync(const llamp_graph_arrays_t *a, uint64_t u) { return llamp_graph_arrays_sync(a, u); }

#define PLAN_SHIFT 29
#define PLAN_MASK ((1u << PLAN_SHIFT) - 1)

struct llamp_engine {
  int cpu_edges; /* the graph has CPU edges (LLAMP_EDGE_CPU): a plan, plan_cpu_edges */
  const llamp_graph_t *graph;
  llamp_params_t proto; /* S, size_g_full, g on/off fixed at creation */
  uint64_t n, m;
  const uint8_t *kind;
  const double *value;
  const uint32_t *in_beg, *in_end, *in_src; /* v's in-edges: in_src[in_beg[v] .. in_end[v]) */
  const uint32_t *topo; /* processing order (NULL: 0..n-1, the plan's own numbering) */
  uint32_t shift, mask;
  uint32_t *gv; /* plan vertex -> graph vertex (NULL: identity) */
  llamp_envelope_how_t env_how; /* the last llamp_engine_envelope's way */
  double env_gave_up;           /* where the last envelope_pass ran over its budget (a fraction of n; 1: it did not) */
  int lanes_width;              /* the last llamp_engine_points_lg's lanes a step (4, 1; 0 none) */
  uint8_t *own_kind;
  double *own_value;
  uint32_t *own_off, *own_src;
  uint8_t *terminal; /* 1: no successor waits for this vertex's end */
  double *lane_start, *lane_coef; /* lane pass: n x lane_alloc each */
  double *tail_buf;                /* pruning's backward pass: 2 n per lane, kept between calls */
  int tail_lanes;                  /* lanes tail_buf has room for */
  size_t lane_alloc;
  /* work arrays, allocated on first use */
  double *work; /* one block: start, cmax, cmin */
  double *start, *cmax, *cmin;
  /* size-dependent costs (p->net), per engine vertex; NULL: scalar model */
  struct pwv *pw;
  uint8_t *nonblocking; /* graph send vertex -> 1 when a successor irequires it */
  llamp_netmodel_t net;
  uint32_t *gap_prev; /* graph vertex -> previous message of its gap chain (graph id) */
  uint32_t *burst_from; /* graph receive -> the first send of its message's run (graph id) */
  uint32_t *ahead_to;   /* graph receive -> the send whose place in the run sets its ahead */
  uint32_t *run_list, *run_idx, nrun; /* the runs' sends (graph ids) by place: a rank's in
                                         posting order from its posting segment's start,
                                         UINT32_MAX after them (runs_fill: the sends'
                                         numbers); each send's place */
  uint32_t *chain_from; /* graph receive -> the first send of the burst to one host it ends */
  double *run_bk, *run_bn; /* plan receive -> ahead: bytes (G units) and messages (g) */
  double *run_ck;          /* plan receive -> its burst's earlier bytes, on its chain edge */
  uint8_t *chain_read; /* graph receive -> 1: its chain edge charges the previous read's bytes */
  /* message kinds (docs/model.md, "Per-pair costs", "Messages to oneself"),
   * built with per-pair costs or when a rank sends to itself (pk NULL:
   * every message costs L + bytes G).  pk[v]: engine vertex v's kind; per
   * kind: kl its coefficient on L (1, or 0 for a message to oneself), kc0 +
   * kcoef . x its latency beyond kl L, kg its coefficient on G per byte, kb
   * a constant time per byte; klat = kc0 + kcoef . x at the current point. */
  const llamp_pairs_t *pairs; /* borrowed, NULL without per-pair costs */
  uint32_t *pk, nk, K;
  double *kl, *kc0, *kcoef, *kg, *kb, *klat;
  /* the fused point pass (point_fused): the longest in-edge, in vertices
   * back (UINT64_MAX: not yet measured), and its ring of coefficients: W
   * slots (ring_w, 0 until ring_plan), then one slot per far source, the
   * sources of the in-edges longer than W - 1 (far_src ascending, nfar;
   * far_owned: a fork may share its parent's) */
  uint64_t reach, ring_w, nfar;
  uint32_t *far_src;
  int far_owned;
  double *ring;
  size_t ring_len;
  /* the work arrays' start times and right coefficients are those of a pass
   * in L at work_at (its result work_r): the critical path's callers reuse
   * them instead of running the pass again */
  int work_valid;
  llamp_params_t work_at;
  llamp_eval_t work_r;
  /* a fork (llamp_engine_fork) shares the plan, the costs and the chains of
   * its parent and owns only its work arrays, ring and klat */
  const llamp_engine_t *parent;
};

void llamp_params_default(llamp_params_t *p) {
  memset(p, 0, sizeof *p); /* every field (chain_reads was left unset) and the padding eval_L compares */
  p->L = 3e-6;
  p->o = 5e-6;
  p->g = 0;
  p->G = 0.018e-9;
  p->S = 262144;
  p->size_g_full = 0;
  p->rndv_direct = 0;
  p->net = NULL;
  p->nic = 0;
  p->gap_prev = NULL;
  p->burst_from = NULL;
  p->ahead_bytes = p->ahead_count = p->chain_bytes = NULL;
  p->pairs = NULL;
  memset(p->x, 0, sizeof p->x);
}

double llamp_params_get(const llamp_params_t *p, llamp_param_t w) {
  if ((unsigned)w >= LLAMP_NUM_PARAMS && (unsigned)w < LLAMP_NUM_PARAMS + LLAMP_MAX_XPARAMS)
    return p->x[w - LLAMP_NUM_PARAMS];
  switch (w) {
  case LLAMP_PARAM_L: return p->L;
  case LLAMP_PARAM_G: return p->G;
  case LLAMP_PARAM_O: return p->o;
  case LLAMP_PARAM_GAP: return p->g;
  }
  return 0;
}

void llamp_params_set(llamp_params_t *p, llamp_param_t w, double x) {
  if ((unsigned)w >= LLAMP_NUM_PARAMS && (unsigned)w < LLAMP_NUM_PARAMS + LLAMP_MAX_XPARAMS) {
    p->x[w - LLAMP_NUM_PARAMS] = x;
    return;
  }
  switch (w) {
  case LLAMP_PARAM_L: p->L = x; break;
  case LLAMP_PARAM_G: p->G = x; break;
  case LLAMP_PARAM_O: p->o = x; break;
  case LLAMP_PARAM_GAP: p->g = x; break;
  }
}

const char *llamp_param_name(llamp_param_t w) {
  static const char *names[] = {"L", "G", "o", "g"};
  return (unsigned)w < LLAMP_NUM_PARAMS ? names[w] : "?";
}

const char *llamp_params_name(const llamp_params_t *p, llamp_param_t w) {
  if ((unsigned)w >= LLAMP_NUM_PARAMS && p->pairs && w - LLAMP_NUM_PARAMS < p->pairs->num_params)
    return p->pairs->name[w - LLAMP_NUM_PARAMS];
  return llamp_param_name(w);
}

uint32_t llamp_params_count(const llamp_params_t *p) {
  return LLAMP_NUM_PARAMS + (p->pairs ? p->pairs->num_params : 0);
}

/* ---- costs ------------------------------------------------------------------ */

/* The parameters of one evaluation, and the message kinds (see struct
 * llamp_engine: NULL pk = every message L + bytes G). */
typedef struct {
  double L, G, o, g;
  int full; /* protocol flags: 1 = s*G instead of (s-1)*G, 2 = direct rendezvous */
  const uint32_t *pk;
  const double *kl, *klat, *kg, *kb, *kcoef;
  uint32_t K;
  const double *bk, *bn; /* the NIC rule's runs: what is ahead of a receive's message (E_BURST) */
  const double *ck;      /* and the bytes its chain edge charges beyond its own (E_GAPR) */
} theta_t;

/* bytes charged at G per message: (s-1), or s; never negative (0-byte messages) */
#define F_SIZE_G_FULL 1
#define F_RNDV_DIRECT 2
#define F_NIC 4 /* the NIC rule: gap edges also cost the previous message's bytes at G */
static inline double bw_bytes(double s, int full) {
  return (full & F_SIZE_G_FULL) ? s : (s >= 1 ? s - 1 : 0);
}
/* latencies in a rendezvous receive's own cost: read request + data (RDMA
 * read), or the data only (direct); the request-to-send edge has the rest */
static inline double rndv_recv_l(int full) { return (full & F_RNDV_DIRECT) ? 1 : 2; }
static inline double rndv_rts_l(int full) { return (full & F_RNDV_DIRECT) ? 0 : 1; }

/* Size-dependent costs of one engine vertex (llamp_netmodel.h), computed
 * once per engine: cpu = its CPU time besides o (send: os or ois, eager
 * recv: or), c and k = its message's transfer constant and G coefficient
 * (sends and receives), sc = what an irequires successor waits (an Isend's
 * ois; 0 for other vertices).  The cost functions take the array (NULL in
 * the scalar model, where the passes are compiled without it) and the
 * vertex: every cost stays c0 + coefficients x parameters. */
typedef struct pwv {
  double cpu, c, k, sc;
} pwv_t;

/* The terms of vertex v's message: one latency term costs lterm(v) =
 * lcf(v) L + lat(v) (L + its route's latency beyond L; a constant for a
 * message to oneself), one byte bterm(v) = gsc(v) G + bconst(v); xcoef = a
 * latency term's coefficient on w when w is an extra parameter (0 otherwise). */
static inline double lcf(const theta_t *t, uint64_t v) { return t->pk ? t->kl[t->pk[v]] : 1; }
static inline double lat(const theta_t *t, uint64_t v) { return t->pk ? t->klat[t->pk[v]] : 0; }
static inline double gsc(const theta_t *t, uint64_t v) { return t->pk ? t->kg[t->pk[v]] : 1; }
static inline double bconst(const theta_t *t, uint64_t v) { return t->pk ? t->kb[t->pk[v]] : 0; }
static inline double xcoef(const theta_t *t, llamp_param_t w, uint64_t v) {
  return t->pk && t->K && (unsigned)w >= LLAMP_NUM_PARAMS
             ? t->kcoef[(size_t)t->pk[v] * t->K + (w - LLAMP_NUM_PARAMS)]
             : 0;
}
/* the coefficient on w of n latency terms and b bytes of vertex v's message */
static inline __attribute__((always_inline)) double msg_coef(double n, double b, llamp_param_t w, const theta_t *t, uint64_t v) {
  return w == LLAMP_PARAM_L ? n * lcf(t, v) : w == LLAMP_PARAM_G ? b * gsc(t, v) : n * xcoef(t, w, v);
}
/* bytes charged at G: the size-dependent model's k, else (s-1) or s */
static inline __attribute__((always_inline)) double msg_bytes(double val, const theta_t *t, const pwv_t *pw, uint64_t v) {
  return pw ? pw[v].k : bw_bytes(val, t->full);
}

/* the costs that depend on L and G (engine_costs.h): once for one
 * evaluation, with theta's L and G ... */
#define COST_T double
#define COST_SFX _at
#define COST_SPLAT(x) (x)
#include "engine_costs.h"
#undef COST_SPLAT
#undef COST_SFX
#undef COST_T
static inline __attribute__((always_inline)) double lterm(const theta_t *t, uint64_t v) { return lterm_at(t, t->L, v); }
static inline __attribute__((always_inline)) double bterm(const theta_t *t, uint64_t v) { return bterm_at(t, t->G, v); }
static inline __attribute__((always_inline)) double vcost(unsigned k, double val, const theta_t *t, const pwv_t *pw,
                                                          uint64_t v) {
  return vcost_at(k, val, t, t->L, t->G, pw, v);
}
static inline __attribute__((always_inline)) double ecost(unsigned type, double val_u, const theta_t *t,
                                                          const pwv_t *pw, uint64_t u) {
  return ecost_at(type, val_u, t, t->L, t->G, pw, u);
}
static inline __attribute__((always_inline)) double ecost_uv(unsigned type, double val_u, const theta_t *t,
                                                             const pwv_t *pw, uint64_t u, unsigned kind_v,
                                                             double val_v, uint64_t v) {
  return ecost_uv_at(type, val_u, t, t->L, t->G, pw, u, kind_v, val_v, v);
}
/* ... and once for four lanes at a time, each with its own L and G
 * (llamp_engine_points_lg, in AVX2: GCC's vector extension) */
/* (always inlined: a vector's ABI never shows; GCC warns at the file's end,
 * so the pragma holds for the rest of it) */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef double lanes4_t __attribute__((vector_size(32)));
typedef long long lanes4_mask_t __attribute__((vector_size(32)));
#define COST_T lanes4_t
#define COST_SFX _lanes
#define COST_SPLAT(x) ((lanes4_t){(x), (x), (x), (x)})
#include "engine_costs.h"
#undef COST_SPLAT
#undef COST_SFX
#undef COST_T

static inline __attribute__((always_inline)) double vcoef(unsigned k, double val, llamp_param_t w, const theta_t *t,
                           const pwv_t *pw, uint64_t v) {
  switch (k) {
  case K_CALC: return 0;
  case K_RECV_RNDV:
    return w == LLAMP_PARAM_O ? 1 : msg_coef(rndv_recv_l(t->full), msg_bytes(val, t, pw, v), w, t, v);
  default: return w == LLAMP_PARAM_O ? 1 : 0;
  }
}

static inline int from_start(unsigned type) {
  return type == E_START || type == E_RNDV_DONE || type == E_GAP || type == E_GAPR;
}

/* Every pass over the plan's edges calls its edge function through this
 * switch, so the edge type is a constant in each copy and the cost and
 * coefficient functions fold (bench_capture64's graph, the fused point:
 * 489 -> 357 M instructions).  FROM_START(T) takes an edge that leaves u's
 * start (u's own cost does not count), FROM_END(T) one that leaves u's end;
 * EDGE_KU_CONST in FROM_END makes u's kind a constant too, as far as the
 * costs tell kinds apart (a computation, a rendezvous receive, any other). */
#define EDGE_TYPE_SWITCH(type, FROM_START, FROM_END) \
  switch (type) {                                   \
  case E_START: FROM_START(E_START); break;         \
  case E_RNDV_DONE: FROM_START(E_RNDV_DONE); break; \
  case E_GAP: FROM_START(E_GAP); break;             \
  case E_GAPR: FROM_START(E_GAPR); break;           \
  case E_END: FROM_END(E_END); break;               \
  case E_EAGER: FROM_END(E_EAGER); break;           \
  case E_RTS: FROM_END(E_RTS); break;               \
  case E_BURST: FROM_END(E_BURST); break;           \
  default: FROM_END(type); break;                   \
  }
#define EDGE_KU_CONST(EDGE, T, ku) \
  ((ku) == K_CALC ? EDGE(T, K_CALC) : (ku) == K_RECV_RNDV ? EDGE(T, K_RECV_RNDV) : EDGE(T, K_SEND))

static inline __attribute__((always_inline)) double ecoef(unsigned type, double val_u, llamp_param_t w, const theta_t *t,
                           const pwv_t *pw, uint64_t u) {
  switch (type) {
  case E_EAGER:
  case E_RNDV_DONE: return msg_coef(1, msg_bytes(val_u, t, pw, u), w, t, u);
  case E_RTS: return msg_coef(rndv_rts_l(t->full), 0, w, t, u);
  case E_GAP:
    return (w == LLAMP_PARAM_GAP ? 1 : 0) +
           ((t->full & F_NIC) ? msg_coef(0, msg_bytes(val_u, t, pw, u), w, t, u) : 0);
  case E_GAPR: return w == LLAMP_PARAM_GAP ? 1 : 0; /* + the target's bytes: ecoef_uv */
  default: return 0;
  }
}

static inline __attribute__((always_inline)) double ecoef_uv(unsigned type, double val_u, llamp_param_t w, const theta_t *t,
                              const pwv_t *pw, uint64_t u, unsigned kind_v, double val_v, uint64_t v) {
  if (type == E_BURST)
    return (kind_v == K_RECV_RNDV ? msg_coef(0, t->bk[v], w, t, v)
                                  : msg_coef(1, msg_bytes(val_v, t, pw, v) + t->bk[v], w, t, v)) +
           (w == LLAMP_PARAM_GAP ? t->bn[v] : 0);
  if (type != E_GAPR) return ecoef(type, val_u, w, t, pw, u);
  return (w == LLAMP_PARAM_GAP ? 1 : 0) +
         (kind_v == K_RECV ? msg_coef(0, msg_bytes(val_v, t, pw, v) + (t->ck ? t->ck[v] : 0), w, t, v) : 0);
}

/* A message's latency term: L + its route's latency (+ the size-dependent
 * constant), at theta. */
static inline double msg_lat(const theta_t *t, const pwv_t *pw, uint64_t v) {
  return lterm(t, v) + (pw ? pw[v].c : 0);
}

/* Two times closer than this are one tie (paths equal in exact arithmetic
 * but summed in a different order). */
static inline double tie_tol(double a) { return 1e-12 * fabs(a) + 1e-21; }
/* the hulls' tolerance in x over [lo, hi] (the parametric pass and its parts) */
static inline double range_xtol(double lo, double hi) { return 1e-12 * (fabs(hi) + (hi - lo)) + 1e-30; }
/* T's pieces that rise less than this above their neighbours are rounding,
 * not critical paths: T at hi sums ~10^4-10^5 costs, each rounded (on a
 * third-party code, PRK Random, 8 ranks: 726 critical latencies in [0, 20
 * us] of which 71 lay within 1e-15 s of another, e.g. 1.59999990,
 * 1.59999999 and 1.60000092 ns).  The tie tolerance of T: the evaluation
 * treats paths this close as equal, Eisner-Severance's segments alike. */
static inline double piece_tol_of(double T_hi) { return tie_tol(T_hi); }

/* ---- plan ------------------------------------------------------------------- */

/* A large array of the plan, advised huge before its first touch: a page
 * fault costs microseconds on a VM, and where the capture cannot prefault
 * (compute measured) they were a third of the engine's creation. */
static void *plan_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  llamp_mem_advise_huge(p, bytes);
  return p;
}
static void *plan_zalloc(size_t count, size_t size) {
  void *p = plan_alloc(count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

/* A topological order of an in-edge CSR with `shift`-packed sources that
 * keeps the given numbering wherever the edges allow: vertices in id order,
 * each after the predecessors not yet placed (depth first along in-edges).
 * The graph's numbering has locality (llamp_graph.h) and only the added
 * edges go backwards (the NIC rule's arrival chains: 10 % of them on
 * bench_capture64's halo); Kahn's breadth-first order lost that locality and
 * made every later pass slower.  order[old] = new.  Returns the number of
 * vertices ordered (< n: a cycle). */
static uint64_t plan_sort(uint64_t n, const uint32_t *off, const uint32_t *src, uint32_t *order) {
  enum { NEW = 0, OPEN = 1, PLACED = 2 };
  uint64_t done = 0;
  uint8_t *state = plan_zalloc(n ? n : 1, 1);
  uint32_t *stack = plan_alloc((n ? n : 1) * 4), *next = plan_alloc((n ? n : 1) * 4); /* next: in-edge to look at */
  if (!state || !stack || !next) goto out;
  for (uint64_t r = 0; r < n; r++) {
    if (state[r] == PLACED) continue;
    /* most vertices find every predecessor placed: placed at once, as the
     * search below would (bench_capture64's second plan, 601 k vertices) */
    uint32_t i = off[r];
    while (i < off[r + 1] && state[src[i] & PLAN_MASK] == PLACED) i++;
    if (i == off[r + 1]) {
      order[r] = (uint32_t)done++;
      state[r] = PLACED;
      continue;
    }
    uint64_t sp = 0;
    stack[sp++] = (uint32_t)r;
    state[r] = OPEN;
    next[r] = i; /* the edges before i are placed */
    while (sp) {
      uint32_t v = stack[sp - 1];
      if (next[v] < off[v + 1]) {
        uint32_t u = src[next[v]++] & PLAN_MASK;
        if (state[u] == PLACED) continue;
        if (state[u] == OPEN) goto out; /* a cycle */
        state[u] = OPEN;
        next[u] = off[u];
        stack[sp++] = u;
      } else {
        order[v] = (uint32_t)done++;
        state[v] = PLACED;
        sp--;
      }
    }
  }
out:
  free(state);
  free(stack);
  free(next);
  return done;
}

static int to_self(const llamp_graph_t *g, uint64_t gv);

/* receives of one rank ordered by arrival (then posting) for the NIC rule */
typedef struct {
  double key;
  uint32_t pos, v;
} arrival_t;
static int arrival_cmp(const void *a, const void *b) {
  const arrival_t *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* A rank's receives in arrival order.  They arrive nearly in posting order
 * (a halo's few neighbours overtake each other), so an insertion sort moves
 * each past the few ahead of it; past 8 moves per receive, qsort.  The order
 * is total (ties by posting position): the same result either way.
 * bench_capture64's 268 k receives: the two plans 513 -> 496 M
 * instructions (callgrind). */
static void sort_arrivals(arrival_t *a, uint32_t n) {
  uint64_t moves = 0, budget = 8 * (uint64_t)n + 64;
  for (uint32_t i = 1; i < n; i++) {
    arrival_t x = a[i];
    uint32_t j = i;
    for (; j > 0 && arrival_cmp(&x, &a[j - 1]) < 0; j--) a[j] = a[j - 1];
    a[j] = x;
    if ((moves += i - j) > budget) {
      qsort(a, n, sizeof *a, arrival_cmp);
      return;
    }
  }
}

/* A rank's vertices in posting order: posting[rank_off[r] ..
 * rank_off[r + 1]) (graph ids). */
static int posting_order(const llamp_graph_t *g, const llamp_graph_arrays_t *a, uint32_t **rank_off_out,
                         uint32_t **posting_out) {
  uint32_t P = llamp_graph_num_ranks(g);
  uint32_t *rank_off = plan_zalloc((size_t)P + 1, 4), *posting = plan_alloc((a->n ? a->n : 1) * 4);
  if (!rank_off || !posting) {
    free(rank_off);
    free(posting);
    return -1;
  }
  for (uint64_t v = 0; v < a->n; v++) rank_off[a->rank[v] + 1]++;
  for (uint32_t r = 0; r < P; r++) rank_off[r + 1] += rank_off[r];
  for (uint64_t v = 0; v < a->n; v++) posting[rank_off[a->rank[v]] + llamp_graph_local_index(g, v)] = (uint32_t)v;
  *rank_off_out = rank_off;
  *posting_out = posting;
  return 0;
}

/* Build the private plan: rendezvous and gap edges, re-sorted.  Each rank's
 * receives are chained (recv_chain) in the order of recv_key (graph ids;
 * NULL: posting order); the NIC rule's first plan chains none. */
/* What the NIC rule's next plan learns from a pass at the reference (graph
 * ids, nic_reference): binds[v] bit 1, send v was posted while its NIC was
 * still busy with the previous send; bit 2, within one transfer (or one CPU
 * time) of that send's start. */
typedef struct {
  const uint8_t *binds;
} burst_ref_t;

/* The NIC rule's runs (docs/model.md, "The NIC rule").  A run is a rank's
 * eager sends, in posting order, each posted while the NIC was still busy
 * with the one before (its chain edge bound at the reference) on a route of
 * the same latency.  The sender's CPU does not wait for its NIC (SMPI's
 * eager sends are detached): the run's messages queue at the NIC instead,
 * so a receive's message arrives no sooner than the run's first send's end
 * plus the messages ahead of it (E_BURST, their count x g and bytes at G)
 * plus its own L and transfer.  Within a run, a burst of equal messages
 * shares the link fairly, so its earlier messages end with its last one:
 * they count every message ahead of that one and leave the receive chain.
 * The edge starts at a send posted before the receive's own send, so it
 * closes no cycle. */
#define AHEAD_OFF_CHAIN 0x80000000u /* ahead_to: the receive leaves the receive chain */
static void run_flush(const llamp_graph_t *g, const llamp_graph_arrays_t *a, const burst_ref_t *ref, double S,
                      const uint32_t *run, uint32_t nr, uint32_t *burst_from, uint32_t *ahead_to,
                      uint32_t *chain_from) {
  if (nr < 2) return;
  for (uint32_t i = 0; i < nr;) {
    uint32_t j = i + 1; /* [i, j): a burst of equal eager sizes posted back to back */
    while (j < nr && a->value[run[j]] == a->value[run[i]] && a->value[run[i]] <= S && !send_sync(a, run[i]) &&
           !send_sync(a, run[j]) && (ref->binds[run[j]] & 2))
      j++;
    /* a burst to several hosts is limited by its sender's link, which
     * the ahead already charges: none of its receives joins a receive
     * chain.  To one host, its last one does, for the whole burst's bytes:
     * that host's link may be shared with other senders' too (four senders'
     * bursts into one host: -69 % without) */
    int spread = 0;
    for (uint32_t k = i + 1; k < j && !spread; k++)
      spread = a->rank[llamp_graph_partner(g, run[k])] != a->rank[llamp_graph_partner(g, run[i])];
    for (uint32_t k = i; k < j; k++) {
      uint64_t r = llamp_graph_partner(g, run[k]);
      burst_from[r] = run[0];
      ahead_to[r] = run[j - 1] | (spread || k + 1 < j ? AHEAD_OFF_CHAIN : 0);
      if (!spread && k + 1 == j && j > i + 1) chain_from[r] = run[i];
    }
    i = j;
  }
}

/* The plan's per-rank walks in posting order (build_plan), over a range of
 * ranks or of vertices, so that the two halves of llamp_par can share them:
 * each rank's sends, receives and scratch (its segment of `burst` and `arr`,
 * rank_off[r] ..) are its own. */
typedef struct {
  const llamp_graph_t *g;
  const llamp_graph_arrays_t *a;
  const burst_ref_t *bref;
  double S;
  int nic, any_self, recv_chain;
  const double *recv_key;
  const uint32_t *rank_off, *posting;
  arrival_t *arr;
  uint32_t *prev_msg, *burst_from, *ahead_to, *run_idx, *run_list, *chain_from, *burst;
  const uint8_t *cpu_on; /* receives whose CPU edges bind (plan_cpu_edges); NULL: none */
} plan_ranks_t;

static void plan_init_half(void *ctx, uint64_t lo, uint64_t hi, int half) {
  (void)half;
  const plan_ranks_t *c = ctx;
  for (uint64_t v = lo; v < hi; v++) c->burst_from[v] = c->ahead_to[v] = c->run_idx[v] = c->chain_from[v] = UINT32_MAX;
}

/* The ranks' posting walks in lockstep: a few vertices of each rank in turn
 * (RANK_STEP), not one rank after another.  The graph is laid out by level,
 * so one rank's consecutive vertices lie about a rank count apart, each on
 * its own cache line; the ranks' k-th vertices lie together, and a round
 * over the ranks reads their lines once. */
#define RANK_STEP 8
typedef struct {
  uint32_t i, end; /* the next place in the rank's posting segment, its end */
  uint32_t nb, place; /* plan_runs_half: the open burst's length, the next run place */
  uint32_t last_send, last_recv, nr; /* plan_chains_half: the chains' ends, the arrivals */
} rank_walk_t;

/* Ranks [lo, hi)'s walks: step(c, r, w, v) for each vertex v in its rank's
 * posting order, then done(c, r, w); in lockstep, or one rank after another
 * when the walks' memory is not there.  Inlined with each pair of
 * functions. */
static inline __attribute__((always_inline)) void rank_lockstep(
    const plan_ranks_t *c, uint64_t lo, uint64_t hi,
    void (*step)(const plan_ranks_t *, uint64_t, rank_walk_t *, uint32_t),
    void (*done)(const plan_ranks_t *, uint64_t, rank_walk_t *)) {
  rank_walk_t one, *w = malloc((hi - lo ? hi - lo : 1) * sizeof *w);
  for (uint64_t r = lo; r < hi; r++) {
    rank_walk_t *x = w ? &w[r - lo] : &one;
    *x = (rank_walk_t){c->rank_off[r], c->rank_off[r + 1], 0, c->rank_off[r], UINT32_MAX, UINT32_MAX, 0};
    if (w) continue;
    for (; x->i < x->end; x->i++) step(c, r, x, c->posting[x->i]);
    done(c, r, x);
  }
  if (!w) return;
  for (uint64_t live = hi - lo; live;) {
    live = 0;
    for (uint64_t r = lo; r < hi; r++) {
      rank_walk_t *x = &w[r - lo];
      if (x->i == x->end) continue;
      uint32_t stop = x->end - x->i > RANK_STEP ? x->i + RANK_STEP : x->end;
      for (; x->i < stop; x->i++) step(c, r, x, c->posting[x->i]);
      if (x->i == x->end) done(c, r, x);
      else live++;
    }
  }
  free(w);
}

/* A rank's walk in plan_runs_half: its sends, then the last burst. */
static inline void run_step(const plan_ranks_t *c, uint64_t r, rank_walk_t *w, uint32_t v) {
  const llamp_graph_arrays_t *a = c->a;
  if (a->kind[v] != LLAMP_VERTEX_SEND || (c->any_self && to_self(c->g, v))) return;
  uint32_t *burst = c->burst + c->rank_off[r];
  if (!(w->nb && c->bref->binds[v])) {
    run_flush(c->g, a, c->bref, c->S, burst, w->nb, c->burst_from, c->ahead_to, c->chain_from);
    w->nb = 0;
  }
  burst[w->nb++] = v;
  c->run_idx[v] = w->place;
  c->run_list[w->place++] = v;
}
static inline void run_done(const plan_ranks_t *c, uint64_t r, rank_walk_t *w) {
  run_flush(c->g, c->a, c->bref, c->S, c->burst + c->rank_off[r], w->nb, c->burst_from, c->ahead_to, c->chain_from);
  for (; w->place < w->end; w->place++) c->run_list[w->place] = UINT32_MAX;
}

/* The runs of ranks [lo, hi).  A rank's run sends take the first places of
 * its posting segment in order (run_list; the rest UINT32_MAX, skipped by
 * runs_fill's byte sums, which so add the same terms in the same order as
 * over one list of all ranks' sends).  Each rank writes apart (a receive's
 * burst fields only by its one sender): the lockstep changes no value. */
static void plan_runs_half(void *ctx, uint64_t lo, uint64_t hi, int half) {
  (void)half;
  rank_lockstep(ctx, lo, hi, run_step, run_done);
}

/* The gap chains of ranks [lo, hi): each message's previous one (sends in
 * posting order; receives by recv_key, else in posting order). */
static inline void chain_step(const plan_ranks_t *c, uint64_t r, rank_walk_t *w, uint32_t v) {
  const llamp_graph_arrays_t *a = c->a;
  c->prev_msg[v] = UINT32_MAX;
  if (c->nic && c->any_self && to_self(c->g, v)) return; /* never on the wire */
  if (a->kind[v] == LLAMP_VERTEX_SEND) {
    /* with the runs, a send's NIC wait is on its message (E_BURST), not on
     * the rank */
    if (!c->run_idx) c->prev_msg[v] = w->last_send;
    w->last_send = v;
  } else if (a->kind[v] == LLAMP_VERTEX_RECV && c->recv_chain) {
    /* its start is its completing call's, not its data's arrival */
    if (c->cpu_on && c->cpu_on[v]) return;
    /* an earlier message of a burst ends with the burst's last one,
     * sharing the receiver's link with it too: not FIFO there */
    if (c->burst_from && c->burst_from[v] != UINT32_MAX && (c->ahead_to[v] & AHEAD_OFF_CHAIN)) return;
    if (c->arr) c->arr[c->rank_off[r] + w->nr++] = (arrival_t){c->recv_key[v], w->i, v};
    else {
      c->prev_msg[v] = w->last_recv;
      w->last_recv = v;
    }
  }
}
static inline void chain_done(const plan_ranks_t *c, uint64_t r, rank_walk_t *w) {
  if (!c->arr) return;
  arrival_t *arr = c->arr + c->rank_off[r];
  sort_arrivals(arr, w->nr);
  for (uint32_t j = 0; j < w->nr; j++) c->prev_msg[arr[j].v] = j ? arr[j - 1].v : UINT32_MAX;
}
static void plan_chains_half(void *ctx, uint64_t lo, uint64_t hi, int half) {
  (void)half;
  rank_lockstep(ctx, lo, hi, chain_step, chain_done);
}

/* The plan's in-edges of vertices [lo, hi): counted (pass 0, into
 * count[half]) or written from start[half] (pass 1), so that two halves
 * fill one CSR. */
typedef struct {
  const llamp_graph_t *g;
  const llamp_graph_arrays_t *a;
  const uint8_t *kind;
  const uint32_t *burst_from, *prev_msg; /* prev_msg NULL: no gap chains */
  const burst_ref_t *bref;
  int nic;
  uint8_t *chain_read;
  uint32_t *off, *src;
  int pass;
  int rndv; /* 1: the plan has a rendezvous receive */
  double S; /* a sender waits for its transfer above it */
  const uint8_t *cpu_on; /* plan_cpu_edges; NULL: the graph has no CPU edge */
  uint64_t count[2], start[2];
  int back[2]; /* pass 1: an edge of the half goes backward in the graph's order */
} plan_edges_t;

/* pass and rndv constant in each copy: counting needs no edge's type, and
 * without a rendezvous receive no send's partner is looked up */
static inline __attribute__((always_inline)) uint64_t plan_edges_range(plan_edges_t *c, uint64_t lo, uint64_t hi,
                                                                      uint64_t m, const int pass, const int rndv,
                                                                      int half) {
  const llamp_graph_t *g = c->g;
  const llamp_graph_arrays_t *a = c->a;
  const uint8_t *kind = c->kind;
  uint32_t *src = c->src;
  const uint32_t *burst_from = c->burst_from, *prev_msg = c->prev_msg;
  int back = 0;
  for (uint64_t v = lo; v < hi; v++) {
    if (pass) c->off[v] = (uint32_t)m;
    if (!pass && !rndv && !c->cpu_on) {
      m += a->in_end[v] - a->in_beg[v];
    } else {
      for (uint32_t i = a->in_beg[v]; i < a->in_end[v]; i++) {
        uint32_t u = a->in_src[i] & LLAMP_EDGE_SRC_MASK, k = a->in_src[i] >> LLAMP_EDGE_KIND_SHIFT;
        uint32_t type = k, from = u;
        if (k == LLAMP_EDGE_CPU) {
          if (!c->cpu_on[v]) continue; /* a receive that starts at its match, or without CPU time */
          type = E_END; /* binding: after u's end (a send's own, not its completion) */
        }
        if (k == LLAMP_EDGE_MESSAGE) type = rndv && kind[v] == K_RECV_RNDV ? E_RTS : E_EAGER;
        else if (rndv && k == LLAMP_EDGE_REQUIRES && a->kind[u] == LLAMP_VERTEX_SEND &&
                 kind[llamp_graph_partner(g, u)] == K_RECV_RNDV && (a->value[u] > c->S || send_sync(a, u))) {
          /* the rendezvous send completes when its data has been read */
          if (pass) src[m] = u | (E_END << PLAN_SHIFT);
          m++;
          type = E_RNDV_DONE;
          from = (uint32_t)llamp_graph_partner(g, u);
        }
        if (pass) src[m] = from | (type << PLAN_SHIFT), back |= from >= v;
        m++;
      }
    }
    if (burst_from && burst_from[v] != UINT32_MAX) {
      if (pass) src[m] = burst_from[v] | ((uint32_t)E_BURST << PLAN_SHIFT), back |= burst_from[v] >= v;
      m++;
    }
    if (prev_msg && prev_msg[v] != UINT32_MAX) {
      if (!pass) {
        m++;
        continue;
      }
      uint32_t pm = prev_msg[v], gt = c->nic && a->kind[v] == LLAMP_VERTEX_RECV ? E_GAPR : E_GAP;
      /* A rendezvous receive after another: its data follows its start by
       * its read's latencies, as the other's did, so it ends no sooner than
       * the other's bytes after it could have begun: E_GAP, which charges
       * them (exact for equal latency terms).  Only where its sender's own
       * chain did not bind at the reference: a sender whose link is busy
       * too shares it while the receiver's is shared, which SimGrid does at
       * once and two chains would add (800 KB allgathers on 8 hosts:
       * +12.9 % and +39.6 % with both).  Four senders into one host:
       * -74.5 % -> 0 (tests/consistency/nic.sh). */
      if (rndv && c->chain_read && kind[v] == K_RECV_RNDV && kind[pm] == K_RECV_RNDV &&
          !c->bref->binds[llamp_graph_partner(g, v)]) {
        gt = E_GAP;
        c->chain_read[v] = 1;
      }
      src[m++] = pm | (gt << PLAN_SHIFT);
      back |= pm >= v;
    }
  }
  if (pass) c->back[half] = back;
  return m;
}

static void plan_edges_half(void *ctx, uint64_t lo, uint64_t hi, int half) {
  plan_edges_t *c = ctx;
  if (c->pass) {
    uint64_t m = c->start[half];
    if (c->rndv) plan_edges_range(c, lo, hi, m, 1, 1, half);
    else plan_edges_range(c, lo, hi, m, 1, 0, half);
  } else {
    c->count[half] = c->rndv ? plan_edges_range(c, lo, hi, 0, 0, 1, half) : plan_edges_range(c, lo, hi, 0, 0, 0, half);
  }
}

/* The plan's kinds and values of vertices [lo, hi): a receive is charged
 * for the message actually sent, and is a rendezvous one above S (above
 * leave_max: it starts at its match). */
typedef struct {
  const llamp_graph_t *g;
  const llamp_graph_arrays_t *a;
  double S; /* leave_max */
  uint8_t *kind;
  double *value;
} plan_kinds_t;

static void plan_kinds_half(void *ctx, uint64_t lo, uint64_t hi, int half) {
  (void)half;
  const plan_kinds_t *c = ctx;
  const llamp_graph_arrays_t *a = c->a;
  for (uint64_t v = lo; v < hi; v++) {
    c->kind[v] = a->kind[v];
    c->value[v] = a->value[v];
    if (a->kind[v] == LLAMP_VERTEX_RECV) {
      uint64_t u = llamp_graph_partner(c->g, v);
      double s = a->value[u];
      c->value[v] = s;
      if (s > c->S || send_sync(a, u)) c->kind[v] = K_RECV_RNDV;
    }
  }
}

/* The plan renumbered into the order plan_sort found, over [lo, hi):
 * pass 0 plan -> graph (gv, by graph vertex), pass 1 the in-edges of each
 * half's plan vertices (count[half]), pass 2 the arrays, each half's edges
 * from start[half]. */
typedef struct {
  llamp_engine_t *e;
  const uint32_t *order;
  const uint8_t *kind;
  const double *value;
  const uint32_t *off, *src;
  int pass;
  uint64_t count[2], start[2];
} plan_renum_t;

static void plan_renum_half(void *ctx, uint64_t lo, uint64_t hi, int half) {
  plan_renum_t *c = ctx;
  llamp_engine_t *e = c->e;
  const uint32_t *order = c->order, *off = c->off, *src = c->src;
  if (c->pass == 0) {
    for (uint64_t v = lo; v < hi; v++) e->gv[order[v]] = (uint32_t)v;
    return;
  }
  if (c->pass == 1) {
    uint64_t k = 0;
    for (uint64_t p = lo; p < hi; p++) k += off[e->gv[p] + 1] - off[e->gv[p]];
    c->count[half] = k;
    return;
  }
  uint64_t k = c->start[half];
  for (uint64_t p = lo; p < hi; p++) {
    uint32_t v = e->gv[p];
    e->own_kind[p] = c->kind[v];
    e->own_value[p] = c->value[v];
    e->own_off[p] = (uint32_t)k;
    for (uint32_t i = off[v]; i < off[v + 1]; i++) e->own_src[k++] = order[src[i] & PLAN_MASK] | (src[i] & ~PLAN_MASK);
  }
}

/* What the NIC rule's two plans share, in graph order (nic_replan): the
 * plan's kinds and values (the first plan's, when it kept the graph's
 * numbering) and each rank's posting order.  The second plan takes the
 * kinds, and frees the posting order once its chains are made (a fallback
 * plan after it makes its own). */
typedef struct {
  uint8_t *kind;
  double *value;
  uint32_t *rank_off, *posting;
} plan_base_t;

/* Does the graph have a CPU edge (LLAMP_EDGE_CPU)?  Then it needs a plan. */
static int graph_has_cpu_edges(const llamp_graph_arrays_t *a) {
  for (uint64_t i = 0; i < a->m; i++)
    if ((a->in_src[i] >> LLAMP_EDGE_KIND_SHIFT) == LLAMP_EDGE_CPU) return 1;
  return 0;
}

int llamp_params_cpu_edge_binds(const llamp_params_t *p, const llamp_netmodel_t *net, double s, int sync) {
  if (s > llamp_params_leave_max(p) || sync) return 0; /* it starts at its match */
  if (p->o > 0) return 1;
  if (!net) return 0;
  llamp_netmodel_vertex_t x;
  llamp_netmodel_vertex(net, 0, 0, s, p->S, sync, &x);
  return x.cpu > 0;
}

/* The receives whose CPU edges bind (*out NULL when the graph has no CPU
 * edge): eager ones with CPU time (llamp_params_cpu_edge_binds).  Their
 * start is then their completing call's, no longer their data's arrival:
 * they leave the NIC rule's receive chain, whose edges from a receive's
 * start would otherwise follow the call (and could close a cycle through
 * a receive that call's rank completed first). */
static int plan_cpu_edges(const llamp_engine_t *e, const llamp_graph_arrays_t *a, const uint8_t *kind,
                          uint8_t **out) {
  *out = NULL;
  if (!e->cpu_edges) return 0;
  uint8_t *on = calloc(a->n ? a->n : 1, 1);
  if (!on) return -1;
  const llamp_netmodel_t *net = e->pw ? &e->net : NULL;
  for (uint64_t v = 0; v < a->n; v++) {
    if (kind[v] != K_RECV) continue;
    int cpu = 0;
    for (uint32_t i = a->in_beg[v]; i < a->in_end[v] && !cpu; i++)
      cpu = (a->in_src[i] >> LLAMP_EDGE_KIND_SHIFT) == LLAMP_EDGE_CPU;
    uint64_t u = llamp_graph_partner(e->graph, v);
    on[v] = cpu && llamp_params_cpu_edge_binds(&e->proto, net, a->value[u], send_sync(a, u));
  }
  *out = on;
  return 0;
}

static int build_plan(llamp_engine_t *e, int recv_chain, const double *recv_key, const burst_ref_t *bref,
                      plan_base_t *base, llamp_par_t *par, char *err, size_t errlen) {
  const llamp_graph_t *g = e->graph;
  llamp_graph_arrays_t a;
  llamp_graph_arrays(g, &a);
  uint64_t n = a.n;
  int gap = e->proto.g > 0 || e->proto.nic;
  int any_self = llamp_graph_num_self_messages(g) > 0; /* else no vertex needs to_self's lookups */
  if (n > PLAN_MASK) {
    snprintf(err, errlen, "graph too large (%llu vertices) for rendezvous/gap modelling",
             (unsigned long long)n);
    return -1;
  }
  int kinds_known = base && base->kind;
  uint8_t *kind = kinds_known ? base->kind : plan_alloc(n ? n : 1);
  double *value = kinds_known ? base->value : plan_alloc((n ? n : 1) * 8);
  if (kinds_known) base->kind = NULL, base->value = NULL; /* this plan's now */
  uint32_t *prev_msg = NULL, *posting = NULL, *rank_off = NULL, *burst_from = NULL, *burst = NULL;
  uint32_t *ahead_to = NULL, *run_idx = NULL, *run_list = NULL, *chain_from = NULL, nrun = 0;
  uint8_t *chain_read = NULL, *cpu_on = NULL;
  int owned_posting = 1;
  uint32_t *off = plan_zalloc(n + 1, 4), *src = NULL, *order = NULL;
  if (!kind || !value || !off) goto oom;
  plan_kinds_t pk = {g, &a, llamp_params_leave_max(&e->proto), kind, value};
  if (!kinds_known) llamp_par_run(par, n, plan_kinds_half, &pk);
  if (plan_cpu_edges(e, &a, kind, &cpu_on)) goto oom;
  /* gap edges: previous send (recv) of the same rank in posting order */
  if (gap) {
    uint32_t P = llamp_graph_num_ranks(g);
    prev_msg = plan_alloc((n ? n : 1) * 4);
    if (!prev_msg) goto oom;
    if (base && base->posting) {
      rank_off = base->rank_off, posting = base->posting;
    } else {
      if (posting_order(g, &a, &rank_off, &posting)) goto oom;
      if (base) base->rank_off = rank_off, base->posting = posting;
    }
    if (base) owned_posting = 0; /* the caller's */
    arrival_t *arr = recv_key ? plan_alloc((n ? n : 1) * sizeof *arr) : NULL;
    if (recv_key && !arr) goto oom;
    plan_ranks_t pr = {g, &a, bref, llamp_params_leave_max(&e->proto), e->proto.nic, any_self, recv_chain, recv_key, rank_off, posting,
                       arr, prev_msg, NULL, NULL, NULL, NULL, NULL, NULL, cpu_on};
    if (bref) { /* runs first: their bursts' receives leave the receive chain */
      burst_from = plan_alloc((n ? n : 1) * 4);
      ahead_to = plan_alloc((n ? n : 1) * 4);
      run_idx = plan_alloc((n ? n : 1) * 4);
      run_list = plan_alloc((n ? n : 1) * 4);
      chain_from = plan_alloc((n ? n : 1) * 4);
      burst = plan_alloc((n ? n : 1) * 4);
      chain_read = plan_zalloc(n ? n : 1, 1);
      if (!burst_from || !ahead_to || !run_idx || !run_list || !chain_from || !burst || !chain_read) {
        free(arr);
        goto oom;
      }
      pr.burst_from = burst_from, pr.ahead_to = ahead_to, pr.run_idx = run_idx, pr.run_list = run_list;
      pr.chain_from = chain_from, pr.burst = burst;
      nrun = (uint32_t)n; /* run_idx: a place in its rank's posting segment */
      llamp_par_run(par, n, plan_init_half, &pr);
      /* each rank's sends in turn (posting order); the halves write apart:
       * a receive's burst fields only by its one sender */
      llamp_par_run(par, P, plan_runs_half, &pr);
    }
    llamp_par_run(par, P, plan_chains_half, &pr);
    free(arr);
    free(burst);
    burst = NULL;
    if (owned_posting || bref) { /* the NIC rule's second plan is the last to need it */
      free(posting), free(rank_off);
      if (base) base->posting = base->rank_off = NULL;
    }
    posting = rank_off = NULL;
  }
  /* count then fill the new in-edges, each half of the vertices from its
   * own start */
  int rndv = 0;
  for (uint64_t v = 0; v < n && !rndv; v++) rndv = kind[v] == K_RECV_RNDV;
  plan_edges_t pe = {g, &a, kind, burst_from, gap ? prev_msg : NULL, bref, e->proto.nic, chain_read, off, NULL, 0,
                     rndv, e->proto.S, cpu_on, {0, 0}, {0, 0}, {0, 0}};
  llamp_par_run(par, n, plan_edges_half, &pe);
  uint64_t m_all = pe.count[0] + pe.count[1];
  if (m_all >= UINT32_MAX || !(src = plan_alloc((m_all ? m_all : 1) * 4))) goto oom;
  pe.src = src, pe.pass = 1, pe.start[1] = pe.count[0];
  llamp_par_run(par, n, plan_edges_half, &pe);
  off[n] = (uint32_t)m_all;
  free(cpu_on);
  cpu_on = NULL;
  free(e->gap_prev);
  e->gap_prev = prev_msg; /* llamp_engine_gap_chain */
  prev_msg = NULL;
  free(e->burst_from);
  e->burst_from = burst_from; /* llamp_engine_burst_sources */
  burst_from = NULL;
  free(e->ahead_to);
  free(e->run_idx);
  free(e->run_list);
  free(e->chain_from);
  e->ahead_to = ahead_to, e->run_idx = run_idx, e->run_list = run_list, e->nrun = nrun;
  e->chain_from = chain_from;
  ahead_to = run_idx = run_list = chain_from = NULL;
  free(e->chain_read);
  e->chain_read = chain_read; /* llamp_engine_chain_reads */
  chain_read = NULL;
  /* the graph is numbered topologically with locality (llamp_graph.h): keep
   * its order when the added edges respect it too, else the nearest one that
   * they do (plan_sort) */
  int forward = !pe.back[0] && !pe.back[1]; /* found by the edges' write pass */
  uint64_t m = off[n];
  if (forward) { /* the plan is the graph's numbering: its arrays as they are, no gv */
    e->own_kind = kind, e->own_value = value, e->own_off = off, e->own_src = src;
    kind = NULL, value = NULL, off = NULL, src = NULL;
  } else {
    order = plan_alloc((n ? n : 1) * 4);
    if (!order) goto oom;
    if (plan_sort(n, off, src, order) != n) {
      snprintf(err, errlen,
               "the rendezvous (S=%.0f B) or gap modelling makes the graph cyclic: a blocking send "
               "larger than S waits for a receive that waits for it (a deadlock in real MPI too)",
               e->proto.S);
      goto fail;
    }
    /* renumber into plan order */
    e->gv = plan_alloc((n ? n : 1) * 4);
    e->own_kind = plan_alloc(n ? n : 1);
    e->own_value = plan_alloc((n ? n : 1) * 8);
    e->own_off = plan_alloc((n + 1) * 4);
    e->own_src = plan_alloc((m ? m : 1) * 4);
    if (!e->gv || !e->own_kind || !e->own_value || !e->own_off || !e->own_src) goto oom;
    plan_renum_t rn = {e, order, kind, value, off, src, 0, {0, 0}, {0, 0}};
    llamp_par_run(par, n, plan_renum_half, &rn); /* pass 0: gv */
    for (rn.pass = 1; rn.pass <= 2; rn.pass++) { /* 1: edges per half, 2: the arrays */
      rn.start[1] = rn.count[0];
      llamp_par_run(par, n, plan_renum_half, &rn);
    }
    e->own_off[n] = (uint32_t)m;
  }
  free(kind);
  free(value);
  free(off);
  free(src);
  free(order);
  e->n = n;
  e->m = m;
  e->kind = e->own_kind;
  e->value = e->own_value;
  e->in_beg = e->own_off;
  e->in_end = e->own_off + 1;
  e->in_src = e->own_src;
  e->shift = PLAN_SHIFT;
  e->mask = PLAN_MASK;
  return 0;
oom:
  snprintf(err, errlen, "out of memory while preparing the rendezvous/gap plan");
fail:
  free(kind);
  free(value);
  free(prev_msg);
  free(burst_from);
  free(ahead_to);
  free(run_idx);
  free(run_list);
  free(chain_from);
  free(chain_read);
  free(cpu_on);
  free(burst);
  if (owned_posting) free(posting), free(rank_off);
  free(off);
  free(src);
  free(order);
  return -1;
}

/* The size-dependent costs of graph vertex v (see pwv_t). */
static void pw_vertex(const llamp_engine_t *e, uint64_t v, pwv_t *out) {
  const llamp_graph_t *g = e->graph;
  unsigned k = llamp_graph_kind(g, v);
  memset(out, 0, sizeof *out);
  if (k == LLAMP_VERTEX_CALC) return;
  uint64_t u = k == LLAMP_VERTEX_SEND ? v : llamp_graph_partner(g, v);
  llamp_netmodel_vertex_t x;
  llamp_netmodel_vertex(&e->net, k == LLAMP_VERTEX_SEND, e->nonblocking[v], llamp_graph_value(g, u), e->proto.S,
                        (llamp_graph_flags(g, u) & LLAMP_VERTEX_F_SYNC) != 0, &x);
  *out = (pwv_t){x.cpu, x.c, x.k, x.start};
}

/* The sends SMPI charges as MPI_Isends (ois): those some vertex irequires
 * and those flagged LLAMP_VERTEX_F_ISEND (a send's costs depend on it);
 * an irequired one flagged LLAMP_VERTEX_F_OS returns after os instead
 * (llamp_netmodel_vertex's nonblocking 2). */
static void costs_mark_nonblocking(llamp_engine_t *e, const llamp_graph_arrays_t *a) {
  for (uint64_t v = 0; v < a->n; v++) {
    if (a->flags && (a->flags[v] & LLAMP_VERTEX_F_ISEND)) e->nonblocking[v] = 1;
    for (uint32_t i = a->in_beg[v]; i < a->in_end[v]; i++) {
      uint32_t u = a->in_src[i] & LLAMP_EDGE_SRC_MASK;
      if ((a->in_src[i] >> LLAMP_EDGE_KIND_SHIFT) == LLAMP_EDGE_IREQUIRES && a->kind[u] == LLAMP_VERTEX_SEND)
        e->nonblocking[u] = llamp_graph_send_charge(a, u);
    }
  }
}

/* A vertex's costs depend on its message's size and on three flags (send,
 * nonblocking, synchronous) only, and programs send few sizes: a small table of the last
 * ones computed spares most of the curve evaluations (bench_capture64, two
 * calls: 274 M of the analysis's 1.43 G instructions) with the same bits. */
enum { PW_MEMO = 64 };
typedef struct {
  double s;
  unsigned flags; /* 0: empty, else 1 + 2 send + 4 synchronous + 8 nonblocking (0, 1 or 2) */
  pwv_t cost;
} pw_memo_t;

static void costs_pw_vertex(llamp_engine_t *e, const llamp_graph_arrays_t *a, pw_memo_t *memo, uint64_t v) {
  unsigned k = a->kind[v];
  if (k == LLAMP_VERTEX_CALC) {
    memset(&e->pw[v], 0, sizeof e->pw[v]);
    return;
  }
  uint64_t u = k == LLAMP_VERTEX_SEND ? v : llamp_graph_partner(e->graph, v);
  double sz = a->value[u];
  unsigned flags = 1 + 2 * (k == LLAMP_VERTEX_SEND) + 4 * send_sync(a, u) + 8 * e->nonblocking[v];
  uint64_t bits;
  memcpy(&bits, &sz, sizeof bits);
  unsigned h = (unsigned)((bits * 0x9e3779b97f4a7c15ull) >> 58) ^ flags;
  h &= PW_MEMO - 1;
  if (memo[h].flags != flags || memcmp(&memo[h].s, &sz, sizeof sz)) {
    pw_vertex(e, v, &memo[h].cost);
    memo[h].s = sz;
    memo[h].flags = flags;
  }
  e->pw[v] = memo[h].cost;
}

/* A send or receive vertex's message goes from a rank to itself. */
static int to_self(const llamp_graph_t *g, uint64_t gv) {
  unsigned k = llamp_graph_kind(g, gv);
  if (k == LLAMP_VERTEX_CALC || llamp_graph_rank(g, gv) != llamp_graph_rank(g, llamp_graph_partner(g, gv)))
    return 0;
  int32_t tag = llamp_graph_tag(g, gv); /* sched's stand-ins for a transfer cost L (llamp_graph.h) */
  return !(tag >= LLAMP_TAG_NET_SELF && tag < LLAMP_TAG_NET_SELF_END);
}

/* The kind of graph vertex gv's message (0 for a calc vertex); the tables
 * must be built.  Kinds: the per-pair table's (or one, L + bytes G), then
 * the messages to oneself, one per rank with per-pair costs (its host's
 * route to itself), else one. */
static uint32_t vertex_kind(const llamp_engine_t *e, uint64_t gv) {
  const llamp_graph_t *g = e->graph;
  unsigned k = llamp_graph_kind(g, gv);
  if (k == LLAMP_VERTEX_CALC) return 0;
  const llamp_pairs_t *q = e->pairs;
  uint32_t r = llamp_graph_rank(g, gv), o = llamp_graph_rank(g, llamp_graph_partner(g, gv));
  uint32_t base = q ? q->num_kinds : 1;
  if (r == o && to_self(g, gv)) return base + (q ? r : 0);
  return q ? (k == LLAMP_VERTEX_SEND ? llamp_pairs_kind(q, r, o) : llamp_pairs_kind(q, o, r)) : 0;
}

/* The size-dependent transfer constant of a message to oneself: SimGrid
 * multiplies its route's latency by lat_factor, so c(s) = (lat_factor - 1)
 * L_ref becomes (lat_factor - 1) x the route's latency (0 without routes). */
static double self_c(const llamp_engine_t *e, double c, double self_lat) {
  return e->net.L_ref > 0 ? c * self_lat / e->net.L_ref : 0;
}

/* The observed contention model (llamp_params_t.observed): the constant
 * that makes graph vertex gv's message transfer -- one latency term, c and k
 * bytes (pw, after c's route scaling) of message kind `kind` -- cost its
 * observed time at the creation point; 0 where there is none. */
static double observed_excess(const llamp_engine_t *e, uint64_t gv, const pwv_t *pw, uint32_t kind) {
  const llamp_graph_t *g = e->graph;
  const double *obs = e->proto.observed;
  unsigned k = llamp_graph_kind(g, gv);
  if (!obs || k == LLAMP_VERTEX_CALC) return 0;
  double x = obs[k == LLAMP_VERTEX_RECV ? gv : llamp_graph_partner(g, gv)];
  if (!isfinite(x)) return 0;
  const llamp_params_t *p = &e->proto;
  double lat = p->L, byte = p->G;
  if (e->pk) {
    lat = e->kl[kind] * p->L + e->kc0[kind];
    for (uint32_t j = 0; j < e->K; j++) lat += e->kcoef[(size_t)kind * e->K + j] * p->x[j];
    byte = e->kg[kind] * p->G + e->kb[kind];
  }
  return x - (lat + pw->c + pw->k * byte);
}

/* ---- size-dependent costs and message kinds ------------------------------------ */

/* Both depend on the graph alone: they are built by graph vertex, on the
 * helper thread beside the plan (costs_fill), then put in the plan's order
 * (costs_renumber).  Their arrays are allocated here, by the calling thread:
 * in the capture its heap is the one prefaulted for the analysis.
 *
 * Message kinds (see struct llamp_engine) are built with per-pair costs or
 * when some rank sends to itself.  A message to oneself never crosses the
 * network (docs/model.md, "Messages to oneself"): no L, no topology
 * parameter; its latency and time per byte are the constants of its host's
 * route to itself (SimGrid's loopback) when the routes are known, else 0. */
static int costs_alloc(llamp_engine_t *e, const llamp_params_t *p, char *err, size_t errlen) {
  const llamp_graph_t *g = e->graph;
  uint64_t gn = llamp_graph_num_vertices(g);
  uint32_t P = llamp_graph_num_ranks(g);
  const llamp_pairs_t *q = p->pairs;
  if (p->net) {
    e->net = *p->net;
    e->nonblocking = plan_zalloc(gn ? gn : 1, 1);
    e->pw = plan_alloc((gn ? gn : 1) * sizeof *e->pw);
    if (!e->nonblocking || !e->pw) {
      snprintf(err, errlen, "out of memory while preparing the size-dependent costs");
      return -1;
    }
  }
  if (q && (q->ranks != P || q->num_params > LLAMP_MAX_XPARAMS ||
            (!q->pair_kind && (!q->rank_host || (q->nhpairs && !q->hpair_key) || (q->nhpairs && !q->hpair_kind))))) {
    snprintf(err, errlen, "per-pair costs for %u ranks and %u parameters, the graph has %u ranks "
             "(at most %d parameters)", q->ranks, q->num_params, P, LLAMP_MAX_XPARAMS);
    return -1;
  }
  int self = llamp_graph_num_self_messages(g) > 0;
  if (!q && !self) return 0;
  e->pairs = q;
  uint32_t base = q ? q->num_kinds : 1, K = q ? q->num_params : 0;
  uint32_t nk = base + (self ? (q ? P : 1) : 0);
  e->nk = nk;
  e->K = K;
  e->pk = plan_alloc((gn ? gn : 1) * sizeof *e->pk);
  e->kl = plan_alloc(nk * sizeof *e->kl);
  e->kc0 = plan_alloc(nk * sizeof *e->kc0);
  e->kg = plan_alloc(nk * sizeof *e->kg);
  e->kb = plan_alloc(nk * sizeof *e->kb);
  e->klat = plan_alloc(nk * sizeof *e->klat);
  e->kcoef = plan_zalloc((size_t)nk * K + 1, sizeof *e->kcoef);
  if (!e->pk || !e->kl || !e->kc0 || !e->kg || !e->kb || !e->klat || !e->kcoef) {
    snprintf(err, errlen, "out of memory for the per-pair costs");
    return -1;
  }
  for (uint32_t k = 0; k < base; k++) { /* messages between two ranks */
    e->kl[k] = 1;
    e->kc0[k] = q ? q->c0[k] : 0;
    e->kg[k] = q ? q->gscale[k] : 1;
    e->kb[k] = 0;
    if (q && K) memcpy(e->kcoef + (size_t)k * K, q->coef + (size_t)k * K, K * sizeof *e->kcoef);
  }
  for (uint32_t k = base; k < nk; k++) { /* to oneself: constants only */
    uint32_t r = k - base;
    e->kl[k] = 0;
    e->kg[k] = 0;
    e->kc0[k] = q && q->self_lat ? q->self_lat[r] : 0;
    e->kb[k] = q && q->self_G ? q->self_G[r] : 0;
  }
  return 0;
}

/* The costs by graph vertex: nonblocking sends first (a send's costs
 * depend on it), then every vertex's size-dependent costs and message kind
 * in one walk (each receive's partner read once for both: bench_capture64,
 * two walks 30-39 ms, on the helper beside the first plan). */
static int costs_fill(llamp_engine_t *e, char *err, size_t errlen) {
  const llamp_graph_t *g = e->graph;
  const llamp_pairs_t *q = e->pairs;
  llamp_graph_arrays_t a;
  llamp_graph_arrays(g, &a);
  uint32_t base = q ? q->num_kinds : 1, nk = e->nk;
  pw_memo_t memo[PW_MEMO];
  memset(memo, 0, sizeof memo);
  if (e->pw) costs_mark_nonblocking(e, &a);
  if (!e->pw && !e->pk) return 0;
  if (!e->pk) { /* every message L + bytes G */
    for (uint64_t v = 0; v < a.n; v++) {
      costs_pw_vertex(e, &a, memo, v);
      e->pw[v].c += observed_excess(e, v, &e->pw[v], 0);
    }
    return 0;
  }
  /* SimGrid's lat-factor multiplies each route's own latency: c(s) of a
   * kind scales by its route latency over L_ref (NULL: not needed) */
  double *cs = NULL;
  if (e->pw && q && q->num_kinds && llamp_netmodel_by_factors(&e->net)) {
    if (!(cs = malloc(q->num_kinds * sizeof *cs))) {
      snprintf(err, errlen, "out of memory for the per-pair costs");
      return -1;
    }
    for (uint32_t k = 0; k < q->num_kinds; k++) cs[k] = llamp_netmodel_route_c(&e->net, 1, llamp_pairs_route_latency(q, k));
  }
  for (uint64_t v = 0; v < a.n; v++) {
    if (e->pw) costs_pw_vertex(e, &a, memo, v);
    uint32_t kind = vertex_kind(e, v);
    if (kind == UINT32_MAX) {
      uint32_t x = llamp_graph_rank(g, v), y = llamp_graph_rank(g, llamp_graph_partner(g, v));
      if (llamp_graph_kind(g, v) == LLAMP_VERTEX_RECV) x ^= y, y ^= x, x ^= y;
      if (q->rank_host)
        snprintf(err, errlen, "per-pair costs: no route from rank %u (host %u) to rank %u (host %u) in the table", x,
                 q->rank_host[x], y, q->rank_host[y]);
      else
        snprintf(err, errlen, "per-pair costs: no route from rank %u to rank %u in the table", x, y);
      free(cs);
      return -1;
    }
    if (kind >= nk) {
      snprintf(err, errlen, "per-pair costs: kind %u of rank %u's message out of range (%u kinds)", kind,
               llamp_graph_rank(g, v), q ? q->num_kinds : 1);
      free(cs);
      return -1;
    }
    e->pk[v] = kind;
    if (e->pw && kind >= base) e->pw[v].c = self_c(e, e->pw[v].c, e->kc0[kind]);
    else if (cs && llamp_graph_kind(g, v) != LLAMP_VERTEX_CALC) e->pw[v].c *= cs[kind];
    if (e->pw) e->pw[v].c += observed_excess(e, v, &e->pw[v], kind);
  }
  free(cs);
  return 0;
}

/* The costs in the plan's order (a gather by gv, in two halves). */
typedef struct {
  const uint32_t *gv;
  const pwv_t *pw;
  const uint32_t *pk;
  pwv_t *to_pw;
  uint32_t *to_pk;
} gather_t;
static void gather_half(void *ctx, uint64_t lo, uint64_t hi, int half) {
  (void)half;
  const gather_t *c = ctx;
  if (c->pw)
    for (uint64_t p = lo; p < hi; p++) c->to_pw[p] = c->pw[c->gv[p]];
  if (c->pk)
    for (uint64_t p = lo; p < hi; p++) c->to_pk[p] = c->pk[c->gv[p]];
}
static int costs_renumber(llamp_engine_t *e, llamp_par_t *par, char *err, size_t errlen) {
  if (!e->gv || (!e->pw && !e->pk)) return 0;
  gather_t c = {e->gv, e->pw, e->pk, NULL, NULL};
  if ((e->pw && !(c.to_pw = plan_alloc((e->n ? e->n : 1) * sizeof *c.to_pw))) ||
      (e->pk && !(c.to_pk = plan_alloc((e->n ? e->n : 1) * sizeof *c.to_pk)))) {
    free(c.to_pw);
    snprintf(err, errlen, "out of memory while preparing the size-dependent costs");
    return -1;
  }
  llamp_par_run(par, e->n, gather_half, &c);
  free(e->pw);
  free(e->pk);
  e->pw = c.to_pw;
  e->pk = c.to_pk;
  return 0;
}

/* The evaluation arrays, numbered by the plan: what a fork owns besides
 * its ring and klat. */
static void drop_work(llamp_engine_t *e) {
  free(e->work);
  free(e->terminal);
  free(e->lane_start);
  free(e->lane_coef);
  free(e->tail_buf);
  e->work = e->start = e->cmax = e->cmin = NULL, e->terminal = NULL, e->lane_start = e->lane_coef = NULL;
  e->tail_buf = NULL, e->tail_lanes = 0, e->lane_alloc = 0;
  e->work_valid = 0;
}

/* The costs and kinds, taken out of an engine and given back (they
 * outlive a plan whose numbering was the graph's). */
typedef struct {
  struct pwv *pw;
  uint8_t *nonblocking;
  const llamp_pairs_t *pairs;
  uint32_t *pk, nk, K;
  double *kl, *kc0, *kcoef, *kg, *kb, *klat;
} costs_t;
static void costs_detach(llamp_engine_t *e, costs_t *c) {
  *c = (costs_t){e->pw, e->nonblocking, e->pairs, e->pk, e->nk, e->K, e->kl, e->kc0, e->kcoef, e->kg, e->kb, e->klat};
  e->pw = NULL, e->nonblocking = NULL, e->pairs = NULL, e->pk = NULL, e->nk = e->K = 0;
  e->kl = e->kc0 = e->kcoef = e->kg = e->kb = e->klat = NULL;
}
static void costs_attach(llamp_engine_t *e, const costs_t *c) {
  e->pw = c->pw, e->nonblocking = c->nonblocking, e->pairs = c->pairs, e->pk = c->pk, e->nk = c->nk, e->K = c->K;
  e->kl = c->kl, e->kc0 = c->kc0, e->kcoef = c->kcoef, e->kg = c->kg, e->kb = c->kb, e->klat = c->klat;
}

/* Free the plan and everything numbered by it (work arrays, size-dependent
 * costs, message kinds): for a new plan (the NIC rule's) or the end. */
static void drop_plan(llamp_engine_t *e) {
  drop_work(e);
  free(e->gv);
  free(e->own_kind);
  free(e->own_value);
  free(e->own_off);
  free(e->own_src);
  free(e->pw);
  free(e->nonblocking);
  free(e->pk);
  free(e->kl);
  free(e->kc0);
  free(e->kg);
  free(e->kb);
  free(e->klat);
  free(e->kcoef);
  free(e->run_bk);
  free(e->run_bn);
  free(e->run_ck);
  e->run_bk = e->run_bn = e->run_ck = NULL;
  e->gv = NULL, e->own_kind = NULL, e->own_value = NULL, e->own_off = NULL, e->own_src = NULL;
  e->pw = NULL, e->nonblocking = NULL;
  e->pk = NULL, e->kl = e->kc0 = e->kg = e->kb = e->klat = e->kcoef = NULL;
  e->pairs = NULL, e->nk = e->K = 0;
}

int llamp_engine_refresh_pairs(llamp_engine_t *e) {
  const llamp_pairs_t *q = e->pairs;
  if (!q) return 0;
  for (uint32_t k = 0; k < q->num_kinds && k < e->nk; k++) {
    e->kc0[k] = q->c0[k];
    e->kg[k] = q->gscale[k];
    if (e->K) memcpy(e->kcoef + (size_t)k * e->K, q->coef + (size_t)k * e->K, e->K * sizeof *e->kcoef);
  }
  return 0;
}

static int ensure_work(llamp_engine_t *e, size_t lanes);
static theta_t theta_of(const llamp_engine_t *e, const llamp_params_t *p);
static void pass1(llamp_engine_t *e, const theta_t *t, llamp_param_t w, llamp_eval_t *out);

/* What is ahead of each run receive's message (E_BURST), by plan vertex:
 * the run's messages before the one ahead_to names, their bytes at G in the
 * cost model's units (msg_bytes) and their count.  After the costs, which
 * give a send's bytes. */
/* runs_fill's loops over plan vertices [lo, hi): graph -> plan (pass 0),
 * each place's send bytes into run_bk (pass 1; run_list's places, as many
 * as plan vertices), then each receive's ahead (pass 2; 0 where it has
 * none). */
typedef struct {
  llamp_engine_t *e;
  uint32_t *pv;
  const double *pre;
  int pass;
  const theta_t *t;
} runs_job_t;

static void runs_half(void *ctx, uint64_t lo, uint64_t hi, int half) {
  (void)half;
  const runs_job_t *c = ctx;
  llamp_engine_t *e = c->e;
  if (c->pass == 0) {
    for (uint64_t p = lo; p < hi; p++) c->pv[e->gv[p]] = (uint32_t)p;
    return;
  }
  if (c->pass == 1) {
    for (uint64_t i = lo; i < hi; i++) {
      uint32_t v = e->run_list[i];
      uint64_t p = v == UINT32_MAX ? 0 : c->pv ? c->pv[v] : v;
      e->run_bk[i] = v == UINT32_MAX ? 0 : msg_bytes(e->value[p], c->t, e->pw, p);
    }
    return;
  }
  const double *pre = c->pre;
  for (uint64_t p = lo; p < hi; p++) {
    uint64_t v = e->gv ? e->gv[p] : p;
    e->run_bk[p] = e->run_bn[p] = e->run_ck[p] = 0;
    if (e->burst_from[v] == UINT32_MAX) continue;
    const uint32_t *num = e->run_list; /* a place -> its run send's number (runs_fill) */
    uint32_t f = num[e->run_idx[e->burst_from[v]]], a = num[e->run_idx[e->ahead_to[v] & ~AHEAD_OFF_CHAIN]];
    e->run_bk[p] = pre[a] - pre[f];
    e->run_bn[p] = a - f;
    if (e->chain_from[v] != UINT32_MAX) e->run_ck[p] = pre[a] - pre[num[e->run_idx[e->chain_from[v]]]];
  }
}

static int runs_fill(llamp_engine_t *e, llamp_par_t *par, char *err, size_t errlen) {
  free(e->run_bk);
  free(e->run_bn);
  free(e->run_ck);
  e->run_bk = e->run_bn = e->run_ck = NULL;
  if (!e->burst_from) return 0;
  uint64_t n = e->n;
  uint32_t *pv = NULL; /* graph -> plan */
  uint32_t nsend = 0;
  for (uint32_t i = 0; i < e->nrun; i++) nsend += e->run_list[i] != UINT32_MAX;
  double *pre = malloc(((size_t)nsend + 1) * sizeof *pre);
  e->run_bk = plan_alloc((n ? n : 1) * sizeof *e->run_bk);
  e->run_bn = plan_alloc((n ? n : 1) * sizeof *e->run_bn);
  e->run_ck = plan_alloc((n ? n : 1) * sizeof *e->run_ck);
  if (e->gv) pv = malloc((n ? n : 1) * sizeof *pv);
  if (!pre || !e->run_bk || !e->run_bn || !e->run_ck || (e->gv && !pv)) {
    free(pre);
    free(pv);
    snprintf(err, errlen, "out of memory for the NIC rule's runs");
    return -1;
  }
  theta_t t = theta_of(e, &e->proto);
  runs_job_t job = {e, pv, pre, 0, &t};
  if (pv) llamp_par_run(par, n, runs_half, &job);
  /* the run sends' bytes summed in place order, which is rank by rank in
   * posting order (the holes between ranks skipped); each place then holds
   * its send's number, pre's index.  The bytes first, in halves (the sends
   * are scattered over the plan), then the sums in order, one thread. */
  job.pass = 1;
  llamp_par_run(par, e->nrun, runs_half, &job);
  pre[0] = 0;
  for (uint32_t i = 0, k = 0; i < e->nrun; i++) {
    if (e->run_list[i] == UINT32_MAX) continue; /* a place no run send took (plan_runs_half) */
    pre[k + 1] = pre[k] + e->run_bk[i];
    e->run_list[i] = k++;
  }
  job.pass = 2;
  llamp_par_run(par, n, runs_half, &job);
  free(pre);
  free(pv);
  /* the runs' structure is in the aheads now */
  free(e->ahead_to);
  free(e->run_idx);
  free(e->run_list);
  free(e->chain_from);
  e->ahead_to = e->run_idx = e->run_list = e->chain_from = NULL;
  return 0;
}

/* The NIC rule's reference, from the first plan (whose sends wait for their
 * NIC) at t: the pass that the runs model, where a rank goes on while its
 * sends queue at its NIC.  A send's CPU start (e->start) follows its
 * in-edges but the chain; its injection (e->cmax) is the later of that and
 * the previous send's injection + g + its bytes at G; its messages leave
 * from its injection.  From it (graph ids): each receive's start (key),
 * and for each send whose chain predecessor is on a route of the same
 * latency and kind, binds bit 1 when it was posted before the NIC was
 * free, bit 2 when it was posted within the previous message's transfer
 * (or its CPU time) after that one's start: SimGrid then shares the link
 * between the two, so they end nearer together than one after the other
 * (the FIFO reference spaces sends that a burst upstream let go together
 * exactly one transfer apart). */
/* nic_reference's edge u -> v: its candidate time, from u's injection when
 * u's message goes on the wire (the type a constant in each copy) */
static inline __attribute__((always_inline)) double nic_ref_edge(const llamp_engine_t *e, const theta_t *t,
                                                                const pwv_t *pw, unsigned type, uint32_t u,
                                                                unsigned kv, uint64_t v) {
  const double *st = e->start, *inj = e->cmax;
  int wire = e->kind[u] == K_SEND && (type == E_EAGER || type == E_RTS || type == E_GAP);
  double c = (wire ? inj[u] : st[u]) + ecost_uv(type, e->value[u], t, pw, u, kv, e->value[v], v);
  if (!from_start(type)) c += vcost(e->kind[u], e->value[u], t, pw, u);
  return c;
}

static inline __attribute__((always_inline)) void nic_reference_body(llamp_engine_t *e, const theta_t *t,
                                                                    const pwv_t *pw, double *key, uint8_t *binds) {
  double *st = e->start, *inj = e->cmax;
  for (uint64_t i_ = 0; i_ < e->n; i_++) {
    uint64_t v = e->topo ? e->topo[i_] : i_, gv = e->gv ? e->gv[v] : v;
    unsigned kv = e->kind[v];
    double b = 0, q = 0;
    uint64_t prev = UINT64_MAX;
    for (uint32_t i = e->in_beg[v]; i < e->in_end[v]; i++) {
      uint32_t u = e->in_src[i] & e->mask, type = e->in_src[i] >> e->shift;
      double c;
#define NR(T) (c = nic_ref_edge(e, t, pw, T, u, kv, v))
      EDGE_TYPE_SWITCH(type, NR, NR)
#undef NR
      if (type == E_GAP && kv == K_SEND) {
        q = c;
        prev = u;
      } else if (c > b) {
        b = c;
      }
    }
    st[v] = b;
    inj[v] = q > b ? q : b;
    if (kv == K_RECV || kv == K_RECV_RNDV) key[gv] = b;
    if (prev != UINT64_MAX && b <= q + tie_tol(q) && msg_lat(t, pw, v) == msg_lat(t, pw, prev) &&
        (!e->pk || e->pk[v] == e->pk[prev])) {
      double w = ecost(E_GAP, e->value[prev], t, pw, prev), o = vcost(K_SEND, e->value[prev], t, pw, prev);
      double after = st[prev] + (w > o ? w : o);
      binds[gv] = 1 | (b <= after + tie_tol(after) ? 2 : 0);
    }
  }
}

static void nic_reference(llamp_engine_t *e, const theta_t *t, double *key, uint8_t *binds) {
  e->work_valid = 0;
  if (e->pw) nic_reference_body(e, t, e->pw, key, binds);
  else nic_reference_body(e, t, NULL, key, binds);
}

/* The NIC rule's plans (docs/model.md, "The NIC rule"): the first plan
 * chains each rank's sends; the reference pass from it (nic_reference)
 * orders the receives and finds the runs of sends, and the plan is rebuilt
 * with the receives chained in that order (posting order if that one is
 * cyclic) and the runs' NIC waits on their messages. */
static int nic_replan(llamp_engine_t *e, const llamp_params_t *p, plan_base_t *base, llamp_par_t *par, char *err,
                      size_t errlen) {
  uint64_t gn = llamp_graph_num_vertices(e->graph);
  double *key = plan_alloc((gn ? gn : 1) * sizeof *key);
  uint8_t *binds = plan_zalloc(gn ? gn : 1, 1);
  if (!key || !binds || ensure_work(e, 1)) {
    free(key);
    free(binds);
    snprintf(err, errlen, "out of memory while ordering the receives (NIC rule)");
    return -1;
  }
  theta_t t = theta_of(e, p);
  for (uint64_t v = 0; v < gn; v++) key[v] = 0;
  nic_reference(e, &t, key, binds);
  burst_ref_t bref = {binds};
  /* the costs by graph vertex stay when the first plan kept the graph's
   * numbering (they are then in graph order): only their order changes */
  costs_t kept = {0};
  int keep = !e->gv;
  if (keep) costs_detach(e, &kept);
  if (!e->gv) { /* the first plan's kinds are in graph order: the second's too */
    base->kind = e->own_kind, base->value = e->own_value;
    e->own_kind = NULL, e->own_value = NULL;
  }
  drop_plan(e); /* the first plan, and what depends on its numbering */
  int rc = build_plan(e, 1, key, &bref, base, par, err, errlen);
  if (rc) rc = build_plan(e, 1, NULL, NULL, base, par, err, errlen); /* zero-cost ties against posting order */
  free(key);
  free(binds);
  if (keep) costs_attach(e, &kept);
  else if (rc == 0 && (rc = costs_alloc(e, p, err, errlen)) == 0)
    rc = costs_fill(e, err, errlen);
  if (rc == 0) rc = costs_renumber(e, par, err, errlen);
  if (rc == 0) rc = runs_fill(e, par, err, errlen);
  return rc;
}

/* Engine creation's two independent parts: the plan (task 0, on the
 * calling thread, whose heap its arrays go to; its error in the caller's
 * buffer) and the costs by graph vertex (task 1, into arrays costs_alloc
 * made; its error in cerr). */
typedef struct {
  llamp_engine_t *e;
  plan_base_t *base; /* the NIC rule's: for its second plan */
  int plan, recv_chain, costs;
  int rc[2];
  char *err;
  size_t errlen;
  char cerr[256];
} create_job_t;
static void create_task(void *ctx, uint64_t lo, uint64_t hi, int half) {
  (void)half;
  create_job_t *j = ctx;
  for (uint64_t t = lo; t < hi; t++) {
    if (t == 0 && j->plan) j->rc[0] = build_plan(j->e, j->recv_chain, NULL, NULL, j->base, NULL, j->err, j->errlen);
    if (t == 1 && j->costs) j->rc[1] = costs_fill(j->e, j->cerr, sizeof j->cerr);
  }
}

llamp_engine_t *llamp_engine_create(const llamp_graph_t *g, const llamp_params_t *p, char *err,
                                    size_t errlen) {
  if (!(p->S >= 0) || !(p->L >= 0) || !(p->o >= 0) || !(p->G >= 0) || !(p->g >= 0)) {
    snprintf(err, errlen, "model parameters must be non-negative");
    return NULL;
  }
  if (p->observed && !p->net) {
    snprintf(err, errlen, "observed transfer times need the size-dependent costs (a net model)");
    return NULL;
  }
  if (p->async_small && (!(p->A >= 0) || !p->rndv_direct)) {
    snprintf(err, errlen, "async_small (SMPI's smpi/async-small-thresh) needs A >= 0 and the direct rendezvous");
    return NULL;
  }
  llamp_engine_t *e = calloc(1, sizeof *e);
  if (!e) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  e->graph = g;
  e->proto = *p;
  e->reach = UINT64_MAX;
  e->far_owned = 1;
  llamp_graph_arrays_t a;
  llamp_graph_arrays(g, &a);
  int rndv = 0;
  for (uint64_t v = 0; v < a.n && !rndv; v++)
    rndv = a.kind[v] == LLAMP_VERTEX_SEND && (a.value[v] > llamp_params_leave_max(p) || send_sync(&a, v));
  e->cpu_edges = graph_has_cpu_edges(&a);
  int plan = rndv || p->g > 0 || p->nic || e->cpu_edges;
  if (!plan) {
    e->n = a.n;
    e->m = a.m;
    e->kind = a.kind;
    e->value = a.value;
    e->in_beg = a.in_beg;
    e->in_end = a.in_end;
    e->topo = a.topo;
    e->in_src = a.in_src;
    e->shift = LLAMP_EDGE_KIND_SHIFT;
    e->mask = LLAMP_EDGE_SRC_MASK;
  }
  /* the plan on this thread, the costs beside it on a helper (both read
   * the graph only, and write apart); a helper only when both have work */
  plan_base_t base = {0};
  create_job_t job = {e, p->nic ? &base : NULL, plan, !p->nic, 0, {0, 0}, err, errlen, ""};
  job.rc[1] = costs_alloc(e, p, job.cerr, sizeof job.cerr);
  job.costs = job.rc[1] == 0; /* else the plan's own error still comes first */
  /* and the NIC rule's second plan walks the ranks in two halves */
  llamp_par_t *par = plan && ((job.costs && (e->pw || e->pk)) || p->nic) ? llamp_par_create(llamp_par_halves(0, a.n))
                                                                        : NULL;
  llamp_par_run(par, 2, create_task, &job);
  int rc = job.rc[0] ? job.rc[0] : job.rc[1];
  if (!job.rc[0] && job.rc[1]) snprintf(err, errlen, "%s", job.cerr);
  if (rc == 0) rc = costs_renumber(e, par, err, errlen);
  if (rc == 0 && p->nic) rc = nic_replan(e, p, &base, par, err, errlen);
  llamp_par_destroy(par);
  free(base.kind);
  free(base.value);
  free(base.rank_off);
  free(base.posting);
  if (rc) {
    llamp_engine_destroy(e);
    return NULL;
  }
  e->proto.net = NULL; /* the engine's copy is e->net */
  return e;
}

llamp_engine_t *llamp_engine_fork(const llamp_engine_t *e) {
  llamp_engine_t *f = malloc(sizeof *f);
  if (!f) return NULL;
  *f = *e;
  f->parent = e;
  f->work = f->start = f->cmax = f->cmin = NULL, f->terminal = NULL; /* its own, as drop_work frees */
  f->lane_start = f->lane_coef = NULL, f->lane_alloc = 0, f->tail_buf = NULL, f->tail_lanes = 0;
  f->ring = NULL, f->ring_len = 0;
  if (!e->ring_w) f->far_src = NULL, f->nfar = 0; /* not planned yet: the fork plans its own */
  f->far_owned = !e->ring_w;
  f->work_valid = 0;
  f->klat = NULL;
  if (e->klat && !(f->klat = malloc((e->nk ? e->nk : 1) * sizeof *f->klat))) {
    free(f);
    return NULL;
  }
  return f;
}

void llamp_engine_destroy(llamp_engine_t *e) {
  if (!e) return;
  if (e->parent) { /* a fork: its own arrays only */
    drop_work(e);
    free(e->ring);
    if (e->far_owned) free(e->far_src);
    free(e->klat);
    free(e);
    return;
  }
  drop_plan(e);
  free(e->ring);
  free(e->far_src);
  free(e->gap_prev);
  free(e->burst_from);
  free(e->ahead_to);
  free(e->run_idx);
  free(e->run_list);
  free(e->chain_from);
  free(e->chain_read);
  free(e);
}

int llamp_engine_chain_reads(const llamp_engine_t *e, uint8_t *charged) {
  uint64_t n = llamp_graph_num_vertices(e->graph);
  for (uint64_t v = 0; v < n; v++) charged[v] = e->chain_read ? e->chain_read[v] : 0;
  return 0;
}

int llamp_engine_burst_sources(const llamp_engine_t *e, uint32_t *from) {
  uint64_t n = llamp_graph_num_vertices(e->graph);
  for (uint64_t v = 0; v < n; v++) from[v] = e->burst_from ? e->burst_from[v] : UINT32_MAX;
  return 0;
}

int llamp_engine_burst_ahead(const llamp_engine_t *e, double *bytes, double *count, double *chain_bytes) {
  uint64_t n = llamp_graph_num_vertices(e->graph);
  for (uint64_t v = 0; v < n; v++) bytes[v] = count[v] = chain_bytes[v] = 0;
  for (uint64_t p = 0; e->run_bk && p < e->n; p++) {
    uint64_t v = e->gv ? e->gv[p] : p;
    bytes[v] = e->run_bk[p];
    count[v] = e->run_bn[p];
    chain_bytes[v] = e->run_ck[p];
  }
  return 0;
}

int llamp_engine_gap_chain(const llamp_engine_t *e, uint32_t *prev) {
  uint64_t n = llamp_graph_num_vertices(e->graph);
  for (uint64_t v = 0; v < n; v++) prev[v] = e->gap_prev ? e->gap_prev[v] : UINT32_MAX;
  return 0;
}

/* The one-lane work arrays, one block of 3 n doubles: start times and the
 * right and left coefficients.  The parametric pass borrows the same block
 * (its pages are already faulted in by the time a sweep runs). */
static int ensure_work(llamp_engine_t *e, size_t lanes) {
  (void)lanes;
  if (e->work) return 0;
  size_t n = e->n ? e->n : 1;
  if (!(e->work = malloc(3 * n * sizeof(double)))) return -1;
  llamp_mem_advise_huge(e->work, 3 * n * sizeof(double));
  e->start = e->work;
  e->cmax = e->work + n;
  e->cmin = e->work + 2 * n;
  return 0;
}

static int proto_flags(const llamp_engine_t *e) {
  return (e->proto.size_g_full ? F_SIZE_G_FULL : 0) | (e->proto.rndv_direct ? F_RNDV_DIRECT : 0) |
         (e->proto.nic ? F_NIC : 0);
}

static theta_t theta_of(const llamp_engine_t *e, const llamp_params_t *p) {
  theta_t t = {p->L, p->G, p->o, e->proto.g > 0 ? p->g : 0, proto_flags(e), NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL};
  if (e->pk) {
    for (uint32_t k = 0; k < e->nk; k++) {
      double l = e->kc0[k];
      for (uint32_t x = 0; x < e->K; x++) l += e->kcoef[(size_t)k * e->K + x] * p->x[x];
      e->klat[k] = l;
    }
    t.pk = e->pk;
    t.kl = e->kl;
    t.klat = e->klat;
    t.kg = e->kg;
    t.kb = e->kb;
    t.kcoef = e->kcoef;
    t.K = e->K;
  }
  t.bk = e->run_bk;
  t.bn = e->run_bn;
  t.ck = e->run_ck;
  return t;
}

/* Merge a candidate (time c, right coef hi, left coef lo) into (*b, *bh, *bl). */
static inline __attribute__((always_inline)) void merge(double c, double hi, double lo, double *b, double *bh, double *bl) {
  double tol = tie_tol(c > *b ? c : *b);
  if (c > *b + tol) {
    *b = c;
    *bh = hi;
    *bl = lo;
  } else if (c >= *b - tol) {
    if (c > *b) *b = c;
    if (hi > *bh) *bh = hi;
    if (lo < *bl) *bl = lo;
  }
}

/* The single-lane pass: start times and both coefficients for every vertex;
 * returns T and its one-sided slopes in `w`. */
/* pass1_body's edge u -> v into v's start b and w coefficients (bh, bl) */
static inline __attribute__((always_inline)) void pass1_edge(unsigned type, unsigned ku, const theta_t *t,
                                                            llamp_param_t w, const pwv_t *pw, const double *st,
                                                            const double *ch, const double *cl, const uint8_t *kind,
                                                            const double *val, uint32_t u, uint64_t v, double *b,
                                                            double *bh, double *bl) {
  double vu = val[u];
  double c = st[u] + ecost_uv(type, vu, t, pw, u, kind[v], val[v], v), h = ch[u], l = cl[u];
  double ce = ecoef_uv(type, vu, w, t, pw, u, kind[v], val[v], v);
  if (!from_start(type)) {
    c += vcost(ku, vu, t, pw, u);
    ce += vcoef(ku, vu, w, t, pw, u);
  }
  merge(c, h + ce, l + ce, b, bh, bl);
}

static inline __attribute__((always_inline)) void pass1_body(llamp_engine_t *e, const theta_t *t,
                                                             llamp_param_t w, llamp_eval_t *out,
                                                             const pwv_t *pw) {
  const uint8_t *kind = e->kind;
  const double *val = e->value;
  const uint32_t *beg = e->in_beg, *end = e->in_end, *src = e->in_src;
  const uint32_t shift = e->shift, mask = e->mask;
  double *st = e->start, *ch = e->cmax, *cl = e->cmin;
  double T = 0, Th = 0, Tl = 0;
  for (uint64_t i_ = 0; i_ < e->n; i_++) {
    uint64_t v = e->topo ? e->topo[i_] : i_;
    double b = 0, bh = 0, bl = 0;
    for (uint32_t i = beg[v]; i < end[v]; i++) {
      uint32_t u = src[i] & mask, type = src[i] >> shift;
#define P1(TYPE, KU) pass1_edge(TYPE, KU, t, w, pw, st, ch, cl, kind, val, u, v, &b, &bh, &bl)
#define P1_START(TYPE) P1(TYPE, K_SEND) /* u's kind unused */
#define P1_END(TYPE) EDGE_KU_CONST(P1, TYPE, kind[u])
      EDGE_TYPE_SWITCH(type, P1_START, P1_END)
#undef P1_END
#undef P1_START
#undef P1
    }
    st[v] = b;
    ch[v] = bh;
    cl[v] = bl;
    double vc = vcoef(kind[v], val[v], w, t, pw, v);
    merge(b + vcost(kind[v], val[v], t, pw, v), bh + vc, bl + vc, &T, &Th, &Tl);
    if (kind[v] == K_RECV_RNDV) { /* the sender's completion is an end point too */
      double ce = ecoef(E_RNDV_DONE, val[v], w, t, pw, v);
      merge(b + ecost(E_RNDV_DONE, val[v], t, pw, v), bh + ce, bl + ce, &T, &Th, &Tl);
    }
  }
  out->T = T;
  out->slope_right = Th;
  out->slope_left = Tl;
}

/* The scalar model's pass is compiled without the size-dependent arrays. */
static void pass1(llamp_engine_t *e, const theta_t *t, llamp_param_t w, llamp_eval_t *out) {
  e->work_valid = 0;
  /* in L (the critical latencies' evaluations) compiled apart: w folds */
  if (w == LLAMP_PARAM_L) {
    if (e->pw) pass1_body(e, t, LLAMP_PARAM_L, out, e->pw);
    else pass1_body(e, t, LLAMP_PARAM_L, out, NULL);
  } else if (e->pw) {
    pass1_body(e, t, w, out, e->pw);
  } else {
    pass1_body(e, t, w, out, NULL);
  }
}

/* After a pass in L at p: the work arrays hold its start times. */
static void work_is_L_at(llamp_engine_t *e, const llamp_params_t *p, const llamp_eval_t *r) {
  e->work_at = *p;
  e->work_r = *r;
  e->work_valid = 1;
}

int llamp_engine_eval(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w,
                      llamp_eval_t *out) {
  if (ensure_work(e, 1)) return -1;
  theta_t t = theta_of(e, p);
  pass1(e, &t, w, out);
  if (w == LLAMP_PARAM_L) work_is_L_at(e, p, out);
  return 0;
}

int llamp_engine_starts(llamp_engine_t *e, const llamp_params_t *p, double *start) {
  llamp_eval_t r;
  if (llamp_engine_eval(e, p, LLAMP_PARAM_L, &r)) return -1;
  for (uint64_t v = 0; v < e->n; v++) start[e->gv ? e->gv[v] : v] = e->start[v];
  return 0;
}

/* The pass in L at p, unless the work arrays already hold it (a point's
 * fused pass leaves the same start times and right coefficients). */
static int eval_L(llamp_engine_t *e, const llamp_params_t *p, llamp_eval_t *out) {
  if (e->work_valid && memcmp(&e->work_at, p, sizeof *p) == 0) {
    *out = e->work_r;
    return 0;
  }
  return llamp_engine_eval(e, p, LLAMP_PARAM_L, out);
}

/* merge()'s coefficient half for nw (right, left) pairs, once the time has
 * decided: above = the candidate is later (its coefficients from + ce
 * replace to's), else a tie (the right ones' maximum, the left ones'
 * minimum). */
static inline void merge_coefs(int above, const double *from, const double *ce, double *to, int nw) {
  for (int k = 0; k < nw; k++) {
    double h = from[2 * k] + ce[k], l = from[2 * k + 1] + ce[k];
    if (above) {
      to[2 * k] = h;
      to[2 * k + 1] = l;
    } else {
      if (h > to[2 * k]) to[2 * k] = h;
      if (l < to[2 * k + 1]) to[2 * k + 1] = l;
    }
  }
}

/* ---- the point's parameters in one pass ------------------------------------------

 * pass1 for L and, at once, for the other parameters (o, G, g and the
 * routes' extra ones, l_wire, d_switch, ...): the start times
 * and every tie decision depend on theta only, so each parameter's
 * coefficients are those of its own pass1 (as in the out-of-core pass).  L's
 * go to the work arrays (the critical path reads them after); the others'
 * live in a ring of the last `W` vertices, W a power of two above the
 * longest in-edge: one pass over the graph and no fresh memory beyond the
 * ring, where the separate passes read the graph once per parameter. */
enum { FUSED_MAX = 3 + LLAMP_MAX_XPARAMS, FUSED_RING_MAX = 1u << 16 };
/* a ring slot, 1 + 2 nw doubles: L's left coefficient, then (right, left)
 * per other parameter; L's left coefficients live there too, so that the
 * pass writes two of the work arrays (start, cmax: the critical path's) and
 * leaves cmin's pages untouched (the parametric pass can then do without
 * them, see envelope) */

/* The longest in-edge in vertices back (processing order = numbering). */
static uint64_t reach_of(llamp_engine_t *e) {
  if (e->reach == UINT64_MAX && !e->own_src) /* the graph in place: the graph knows */
    e->reach = llamp_graph_reach(e->graph);
  if (e->reach == UINT64_MAX) {
    uint64_t r = 0;
    for (uint64_t v = 0; v < e->n; v++)
      for (uint32_t i = e->in_beg[v]; i < e->in_end[v]; i++) {
        uint64_t d = v - (e->in_src[i] & e->mask);
        if (d > r) r = d;
      }
    e->reach = r;
  }
  return e->reach;
}

/* The ring's size W and the far sources.  W is a power of two above the
 * longest in-edge while that stays small; past 8 Ki vertices back, the
 * smallest W from 8 Ki to FUSED_RING_MAX that leaves at most one in-edge in
 * 1024 longer, and those edges' sources keep their slot apart.  Such edges
 * are few and long: the NIC rule's receive chain of a host whose receives
 * all left the chain for a while (bursts to several hosts) links its next
 * receive to one long before (bench_capture64 with SimGrid's defaults: 93
 * of 1.6 M in-edges over 64 Ki vertices back, the longest 598 k).  Without
 * them the ring would have had to cover the whole graph. */
enum { RING_SMALL = 1u << 13 };
static int ring_plan(llamp_engine_t *e) {
  if (e->ring_w) return 0;
  uint64_t reach = reach_of(e), W = 1;
  while (W <= reach) W <<= 1;
  if (W <= RING_SMALL || e->topo) { /* (topo: not numbered in processing order, no fused pass) */
    e->ring_w = W, e->nfar = 0, e->far_src = NULL;
    return 0;
  }
  /* in-edges by length: count[k] those at least RING_SMALL << k back */
  enum { NB = 4 }; /* 8 Ki, 16 Ki, 32 Ki, 64 Ki = FUSED_RING_MAX */
  uint64_t count[NB] = {0};
  for (uint64_t v = 0; v < e->n; v++)
    for (uint32_t i = e->in_beg[v]; i < e->in_end[v]; i++) {
      uint64_t d = v - (e->in_src[i] & e->mask);
      for (int k = 0; k < NB && d >= ((uint64_t)RING_SMALL << k); k++) count[k]++;
    }
  int k = 0;
  while (k < NB - 1 && count[k] > e->m / 1024) k++;
  W = (uint64_t)RING_SMALL << k;
  uint64_t words = (e->n + 63) / 64, nfar = 0;
  uint64_t *mark = calloc(words ? words : 1, 8);
  if (!mark) return -1;
  for (uint64_t v = 0; v < e->n; v++)
    for (uint32_t i = e->in_beg[v]; i < e->in_end[v]; i++) {
      uint64_t u = e->in_src[i] & e->mask;
      if (v - u >= W && !(mark[u / 64] >> (u % 64) & 1)) mark[u / 64] |= 1ull << (u % 64), nfar++;
    }
  uint32_t *far = malloc((nfar ? nfar : 1) * sizeof *far);
  if (!far) {
    free(mark);
    return -1;
  }
  for (uint64_t w = 0, j = 0; w < words; w++)
    for (uint64_t b = mark[w]; b; b &= b - 1) far[j++] = (uint32_t)(w * 64 + (uint64_t)__builtin_ctzll(b));
  free(mark);
  e->ring_w = W, e->nfar = nfar, e->far_src = far;
  return 0;
}

/* u's place among the far sources (u is one) */
static inline uint64_t far_index(const llamp_engine_t *e, uint64_t u) {
  uint64_t lo = 0, hi = e->nfar;
  while (hi - lo > 1) {
    uint64_t mid = (lo + hi) / 2;
    if (e->far_src[mid] <= u) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* u's slot as v reads it: in the ring of W = mask + 1 slots of rs doubles,
 * or, for an in-edge reaching further back, in the far table after it */
static inline const double *ring_slot(const llamp_engine_t *e, const double *ring, uint64_t mask, uint64_t rs,
                                      uint64_t v, uint64_t u) {
  return v - u <= mask ? ring + (u & mask) * rs : ring + ((mask + 1) + far_index(e, u)) * rs;
}

/* What fused_body's edges share at vertex v. */
typedef struct {
  llamp_engine_t *e;
  const theta_t *t;
  const llamp_param_t *ws;
  int nw;
  const pwv_t *pw;
  const double *ring;
  uint64_t mask, rs;
  const double *st, *ch;
  uint64_t v;
  unsigned kv;
  double valv;
} fused_at_t;

/* The edge u -> v of the given type into v's start b, its L coefficients
 * (bh, bl) and the others' (bc). */
static inline __attribute__((always_inline)) void fused_edge(const fused_at_t *a, unsigned type, unsigned ku,
                                                               uint32_t u, double *b, double *bh, double *bl,
                                                               double *bc) {
  const theta_t *t = a->t;
  const pwv_t *pw = a->pw;
  const uint64_t v = a->v;
  const unsigned kv = a->kv;
  const double valv = a->valv, vu = a->e->value[u];
  const int fs = from_start(type);
  double c = a->st[u] + ecost_uv(type, vu, t, pw, u, kv, valv, v);
  if (!fs) c += vcost(ku, vu, t, pw, u);
  double tol = tie_tol(c > *b ? c : *b);
  if (c < *b - tol) return; /* merge() leaves b and every coefficient */
  int above = c > *b + tol;
  double ce = ecoef_uv(type, vu, LLAMP_PARAM_L, t, pw, u, kv, valv, v);
  if (!fs) ce += vcoef(ku, vu, LLAMP_PARAM_L, t, pw, u);
  const double *su = ring_slot(a->e, a->ring, a->mask, a->rs, v, u);
  merge(c, a->ch[u] + ce, su[0] + ce, b, bh, bl);
  double cw[FUSED_MAX];
  for (int k = 0; k < a->nw; k++) {
    cw[k] = ecoef_uv(type, vu, a->ws[k], t, pw, u, kv, valv, v);
    if (!fs) cw[k] += vcoef(ku, vu, a->ws[k], t, pw, u);
  }
  merge_coefs(above, su + 1, cw, bc, a->nw);
}

static inline __attribute__((always_inline)) void fused_body(llamp_engine_t *e, const theta_t *t,
                                                             const llamp_param_t *ws, int nw,
                                                             uint64_t mask, llamp_eval_t *out,
                                                             const pwv_t *pw) {
  const uint8_t *kind = e->kind;
  const double *val = e->value;
  const uint32_t *beg = e->in_beg, *end = e->in_end, *src = e->in_src;
  const uint32_t shift = e->shift, sm = e->mask;
  double *st = e->start, *ch = e->cmax, *ring = e->ring;
  const uint64_t rs = 1 + 2 * (uint64_t)nw; /* the ring's slot */
  double *far = ring + (mask + 1) * rs;      /* the far sources' slots */
  uint64_t fi = 0, next_far = e->nfar ? e->far_src[0] : UINT64_MAX;
  double T = 0, Th = 0, Tl = 0, Tc[2 * FUSED_MAX] = {0};
  for (uint64_t v = 0; v < e->n; v++) {
    double b = 0, bh = 0, bl = 0, *slot = ring + (v & mask) * rs, *bc = slot + 1;
    for (int k = 0; k < 2 * nw; k++) bc[k] = 0;
    unsigned kv = kind[v];
    double valv = val[v];
    for (uint32_t i = beg[v]; i < end[v]; i++) {
      uint32_t u = src[i] & sm, type = src[i] >> shift;
      const fused_at_t at = {e, t, ws, nw, pw, ring, mask, rs, st, ch, v, kv, valv};
#define FE(TYPE, KU) fused_edge(&at, TYPE, KU, u, &b, &bh, &bl, bc)
#define FE_START(TYPE) FE(TYPE, K_SEND) /* u's kind unused */
#define FE_END(TYPE) EDGE_KU_CONST(FE, TYPE, kind[u])
      EDGE_TYPE_SWITCH(type, FE_START, FE_END)
#undef FE_END
#undef FE_START
#undef FE
    }
    st[v] = b;
    ch[v] = bh;
    slot[0] = bl;
    if (v == next_far) { /* a later in-edge reaches past the ring */
      memcpy(far + fi * rs, slot, rs * sizeof *slot);
      next_far = ++fi < e->nfar ? e->far_src[fi] : UINT64_MAX;
    }
    /* v's end, and a rendezvous receive's sender completion, as ends of T */
    for (int end_kind = 0; end_kind < 2; end_kind++) {
      if (end_kind == 1 && kv != K_RECV_RNDV) break;
      double c = b + (end_kind ? ecost(E_RNDV_DONE, valv, t, pw, v) : vcost(kv, valv, t, pw, v));
      double tol = tie_tol(c > T ? c : T);
      if (c < T - tol) continue;
      int above = c > T + tol;
      double ce = end_kind ? ecoef(E_RNDV_DONE, valv, LLAMP_PARAM_L, t, pw, v)
                           : vcoef(kv, valv, LLAMP_PARAM_L, t, pw, v);
      merge(c, bh + ce, bl + ce, &T, &Th, &Tl);
      double cw[FUSED_MAX];
      for (int k = 0; k < nw; k++)
        cw[k] = end_kind ? ecoef(E_RNDV_DONE, valv, ws[k], t, pw, v) : vcoef(kv, valv, ws[k], t, pw, v);
      merge_coefs(above, bc, cw, Tc, nw);
    }
  }
  out[0] = (llamp_eval_t){T, Th, Tl};
  for (int k = 0; k < nw; k++) out[1 + k] = (llamp_eval_t){T, Tc[2 * k], Tc[2 * k + 1]};
}

/* T and the slopes along L and ws[0..nw) in one pass: out[0] for L, out[1 + k]
 * for ws[k].  1 (nothing done) when an in-edge reaches further back than the
 * ring allows: the caller makes one pass per parameter. */
static int point_fused(llamp_engine_t *e, const llamp_params_t *p, const llamp_param_t *ws, int nw,
                       llamp_eval_t *out) {
  if (nw > FUSED_MAX) return 1;
  if (ring_plan(e)) return -1;
  uint64_t W = e->ring_w;
  if (W > FUSED_RING_MAX) return 1;
  if (getenv("LLAMP_DEBUG_ENVELOPE"))
    fprintf(stderr, "fused point: longest in-edge %llu vertices back, ring %llu, %llu far sources\n",
            (unsigned long long)e->reach, (unsigned long long)W, (unsigned long long)e->nfar);
  if (ensure_work(e, 1)) return -1;
  size_t need = (W + e->nfar) * (1 + 2 * (size_t)nw); /* doubles */
  if (e->ring_len < need) {
    free(e->ring);
    e->ring_len = 0;
    if (!(e->ring = malloc(need * sizeof *e->ring))) return -1;
    e->ring_len = need;
  }
  theta_t t = theta_of(e, p);
  e->work_valid = 0;
  /* T with lambda_L and lambda_G alone (each of the classification's 19
   * configurations) compiled apart: with nw and the parameter known, the
   * coefficient functions' switches and the slot's loops fold away
   * (callgrind, bench_capture64's graph as the capture analyses it: the
   * classification 5.93 -> 4.51 G instructions, with msg_coef inlined) */
  static const llamp_param_t only_G[1] = {LLAMP_PARAM_G};
  if (nw == 1 && ws[0] == LLAMP_PARAM_G) {
    if (e->pw) fused_body(e, &t, only_G, 1, W - 1, out, e->pw);
    else fused_body(e, &t, only_G, 1, W - 1, out, NULL);
  } else if (e->pw) {
    fused_body(e, &t, ws, nw, W - 1, out, e->pw);
  } else {
    fused_body(e, &t, ws, nw, W - 1, out, NULL);
  }
  work_is_L_at(e, p, &out[0]);
  return 0;
}

/* ---- critical path -------------------------------------------------------------- */

/* After a pass with w = L: walk back from the end vertex along tight edges
 * whose right coefficient explains the vertex's right coefficient. */
static int backtrack(llamp_engine_t *e, const theta_t *t, double T, double Th, uint64_t **path,
                     uint64_t *len, int *ends_in_completion, int **from_start_flags) {
  uint64_t cur = UINT64_MAX;
  *ends_in_completion = 0;
  for (uint64_t i_ = e->n; i_-- > 0;) { /* the last vertex whose end realises T */
    uint64_t v = e->topo ? e->topo[i_] : i_;
    double vc = vcoef(e->kind[v], e->value[v], LLAMP_PARAM_L, t, e->pw, v);
    double end = e->start[v] + vcost(e->kind[v], e->value[v], t, e->pw, v);
    if (fabs(end - T) <= tie_tol(T) && e->cmax[v] + vc == Th) {
      cur = v;
      break;
    }
    if (e->kind[v] == K_RECV_RNDV) {
      double c = e->start[v] + ecost(E_RNDV_DONE, e->value[v], t, e->pw, v);
      if (fabs(c - T) <= tie_tol(T) && e->cmax[v] + 1 == Th) {
        cur = v;
        *ends_in_completion = 1;
        break;
      }
    }
  }
  if (cur == UINT64_MAX) return -1;
  size_t cap = 64, k = 0;
  uint64_t *pv = malloc(cap * sizeof *pv);
  int *fs = malloc(cap * sizeof *fs);
  if (!pv || !fs) {
    free(pv);
    free(fs);
    return -1;
  }
  int cur_from_start = *ends_in_completion;
  for (;;) {
    if (k == cap) {
      cap *= 2;
      uint64_t *np = realloc(pv, cap * sizeof *pv);
      int *nf = realloc(fs, cap * sizeof *fs);
      if (!np || !nf) {
        free(np ? np : pv);
        free(nf ? nf : fs);
        return -1;
      }
      pv = np;
      fs = nf;
    }
    pv[k] = cur;
    fs[k] = cur_from_start; /* 1: the path leaves this vertex at its start */
    k++;
    uint64_t v = cur, next = UINT64_MAX;
    int next_fs = 0;
    for (uint32_t i = e->in_beg[v]; i < e->in_end[v]; i++) {
      uint32_t u = e->in_src[i] & e->mask, type = e->in_src[i] >> e->shift;
      double vu = e->value[u];
      double c = e->start[u] + ecost_uv(type, vu, t, e->pw, u, e->kind[v], e->value[v], v);
      double ce = ecoef_uv(type, vu, LLAMP_PARAM_L, t, e->pw, u, e->kind[v], e->value[v], v);
      if (!from_start(type)) {
        c += vcost(e->kind[u], vu, t, e->pw, u);
        ce += vcoef(e->kind[u], vu, LLAMP_PARAM_L, t, e->pw, u);
      }
      if (fabs(c - e->start[v]) <= tie_tol(e->start[v]) && e->cmax[u] + ce == e->cmax[v]) {
        next = u;
        next_fs = from_start(type);
        break;
      }
    }
    if (next == UINT64_MAX) break;
    cur = next;
    cur_from_start = next_fs;
  }
  /* reverse into first -> last order */
  for (size_t i = 0; i < k / 2; i++) {
    uint64_t tv = pv[i];
    pv[i] = pv[k - 1 - i];
    pv[k - 1 - i] = tv;
    int tf = fs[i];
    fs[i] = fs[k - 1 - i];
    fs[k - 1 - i] = tf;
  }
  *path = pv;
  *len = k;
  if (from_start_flags) *from_start_flags = fs;
  else free(fs);
  return 0;
}

int llamp_engine_critical_path(llamp_engine_t *e, const llamp_params_t *p, uint64_t **path,
                               uint64_t *len) {
  llamp_eval_t r;
  if (eval_L(e, p, &r)) return -1;
  theta_t t = theta_of(e, p);
  int done_end;
  if (backtrack(e, &t, r.T, r.slope_right, path, len, &done_end, NULL)) return -1;
  if (e->gv)
    for (uint64_t i = 0; i < *len; i++) (*path)[i] = e->gv[(*path)[i]];
  return 0;
}

/* ---- timeline of the critical path ---------------------------------------------- */

const char *llamp_seg_name(llamp_seg_kind_t k) {
  static const char *names[LLAMP_NUM_SEGS] = {"compute", "overhead", "latency", "bandwidth", "gap"};
  return (unsigned)k < LLAMP_NUM_SEGS ? names[k] : "?";
}

typedef struct {
  llamp_segment_t *s;
  size_t n, cap;
} segbuf_t;

static int seg_push(segbuf_t *b, uint64_t v, uint32_t rank, llamp_seg_kind_t k, double t0,
                    double len) {
  if (!(len > 0)) return 0;
  if (b->n == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 64;
    llamp_segment_t *ns = realloc(b->s, cap * sizeof *ns);
    if (!ns) return -1;
    b->s = ns;
    b->cap = cap;
  }
  b->s[b->n++] = (llamp_segment_t){v, rank, k, t0, t0 + len};
  return 0;
}

/* One cost split by its coefficients into parts by segment kind (whatever is
 * left is the constant part: compute for calc vertices, overhead for the
 * others, latency for edges); rounding's tiny negatives are 0. */
static inline void seg_parts(double parts[LLAMP_NUM_SEGS], double total, double nL, double nG, double no, double ng,
                      const theta_t *t, llamp_seg_kind_t rest_kind, double lat_extra, double bw_extra) {
  /* lat_extra, bw_extra: the routes' parts (per-pair costs, messages to oneself) */
  for (int i = 0; i < LLAMP_NUM_SEGS; i++) parts[i] = 0;
  parts[LLAMP_SEG_LATENCY] = nL * t->L + lat_extra;
  parts[LLAMP_SEG_BANDWIDTH] = nG * t->G + bw_extra;
  parts[LLAMP_SEG_OVERHEAD] = no * t->o;
  parts[LLAMP_SEG_GAP] = ng * t->g;
  parts[rest_kind] += total - (nL * t->L + lat_extra + nG * t->G + bw_extra + no * t->o + ng * t->g);
  for (int i = 0; i < LLAMP_NUM_SEGS; i++)
    if (parts[i] < 0 && parts[i] > -1e-15 * (fabs(total) + 1e-30)) parts[i] = 0;
}

/* The parts as segments from t0 on, in the order compute, overhead,
 * latency, bandwidth, gap. */
static double seg_split(segbuf_t *b, uint64_t gv_id, uint32_t rank, double t0, double total,
                        double nL, double nG, double no, double ng, const theta_t *t,
                        llamp_seg_kind_t rest_kind, int *bad, double lat_extra, double bw_extra) {
  double parts[LLAMP_NUM_SEGS];
  seg_parts(parts, total, nL, nG, no, ng, t, rest_kind, lat_extra, bw_extra);
  static const llamp_seg_kind_t order[] = {LLAMP_SEG_COMPUTE, LLAMP_SEG_OVERHEAD, LLAMP_SEG_LATENCY,
                                           LLAMP_SEG_BANDWIDTH, LLAMP_SEG_GAP};
  double at = t0;
  for (int i = 0; i < LLAMP_NUM_SEGS; i++) {
    double len = parts[order[i]];
    if (seg_push(b, gv_id, rank, order[i], at, len)) *bad = 1;
    if (len > 0) at += len;
  }
  return t0 + total;
}

/* The constant per-byte part of an edge's cost (a message to oneself). */
static double edge_bw_extra(unsigned type, double s, const theta_t *t, const pwv_t *pw, uint64_t u) {
  return type == E_EAGER || type == E_RNDV_DONE ? msg_bytes(s, t, pw, u) * bconst(t, u) : 0;
}

/* `done`: the pass in L at p has just run (its start times are in e->start). */
static int timeline(llamp_engine_t *e, const llamp_params_t *p, const llamp_eval_t *done,
                    llamp_segment_t **segs, size_t *count, uint64_t *path_len,
                    uint64_t *path_messages) {
  llamp_eval_t r;
  *segs = NULL;
  *count = 0;
  *path_messages = 0;
  if (done) r = *done;
  else if (eval_L(e, p, &r)) return -1;
  theta_t t = theta_of(e, p);
  const pwv_t *pw = e->pw;
  uint64_t *path = NULL, len = 0;
  int *fs = NULL, done_end = 0, bad = 0;
  if (backtrack(e, &t, r.T, r.slope_right, &path, &len, &done_end, &fs)) return -1;
  segbuf_t b = {0};
  for (uint64_t i = 0; i < len && !bad; i++) {
    uint64_t v = path[i], gid = e->gv ? e->gv[v] : v;
    /* the path's ranks are read a vertex here and there, and the kernel maps
     * 16 pages around each one read: without dropping them as it goes, a
     * mapped graph's whole rank array would join the work arrays' peak */
    if ((i & 255) == 255) llamp_graph_drop_sparse(e->graph);
    uint32_t rank = llamp_graph_rank(e->graph, gid);
    unsigned k = e->kind[v];
    double s = e->value[v];
    *path_messages += (k == K_RECV || k == K_RECV_RNDV);
    if (!fs[i]) /* the path takes v's own cost */
      seg_split(&b, gid, rank, e->start[v], vcost(k, s, &t, pw, v),
                vcoef(k, s, LLAMP_PARAM_L, &t, pw, v), vcoef(k, s, LLAMP_PARAM_G, &t, pw, v),
                vcoef(k, s, LLAMP_PARAM_O, &t, pw, v), vcoef(k, s, LLAMP_PARAM_GAP, &t, pw, v), &t,
                k == K_CALC ? LLAMP_SEG_COMPUTE : LLAMP_SEG_OVERHEAD, &bad,
                k == K_RECV_RNDV ? rndv_recv_l(t.full) * lat(&t, v) : 0,
                k == K_RECV_RNDV ? msg_bytes(s, &t, pw, v) * bconst(&t, v) : 0);
    double from = fs[i] ? e->start[v] : e->start[v] + vcost(k, s, &t, pw, v);
    if (i + 1 < len) { /* the edge path[i] -> path[i+1], on the next vertex's rank */
      uint64_t nx = path[i + 1], ngid = e->gv ? e->gv[nx] : nx;
      uint32_t nrank = llamp_graph_rank(e->graph, ngid);
      /* v and nx may be joined by several edges (irequires and a gap, say):
       * take the one that is tight, as the backtrack did */
      uint32_t best = UINT32_MAX;
      double miss = INFINITY;
      for (uint32_t j = e->in_beg[nx]; j < e->in_end[nx]; j++) {
        if ((e->in_src[j] & e->mask) != v) continue;
        uint32_t type = e->in_src[j] >> e->shift;
        if ((from_start(type) != 0) != (fs[i] != 0)) continue;
        double d = fabs(from + ecost_uv(type, s, &t, pw, v, e->kind[nx], e->value[nx], nx) - e->start[nx]);
        if (d < miss) {
          miss = d;
          best = type;
        }
      }
      /* an edge's constant is its message's size-dependent latency, except an
       * Isend's irequires edge, whose constant is the CPU time of the call */
      if (best != UINT32_MAX)
        seg_split(&b, ngid, nrank, from, ecost_uv(best, s, &t, pw, v, e->kind[nx], e->value[nx], nx),
                  ecoef_uv(best, s, LLAMP_PARAM_L, &t, pw, v, e->kind[nx], e->value[nx], nx),
                  ecoef_uv(best, s, LLAMP_PARAM_G, &t, pw, v, e->kind[nx], e->value[nx], nx),
                  ecoef_uv(best, s, LLAMP_PARAM_O, &t, pw, v, e->kind[nx], e->value[nx], nx),
                  ecoef_uv(best, s, LLAMP_PARAM_GAP, &t, pw, v, e->kind[nx], e->value[nx], nx),
                  &t, best == E_START ? LLAMP_SEG_OVERHEAD : LLAMP_SEG_LATENCY, &bad, 0,
                  edge_bw_extra(best, s, &t, pw, v));
    } else if (done_end) { /* the rendezvous sender's completion ends the run */
      seg_split(&b, gid, rank, from, ecost(E_RNDV_DONE, s, &t, pw, v),
                ecoef(E_RNDV_DONE, s, LLAMP_PARAM_L, &t, pw, v),
                ecoef(E_RNDV_DONE, s, LLAMP_PARAM_G, &t, pw, v),
                ecoef(E_RNDV_DONE, s, LLAMP_PARAM_O, &t, pw, v),
                ecoef(E_RNDV_DONE, s, LLAMP_PARAM_GAP, &t, pw, v), &t, LLAMP_SEG_LATENCY, &bad, 0,
                edge_bw_extra(E_RNDV_DONE, s, &t, pw, v));
    }
  }
  free(path);
  free(fs);
  llamp_graph_drop_sparse(e->graph);
  if (bad) {
    free(b.s);
    return -1;
  }
  *segs = b.s;
  *count = b.n;
  *path_len = len;
  return 0;
}

int llamp_engine_path_timeline(llamp_engine_t *e, const llamp_params_t *p, llamp_segment_t **segs,
                               size_t *count) {
  uint64_t len, messages;
  return timeline(e, p, NULL, segs, count, &len, &messages);
}

int llamp_engine_path_by_rank(llamp_engine_t *e, const llamp_params_t *p, double *per_rank) {
  llamp_segment_t *sg = NULL;
  size_t ns = 0;
  if (llamp_engine_path_timeline(e, p, &sg, &ns)) return -1;
  memset(per_rank, 0, llamp_graph_num_ranks(e->graph) * sizeof *per_rank);
  for (size_t i = 0; i < ns; i++) per_rank[sg[i].rank] += sg[i].t1 - sg[i].t0;
  free(sg);
  return 0;
}

/* ---- the classification's points in one pass ------------------------------------

 * llamp_engine_point_of with wrt = G at K points (L_k, G_k): each lane's
 * start times, right coefficients in L and G and tie decisions are those of
 * point_fused at its theta (the same cost functions, in the same order), and
 * the critical path's overhead (what timeline() sums) follows the path that
 * backtrack() would walk: at each vertex the first tight in-edge whose L
 * coefficient explains the vertex's, and at the end the last vertex whose end
 * realises T with T's coefficient.  Every lane lives in a ring of the last W
 * vertices, so K points cost one pass over the graph and no n-sized array. */

/* What seg_split adds to the overhead total for one cost (0 when its
 * overhead segment is empty), bit for bit: the segment [at, at + len) after
 * the compute part, summed as t1 - t0. */
static inline double ov_part(double t0, double total, double nL, double nG, double no, double ng,
                             const theta_t *t, llamp_seg_kind_t rest_kind, double lat_extra,
                             double bw_extra) {
  double parts[LLAMP_NUM_SEGS];
  seg_parts(parts, total, nL, nG, no, ng, t, rest_kind, lat_extra, bw_extra);
  double at = parts[LLAMP_SEG_COMPUTE] > 0 ? t0 + parts[LLAMP_SEG_COMPUTE] : t0, lo = parts[LLAMP_SEG_OVERHEAD];
  return lo > 0 ? (at + lo) - at : 0;
}

/* The overhead of vertex v's own cost on the path, starting at st_v. */
static inline double ov_vertex(const theta_t *t, const pwv_t *pw, unsigned k, double s, uint64_t v,
                               double st_v) {
  return ov_part(st_v, vcost(k, s, t, pw, v), vcoef(k, s, LLAMP_PARAM_L, t, pw, v),
                 vcoef(k, s, LLAMP_PARAM_G, t, pw, v), vcoef(k, s, LLAMP_PARAM_O, t, pw, v),
                 vcoef(k, s, LLAMP_PARAM_GAP, t, pw, v), t, k == K_CALC ? LLAMP_SEG_COMPUTE : LLAMP_SEG_OVERHEAD,
                 k == K_RECV_RNDV ? rndv_recv_l(t->full) * lat(t, v) : 0,
                 k == K_RECV_RNDV ? msg_bytes(s, t, pw, v) * bconst(t, v) : 0);
}

/* The same with the kind folded per case: a calc vertex has no overhead part
 * (its coefficients are 0 and its constant is compute). */
static inline __attribute__((always_inline)) double ov_vertex_any(const theta_t *t, const pwv_t *pw, unsigned k,
                                                                 double s, uint64_t v, double st_v) {
  switch (k) {
  case K_CALC: return 0;
  case K_RECV_RNDV: return ov_vertex(t, pw, K_RECV_RNDV, s, v, st_v);
  default: return ov_vertex(t, pw, K_SEND, s, v, st_v);
  }
}

/* The overhead of the edge of `type` from u (leaving at `from`) to v. */
static inline double ov_edge(const theta_t *t, const pwv_t *pw, unsigned type, double s, uint64_t u,
                             unsigned kind_v, double val_v, uint64_t v, double from) {
  return ov_part(from, ecost_uv(type, s, t, pw, u, kind_v, val_v, v),
                 ecoef_uv(type, s, LLAMP_PARAM_L, t, pw, u, kind_v, val_v, v),
                 ecoef_uv(type, s, LLAMP_PARAM_G, t, pw, u, kind_v, val_v, v),
                 ecoef_uv(type, s, LLAMP_PARAM_O, t, pw, u, kind_v, val_v, v),
                 ecoef_uv(type, s, LLAMP_PARAM_GAP, t, pw, u, kind_v, val_v, v), t,
                 type == E_START ? LLAMP_SEG_OVERHEAD : LLAMP_SEG_LATENCY, 0,
                 type == E_EAGER || type == E_RNDV_DONE ? msg_bytes(s, t, pw, u) * bconst(t, u) : 0);
}

/* An end that may realise T: v's end (done = 0) or its rendezvous
 * completion (done = 1), with v's start, coefficient and path overhead. */
typedef struct {
  double val, coef, st, os;
  uint64_t v;
  int done;
} lane_end_t;

typedef struct {
  lane_end_t *c;
  size_t n, cap, kept; /* kept: the count after the last pruning */
} lane_ends_t;

/* Ends below T - tol(T) can no longer realise the final T (t - tie_tol(t)
 * grows with t, and T only grows): dropped, in order. */
static void ends_prune(lane_ends_t *l, double T) {
  size_t k = 0;
  for (size_t i = 0; i < l->n; i++)
    if (l->c[i].val >= T - tie_tol(T)) l->c[k++] = l->c[i];
  l->n = l->kept = k;
}

/* Room for one more end: pruned first when over half of it is dead. */
static int ends_grow(lane_ends_t *l, double T) {
  if (l->n > 2 * l->kept + 16) ends_prune(l, T);
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    lane_end_t *c = realloc(l->c, cap * sizeof *c);
    if (!c) return -1;
    l->c = c;
    l->cap = cap;
  }
  return 0;
}

/* Ends arrive mostly in increasing order (a pass's running T only grows),
 * so the last ones pushed are usually dead by the next push: dropped from
 * the tail first (the survivors keep their order), which keeps the list a
 * few entries long instead of pruning it at every 64. */
static inline int ends_push(lane_ends_t *l, lane_end_t x, double T) {
  double lim = T - tie_tol(T);
  while (l->n && l->c[l->n - 1].val < lim) l->n--;
  if (l->kept > l->n) l->kept = l->n;
  if (l->n == l->cap && ends_grow(l, T)) return -1;
  l->c[l->n++] = x;
  return 0;
}

enum { LG_LANES_MAX = 32 };

/* The lanes of llamp_engine_points_lg: lane k is theta th[k], which differs
 * from th[0] in L = L[k] and G = G[k] only. */
typedef struct {
  const theta_t *th;
  const double *L, *G;
  size_t K;
} lg_lanes_t;

/* An edge u -> v: c[k] = su[k] + its cost at lane k (+ u's own cost when the
 * edge leaves u's end).  Each call site has the type and u's kind as
 * constants, so the cost functions fold; and one theta whose L and G change
 * per lane keeps its other fields (the message kinds' tables) invariant, so
 * their loads leave the lane loop. */
static inline __attribute__((always_inline)) void lane_costs(unsigned type, unsigned ku, const lg_lanes_t *ln,
                                                            const pwv_t *pw, const double *su, double vu,
                                                            uint64_t u, unsigned kv, double valv, uint64_t v,
                                                            double *restrict c) {
  theta_t t = ln->th[0];
  const double *restrict Ls = ln->L, *restrict Gs = ln->G;
  for (size_t k = 0; k < ln->K; k++) {
    t.L = Ls[k];
    t.G = Gs[k];
    double x = su[k] + ecost_uv(type, vu, &t, pw, u, kv, valv, v);
    if (!from_start(type)) x += vcost(ku, vu, &t, pw, u);
    c[k] = x;
  }
}

/* lane_costs with the type, and for an edge from u's end u's kind, made
 * constants: a switch around the folded copies */
static inline __attribute__((always_inline)) void lane_edge_costs(unsigned type, unsigned ku, const lg_lanes_t *ln,
                                                                 const pwv_t *pw, const double *su, double vu,
                                                                 uint64_t u, unsigned kv, double valv,
                                                                 uint64_t v, double *c) {
#define LC(T, KU) lane_costs(T, KU, ln, pw, su, vu, u, kv, valv, v, c)
#define LC_START(T) LC(T, K_SEND) /* u's kind unused */
#define LC_END(T) EDGE_KU_CONST(LC, T, ku)
  EDGE_TYPE_SWITCH(type, LC_START, LC_END)
#undef LC_END
#undef LC_START
#undef LC
}

/* v's own cost at each lane, c[k] = sv[k] + cost (kind constant per case). */
static inline __attribute__((always_inline)) void lane_vcosts(unsigned kv, const lg_lanes_t *ln, const pwv_t *pw,
                                                             double valv, uint64_t v, const double *sv,
                                                             double *restrict c) {
  theta_t t = ln->th[0];
  const double *restrict Ls = ln->L, *restrict Gs = ln->G;
#define LANE_VCOST(KIND) \
  for (size_t k = 0; k < ln->K; k++) t.L = Ls[k], t.G = Gs[k], c[k] = sv[k] + vcost(KIND, valv, &t, pw, v)
  switch (kv) {
  case K_CALC: LANE_VCOST(K_CALC); break;
  case K_RECV_RNDV: LANE_VCOST(K_RECV_RNDV); break;
  default: LANE_VCOST(K_SEND); break;
  }
#undef LANE_VCOST
}

/* merge() and merge_coefs() for one lane: the larger time; a candidate above
 * b's tie band replaces the coefficients, one inside it raises them. */
static inline void lane_merge2(double c, double h, double g, double *b, double *bh, double *bg) {
  double x = *b, tol = tie_tol(c > x ? c : x);
  if (c < x - tol) return; /* the lanes mostly agree here: a predictable branch */
  if (c > x + tol) {
    *b = c;
    *bh = h;
    *bg = g;
    return;
  }
  if (c > x) *b = c;
  if (h > *bh) *bh = h;
  if (g > *bg) *bg = g;
}

static inline __attribute__((always_inline)) int lg_body(llamp_engine_t *e, const lg_lanes_t *ln, uint64_t mask,
                                                        double *ring, double *cbuf, size_t cbuf_edges, lane_ends_t *ends,
                                                        llamp_lane_point_t *out, const pwv_t *pw,
                                                        int need_ov) {
  const theta_t *th = ln->th;
  const size_t K = ln->K;
  const uint8_t *kind = e->kind;
  const double *val = e->value;
  const uint32_t *beg = e->in_beg, *endp = e->in_end, *src = e->in_src;
  const uint32_t shift = e->shift, sm = e->mask;
  /* a slot: K starts, K L coefs, K G coefs, and K path overheads when they
   * are needed (bench_capture64's graph, all 19, o = 0: cachegrind counts 2 %
   * fewer instructions and 8 % fewer D1 misses without them) */
  const uint64_t rs = (need_ov ? 4 : 3) * (uint64_t)K;
  double T[LG_LANES_MAX] = {0}, Th[LG_LANES_MAX] = {0}, Tg[LG_LANES_MAX] = {0};
  double ce_e[256], c0[LG_LANES_MAX], c1[LG_LANES_MAX];
  double *far = ring + (mask + 1) * rs; /* the far sources' slots (ring_plan) */
  uint64_t fi = 0, next_far = e->nfar ? e->far_src[0] : UINT64_MAX;
  for (uint64_t v = 0; v < e->n; v++) {
    double *sv = ring + (v & mask) * rs, *hv = sv + K, *gv = sv + 2 * K, *ov = sv + 3 * K;
    for (size_t k = 0; k < K; k++) sv[k] = hv[k] = gv[k] = 0;
    for (size_t k = 0; k < K && need_ov; k++) ov[k] = 0;
    unsigned kv = kind[v];
    double valv = val[v];
    uint32_t b0 = beg[v], b1 = endp[v];
    if (b1 - b0 > cbuf_edges) return 1; /* cannot happen: sized to the longest */
    for (uint32_t i = b0; i < b1; i++) {
      uint32_t u = src[i] & sm, type = src[i] >> shift;
      double vu = val[u];
      unsigned ku = kind[u];
      const double *su = ring_slot(e, ring, mask, rs, v, u), *hu = su + K, *gu = su + 2 * K;
      double ce = ecoef_uv(type, vu, LLAMP_PARAM_L, th, pw, u, kv, valv, v);
      double cg = ecoef_uv(type, vu, LLAMP_PARAM_G, th, pw, u, kv, valv, v);
      if (!from_start(type)) {
        ce += vcoef(ku, vu, LLAMP_PARAM_L, th, pw, u);
        cg += vcoef(ku, vu, LLAMP_PARAM_G, th, pw, u);
      }
      if (i - b0 < 256) ce_e[i - b0] = ce;
      double *cb = cbuf + (size_t)(i - b0) * K;
      lane_edge_costs(type, ku, ln, pw, su, vu, u, kv, valv, v, cb);
      for (size_t k = 0; k < K; k++) lane_merge2(cb[k], hu[k] + ce, gu[k] + cg, &sv[k], &hv[k], &gv[k]);
    }
    /* the path into v: backtrack's choice, and the overhead timeline sums */
    for (size_t k = 0; k < K && need_ov; k++) {
      for (uint32_t i = b0; i < b1; i++) {
        uint32_t u = src[i] & sm, type = src[i] >> shift;
        const double *su = ring_slot(e, ring, mask, rs, v, u);
        double ce;
        if (i - b0 < 256) {
          ce = ce_e[i - b0];
        } else {
          ce = ecoef_uv(type, val[u], LLAMP_PARAM_L, th, pw, u, kv, valv, v);
          if (!from_start(type)) ce += vcoef(kind[u], val[u], LLAMP_PARAM_L, th, pw, u);
        }
        if (!(fabs(cbuf[(size_t)(i - b0) * K + k] - sv[k]) <= tie_tol(sv[k]) && su[K + k] + ce == hv[k]))
          continue;
        const theta_t *t = &th[k];
        double vu = val[u];
        int fs = from_start(type);
        double from = fs ? su[k] : su[k] + vcost(kind[u], vu, t, pw, u);
        double o = su[3 * K + k];
        if (!fs) o += ov_vertex_any(t, pw, kind[u], vu, u, su[k]);
        /* of the edges u -> v leaving u alike, the tightest (timeline's);
         * only an irequires edge has an overhead part: the others' have no
         * o coefficient and their constant is latency (ov_edge is 0) */
        if (!fs) {
          ov[k] = o;
          break;
        }
        uint32_t best = type;
        if (b1 - b0 > 1) {
          double miss = INFINITY;
          for (uint32_t j = b0; j < b1; j++) {
            uint32_t tj = src[j] >> shift;
            if ((src[j] & sm) != u || (from_start(tj) != 0) != (fs != 0)) continue;
            double d = fabs(from + ecost_uv(tj, vu, t, pw, u, kv, valv, v) - sv[k]);
            if (d < miss) {
              miss = d;
              best = tj;
            }
          }
        }
        ov[k] = best == E_START ? o + ov_edge(t, pw, E_START, vu, u, kv, valv, v, from) : o;
        break;
      }
    }
    if (v == next_far) { /* a later in-edge reaches past the ring */
      memcpy(far + fi * rs, sv, rs * sizeof *sv);
      next_far = ++fi < e->nfar ? e->far_src[fi] : UINT64_MAX;
    }
    /* v's end, and a rendezvous receive's sender completion, as ends of T */
    double ve = vcoef(kv, valv, LLAMP_PARAM_L, th, pw, v), vg = vcoef(kv, valv, LLAMP_PARAM_G, th, pw, v);
    lane_vcosts(kv, ln, pw, valv, v, sv, c0);
    for (size_t k = 0; k < K; k++) lane_merge2(c0[k], hv[k] + ve, gv[k] + vg, &T[k], &Th[k], &Tg[k]);
    if (kv == K_RECV_RNDV) {
      double re = ecoef(E_RNDV_DONE, valv, LLAMP_PARAM_L, th, pw, v);
      double rg = ecoef(E_RNDV_DONE, valv, LLAMP_PARAM_G, th, pw, v);
      for (size_t k = 0; k < K; k++) {
        c1[k] = sv[k] + ecost(E_RNDV_DONE, valv, &th[k], pw, v);
        lane_merge2(c1[k], hv[k] + re, gv[k] + rg, &T[k], &Th[k], &Tg[k]);
      }
    }
    /* ends that may realise the final T (backtrack scans from the last
     * vertex, its end before its completion) */
    for (size_t k = 0; k < K && need_ov; k++) {
      double lim = T[k] - tie_tol(T[k]);
      if (kv == K_RECV_RNDV && c1[k] >= lim &&
          ends_push(&ends[k], (lane_end_t){c1[k], hv[k] + 1, sv[k], ov[k], v, 1}, T[k]))
        return -1;
      if (c0[k] >= lim && ends_push(&ends[k], (lane_end_t){c0[k], hv[k] + ve, sv[k], ov[k], v, 0}, T[k]))
        return -1;
    }
  }
  for (size_t k = 0; k < K; k++) {
    const theta_t *t = &th[k];
    out[k] = (llamp_lane_point_t){T[k], Th[k], Tg[k], 0};
    for (size_t i = ends[k].n; i-- > 0;) {
      const lane_end_t *x = &ends[k].c[i];
      if (!(fabs(x->val - T[k]) <= tie_tol(T[k]) && x->coef == Th[k])) continue;
      uint64_t v = x->v;
      out[k].t_overhead = x->os + (x->done ? ov_edge(t, pw, E_RNDV_DONE, val[v], v, kind[v], val[v], v, x->st)
                                           : ov_vertex(t, pw, kind[v], val[v], v, x->st));
      break;
    }
  }
  return 0;
}

/* ---- the lanes four at a time (no path overheads) ---- */


static inline __attribute__((always_inline)) lanes4_t lanes_sel(lanes4_mask_t m, lanes4_t a, lanes4_t b) {
  return (lanes4_t)(((lanes4_mask_t)a & m) | ((lanes4_mask_t)b & ~m));
}

/* lane_merge2 on four lanes without branches, the same values: the larger
 * time is max(c, x) in every case; the coefficients are the candidate's
 * above x's tie band, x's below it, the larger of both inside it. */
static inline __attribute__((always_inline)) void lanes_merge(lanes4_t c, lanes4_t h, lanes4_t g, lanes4_t *b,
                                                             lanes4_t *bh, lanes4_t *bg) {
  const lanes4_mask_t abs_bits = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  lanes4_t x = *b, m = lanes_sel(c > x, c, x);
  lanes4_t tol = 1e-12 * (lanes4_t)((lanes4_mask_t)m & abs_bits) + 1e-21; /* tie_tol(m) */
  lanes4_mask_t below = c < x - tol, above = c > x + tol;
  lanes4_t oh = *bh, og = *bg;
  *b = m;
  *bh = lanes_sel(above, h, lanes_sel(below, oh, lanes_sel(h > oh, h, oh)));
  *bg = lanes_sel(above, g, lanes_sel(below, og, lanes_sel(g > og, g, og)));
}

/* The lanes of one pass: KV vectors of four, each lane its own L and G, the
 * rest of theta the same (t). */
typedef struct {
  const theta_t *t;
  const lanes4_t *L, *G;
  size_t KV;
} lanes4_set_t;

/* the edge u -> v into v's slot (sv, hv, gv), every lane: its cost (type and,
 * for an edge from u's end, u's kind constant at each call site) and the merge */
static inline __attribute__((always_inline)) void lanes4_edge(unsigned type, unsigned ku, const lanes4_set_t *ln,
                                                             const pwv_t *pw, const lanes4_t *su, double vu,
                                                             uint64_t u, unsigned kv, double valv, uint64_t v,
                                                             double ce, double cg, lanes4_t *sv) {
  const theta_t *t = ln->t;
  const size_t KV = ln->KV;
  const lanes4_t *hu = su + KV, *gu = su + 2 * KV;
  for (size_t j = 0; j < KV; j++) {
    lanes4_t c = su[j] + ecost_uv_lanes(type, vu, t, ln->L[j], ln->G[j], pw, u, kv, valv, v);
    if (!from_start(type)) c += vcost_lanes(ku, vu, t, ln->L[j], ln->G[j], pw, u);
    lanes_merge(c, hu[j] + ce, gu[j] + cg, &sv[j], &sv[KV + j], &sv[2 * KV + j]);
  }
}

static inline __attribute__((always_inline)) void lanes4_edge_any(unsigned type, unsigned ku, const lanes4_set_t *ln,
                                                                 const pwv_t *pw, const lanes4_t *su, double vu,
                                                                 uint64_t u, unsigned kv, double valv, uint64_t v,
                                                                 double ce, double cg, lanes4_t *sv) {
#define LE(T, KU) lanes4_edge(T, KU, ln, pw, su, vu, u, kv, valv, v, ce, cg, sv)
#define LE_START(T) LE(T, K_SEND) /* u's kind unused */
#define LE_END(T) EDGE_KU_CONST(LE, T, ku)
  EDGE_TYPE_SWITCH(type, LE_START, LE_END)
#undef LE_END
#undef LE_START
#undef LE
}

/* v's end (kind constant) and a rendezvous receive's sender completion into T */
static inline __attribute__((always_inline)) void lanes4_ends(unsigned kv, const lanes4_set_t *ln, const pwv_t *pw,
                                                             double valv, uint64_t v, const lanes4_t *sv,
                                                             lanes4_t *T) {
  const theta_t *t = ln->t;
  const size_t KV = ln->KV;
  const lanes4_t *hv = sv + KV, *gv = sv + 2 * KV;
  double ve = vcoef(kv, valv, LLAMP_PARAM_L, t, pw, v), vg = vcoef(kv, valv, LLAMP_PARAM_G, t, pw, v);
  for (size_t j = 0; j < KV; j++)
    lanes_merge(sv[j] + vcost_lanes(kv, valv, t, ln->L[j], ln->G[j], pw, v), hv[j] + ve, gv[j] + vg, &T[j],
                &T[KV + j], &T[2 * KV + j]);
  if (kv != K_RECV_RNDV) return;
  double re = ecoef(E_RNDV_DONE, valv, LLAMP_PARAM_L, t, pw, v);
  double rg = ecoef(E_RNDV_DONE, valv, LLAMP_PARAM_G, t, pw, v);
  for (size_t j = 0; j < KV; j++)
    lanes_merge(sv[j] + ecost_lanes(E_RNDV_DONE, valv, t, ln->L[j], ln->G[j], pw, v), hv[j] + re, gv[j] + rg,
                &T[j], &T[KV + j], &T[2 * KV + j]);
}

/* lg_body's pass when no overhead can be on the path: a slot is KV vectors
 * of starts, of L coefficients and of G coefficients; T the same. */
static inline __attribute__((always_inline)) void lanes4_body(llamp_engine_t *e, const lanes4_set_t *ln,
                                                             uint64_t mask, lanes4_t *ring, lanes4_t *T,
                                                             const pwv_t *pw) {
  const theta_t *th = ln->t;
  const size_t KV = ln->KV;
  const uint8_t *kind = e->kind;
  const double *val = e->value;
  const uint32_t *beg = e->in_beg, *endp = e->in_end, *src = e->in_src;
  const uint32_t shift = e->shift, sm = e->mask;
  const uint64_t rs = 3 * (uint64_t)KV; /* vectors a slot */
  lanes4_t *far = ring + (mask + 1) * rs;
  uint64_t fi = 0, next_far = e->nfar ? e->far_src[0] : UINT64_MAX;
  const lanes4_t zero = {0, 0, 0, 0};
  for (uint64_t v = 0; v < e->n; v++) {
    lanes4_t *sv = ring + (v & mask) * rs;
    for (size_t j = 0; j < rs; j++) sv[j] = zero;
    unsigned kv = kind[v];
    double valv = val[v];
    for (uint32_t i = beg[v]; i < endp[v]; i++) {
      uint32_t u = src[i] & sm, type = src[i] >> shift;
      double vu = val[u];
      unsigned ku = kind[u];
      /* ring_slot in doubles: four a vector */
      const lanes4_t *su = (const lanes4_t *)ring_slot(e, (const double *)ring, mask, 4 * rs, v, u);
      double ce = ecoef_uv(type, vu, LLAMP_PARAM_L, th, pw, u, kv, valv, v);
      double cg = ecoef_uv(type, vu, LLAMP_PARAM_G, th, pw, u, kv, valv, v);
      if (!from_start(type)) {
        ce += vcoef(ku, vu, LLAMP_PARAM_L, th, pw, u);
        cg += vcoef(ku, vu, LLAMP_PARAM_G, th, pw, u);
      }
      lanes4_edge_any(type, ku, ln, pw, su, vu, u, kv, valv, v, ce, cg, sv);
    }
    if (v == next_far) { /* a later in-edge reaches past the ring */
      memcpy(far + fi * rs, sv, rs * sizeof *sv);
      next_far = ++fi < e->nfar ? e->far_src[fi] : UINT64_MAX;
    }
    switch (kv) {
    case K_CALC: lanes4_ends(K_CALC, ln, pw, valv, v, sv, T); break;
    case K_RECV_RNDV: lanes4_ends(K_RECV_RNDV, ln, pw, valv, v, sv, T); break;
    default: lanes4_ends(kv, ln, pw, valv, v, sv, T); break;
    }
  }
}

/* One pass, compiled for AVX2.  It does not contract a * b + c into one
 * rounding (FMA is not enabled), so it gives lg_body's bits. */
__attribute__((target("avx2"), noinline)) static void lanes4_pass(llamp_engine_t *e, const lanes4_set_t *ln,
                                                                   uint64_t mask, lanes4_t *ring, lanes4_t *T) {
  if (e->pw) lanes4_body(e, ln, mask, ring, T, e->pw);
  else lanes4_body(e, ln, mask, ring, T, NULL);
}

/* The vector pass needs AVX2 (the baseline's SSE2 pairs took 2.2x lg_body's
 * instructions).  Valgrind 3.19 cannot decode some of GCC's AVX2 code (VMOVQ
 * between registers), so under it the lanes stay scalar; LLAMP_LANES=scalar
 * asks for that anywhere (the tests compare both). */
int llamp_engine_lanes4_available(void) {
  const char *how = getenv("LLAMP_LANES");
  if (how && strcmp(how, "scalar") == 0) return 0;
#ifdef RUNNING_ON_VALGRIND
  if (RUNNING_ON_VALGRIND) return 0;
#endif
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}

/* llamp_engine_points_lg when no overhead can be on the path: the K lanes
 * padded to whole vectors with copies of the last one */
static int points_lanes4(llamp_engine_t *e, const theta_t *th0, const double *L, const double *G, size_t K,
                         llamp_lane_point_t *out) {
  enum { KV_MAX = (LG_LANES_MAX + 3) / 4 };
  size_t KV = (K + 3) / 4;
  lanes4_t Lv[KV_MAX], Gv[KV_MAX], T[3 * KV_MAX];
  for (size_t k = 0; k < 4 * KV; k++) {
    size_t src = k < K ? k : K - 1;
    Lv[k / 4][k % 4] = L[src];
    Gv[k / 4][k % 4] = G[src];
  }
  for (size_t j = 0; j < 3 * KV; j++) T[j] = (lanes4_t){0, 0, 0, 0};
  uint64_t W = e->ring_w;
  size_t bytes = (size_t)(W + e->nfar) * 3 * KV * sizeof(lanes4_t);
  lanes4_t *ring = aligned_alloc(sizeof(lanes4_t), bytes ? bytes : sizeof(lanes4_t));
  if (!ring) return -1;
  const lanes4_set_t ln = {th0, Lv, Gv, KV};
  lanes4_pass(e, &ln, W - 1, ring, T);
  free(ring);
  for (size_t k = 0; k < K; k++)
    out[k] = (llamp_lane_point_t){T[k / 4][k % 4], T[KV + k / 4][k % 4], T[2 * KV + k / 4][k % 4], 0};
  return 0;
}

int llamp_engine_points_lg(llamp_engine_t *e, const llamp_params_t *p, const double *L, const double *G,
                           size_t K, llamp_lane_point_t *out) {
  if (K == 0) return 0;
  if (K > LG_LANES_MAX || e->topo) return 1;
  if (ring_plan(e)) return -1;
  uint64_t W = e->ring_w;
  if (W > FUSED_RING_MAX) return 1;
  uint32_t deg = 1;
  for (uint64_t v = 0; v < e->n; v++)
    if (e->in_end[v] - e->in_beg[v] > deg) deg = e->in_end[v] - e->in_beg[v];
  theta_t th[LG_LANES_MAX];
  for (size_t k = 0; k < K; k++) {
    llamp_params_t q = *p;
    q.L = L[k];
    q.G = G[k];
    th[k] = theta_of(e, &q);
  }
  /* With o = 0, no rendezvous receive and no per-message CPU time every
   * overhead part timeline() could sum is exactly 0 (a send's or receive's
   * o + (o - o), an Isend's ois, the edges' none): the path is not needed */
  int need_ov = p->o != 0;
  for (uint64_t v = 0; v < e->n && !need_ov; v++)
    need_ov = e->kind[v] == K_RECV_RNDV || (e->pw && (e->pw[v].cpu != 0 || e->pw[v].sc != 0));
  e->lanes_width = !need_ov && llamp_engine_lanes4_available() ? 4 : 1;
  if (e->lanes_width == 4) return points_lanes4(e, &th[0], L, G, K, out);
  double *ring = malloc((W + e->nfar) * 4 * K * sizeof *ring), *cbuf = malloc((size_t)deg * K * sizeof *cbuf);
  lane_ends_t ends[LG_LANES_MAX];
  memset(ends, 0, sizeof ends);
  const lg_lanes_t ln = {th, L, G, K};
  int rc = -1;
  if (ring && cbuf) {
    if (e->pw) rc = need_ov ? lg_body(e, &ln, W - 1, ring, cbuf, deg, ends, out, e->pw, 1)
                            : lg_body(e, &ln, W - 1, ring, cbuf, deg, ends, out, e->pw, 0);
    else rc = need_ov ? lg_body(e, &ln, W - 1, ring, cbuf, deg, ends, out, NULL, 1)
                      : lg_body(e, &ln, W - 1, ring, cbuf, deg, ends, out, NULL, 0);
  }
  for (size_t k = 0; k < K; k++) free(ends[k].c);
  free(ring);
  free(cbuf);
  return rc;
}

static int point(llamp_engine_t *e, const llamp_params_t *p, unsigned wrt, int extra,
                 llamp_point_t *out);

int llamp_engine_point(llamp_engine_t *e, const llamp_params_t *p, llamp_point_t *out) {
  return point(e, p, ~0u, 1, out);
}

int llamp_engine_point_of(llamp_engine_t *e, const llamp_params_t *p, unsigned wrt,
                          llamp_point_t *out) {
  return point(e, p, wrt | 1u << LLAMP_PARAM_L, 0, out);
}

static int point(llamp_engine_t *e, const llamp_params_t *p, unsigned wrt, int extra,
                 llamp_point_t *out) {
  memset(out, 0, sizeof *out);
  llamp_eval_t r;
  llamp_param_t ws[FUSED_MAX];
  int nw = 0;
  for (int w = LLAMP_NUM_PARAMS - 1; w >= 0; w--)
    if (w != LLAMP_PARAM_L && (wrt >> w & 1) && !(w == LLAMP_PARAM_GAP && !(e->proto.g > 0)))
      ws[nw++] = (llamp_param_t)w;
  int nx = extra && e->pairs ? (int)e->pairs->num_params : 0; /* the routes' parameters, last */
  for (int x = 0; x < nx; x++) ws[nw + x] = LLAMP_PARAM_X(x);
  llamp_eval_t ev[1 + FUSED_MAX];
  int fused = nw + nx ? point_fused(e, p, ws, nw + nx, ev) : 1;
  if (fused < 0) return -1;
  if (fused == 0) {
    for (int k = 0; k < nw; k++) {
      out->lambda[ws[k]] = ev[1 + k].slope_right;
      out->lambda_left[ws[k]] = ev[1 + k].slope_left;
    }
    for (int x = 0; x < nx; x++) {
      out->lambda_x[x] = ev[1 + nw + x].slope_right;
      out->lambda_x_left[x] = ev[1 + nw + x].slope_left;
    }
    r = ev[0];
    out->lambda[LLAMP_PARAM_L] = r.slope_right;
    out->lambda_left[LLAMP_PARAM_L] = r.slope_left;
  }
  for (int x = 0; x < nx && fused; x++) {
    if (llamp_engine_eval(e, p, LLAMP_PARAM_X(x), &r)) return -1;
    out->lambda_x[x] = r.slope_right;
    out->lambda_x_left[x] = r.slope_left;
  }
  for (int w = LLAMP_NUM_PARAMS - 1; w >= 0 && fused; w--) { /* L last: its pass feeds the path */
    if (w == LLAMP_PARAM_GAP && !(e->proto.g > 0)) continue;
    if (!(wrt >> w & 1)) continue;
    if (llamp_engine_eval(e, p, (llamp_param_t)w, &r)) return -1;
    out->lambda[w] = r.slope_right;
    out->lambda_left[w] = r.slope_left;
  }
  out->T = r.T;
  out->rho_L = r.T > 0 ? out->lambda[LLAMP_PARAM_L] * p->L / r.T : 0;
  out->rho_G = r.T > 0 ? out->lambda[LLAMP_PARAM_G] * p->G / r.T : 0;
  /* The breakdown is the timeline's segments summed by kind, so the two never
   * disagree (each takes the costs from the same coefficient functions). */
  llamp_segment_t *sg = NULL;
  size_t ns = 0;
  uint64_t len = 0, messages = 0;
  if (timeline(e, p, &r, &sg, &ns, &len, &messages)) return 0;
  double *sum[LLAMP_NUM_SEGS] = {&out->t_compute, &out->t_overhead, &out->t_latency,
                                 &out->t_bandwidth, &out->t_gap};
  for (size_t i = 0; i < ns; i++) *sum[sg[i].kind] += sg[i].t1 - sg[i].t0;
  out->path_vertices = len;
  out->path_messages = messages;
  free(sg);
  return 0;
}

/* ---- out of core ---------------------------------------------------------------- */


int llamp_engine_stream_point(const llamp_graph_t *g, const llamp_params_t *p, uint64_t window,
                              llamp_point_t *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (!(p->S >= 0) || !(p->L >= 0) || !(p->o >= 0) || !(p->G >= 0) || !(p->g >= 0)) {
    snprintf(err, errlen, "model parameters must be non-negative");
    return -1;
  }
  if (p->nic || p->g > 0 || p->net || p->pairs) {
    snprintf(err, errlen, "the out-of-core evaluation models LogGP with eager messages only (no NIC rule, "
                          "gap, size-dependent or per-pair costs)");
    return -1;
  }
  llamp_graph_arrays_t a;
  llamp_graph_arrays(g, &a);
  uint64_t W = 1; /* a power of two: slot v & (W - 1) */
  while (W < window && W < a.n) W <<= 1;
  const uint64_t mask = W - 1;
  /* pass1's pass for three parameters at once: the start times and every
   * tie decision depend on theta only, so each parameter's coefficients are
   * those of its own pass1 */
  enum { NW = 3 };
  static const llamp_param_t ws[NW] = {LLAMP_PARAM_O, LLAMP_PARAM_G, LLAMP_PARAM_L};
  double *st = malloc(W * sizeof *st), *co = malloc(W * 2 * NW * sizeof *co);
  if (!st || !co) {
    free(st);
    free(co);
    snprintf(err, errlen, "out of memory for a window of %llu vertices", (unsigned long long)W);
    return -1;
  }
  theta_t t = {p->L, p->G, p->o, 0, p->size_g_full ? F_SIZE_G_FULL : 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL};
  double T = 0, Tc[2 * NW] = {0};
  int rc = 0;
  for (uint64_t v = 0; v < a.n && rc == 0; v++) {
    unsigned kv = a.kind[v];
    double valv = a.value[v];
    if (kv == LLAMP_VERTEX_SEND) {
      uint64_t r = llamp_graph_partner(g, v);
      if (valv > llamp_params_leave_max(p) || send_sync(&a, v) || r >= a.n || a.rank[r] == a.rank[v]) {
        snprintf(err, errlen, "vertex %llu: %s (out of core: eager messages between ranks only)",
                 (unsigned long long)v, r < a.n && a.rank[r] == a.rank[v] ? "a message to its own rank" :
                 "a message that starts at its match (above S, from A up, or synchronous)");
        rc = -1;
        break;
      }
    }
    double b = 0, *bc = co + (v & mask) * 2 * NW;
    for (int k = 0; k < 2 * NW; k++) bc[k] = 0;
    for (uint32_t i = a.in_beg[v]; i < a.in_end[v]; i++) {
      uint64_t u = a.in_src[i] & LLAMP_EDGE_SRC_MASK;
      uint32_t type = a.in_src[i] >> LLAMP_EDGE_KIND_SHIFT;
      if (type == LLAMP_EDGE_CPU) { /* every message here is eager: it binds with o (no model here) */
        if (!(p->o > 0)) continue;
        type = E_END;
      }
      if (u >= v || v - u >= W) {
        snprintf(err, errlen, "vertex %llu waits for vertex %llu, %llu vertices earlier: %s %llu",
                 (unsigned long long)v, (unsigned long long)u, (unsigned long long)(v - u),
                 u >= v ? "not in topological order: the window is" : "more than the window of",
                 (unsigned long long)W);
        rc = -1;
        break;
      }
      double vu = a.value[u];
      unsigned ku = a.kind[u];
      double c = st[u & mask] + ecost_uv(type, vu, &t, NULL, u, kv, valv, v);
      int fs = from_start(type);
      if (!fs) c += vcost(ku, vu, &t, NULL, u);
      double tol = tie_tol(c > b ? c : b);
      if (c < b - tol) continue; /* merge() leaves b and the coefficients */
      int above = c > b + tol;
      if (c > b) b = c;
      double ce[NW];
      for (int k = 0; k < NW; k++) {
        ce[k] = ecoef_uv(type, vu, ws[k], &t, NULL, u, kv, valv, v);
        if (!fs) ce[k] += vcoef(ku, vu, ws[k], &t, NULL, u); /* as pass1 adds them */
      }
      merge_coefs(above, co + (u & mask) * 2 * NW, ce, bc, NW);
    }
    st[v & mask] = b;
    /* the file's pages behind the window leave the resident set */
    if ((v & ((1u << 22) - 1)) == 0 && v > W) llamp_graph_drop_pages(g, v - W);
    double c = b + vcost(kv, valv, &t, NULL, v), tol = tie_tol(c > T ? c : T);
    if (c >= T - tol) {
      int above = c > T + tol;
      if (c > T) T = c;
      double ce[NW];
      for (int k = 0; k < NW; k++) ce[k] = vcoef(kv, valv, ws[k], &t, NULL, v);
      merge_coefs(above, bc, ce, Tc, NW);
    }
  }
  free(st);
  free(co);
  if (rc) return -1;
  out->T = T;
  for (int k = 0; k < NW; k++) {
    out->lambda[ws[k]] = Tc[2 * k];
    out->lambda_left[ws[k]] = Tc[2 * k + 1];
  }
  out->rho_L = T > 0 ? out->lambda[LLAMP_PARAM_L] * p->L / T : 0;
  out->rho_G = T > 0 ? out->lambda[LLAMP_PARAM_G] * p->G / T : 0;
  return 0;
}

/* ---- breakpoints (Eisner-Severance) ---------------------------------------------- */

typedef struct {
  llamp_engine_t *e;
  llamp_params_t p;
  llamp_param_t w;
  llamp_breakpoint_t *bp;
  size_t n, cap;
  int evals, failed;
  double ytol; /* piece_tol_of T(hi) */
} bp_ctx_t;

static int eval_at(bp_ctx_t *c, double x, llamp_eval_t *r) {
  llamp_params_set(&c->p, c->w, x);
  c->evals++;
  return llamp_engine_eval(c->e, &c->p, c->w, r);
}

static void bp_add(bp_ctx_t *c, double x, double before, double after, double T) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 16;
    llamp_breakpoint_t *nb = realloc(c->bp, cap * sizeof *nb);
    if (!nb) {
      c->failed = 1;
      return;
    }
    c->bp = nb;
    c->cap = cap;
  }
  c->bp[c->n++] = (llamp_breakpoint_t){x, before, after, T};
}

/* Breakpoints strictly inside (a, b), given T and the right slope at a and
 * T and the left slope at b.  Convexity: the tangent lines meet at x; if T(x)
 * lies on them there is exactly one breakpoint, else split at x. */
static void bp_segment(bp_ctx_t *c, double a, double Ta, double sa, double b, double Tb, double sb,
                       int depth) {
  if (c->failed || sa >= sb || b <= a) return; /* slopes are exact integers */
  if (depth > 200) {
    c->failed = 1;
    return;
  }
  double x = (Tb - sb * b - Ta + sa * a) / (sa - sb);
  if (!(x > a)) x = a;
  if (!(x < b)) x = b;
  llamp_eval_t r;
  if (eval_at(c, x, &r)) {
    c->failed = 1;
    return;
  }
  double line = Ta + sa * (x - a);
  if (r.T <= line + c->ytol || x <= a || x >= b) {
    bp_add(c, x, sa, sb, r.T > line ? r.T : line);
    return;
  }
  bp_segment(c, a, Ta, sa, x, r.T, r.slope_left, depth + 1);
  if (r.slope_right > r.slope_left) bp_add(c, x, r.slope_left, r.slope_right, r.T);
  bp_segment(c, x, r.T, r.slope_right, b, Tb, sb, depth + 1);
}

int llamp_engine_breakpoints_es(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w,
                                double lo, double hi, llamp_breakpoint_t **out, size_t *count,
                                int *evaluations) {
  bp_ctx_t c = {e, *p, w, NULL, 0, 0, 0, 0, 0};
  *out = NULL;
  *count = 0;
  if (!(lo >= 0) || !(hi >= lo)) return -1;
  llamp_eval_t ra, rb;
  if (eval_at(&c, lo, &ra) || eval_at(&c, hi, &rb)) return -1;
  c.ytol = piece_tol_of(rb.T);
  if (hi > lo) bp_segment(&c, lo, ra.T, ra.slope_right, hi, rb.T, rb.slope_left, 0);
  if (evaluations) *evaluations = c.evals;
  if (c.failed) {
    free(c.bp);
    return -1;
  }
  *out = c.bp;
  *count = c.n;
  return 0;
}

/* ---- budget / tolerance ------------------------------------------------------------ */

/* Largest coefficient of any path: the slope of T as the parameter -> inf. */
static double asymptotic_slope(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w) {
  theta_t t = theta_of(e, p);
  double best = 0, *c = e->cmax;
  for (uint64_t i_ = 0; i_ < e->n; i_++) {
    uint64_t v = e->topo ? e->topo[i_] : i_;
    double b = 0;
    for (uint32_t i = e->in_beg[v]; i < e->in_end[v]; i++) {
      uint32_t u = e->in_src[i] & e->mask, type = e->in_src[i] >> e->shift;
      double x = c[u] + ecoef_uv(type, e->value[u], w, &t, e->pw, u, e->kind[v], e->value[v], v);
      if (!from_start(type)) x += vcoef(e->kind[u], e->value[u], w, &t, e->pw, u);
      if (x > b) b = x;
    }
    c[v] = b;
    double end = b + vcoef(e->kind[v], e->value[v], w, &t, e->pw, v);
    if (e->kind[v] == K_RECV_RNDV && b + ecoef(E_RNDV_DONE, e->value[v], w, &t, e->pw, v) > end)
      end = b + ecoef(E_RNDV_DONE, e->value[v], w, &t, e->pw, v);
    if (end > best) best = end;
  }
  return best;
}

int llamp_engine_budget(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w, double tmax,
                        double *x_out, int *unbounded, int *evaluations) {
  llamp_params_t q = *p;
  llamp_eval_t r;
  int evals = 0;
  *unbounded = 0;
  *x_out = -1;
  if (ensure_work(e, 1)) return -1;
  llamp_params_set(&q, w, 0);
  if (llamp_engine_eval(e, &q, w, &r)) return -1;
  evals++;
  double tol = 1e-12 * fabs(tmax) + 1e-21;
  if (r.T > tmax + tol) { /* even a zero parameter misses the budget */
    if (evaluations) *evaluations = evals;
    return -1;
  }
  if (asymptotic_slope(e, p, w) == 0) {
    *unbounded = 1;
    if (evaluations) *evaluations = evals;
    return 0;
  }
  /* From the left, tangent steps overshoot to the right of the answer (T is
   * convex); from the right, steps with the left slope decrease monotonically
   * onto it.  Flat stretches are crossed by doubling. */
  double x = llamp_params_get(p, w) > 0 ? llamp_params_get(p, w) : 0;
  double scale = tmax > 0 ? tmax : 1e-6;
  for (int it = 0; it < 400; it++) {
    llamp_params_set(&q, w, x);
    if (llamp_engine_eval(e, &q, w, &r)) return -1;
    evals++;
    if (r.T <= tmax + tol) {
      if (r.slope_right > 0) {
        double nx = x + (tmax - r.T) / r.slope_right;
        if (nx <= x) {
          *x_out = x;
          break;
        }
        /* the tangent root: T(nx) >= tmax; if T(nx) == tmax, it is the answer */
        x = nx;
      } else {
        x = x > 0 ? 2 * x + scale : scale;
      }
    } else {
      double nx = x - (r.T - tmax) / r.slope_left;
      llamp_params_set(&q, w, nx);
      if (llamp_engine_eval(e, &q, w, &r)) return -1;
      evals++;
      if (r.T <= tmax + tol) {
        *x_out = nx;
        break;
      }
      x = nx;
      /* keep stepping from the right */
      while (r.T > tmax + tol && it++ < 400) {
        nx = x - (r.T - tmax) / r.slope_left;
        if (!(nx < x)) break;
        x = nx;
        llamp_params_set(&q, w, x);
        if (llamp_engine_eval(e, &q, w, &r)) return -1;
        evals++;
      }
      *x_out = x;
      break;
    }
  }
  if (evaluations) *evaluations = evals;
  return *x_out >= 0 ? 0 : -1;
}

/* ---- many points in one pass --------------------------------------------------------- */

/* Lane merge without branches, so the lane loop vectorises: take c if it is
 * above b beyond the tie tolerance, the larger coefficient on a tie. */
static inline void lane_merge(double c, double ch, double *b, double *bh) {
  double bb = *b, hh = *bh;
  double tol = 1e-12 * (c > bb ? c : bb) + 1e-21;
  double d = c - bb;
  double nh = d > tol ? ch : (d >= -tol && ch > hh ? ch : hh);
  *b = c > bb ? c : bb;
  *bh = nh;
}

/* One pass carrying K lanes; lane k evaluates the graph at w1 = x1[k] and,
 * when `two`, w2 = x2[k] (costs are affine in each parameter and have no
 * product of two, so every cost is base + c1 x1 + c2 x2 with base taken at
 * w1 = w2 = 0); the slope is along w1. */
static inline __attribute__((always_inline)) int lanes_pass(llamp_engine_t *e, const llamp_params_t *p,
                                                            llamp_param_t w1, const double *x1,
                                                            llamp_param_t w2, const double *x2, int two,
                                                            size_t K, double *T_out, double *slope_out) {
  if (K == 0) return 0;
  if (e->lane_alloc < K) {
    free(e->lane_start);
    free(e->lane_coef);
    e->lane_start = malloc((size_t)(e->n ? e->n : 1) * K * sizeof(double));
    e->lane_coef = malloc((size_t)(e->n ? e->n : 1) * K * sizeof(double));
    e->lane_alloc = e->lane_start && e->lane_coef ? K : 0;
    if (!e->lane_alloc) return -1;
  }
  llamp_params_t q = *p;
  llamp_params_set(&q, w1, 0);
  if (two) llamp_params_set(&q, w2, 0);
  theta_t t = theta_of(e, &q);
  const uint8_t *kind = e->kind;
  const double *val = e->value;
  const pwv_t *pw = e->pw;
  double *st = e->lane_start, *ch = e->lane_coef;
  double T[K], Th[K], x[K], y[K];
  for (size_t k = 0; k < K; k++) T[k] = Th[k] = 0, x[k] = x1[k], y[k] = two ? x2[k] : 0;
  for (uint64_t i_ = 0; i_ < e->n; i_++) {
    uint64_t v = e->topo ? e->topo[i_] : i_;
    double *restrict sv = st + v * K, *restrict hv = ch + v * K;
    for (size_t k = 0; k < K; k++) sv[k] = hv[k] = 0;
    for (uint32_t i = e->in_beg[v]; i < e->in_end[v]; i++) {
      uint32_t u = e->in_src[i] & e->mask, type = e->in_src[i] >> e->shift;
      double vu = val[u];
      const double *restrict su = st + (uint64_t)u * K, *restrict hu = ch + (uint64_t)u * K;
      double base = ecost_uv(type, vu, &t, pw, u, kind[v], val[v], v),
             ce = ecoef_uv(type, vu, w1, &t, pw, u, kind[v], val[v], v);
      double ce2 = two ? ecoef_uv(type, vu, w2, &t, pw, u, kind[v], val[v], v) : 0;
      if (!from_start(type)) {
        base += vcost(kind[u], vu, &t, pw, u);
        ce += vcoef(kind[u], vu, w1, &t, pw, u);
        if (two) ce2 += vcoef(kind[u], vu, w2, &t, pw, u);
      }
      if (two)
        for (size_t k = 0; k < K; k++)
          lane_merge(su[k] + (base + ce * x[k] + ce2 * y[k]), hu[k] + ce, &sv[k], &hv[k]);
      else
        for (size_t k = 0; k < K; k++) lane_merge(su[k] + (base + ce * x[k]), hu[k] + ce, &sv[k], &hv[k]);
    }
    double vb = vcost(kind[v], val[v], &t, pw, v), vc = vcoef(kind[v], val[v], w1, &t, pw, v);
    double vc2 = two ? vcoef(kind[v], val[v], w2, &t, pw, v) : 0;
    for (size_t k = 0; k < K; k++) lane_merge(sv[k] + (vb + vc * x[k] + vc2 * y[k]), hv[k] + vc, &T[k], &Th[k]);
    if (kind[v] == K_RECV_RNDV) {
      double rb = ecost(E_RNDV_DONE, val[v], &t, pw, v), rc = ecoef(E_RNDV_DONE, val[v], w1, &t, pw, v);
      double rc2 = two ? ecoef(E_RNDV_DONE, val[v], w2, &t, pw, v) : 0;
      for (size_t k = 0; k < K; k++) lane_merge(sv[k] + (rb + rc * x[k] + rc2 * y[k]), hv[k] + rc, &T[k], &Th[k]);
    }
  }
  for (size_t k = 0; k < K; k++) {
    T_out[k] = T[k];
    if (slope_out) slope_out[k] = Th[k];
  }
  return 0;
}

int llamp_engine_sweep_lanes(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w,
                             const double *xs, size_t K, double *T_out, double *slope_out) {
  return lanes_pass(e, p, w, xs, w, NULL, 0, K, T_out, slope_out);
}

int llamp_engine_sweep_grid(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w1,
                            const double *x1, size_t n1, llamp_param_t w2, const double *x2,
                            size_t n2, double *T_out, double *slope_out) {
  if (w1 == w2 || (unsigned)w1 >= llamp_params_count(p) || (unsigned)w2 >= llamp_params_count(p))
    return -1;
  /* lanes in chunks: the lane arrays cost 16 B per vertex and lane */
  enum { CHUNK = 64 };
  double a[CHUNK], b[CHUNK];
  size_t K = n1 * n2;
  for (size_t k0 = 0; k0 < K; k0 += CHUNK) {
    size_t m = K - k0 < CHUNK ? K - k0 : CHUNK;
    for (size_t k = 0; k < m; k++) a[k] = x1[(k0 + k) / n2], b[k] = x2[(k0 + k) % n2];
    if (lanes_pass(e, p, w1, a, w2, b, 1, m, T_out + k0, slope_out ? slope_out + k0 : NULL)) return -1;
  }
  return 0;
}

/* ---- the parametric pass -------------------------------------------------------------

 * Each vertex's start time as a function of x (the varied parameter) on
 * [lo, hi] is convex piecewise linear: the upper envelope of a few lines.
 * Lines of the predecessors (shifted by the edge's and vertex's affine cost)
 * are collected, sorted by slope and reduced to their upper envelope on
 * [lo, hi] (convex-hull trick).  T's envelope collects the end functions of
 * the vertices no successor waits for. */

typedef struct {
  llamp_line_t *v;
  size_t n, cap;
} lines_t;

static int lines_push(lines_t *l, double a, double b) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    llamp_line_t *nv = realloc(l->v, cap * sizeof *nv);
    if (!nv) return -1;
    l->v = nv;
    l->cap = cap;
  }
  l->v[l->n++] = (llamp_line_t){a, b};
  return 0;
}

/* x where lines p and q (p.a < q.a) cross */
static inline double cross(llamp_line_t p, llamp_line_t q) { return (p.b - q.b) / (q.a - p.a); }

/* Upper envelope on [lo, hi] of lines already sorted by slope (ties by
 * intercept); in place, returns the count.  The middle-line test is
 * division-free: l2 is useless when l1 and l3 cross left of l1 and l2
 * (within xtol), or when it rises at most ytol above them (a piece of T
 * that is only rounding: see piece_tol). */
static size_t hull_sorted(llamp_line_t *v, size_t n, double lo, double hi, double xtol, double ytol) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    llamp_line_t l = v[i];
    if (k && v[k - 1].a == l.a) k--; /* same slope: l has the larger intercept */
    while (k >= 2) {
      llamp_line_t p = v[k - 2], q = v[k - 1];
      double d2 = q.a - p.a, d3 = l.a - p.a; /* both > 0 */
      /* q's rise above p and l where they cross is (p.b - q.b) + d2 x,
       * x = (p.b - l.b) / d3; divided out, no division */
      if ((p.b - l.b) * d2 <= (p.b - q.b) * d3 + (xtol * d2 + ytol) * d3) k--;
      else break;
    }
    v[k++] = l;
  }
  size_t first = 0;
  while (k - first >= 2 && cross(v[first], v[first + 1]) <= lo + xtol + ytol / (v[first + 1].a - v[first].a)) first++;
  while (k - first >= 2 && cross(v[k - 2], v[k - 1]) >= hi - xtol - ytol / (v[k - 1].a - v[k - 2].a)) k--;
  if (first) memmove(v, v + first, (k - first) * sizeof *v);
  return k - first;
}

/* piece_tol_of T at hi, T the upper envelope of l[0..n) */
static double piece_tol(const llamp_line_t *l, size_t n, double hi) {
  double T = 0;
  for (size_t j = 0; j < n; j++)
    if (l[j].a * hi + l[j].b > T) T = l[j].a * hi + l[j].b;
  return piece_tol_of(T);
}

/* Reduce v[0..n) in place to its upper envelope on [lo, hi]; returns the new
 * count.  Equal slopes keep the larger intercept; a line that only touches
 * the envelope at one point is dropped (so breakpoints are never doubled). */
static inline int line_before(llamp_line_t x, llamp_line_t y) { return x.a < y.a || (x.a == y.a && x.b < y.b); }

/* Merge the sorted runs v[runs[i] .. runs[i+1]) (i < nruns) using tmp
 * (n lines); the result ends in v. */
static void merge_runs(llamp_line_t *v, size_t n, size_t *runs, size_t nruns, llamp_line_t *tmp) {
  llamp_line_t *src = v, *dst = tmp;
  runs[nruns] = n;
  while (nruns > 1) {
    size_t out = 0, r = 0;
    for (; r + 1 < nruns; r += 2) {
      size_t i = runs[r], im = runs[r + 1], j = im, jm = runs[r + 2], k = i;
      while (i < im && j < jm) dst[k++] = line_before(src[j], src[i]) ? src[j++] : src[i++];
      while (i < im) dst[k++] = src[i++];
      while (j < jm) dst[k++] = src[j++];
      runs[out++] = runs[r];
    }
    if (r < nruns) { /* an odd run left: copy it */
      memcpy(dst + runs[r], src + runs[r], (runs[r + 1] - runs[r]) * sizeof *dst);
      runs[out++] = runs[r];
    }
    runs[out] = n;
    nruns = out;
    llamp_line_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != v) memcpy(v, src, n * sizeof *v);
}

static int line_order(const void *x, const void *y) {
  const llamp_line_t *p = x, *q = y;
  return line_before(*p, *q) ? -1 : line_before(*q, *p);
}

/* Sort v[0..n) by slope, ties by intercept.  The lists are a sorted prefix
 * (an earlier hull) and lines appended since: a short tail goes in by
 * insertion, a long one is sorted apart and merged.  T's lines grow as
 * terminal vertices push theirs: with ~1000 of them (a random graph, 2850
 * critical latencies in [0, 20 us]) insertion of the pushed lines into the
 * prefix was 71 % of the critical latencies' time. */
static void sort_lines(llamp_line_t *v, size_t n) {
  size_t m = 1;
  while (m < n && !line_before(v[m], v[m - 1])) m++;
  llamp_line_t *tmp = n - m > 16 ? malloc(n * sizeof *tmp) : NULL;
  if (tmp) {
    size_t runs[3] = {0, m};
    qsort(v + m, n - m, sizeof *v, line_order);
    merge_runs(v, n, runs, 2, tmp);
    free(tmp);
    return;
  }
  for (size_t i = m; i < n; i++) { /* short tail, or no memory for the merge */
    llamp_line_t t = v[i];
    size_t j = i;
    while (j > 0 && line_before(t, v[j - 1])) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = t;
  }
}

static size_t hull(llamp_line_t *v, size_t n, double lo, double hi, double xtol, double ytol) {
  if (n <= 1) return n;
  sort_lines(v, n);
  return hull_sorted(v, n, lo, hi, xtol, ytol);
}


/* hull(), with a fast path for the common case: one candidate is above all
 * others at both ends of [lo, hi], hence everywhere on it (lines). */
static size_t reduce_lines(llamp_line_t *v, size_t n, double lo, double hi, double xtol,
                           size_t *runs, size_t nruns, llamp_line_t *tmp) {
  size_t best = 0;
  double bhi = v[0].a * hi + v[0].b, blo = v[0].a * lo + v[0].b;
  for (size_t j = 1; j < n; j++) {
    double yhi = v[j].a * hi + v[j].b, ylo = v[j].a * lo + v[j].b;
    if (yhi > bhi || (yhi == bhi && ylo > blo)) best = j, bhi = yhi, blo = ylo;
  }
  for (size_t j = 0; j < n; j++) {
    if (j == best) continue;
    double yhi = v[j].a * hi + v[j].b, ylo = v[j].a * lo + v[j].b;
    if (ylo > blo + tie_tol(blo) || yhi > bhi + tie_tol(bhi)) {
      merge_runs(v, n, runs, nruns, tmp);
      return hull_sorted(v, n, lo, hi, xtol, 0);
    }
  }
  v[0] = v[best];
  return 1;
}

/* Mark vertices whose end no edge waits for (only those can end T). */
static int ensure_terminal(llamp_engine_t *e) {
  if (e->terminal) return 0;
  e->terminal = malloc(e->n ? e->n : 1);
  if (!e->terminal) return -1;
  memset(e->terminal, 1, e->n);
  for (uint64_t i = 0; i < e->m; i++) {
    uint32_t type = e->in_src[i] >> e->shift;
    if (!from_start(type)) e->terminal[e->in_src[i] & e->mask] = 0;
  }
  return 0;
}

/* Pruning on [lo, hi] split at PRUNE_MAX_SEG + 1 points at most: at each
 * point x_j the tail of every vertex (the longest path from its start to the
 * run's end) and T with a slope there.  On each segment the tail is below its
 * chord and T above its tangents at both ends, so a line whose chord bound
 * stays below T's tangent bound on every segment is never critical.  The
 * bounds' slack grows with the segment's width times the change of slope
 * across it: on [0, 20 us] of an irregular 600 k-event graph one segment kept
 * 54 lines a vertex, two 47, four 10, eight 4 (four: 0.30 s, 129 MB; eight:
 * 0.26-0.30 s, 167 MB). */
#define PRUNE_MAX_SEG 32
typedef struct {
  int nseg;
  double x[PRUNE_MAX_SEG + 1];
  /* v's tail at x_j: tail[v * stride + j] (a vertex's points side by side:
   * one or two cache lines a vertex, where one array per point cost a line
   * per point) */
  const double *tail;
  size_t stride;
  double T[PRUNE_MAX_SEG + 1], slope_r[PRUNE_MAX_SEG + 1], slope_l[PRUNE_MAX_SEG + 1];
  double tol;
  /* 0, or give up once the kept lines average more than this a vertex: a
   * coarse pruning that keeps many is redone with more segments */
  double max_avg;
  /* 0, or give up once the kept lines average more than this a vertex over
   * the vertices so far (a part: cut in two if so) */
  double max_cum;
  /* prunable()'s constants per segment (prune_bounds, once a pass): T's
   * lower bound at both ends, and where the two tangents cross (has_k) */
  double b_lo[PRUNE_MAX_SEG], b_hi[PRUNE_MAX_SEG], xk[PRUNE_MAX_SEG], b_k[PRUNE_MAX_SEG];
  int has_k[PRUNE_MAX_SEG];
  /* the same less tol, and where xk lies in its segment (a fraction): no
   * division per line */
  double lim_lo[PRUNE_MAX_SEG], lim_hi[PRUNE_MAX_SEG], lim_k[PRUNE_MAX_SEG], frac_k[PRUNE_MAX_SEG];
  /* NULL, or where the kept lines' envelopes bend, every 64th vertex's:
   * hist[j * PRUNE_HIST_SUB + i] counts the i-th of PRUNE_HIST_SUB even
   * pieces of segment j (where a part over its budget is cut) */
  uint64_t *hist;
} prune_t;
#define PRUNE_HIST_SUB 16

/* Count the breakpoints of a vertex's envelope l[0..k) (sorted by slope) */
static void prune_hist(const prune_t *pr, const llamp_line_t *l, size_t k) {
  for (size_t j = 0; j + 1 < k; j++) {
    double x = (l[j].b - l[j + 1].b) / (l[j + 1].a - l[j].a);
    if (!(x >= pr->x[0] && x <= pr->x[pr->nseg])) continue;
    int seg = 0;
    while (seg < pr->nseg - 1 && x >= pr->x[seg + 1]) seg++;
    double width = pr->x[seg + 1] - pr->x[seg], f = width > 0 ? (x - pr->x[seg]) / width : 0;
    int i = (int)(f * PRUNE_HIST_SUB);
    pr->hist[seg * PRUNE_HIST_SUB + (i < 0 ? 0 : i >= PRUNE_HIST_SUB ? PRUNE_HIST_SUB - 1 : i)]++;
  }
}

static void prune_bounds(prune_t *pr) {
  for (int j = 0; j < pr->nseg; j++) {
    double lo = pr->x[j], hi = pr->x[j + 1];
    double T_lo = pr->T[j], T_hi = pr->T[j + 1], slope_lo = pr->slope_r[j], slope_hi = pr->slope_l[j + 1];
    pr->b_lo[j] = fmax(T_lo, T_hi - slope_hi * (hi - lo));
    pr->b_hi[j] = fmax(T_hi, T_lo + slope_lo * (hi - lo));
    pr->has_k[j] = 0;
    pr->frac_k[j] = 0;
    if (slope_hi > slope_lo && hi > lo) {
      pr->xk[j] = (T_hi - slope_hi * hi - T_lo + slope_lo * lo) / (slope_lo - slope_hi);
      pr->has_k[j] = pr->xk[j] > lo && pr->xk[j] < hi;
      pr->b_k[j] = T_lo + slope_lo * (pr->xk[j] - lo);
      pr->frac_k[j] = (pr->xk[j] - lo) / (hi - lo);
    }
    pr->lim_lo[j] = pr->b_lo[j] - pr->tol;
    pr->lim_hi[j] = pr->b_hi[j] - pr->tol;
    pr->lim_k[j] = pr->has_k[j] ? pr->b_k[j] - pr->tol : INFINITY;
  }
}

static inline int prunable1(const prune_t *pr, uint64_t v, llamp_line_t l) {
  /* per segment: upper bound through v, the line plus the chord of v's
   * convex tail; lower bound of T, the larger of its tangents at the ends.
   * Their difference is concave: check both ends and where the tangents
   * cross.  One segment (the common case). */
  const double *tv = pr->tail + v * pr->stride;
  double u0 = l.a * pr->x[0] + l.b + tv[0], u1 = l.a * pr->x[1] + l.b + tv[1];
  if (u0 >= pr->lim_lo[0] || u1 >= pr->lim_hi[0]) return 0;
  return !(u0 + (u1 - u0) * pr->frac_k[0] >= pr->lim_k[0]);
}

/* With several segments the same test is a set of points (x_i, D_i): the
 * line is prunable when a x_i + b < D_i at each.  D_i depends on v alone
 * (T's bound there less v's tail, or its chord at a tangents' crossing), so
 * it is built once a vertex (prune_points).  Only the lower convex hull of
 * the points matters, and of it only the point where the hull's slope
 * passes a: each candidate line of v costs a binary search, not a test a
 * point (65 points with 32 segments: that loop was half the pass). */
typedef struct {
  uint64_t v;
  int n;
  double x[2 * PRUNE_MAX_SEG + 1], d[2 * PRUNE_MAX_SEG + 1], s[2 * PRUNE_MAX_SEG + 1];
} prune_pts_t;

static inline void prune_points(const prune_t *pr, uint64_t v, prune_pts_t *pp) {
  const double *tv = pr->tail + v * pr->stride;
  int n = 0;
  for (int j = 0; j < pr->nseg; j++) {
    double d0 = pr->lim_lo[j] - tv[j];
    if (j && d0 > pp->d[n - 1]) d0 = pp->d[n - 1]; /* x_j ends segment j - 1 too: both bounds hold */
    if (j) n--;
    pp->x[n] = pr->x[j], pp->d[n++] = d0;
    if (pr->has_k[j])
      pp->x[n] = pr->xk[j], pp->d[n++] = pr->lim_k[j] - (tv[j] + (tv[j + 1] - tv[j]) * pr->frac_k[j]);
    pp->x[n] = pr->x[j + 1], pp->d[n++] = pr->lim_hi[j] - tv[j + 1];
  }
  pp->v = v;
  /* the lower hull (x ascending: x_j < xk_j < x_j+1) in place, then its
   * slopes: s[i] from point i to i + 1, ascending */
  int h = 0;
  for (int i = 0; i < n; i++) {
    double xi = pp->x[i], di = pp->d[i];
    if (h && !(xi > pp->x[h - 1])) { /* a range so narrow that points coincide: the lower D holds */
      if (pp->d[h - 1] < di) di = pp->d[h - 1];
      xi = pp->x[--h];
    }
    while (h >= 2 &&
           (pp->x[h - 1] - pp->x[h - 2]) * (di - pp->d[h - 2]) - (pp->d[h - 1] - pp->d[h - 2]) * (xi - pp->x[h - 2]) <= 0)
      h--;
    pp->x[h] = xi, pp->d[h++] = di;
  }
  for (int i = 0; i + 1 < h; i++) pp->s[i] = (pp->d[i + 1] - pp->d[i]) / (pp->x[i + 1] - pp->x[i]);
  pp->n = h;
}

/* the hull point where a x_i + b - D_i is largest: the first whose next
 * slope is a or more */
static inline int prunable_pts(const prune_pts_t *pp, llamp_line_t l) {
  int lo = 0, hi = pp->n - 1; /* the answer lies in [lo, hi] */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (pp->s[mid] >= l.a) hi = mid;
    else lo = mid + 1;
  }
  return l.a * pp->x[lo] + l.b < pp->d[lo];
}

/* l prunable at v: v's points built at its first candidate (a vertex
 * without candidates costs nothing) */
static inline int prunable_at(const prune_t *pr, uint64_t v, prune_pts_t *pp, llamp_line_t l) {
  if (pr->nseg == 1) return prunable1(pr, v, l);
  if (pp->v != v) prune_points(pr, v, pp);
  return prunable_pts(pp, l);
}

/* prunable_pts for the lines of one predecessor, which come sorted by slope:
 * the hull point moves forward from the last line's (*at), a step or none
 * where the binary search took ~4 unpredictable branches (a quarter of the
 * pass on a CG capture's graph at 11 points).  Steps back too, so any
 * order gives the same point. */
static inline int prunable_walk(const prune_pts_t *pp, llamp_line_t l, int *at) {
  int k = *at;
  while (k < pp->n - 1 && pp->s[k] < l.a) k++;
  while (k > 0 && pp->s[k - 1] >= l.a) k--;
  *at = k;
  return l.a * pp->x[k] + l.b < pp->d[k];
}

/* Room for `need` lines in the arena; the first arena borrows the evaluation
 * arrays (not owned), so its first growth copies instead of reallocating. */
static int arena_grow(lines_t *arena, int *owned, size_t need) {
  size_t cap = arena->cap ? 2 * arena->cap : 1024;
  while (cap < need) cap *= 2;
  llamp_line_t *nv = *owned ? realloc(arena->v, cap * sizeof *nv) : malloc(cap * sizeof *nv);
  if (!nv) return -1;
  if (!*owned) memcpy(nv, arena->v, arena->n * sizeof *nv);
  *owned = 1;
  llamp_mem_advise_huge(nv, cap * sizeof *nv);
  arena->v = nv;
  arena->cap = cap;
  return 0;
}

/* The arena keeps only live lines: those of vertices that a vertex at
 * position `at` or later still reads.  `last[u]` is the position of u's last
 * successor (built on first use).  Lines stay in position order, so the
 * survivors slide down in place and their offsets follow.  Without it every
 * vertex's envelope stayed to the end: an irregular 600 k-event graph
 * (measured compute) needed 30-60 lines a vertex and fell back to
 * Eisner-Severance (213 evaluations, 3.7 s). */
static int arena_compact(const llamp_engine_t *e, lines_t *arena, uint32_t *off, uint32_t **last,
                         uint64_t at, uint64_t *live_from) {
  if (!*last) {
    if (!(*last = calloc(e->n ? e->n : 1, sizeof **last))) return -1;
    for (uint64_t i = 0; i < e->n; i++) {
      uint64_t v = e->topo ? e->topo[i] : i;
      for (uint32_t j = e->in_beg[v]; j < e->in_end[v]; j++) (*last)[e->in_src[j] & e->mask] = (uint32_t)i;
    }
  }
  size_t to = 0;
  uint64_t first_kept = at;
  for (uint64_t i = *live_from; i < at; i++) {
    uint64_t u = e->topo ? e->topo[i] : i;
    uint32_t b = off[2 * u], n = off[2 * u + 1] - b;
    if ((*last)[u] < at) {
      off[2 * u] = off[2 * u + 1] = (uint32_t)to; /* never read again */
      continue;
    }
    if (first_kept == at) first_kept = i;
    if (to != b) memmove(arena->v + to, arena->v + b, n * sizeof *arena->v);
    off[2 * u] = (uint32_t)to;
    off[2 * u + 1] = (uint32_t)(to + n);
    to += n;
  }
  /* the vertices before *live_from hold no lines any more */
  arena->n = to;
  *live_from = first_kept;
  return 0;
}

/* The common case of the parametric pass: every predecessor of v holds one
 * line.  v's envelope is then one line when the candidate highest at hi
 * (then at lo) is also highest at lo within the tie tolerance: what
 * reduce_lines would keep, found without writing the candidates.  Returns
 * 0 when the envelope has more lines (the caller hulls them). */
static inline __attribute__((always_inline)) int
one_line(const llamp_engine_t *e, const theta_t *t, llamp_param_t w, const pwv_t *pw,
                           uint64_t v, const llamp_line_t *lines, const uint32_t *off, double lo,
                           double hi, llamp_line_t *out) {
  llamp_line_t best = {0, 0};
  double bhi = 0, blo = 0, maxlo = 0;
  for (uint32_t i = e->in_beg[v]; i < e->in_end[v]; i++) {
    uint32_t u = e->in_src[i] & e->mask, type = e->in_src[i] >> e->shift;
    double vu = e->value[u];
    double b0 = ecost_uv(type, vu, t, pw, u, e->kind[v], e->value[v], v),
           a0 = ecoef_uv(type, vu, w, t, pw, u, e->kind[v], e->value[v], v);
    if (!from_start(type)) {
      b0 += vcost(e->kind[u], vu, t, pw, u);
      a0 += vcoef(e->kind[u], vu, w, t, pw, u);
    }
    const llamp_line_t *lu = lines + (off ? off[2 * u] : u); /* off NULL: one line per vertex, in order */
    llamp_line_t l = {lu->a + a0, lu->b + b0};
    double yhi = l.a * hi + l.b, ylo = l.a * lo + l.b;
    int first = i == e->in_beg[v];
    if (first || yhi > bhi || (yhi == bhi && ylo > blo)) best = l, bhi = yhi, blo = ylo;
    if (first || ylo > maxlo) maxlo = ylo;
  }
  *out = best;
  return maxlo <= blo + tie_tol(blo);
}

/* v's k lines as ends of T: v's end (a terminal vertex), a rendezvous
 * receive's sender completion; `total` is hulled as it grows */
static int push_ends(const llamp_engine_t *e, const theta_t *t, llamp_param_t w, const pwv_t *pw, uint64_t v,
                     const llamp_line_t *l, size_t k, lines_t *total, size_t *total_hulled, double lo, double hi,
                     double xtol) {
  unsigned kv = e->kind[v];
  if (!e->terminal[v] && kv != K_RECV_RNDV) return 0;
  double x = e->value[v];
  double a1 = vcoef(kv, x, w, t, pw, v), b1 = vcost(kv, x, t, pw, v);
  double a2 = ecoef(E_RNDV_DONE, x, w, t, pw, v), b2 = ecost(E_RNDV_DONE, x, t, pw, v);
  for (size_t j = 0; j < k; j++) {
    if (e->terminal[v] && lines_push(total, l[j].a + a1, l[j].b + b1)) return -1;
    if (kv == K_RECV_RNDV && lines_push(total, l[j].a + a2, l[j].b + b2)) return -1;
  }
  if (total->n > 2 * *total_hulled + 256) total->n = *total_hulled = hull(total->v, total->n, lo, hi, xtol, 0);
  return 0;
}

/* The unpruned pass while every vertex has one line (regular codes: the
 * whole graph): v's line is lines[v], no offsets, no candidates written, the
 * lines that end T pushed to `total` as envelope_pass does.  Apart from the
 * general loop so that its state stays in registers.  Returns the first
 * position not done (UINT64_MAX when out of memory). */
static inline __attribute__((always_inline)) uint64_t envelope_dense(const llamp_engine_t *e, const theta_t *t,
                                                                     llamp_param_t w, const pwv_t *pw, double lo,
                                                                     double hi, double xtol, llamp_line_t *lines,
                                                                     lines_t *total, size_t *total_hulled) {
  const uint8_t *kind = e->kind, *terminal = e->terminal;
  const uint32_t *beg = e->in_beg, *end = e->in_end;
  uint64_t n = e->n < UINT32_MAX - 1 ? e->n : UINT32_MAX - 1, v = 0;
  for (; v < n; v++) {
    llamp_line_t one = {0, 0};
    if (beg[v] != end[v] && !one_line(e, t, w, pw, v, lines, NULL, lo, hi, &one)) break;
    lines[v] = one;
    if ((terminal[v] || kind[v] == K_RECV_RNDV) && push_ends(e, t, w, pw, v, &one, 1, total, total_hulled, lo, hi, xtol))
      return UINT64_MAX;
  }
  return v;
}

static int envelope_pass(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w, double lo,
                         double hi, size_t max_total, const prune_t *prune, llamp_line_t **out,
                         size_t *count) {
  *out = NULL;
  e->env_gave_up = 1;
  *count = 0;
  if (!(lo >= 0) || !(hi >= lo) || ensure_terminal(e)) return -1;
  size_t max_lines = 4096;
  llamp_params_t q = *p;
  llamp_params_set(&q, w, 0);
  theta_t t = theta_of(e, &q);
  const pwv_t *pw = e->pw;
  const double xtol = range_xtol(lo, hi);
  /* off[2v], off[2v+1]: begin and end of v's lines in the arena.  Both live in
   * the evaluation arrays (start + cmax: n lines; cmin: 2n uint32) until the
   * arena outgrows n lines and moves to its own allocation.  While every
   * vertex so far has one line (regular codes: all of them), v's line is
   * arena[v] and off is not written: the point's fused pass leaves cmin's
   * pages untouched, and so does this pass then (8 B per event less memory). */
  if (ensure_work(e, 1)) return -1;
  e->work_valid = 0; /* its lines overwrite the start times */
  uint32_t *off = (uint32_t *)(void *)e->cmin;
  int dense = !e->topo;
  lines_t arena = {(llamp_line_t *)(void *)e->start, 0, e->n}, total = {0}, tmp = {0}, scratch = {0};
  int arena_owned = 0;
  size_t *runs = NULL, runs_cap = 0;
  int rc = -1;
  size_t total_hulled = 0;
  uint32_t *last = NULL;  /* arena_compact's successor positions */
  uint64_t live_from = 0; /* positions before it hold no lines */
  size_t compacted_n = 0; /* live lines after the last compaction */
  size_t kept = 0, window_kept = 0; /* lines kept so far, and before the last 1024 vertices */
  prune_pts_t pts; /* the points of the vertex pts.v, with several segments */
  pts.v = UINT64_MAX, pts.n = 0;
  uint64_t from = 0; /* the vertices before it have one line each */
  if (dense && !prune) {
    from = pw ? envelope_dense(e, &t, w, pw, lo, hi, xtol, arena.v, &total, &total_hulled)
              : envelope_dense(e, &t, w, NULL, lo, hi, xtol, arena.v, &total, &total_hulled);
    if (from == UINT64_MAX) goto out;
    arena.n = kept = from;
    window_kept = from & ~(uint64_t)1023; /* the general loop's count at its last window */
  }
  for (uint64_t i_ = from; i_ < e->n; i_++) {
    uint64_t v = e->topo ? e->topo[i_] : i_;
    /* candidate lines go straight to the arena's end and are hulled in place */
    size_t need = 1;
    if (dense) need += e->in_end[v] - e->in_beg[v];
    else
      for (uint32_t i = e->in_beg[v]; i < e->in_end[v]; i++) {
        uint32_t u = e->in_src[i] & e->mask;
        need += off[2 * u + 1] - off[2 * u];
      }
    size_t deg = e->in_end[v] - e->in_beg[v], k;
    llamp_line_t *dst, one;
    /* (compiled apart for the scalar model, whose costs then fold to a few operations) */
    if (!prune && deg && need == deg + 1 &&
        (pw ? one_line(e, &t, w, pw, v, arena.v, dense ? NULL : off, lo, hi, &one)
            : one_line(e, &t, w, NULL, v, arena.v, dense ? NULL : off, lo, hi, &one))) {
      dst = &one;
      k = 1;
    } else {
      size_t cnt = 0, nruns = 0;
      /* out of room or budget: drop the lines nobody reads any more first.
       * Again only once the arena has doubled since and the positions to
       * scan are few against the lines added (linear time in all), else the
       * arena grows or the budget fails as before. */
      if (!dense && (arena.n + need > arena.cap || arena.n + need > max_total) &&
          arena.n >= 2 * compacted_n && i_ - live_from <= 8 * (arena.n - compacted_n) + 1024) {
        if (arena_compact(e, &arena, off, &last, i_, &live_from)) goto out;
        compacted_n = arena.n;
      }
      /* without room for the candidates at the arena's end they are hulled in
       * scratch: the hull is usually far shorter, and growing the arena for
       * candidates that mostly vanish would copy it into fresh pages (on a
       * graph of one line per vertex, every pass ended that way) */
      if (need > scratch.cap) {
        llamp_line_t *ns = realloc(scratch.v, need * 2 * sizeof *ns);
        if (!ns) goto out;
        scratch.v = ns;
        scratch.cap = need * 2;
      }
      dst = arena.n + need <= arena.cap ? arena.v + arena.n : scratch.v;
      if (deg + 1 > runs_cap) {
        size_t *nr = realloc(runs, (deg + 1) * 2 * sizeof *nr);
        if (!nr) goto out;
        runs = nr;
        runs_cap = (deg + 1) * 2;
      }
      if (need > tmp.cap) {
        llamp_line_t *nt = realloc(tmp.v, need * 2 * sizeof *nt);
        if (!nt) goto out;
        tmp.v = nt;
        tmp.cap = need * 2;
      }
#define PRUNABLE(l) prunable_at(prune, v, &pts, (l))
      if (e->in_beg[v] == e->in_end[v] && !(prune && PRUNABLE(((llamp_line_t){0, 0}))))
        dst[cnt++] = (llamp_line_t){0, 0};
      for (uint32_t i = e->in_beg[v]; i < e->in_end[v]; i++) {
        uint32_t u = e->in_src[i] & e->mask, type = e->in_src[i] >> e->shift;
        runs[nruns++] = cnt; /* each predecessor's lines are sorted: a run */
        double vu = e->value[u];
        double b0 = ecost_uv(type, vu, &t, pw, u, e->kind[v], e->value[v], v),
               a0 = ecoef_uv(type, vu, w, &t, pw, u, e->kind[v], e->value[v], v);
        if (!from_start(type)) {
          b0 += vcost(e->kind[u], vu, &t, pw, u);
          a0 += vcoef(e->kind[u], vu, w, &t, pw, u);
        }
        uint64_t j0 = dense ? u : off[2 * u], j1 = dense ? u + 1 : off[2 * u + 1];
        if (prune && prune->nseg > 1) {
          if (j1 > j0 && pts.v != v) prune_points(prune, v, &pts);
          int at = 0;
          for (uint64_t j = j0; j < j1; j++) {
            llamp_line_t l = {arena.v[j].a + a0, arena.v[j].b + b0};
            if (!prunable_walk(&pts, l, &at)) dst[cnt++] = l;
          }
        } else if (prune) {
          for (uint64_t j = j0; j < j1; j++) {
            llamp_line_t l = {arena.v[j].a + a0, arena.v[j].b + b0};
            if (!PRUNABLE(l)) dst[cnt++] = l;
          }
        } else {
          for (uint64_t j = j0; j < j1; j++)
            dst[cnt++] = (llamp_line_t){arena.v[j].a + a0, arena.v[j].b + b0};
        }
      }
      k = cnt > 1 ? reduce_lines(dst, cnt, lo, hi, xtol, runs, nruns, tmp.v) : cnt;
    }
    if (k > max_lines || arena.n + k > max_total || arena.n + k >= UINT32_MAX) goto out;
    kept += k;
    if (prune && prune->hist && !(i_ & 63)) prune_hist(prune, dst, k);
    /* the lines of the last 1024 vertices (kept, not the arena: compaction
     * shrinks it): an unpruned pass gives up over 1.5 each, the pruned pass
     * is cheaper then; a 2-point pruning over max_avg, more points are */
    if ((i_ & 1023) == 1023) {
      size_t wl = kept - window_kept;
      if (!prune ? 2 * wl > 3 * 1024
                 : (prune->max_avg > 0 && (double)wl > prune->max_avg * 1024) ||
                       (prune->max_cum > 0 && i_ < e->n / 2 && (double)kept > prune->max_cum * (double)(i_ + 1025))) {
        if (getenv("LLAMP_DEBUG_ENVELOPE")) fprintf(stderr, "envelope: over budget at %.3f of the graph, kept %zu\n", (double)i_ / e->n, kept);
        e->env_gave_up = (double)i_ / (double)e->n;
        goto out;
      }
      window_kept = kept;
    }
    if (dst != arena.v + arena.n) { /* hulled in scratch, or the one line */
      llamp_line_t *from = dst;
      if (arena.n + k > arena.cap && arena_grow(&arena, &arena_owned, arena.n + k)) goto out;
      dst = arena.v + arena.n;
      memcpy(dst, from, k * sizeof *dst);
    }
    if (dense && k != 1) { /* the first vertex of another count: offsets from here on */
      for (uint64_t u = 0; u < v; u++) off[2 * u] = (uint32_t)u, off[2 * u + 1] = (uint32_t)(u + 1);
      dense = 0;
    }
    if (!dense) off[2 * v] = (uint32_t)arena.n;
    arena.n += k;
    if (!dense) off[2 * v + 1] = (uint32_t)arena.n;
    if (push_ends(e, &t, w, pw, v, dst, k, &total, &total_hulled, lo, hi, xtol)) goto out;
  }
  if (total.n == 0) goto out; /* T has a line: pruning dropped them all, which it must never do */
  total.n = hull(total.v, total.n, lo, hi, xtol, piece_tol(total.v, total.n, hi));
  if (getenv("LLAMP_DEBUG_ENVELOPE"))
    fprintf(stderr, "envelope: %zu lines for %llu vertices (kept %zu, T %zu)\n", arena.n, (unsigned long long)e->n, kept, total.n);
  *out = total.v;
  *count = total.n;
  total.v = NULL;
  rc = 0;
out:
  free(last);
  if (arena_owned) free(arena.v);
  free(total.v);
  free(tmp.v);
  free(scratch.v);
  free(runs);
  return rc;
#undef PRUNABLE
}

/* Backward pass for pruning: for every vertex the longest path from its
 * start to the end of the run at x = lo and x = hi (two lanes; K lanes: at
 * xs[0..K), lo and hi at its ends, or K points evenly spread when NULL), with the
 * path's parameter coefficient (ties: the largest at lo, the smallest at hi),
 * so that T(lo), T(hi) and T's right slope at lo and left slope at hi come
 * out too (the tangents there bound T from below).  Pushes along in-edges in
 * reverse topological order: end-based edges feed an accumulator A (added to
 * the vertex's own cost), start-based ones B. */
static inline void tb_merge(double t, double c, double *T, double *C, int want_max) {
  double tol = tie_tol(t > *T ? t : *T);
  if (t > *T + tol) *T = t, *C = c;
  else if (t >= *T - tol) {
    if (t > *T) *T = t;
    if (want_max ? c > *C : c < *C) *C = c;
  }
}

/* tb_merge over the lanes of one edge, branch-free so that the lanes run in
 * vector registers (ties are frequent and unpredictable): the longer time
 * always stands, within the tolerance too; only the coefficient follows the
 * comparison.  The last lane (hi) keeps the smallest coefficient. */
static inline __attribute__((always_inline)) void tb_merge_lanes(const double *restrict t, const double *restrict c,
                                                                 double *restrict T, double *restrict C, int K) {
  for (int j = 0; j < K - 1; j++) {
    double T0 = T[j], C0 = C[j], tj = t[j], cj = c[j];
    double m = tj > T0 ? tj : T0, tol = tie_tol(m);
    double cm = cj > C0 ? cj : C0, c1 = tj >= T0 - tol ? cm : C0;
    C[j] = tj > T0 + tol ? cj : c1;
    T[j] = m;
  }
  tb_merge(t[K - 1], c[K - 1], &T[K - 1], &C[K - 1], 0);
}

/* Lanes of the backward pass: two for lo and hi, plus interior points while
 * their arrays (16 B a vertex each) stay within PRUNE_LANE_BYTES, or
 * PRUNE_LANE_BYTES_BIG where that is at most an eighth of the memory
 * available: graphs over 0.5 M vertices then get more points, and from 1.2 M
 * the parts (envelope_parts) that need 9.  A CG capture (apps/cg, 8 ranks,
 * 3.36 M vertices, 359 critical latencies in [0, 1 us]): 6 points, 844 M
 * lines kept, 17.5 s, peak 0.77 GB; 2 parts at 11 points, 364 M lines, 7.6 s,
 * 1.71 GB; at 2 GiB 7.0 s, 2.34 GB.  Never an answer: only how much the
 * pass prunes. */
#define PRUNE_LANE_BYTES ((uint64_t)256 << 20)
#define PRUNE_LANE_BYTES_BIG ((uint64_t)1 << 30)
static int prune_lanes(uint64_t n) {
  static uint64_t budget;
  if (!budget) {
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t avail = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    __atomic_store_n(&budget, avail / 8 >= PRUNE_LANE_BYTES_BIG ? PRUNE_LANE_BYTES_BIG : PRUNE_LANE_BYTES,
                     __ATOMIC_RELAXED);
  }
  uint64_t per = 16 * (n ? n : 1), k = __atomic_load_n(&budget, __ATOMIC_RELAXED) / per;
  return 2 + (int)(k < PRUNE_MAX_SEG - 1 ? k : PRUNE_MAX_SEG - 1);
}

/* tail_bounds' backward pass over K points (see there): A[j] of vertex v
 * is buf[v * 2K + j], CA[j] buf[v * 2K + K + j].  Every cost is linear in
 * the parameter (as the envelope's lines are): a cost at x_j is its cost at
 * x_0 (t0) plus its coefficient times dx[j] = x_j - x_0, so each edge's cost
 * functions run once, not once a point. */
/* tail_pass's edge u -> v: its coefficient a and cost b at t0, from u's end */
static inline __attribute__((always_inline)) void tail_edge(const llamp_engine_t *e, llamp_param_t w,
                                                           const theta_t *t0, unsigned type, uint32_t u, unsigned k,
                                                           double val, uint64_t v, double *a, double *b) {
  const pwv_t *pw = e->pw;
  double vu = e->value[u];
  *a = ecoef_uv(type, vu, w, t0, pw, u, k, val, v);
  *b = ecost_uv(type, vu, t0, pw, u, k, val, v);
  if (from_start(type)) { /* relative to u's end: minus u's own cost */
    unsigned ku = e->kind[u];
    *a -= vcoef(ku, vu, w, t0, pw, u);
    *b -= vcost(ku, vu, t0, pw, u);
  }
}

static inline __attribute__((always_inline)) void tail_pass(const llamp_engine_t *e, llamp_param_t w,
                                                            const theta_t *t0, const double *dx, double *buf,
                                                            double *T, double *S, int K) {
  uint64_t n = e->n;
  const pwv_t *pw = e->pw;
  for (uint64_t i_ = n; i_-- > 0;) {
    uint64_t v = e->topo ? e->topo[i_] : i_;
    double *Av = buf + v * 2 * (uint64_t)K, *CAv = Av + K;
    unsigned k = e->kind[v];
    double val = e->value[v], vc = vcoef(k, val, w, t0, pw, v), vb = vcost(k, val, t0, pw, v);
    double t[PRUNE_MAX_SEG + 1], c[PRUNE_MAX_SEG + 1];
    for (int j = 0; j < K; j++) {
      t[j] = vb + vc * dx[j] + Av[j];
      c[j] = vc + CAv[j];
    }
    if (k == K_RECV_RNDV) {
      double rc = ecoef(E_RNDV_DONE, val, w, t0, pw, v), rb = ecost(E_RNDV_DONE, val, t0, pw, v);
      for (int j = 0; j < K; j++) tb_merge(rb + rc * dx[j], rc, &t[j], &c[j], j < K - 1);
    }
    for (int j = 0; j < K; j++) Av[j] = t[j]; /* A now holds the finished tail of v */
    if (e->in_beg[v] == e->in_end[v])
      for (int j = 0; j < K; j++) tb_merge(t[j], c[j], &T[j], &S[j], j < K - 1);
    for (uint32_t i = e->in_beg[v]; i < e->in_end[v]; i++) {
      uint32_t u = e->in_src[i] & e->mask, type = e->in_src[i] >> e->shift;
      double a, b;
#define TE(T) tail_edge(e, w, t0, T, u, k, val, v, &a, &b)
      EDGE_TYPE_SWITCH(type, TE, TE)
#undef TE
      double *Au = buf + u * 2 * (uint64_t)K, *CAu = Au + K;
      double te[PRUNE_MAX_SEG + 1], ce[PRUNE_MAX_SEG + 1];
      for (int j = 0; j < K; j++) te[j] = b + a * dx[j] + t[j], ce[j] = a + c[j];
      tb_merge_lanes(te, ce, Au, CAu, K);
    }
  }
}

/* The backward pass's lanes in AVX2 registers where the CPU has them (4
 * doubles, not SSE2's 2; no FMA, so the same bits): on bench_capture64's
 * graph with measured compute, 29 lanes: 0.44-0.47 s with branches, 0.36
 * s branch-free in SSE2, 0.18-0.27 s in AVX2. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define LANES_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef LANES_CLONES
#define LANES_CLONES
#endif
LANES_CLONES static int tail_bounds(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w, double lo,
                       double hi, int K, const double *xs, prune_t *pr) {
  uint64_t n = e->n;
  if (!(hi > lo)) K = 2;
  size_t words = (size_t)(n ? n : 1) * 2 * (size_t)K;
  int fresh = 0; /* calloc's fresh pages are zero: no memset over them */
  if (!e->tail_buf || e->tail_lanes < K) {
    free(e->tail_buf);
    e->tail_lanes = 0;
    if (!(e->tail_buf = calloc(words, sizeof(double)))) return -1;
    llamp_mem_advise_huge(e->tail_buf, words * sizeof(double));
    e->tail_lanes = K;
    fresh = 1;
  }
  double *buf = e->tail_buf;
  /* A[j][v]: the longest path after v's END at x_j (0: the run may end
   * there); a start-based edge's contribution x is stored as x - cost(v), so
   * that tail(v) = cost(v) + A[v] holds for both kinds (the same for the
   * coefficients) and one accumulator per lane suffices.  Ties: the largest
   * coefficient (T's right slope), except at hi (its left slope). */
  double T[PRUNE_MAX_SEG + 1] = {0}, S[PRUNE_MAX_SEG + 1] = {0}, dx[PRUNE_MAX_SEG + 1] = {0};
  if (!fresh) memset(buf, 0, words * sizeof(double));
  llamp_params_t q = *p;
  llamp_params_set(&q, w, lo);
  theta_t t0 = theta_of(e, &q);
  for (int j = 0; j < K; j++) {
    pr->x[j] = j == K - 1 ? hi : j == 0 ? lo : xs ? xs[j] : lo + (hi - lo) * j / (K - 1);
    dx[j] = pr->x[j] - lo;
    T[j] = S[j] = 0;
  }
  /* two points (the common case) compiled apart: K a constant, its loops unrolled */
  if (K == 2) tail_pass(e, w, &t0, dx, buf, T, S, 2);
  else tail_pass(e, w, &t0, dx, buf, T, S, K);
  pr->nseg = K - 1;
  pr->max_avg = pr->max_cum = 0;
  pr->hist = NULL;
  pr->tail = buf;
  pr->stride = 2 * (size_t)K;
  for (int j = 0; j < K; j++) {
    pr->T[j] = T[j];
    /* an interior point's one slope serves both segments: any slope of a
     * path that is longest there supports the convex T at that point */
    pr->slope_r[j] = pr->slope_l[j] = S[j];
  }
  pr->tol = 1e-9 * fabs(T[K - 1]) + 1e-18; /* generous: pruning must never drop a critical line */
  prune_bounds(pr);
  return 0;
}

/* The last step of the ladder below in parts: the range cut in two where
 * half of T's bend lies, each part pruned at its own points (the last
 * step's lanes shared out) and run as its own pass.  T's pieces over a part
 * are supporting lines of T over the whole, so the hull of the parts' lines
 * is T on [lo, hi].  A part's pass keeps only the lines of its own hull and
 * tests them against its own points; the parts run on the two cores (the
 * second on a fork of the engine: its own evaluation arrays and lanes).  A
 * part that keeps too many lines is cut in two again (envelope_parts).  The
 * cuts do not depend on the cores, so neither does the answer.
 * bench_capture64's graph with measured compute (606 k vertices, 173
 * breakpoints in [0, 20 us]): 29 points in one pass 1.22-1.53 s, 2 x 15
 * points 0.59-0.70 s, the same breakpoints (tools: LLAMP_DEBUG_ENVELOPE). */
#define ENV_PARTS 2
#define ENV_MAX_PARTS 64

/* Points for a pruning over [lo, hi], from an earlier pruning's: a line is
 * kept where it may reach between T's tangents and its chords, a gap of up
 * to ds w / 4 on a segment of width w over which T's slope rises by ds.
 * Points spread with density sqrt(ds / w) (uniform within an earlier
 * segment) make ds w alike on the new segments; 1/16 of the mass is spread
 * evenly, for the slopes an earlier segment hides (1/4 and 1/2 were slower
 * on both graphs tried, PRK Random 12.8 -> 13.4 and 22.3 s).  On a third-party code
 * (PRK Random, 8 ranks, 983 k events: 765 critical latencies in [0, 20 us],
 * 290 of them under 0.1 us) even points left ~700 breakpoints between the
 * first two and the pass kept 340 M lines. */
typedef struct {
  int n;
  double a[PRUNE_MAX_SEG + 1], mass[PRUNE_MAX_SEG + 1], total; /* piece i: [a[i], a[i+1]] */
} point_density_t;

static void point_density(const prune_t *prev, double lo, double hi, point_density_t *d) {
  d->n = 0;
  double total = 0;
  for (int j = 0; j < prev->nseg; j++) {
    double x0 = prev->x[j], x1 = prev->x[j + 1], c0 = x0 > lo ? x0 : lo, c1 = x1 < hi ? x1 : hi;
    if (!(c1 > c0) || !(x1 > x0)) continue;
    double ds = prev->slope_l[j + 1] - prev->slope_r[j];
    d->a[d->n] = c0;
    d->mass[d->n] = sqrt(ds > 0 ? ds / (x1 - x0) : 0) * (c1 - c0);
    total += d->mass[d->n++];
  }
  d->a[d->n] = hi;
  double even = total > 0 && hi > lo ? total / 15 / (hi - lo) : 1;
  d->total = 0;
  for (int i = 0; i < d->n; i++) d->total += d->mass[i] += even * (d->a[i + 1] - d->a[i]);
}

/* where the density's mass from lo reaches frac of it */
static double density_at(const point_density_t *d, double frac) {
  double want = frac * d->total, acc = 0;
  int i = 0;
  if (!d->n) return d->a[0];
  while (i < d->n - 1 && acc + d->mass[i] < want) acc += d->mass[i++];
  double t = d->mass[i] > 0 ? (want - acc) / d->mass[i] : 0;
  return d->a[i] + (d->a[i + 1] - d->a[i]) * (t < 0 ? 0 : t > 1 ? 1 : t);
}

/* xs[0..K): lo, K - 2 points by the density, hi */
static void place_points(const prune_t *prev, double lo, double hi, int K, double *xs) {
  point_density_t d;
  point_density(prev, lo, hi, &d);
  xs[0] = lo;
  for (int k = 1; k < K - 1; k++) xs[k] = density_at(&d, (double)k / (K - 1));
  xs[K - 1] = hi;
}

/* The parts: a part whose pass keeps over ENV_PART_AVG lines a vertex (on
 * average over the vertices so far, judged in the graph's first half only:
 * a pass nearer its end is cheaper finished) is cut in two where half its
 * T's bend lies, up to ENV_SPLITS times (32 parts at most); a part cut that
 * often has no budget.  PRK Random (983 k events, 765 critical
 * latencies in [0, 20 us], 290 under 0.1 us): 2 parts at evenly spread
 * points kept 340 M lines, 23 s; at points placed where T bends 175 M,
 * 10-14 s; cut at 64 lines a vertex 6.2-8.6 s (9.3-13 s of CPU), at 8, 16,
 * 32 or 128 8.6-13 s, 4, 8 or 16 parts from the start 7.9-9.8 s.  An
 * average over the last 1024 vertices gave up late in the graph, where a
 * part's lines gather (at 0.5-0.86 of it), and cost more than it saved. */
#define ENV_PART_AVG 64
#define ENV_SPLITS 4
#define ENV_EARLY 0.125

/* One part of the range: its points (placed before its pass, refined by
 * it), its pass's lines, whether it ran within the budget */
typedef struct {
  double lo, hi;
  double xs[PRUNE_MAX_SEG + 1];
  prune_t info; /* its last backward pass: T and slopes at xs (no tail) */
  int info_ok;
  int depth; /* cuts since the first parts: the budget holds below ENV_SPLITS */
  double gave_up; /* where its pass gave up (a fraction of the graph; 1: it did not) */
  uint64_t hist[PRUNE_MAX_SEG * PRUNE_HIST_SUB]; /* its pass's prune_t hist */
  llamp_line_t *lines;
  size_t n;
  int rc;
} env_part_t;

/* The parts as one queue that both cores take from: a part over its budget
 * is cut at once and its halves queued, so a core that finishes early takes
 * one of them instead of waiting for a round's slowest part.  Which core
 * runs a part never changes the parts (a part's cut depends on its own pass
 * only), nor the answer (the hull of all their lines). */
typedef struct {
  llamp_engine_t *eng[2]; /* by half: the engine, a fork */
  const llamp_params_t *p;
  llamp_param_t w;
  int K; /* points a part */
  size_t live;
  double part_avg; /* the budget of parts cut fewer than ENV_SPLITS times */
  int debug;
  env_part_t *part; /* in the order made; [next, nparts) waits */
  int nparts, next, busy, failed;
  pthread_mutex_t lock;
  pthread_cond_t more; /* a part queued, or the last busy core done */
} env_parts_t;

/* Where the share frac of the breakpoints that part q's pass counted lies
 * (1), or 0 when it counted too few to tell */
static int hist_at(const env_part_t *q, double frac, double *x) {
  const prune_t *pr = &q->info;
  int nb = pr->nseg * PRUNE_HIST_SUB, b = 0;
  uint64_t total = 0, acc = 0;
  for (int i = 0; i < nb; i++) total += q->hist[i];
  if (total < 64) return 0;
  double want = frac * (double)total;
  for (; b < nb - 1 && (double)(acc + q->hist[b]) < want; b++) acc += q->hist[b];
  double f = q->hist[b] ? (want - (double)acc) / (double)q->hist[b] : 0.5;
  int seg = b / PRUNE_HIST_SUB;
  *x = pr->x[seg] + (pr->x[seg + 1] - pr->x[seg]) * (b % PRUNE_HIST_SUB + f) / PRUNE_HIST_SUB;
  return 1;
}

/* Queue part q's pieces, each at points from its own pass's (under
 * s->lock); -1 when it cannot be cut.  The cuts share out the breakpoints
 * of the envelopes its pass kept, where the lines' work lies (else its T's
 * bend): on a CG capture's graph (3.37 M vertices, 339 critical latencies
 * in [0, 100 ns]) T's bend cut a part into halves that kept 32 M and 254 M
 * lines.  A part that gave up within the graph's first ENV_EARLY is cut
 * in four (two cuts at once): on that graph over [0, 20 us] every such
 * part's halves gave up again. */
static int env_parts_cut(env_parts_t *s, const env_part_t *q) {
  int m = q->gave_up < ENV_EARLY && q->depth + 2 <= ENV_SPLITS ? 4 : 2;
  if (!q->info_ok || q->depth >= ENV_SPLITS || s->nparts + m > ENV_MAX_PARTS) return -1;
  double cut[5] = {q->lo};
  int by_hist = 1;
  for (int k = 1; k < m && by_hist; k++)
    by_hist = hist_at(q, (double)k / m, &cut[k]) && cut[k] > cut[k - 1] && cut[k] < q->hi;
  if (!by_hist) {
    point_density_t d;
    point_density(&q->info, q->lo, q->hi, &d);
    for (int k = 1; k < m; k++) cut[k] = density_at(&d, (double)k / m);
  }
  cut[m] = q->hi;
  for (int k = 0; k < m; k++) {
    env_part_t *h = &s->part[s->nparts++];
    memset(h, 0, sizeof *h);
    h->lo = cut[k];
    h->hi = cut[k + 1];
    h->depth = q->depth + (m == 4 ? 2 : 1);
    place_points(&q->info, h->lo, h->hi, s->K, h->xs);
    if (s->debug) fprintf(stderr, "envelope: part [%g, %g] cut: [%g, %g] (%s)\n", q->lo, q->hi, h->lo, h->hi, by_hist ? "breakpoints" : "T's bend");
  }
  return 0;
}

static void env_part_run(env_parts_t *s, env_part_t *q, int half) {
  prune_t pr;
  q->rc = -1;
  if (tail_bounds(s->eng[half], s->p, s->w, q->lo, q->hi, s->K, q->xs, &pr)) return;
  /* a part cut from one over the budget: once more at the points where
   * its own T bends (a backward pass; the first parts' points come from
   * one over the whole range already, and on a regular code, halo 8 x 8
   * with measured compute, a second pass there cost 0.2-0.3 s of 0.7) */
  if (q->depth) {
    place_points(&pr, q->lo, q->hi, s->K, q->xs);
    if (tail_bounds(s->eng[half], s->p, s->w, q->lo, q->hi, s->K, q->xs, &pr)) return;
  }
  q->info = pr;
  q->info.tail = NULL;
  q->info_ok = 1;
  pr.hist = q->hist;
  pr.max_avg = 0;
  pr.max_cum = q->depth < ENV_SPLITS ? s->part_avg : 0;
  q->rc = envelope_pass(s->eng[half], s->p, s->w, q->lo, q->hi, s->live, &pr, &q->lines, &q->n);
  q->gave_up = s->eng[half]->env_gave_up;
}

/* One core's loop: take the next part, run it, queue its pieces if it ran
 * over the budget; done when nothing waits and no core may queue more. */
static void env_parts_worker(void *ctx, uint64_t a, uint64_t b, int half) {
  env_parts_t *s = ctx;
  if (a >= b) return;
  pthread_mutex_lock(&s->lock);
  for (;;) {
    while (s->next == s->nparts && s->busy && !s->failed) pthread_cond_wait(&s->more, &s->lock);
    if (s->next == s->nparts || s->failed) break;
    env_part_t *q = &s->part[s->next++];
    s->busy++;
    pthread_mutex_unlock(&s->lock);
    env_part_run(s, q, half);
    pthread_mutex_lock(&s->lock);
    s->busy--;
    if (s->debug)
      fprintf(stderr, "envelope: round %d part [%g, %g] at %d points: %s\n", q->depth, q->lo, q->hi, s->K,
              q->rc ? "over budget, cut" : "done");
    /* out of memory, or over the budget it no longer has */
    if (q->rc && env_parts_cut(s, q)) s->failed = 1;
    pthread_cond_broadcast(&s->more);
  }
  pthread_mutex_unlock(&s->lock);
}


static int envelope_parts(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w, double lo, double hi,
                          const prune_t *prev, int Kmax, size_t live, llamp_line_t **out, size_t *count) {
  env_parts_t s = {.eng = {e, e}, .p = p, .w = w, .K = (Kmax - 1) / ENV_PARTS + 1, .live = live, .part_avg = ENV_PART_AVG};
  s.debug = getenv("LLAMP_DEBUG_ENVELOPE") != NULL;
  /* LLAMP_ENVELOPE_PART_AVG: the budget (tests cut small graphs with it) */
  const char *pa = getenv("LLAMP_ENVELOPE_PART_AVG");
  if (pa && atof(pa) > 0) s.part_avg = atof(pa);
  llamp_line_t *all = NULL;
  size_t n_all = 0;
  int rc = -1, locked = 0;
  llamp_par_t *par = NULL;
  if (!(s.part = calloc(ENV_MAX_PARTS, sizeof *s.part))) return -1;
  if (pthread_mutex_init(&s.lock, NULL)) goto out;
  if (pthread_cond_init(&s.more, NULL)) {
    pthread_mutex_destroy(&s.lock);
    goto out;
  }
  locked = 1;
  if (!(par = llamp_par_create(llamp_par_halves(0, e->n)))) goto out;
  if (llamp_par_mid(par, 2) < 2 && !(s.eng[1] = llamp_engine_fork(e))) goto out;
  point_density_t d;
  point_density(prev, lo, hi, &d);
  for (int i = 0; i < ENV_PARTS; i++) {
    env_part_t *q = &s.part[s.nparts++];
    q->lo = i ? density_at(&d, (double)i / ENV_PARTS) : lo;
    q->hi = i + 1 < ENV_PARTS ? density_at(&d, (double)(i + 1) / ENV_PARTS) : hi;
    place_points(prev, q->lo, q->hi, s.K, q->xs);
  }
  if (s.debug) fprintf(stderr, "envelope: %d parts cut at %g, pruned at %d points each\n", ENV_PARTS, s.part[0].hi, s.K);
  llamp_par_run(par, 2, env_parts_worker, &s); /* one worker a core */
  if (s.failed) goto out;
  for (int i = 0; i < s.nparts; i++) n_all += s.part[i].rc ? 0 : s.part[i].n;
  if (!(all = malloc((n_all ? n_all : 1) * sizeof *all))) goto out;
  n_all = 0;
  for (int i = 0; i < s.nparts; i++)
    if (!s.part[i].rc) {
      memcpy(all + n_all, s.part[i].lines, s.part[i].n * sizeof *all);
      n_all += s.part[i].n;
    }
  *out = all;
  *count = hull(all, n_all, lo, hi, range_xtol(lo, hi), piece_tol(all, n_all, hi));
  all = NULL;
  rc = 0;
out:
  if (s.eng[1] != e) llamp_engine_destroy(s.eng[1]);
  for (int i = 0; i < s.nparts; i++) free(s.part[i].lines);
  free(s.part);
  free(all);
  llamp_par_destroy(par);
  if (locked) {
    pthread_cond_destroy(&s.more);
    pthread_mutex_destroy(&s.lock);
  }
  return rc;
}

llamp_envelope_how_t llamp_engine_envelope_how(const llamp_engine_t *e) { return e->env_how; }
int llamp_engine_points_lg_width(const llamp_engine_t *e) { return e->lanes_width; }

/* T in at most two pieces, read off the first pruning step's two points
 * (T and its right slope at lo, its left slope at hi) as Eisner-Severance's
 * first step does: the tangents meet at x, and when T(x) lies on them
 * (one evaluation) there is exactly one breakpoint, by convexity.  Then the
 * pruned pass is not needed: a regular code's T over the range is often one
 * or two lines (bench_capture64's halo, 601 k events, one breakpoint in
 * [0, 20 us]: 0.12-0.25 -> 0.07-0.12 s single-threaded, 5 runs each).  On a
 * T of more pieces it costs that one evaluation.
 * 1 with the lines, 0 when T has more pieces (or x is at an end: the pass
 * decides), -1 out of memory. */
static int two_pieces(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w, double lo, double hi,
                      const prune_t *pr, llamp_line_t **out, size_t *count) {
  double Ta = pr->T[0], sa = pr->slope_r[0], Tb = pr->T[1], sb = pr->slope_l[1];
  llamp_line_t two[2] = {{sa, Ta - sa * lo}, {sb, Tb - sb * hi}};
  size_t n = 1;
  if (sb > sa) {
    double x = (Tb - sb * hi - Ta + sa * lo) / (sa - sb);
    if (!(x > lo && x < hi)) return 0;
    llamp_params_t q = *p;
    llamp_params_set(&q, w, x);
    llamp_eval_t r;
    if (llamp_engine_eval(e, &q, w, &r)) return -1;
    if (!(r.T <= Ta + sa * (x - lo) + piece_tol_of(Tb))) return 0;
    n = 2;
  }
  if (!(*out = malloc(n * sizeof **out))) return -1;
  memcpy(*out, two, n * sizeof **out);
  *count = n;
  return 1;
}

int llamp_engine_envelope(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w, double lo,
                          double hi, size_t max_lines, llamp_line_t **out, size_t *count) {
  /* plain pass first: cheap when envelopes stay small (regular codes) */
  size_t budget = (size_t)(e->n + 1) * (max_lines ? max_lines : 2);
  e->env_how = LLAMP_ENVELOPE_PLAIN;
  if (envelope_pass(e, p, w, lo, hi, budget, NULL, out, count) == 0) return 0;
  /* then pruned by T's tangents at points across the range: at its ends;
   * when that keeps over 8 lines a vertex (any 1024 in a row), at 5 points;
   * then at as many as prune_lanes allows.  More points prune more (on
   * bench_capture64's graph with measured compute, 168 breakpoints in
   * [0, 20 us]: 71 lines a vertex kept with 5 points, 8 with 29) but each
   * costs the backward pass a lane and 16 B a vertex, which graphs whose
   * lines 5 points already prune do not repay.  Each step places its points
   * where the earlier step saw T bend (place_points).  The last step runs in
   * parts (envelope_parts) that share its points out.  Tried before, not
   * kept: every part its own ladder up to all the points, which doubled
   * the CPU time for a wall time of 1.7-2.3 s -> 1.5-2.2 s. */
  int Kmax = prune_lanes(e->n), ladder[3] = {2, 5 < Kmax ? 5 : Kmax, Kmax};
  size_t live = (size_t)(e->n + 1) * 16;
  prune_t pr;
  double xs[PRUNE_MAX_SEG + 1];
  int have = 0; /* pr holds an earlier step's points */
  for (int s = 0; s < 3; s++) {
    if (s && ladder[s] <= ladder[s - 1]) continue;
    /* Lines that run over the 2-point budget within the graph's first
     * eighth run over the 5-point one there too: that step is skipped.  Of
     * 15 graph and range pairs (captures with measured compute, random and
     * PRK graphs), the 8 that gave up before 0.08 of the graph all gave up
     * again at 5 points; the one that 5 points pruned had given up at 0.21.
     * cachegrind: 8 % fewer instructions on two halo captures. */
    if (s == 1 && e->env_gave_up < 0.125) continue;
    int last = s == 2 || ladder[s] == Kmax || !(hi > lo);
    if (last && hi > lo && (Kmax - 1) / ENV_PARTS >= 4) {
      /* the cut from a part's worth of points where T bends (placed by
       * the earlier step's) */
      int Kp = (Kmax - 1) / ENV_PARTS + 1;
      if (have) place_points(&pr, lo, hi, Kp, xs);
      if (tail_bounds(e, p, w, lo, hi, Kp, have ? xs : NULL, &pr)) return -1;
      e->env_how = LLAMP_ENVELOPE_PARTS;
      return envelope_parts(e, p, w, lo, hi, &pr, Kmax, live, out, count);
    }
    if (have) place_points(&pr, lo, hi, ladder[s], xs);
    if (tail_bounds(e, p, w, lo, hi, ladder[s], have ? xs : NULL, &pr)) return -1;
    have = 1;
    if (s == 0 && ladder[0] == 2 && hi > lo) {
      int two = two_pieces(e, p, w, lo, hi, &pr, out, count);
      if (getenv("LLAMP_DEBUG_ENVELOPE")) fprintf(stderr, "envelope: two pieces? %s\n", two > 0 ? "yes" : "no");
      if (two < 0) return -1;
      if (two > 0) {
        e->env_how = LLAMP_ENVELOPE_TWO_PIECES;
        return 0;
      }
    }
    e->env_how = LLAMP_ENVELOPE_PRUNED;
    pr.max_avg = last ? 0 : 8;
    if (getenv("LLAMP_DEBUG_ENVELOPE")) fprintf(stderr, "envelope: pruned at %d points\n", ladder[s]);
    if (envelope_pass(e, p, w, lo, hi, live, &pr, out, count) == 0) return 0;
    if (last) break;
  }
  return -1;
}

void llamp_engine_envelope_eval(const llamp_line_t *l, size_t n, double x, double *T,
                                double *slope) {
  double best = -INFINITY, s = 0;
  for (size_t j = 0; j < n; j++) {
    double y = l[j].a * x + l[j].b;
    if (y > best + tie_tol(y)) best = y, s = l[j].a;
    else if (y >= best - tie_tol(y)) {
      if (y > best) best = y;
      if (l[j].a > s) s = l[j].a;
    }
  }
  *T = best;
  *slope = s;
}

int llamp_engine_envelope_breakpoints(const llamp_line_t *l, size_t n, llamp_breakpoint_t **out,
                                      size_t *count) {
  *out = NULL;
  *count = 0;
  if (n < 2) return 0;
  if (!(*out = malloc((n - 1) * sizeof **out))) return -1;
  for (size_t j = 0; j + 1 < n; j++) {
    double x = cross(l[j], l[j + 1]);
    (*out)[j] = (llamp_breakpoint_t){x, l[j].a, l[j + 1].a, l[j].a * x + l[j].b};
  }
  *count = n - 1;
  return 0;
}

int llamp_engine_breakpoint_lines(const llamp_breakpoint_t *bp, size_t nb, double lo, double T_lo,
                                  double slope_lo, llamp_line_t **out, size_t *count) {
  *count = 0;
  if (!(*out = malloc((nb + 1) * sizeof **out))) return -1;
  /* the piece left of the first breakpoint, then one per breakpoint */
  double a = nb ? bp[0].slope_before : slope_lo;
  (*out)[0] = nb ? (llamp_line_t){a, bp[0].T - a * bp[0].x} : (llamp_line_t){a, T_lo - a * lo};
  for (size_t i = 0; i < nb; i++)
    (*out)[i + 1] = (llamp_line_t){bp[i].slope_after, bp[i].T - bp[i].slope_after * bp[i].x};
  *count = nb + 1;
  return 0;
}

/* T is non-decreasing and convex: walk the pieces from the right, the first
 * whose value at its left end is within t_max holds the answer. */
int llamp_engine_envelope_solve(const llamp_line_t *l, size_t n, double lo, double hi,
                                double t_max, double *x) {
  if (n == 0) return 0;
  double Thi, s;
  llamp_engine_envelope_eval(l, n, hi, &Thi, &s);
  if (Thi <= t_max) return 0; /* the answer lies beyond hi */
  for (size_t j = n; j-- > 0;) {
    double left = j ? cross(l[j - 1], l[j]) : lo;
    if (left < lo) left = lo;
    if (l[j].a * left + l[j].b <= t_max) {
      *x = l[j].a > 0 ? (t_max - l[j].b) / l[j].a : hi;
      if (*x < left) *x = left;
      return 1;
    }
  }
  return 0; /* even T(lo) is above t_max */
}

int llamp_engine_breakpoints(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w,
                             double lo, double hi, llamp_breakpoint_t **out, size_t *count,
                             int *evaluations) {
  llamp_line_t *l = NULL;
  size_t n = 0;
  *out = NULL;
  *count = 0;
  if (!(lo >= 0) || !(hi >= lo)) return -1;
  if (llamp_engine_envelope(e, p, w, lo, hi, 0, &l, &n))
    return llamp_engine_breakpoints_es(e, p, w, lo, hi, out, count, evaluations);
  if (evaluations) *evaluations = 1;
  int rc = llamp_engine_envelope_breakpoints(l, n, out, count);
  free(l);
  return rc;
}

int llamp_engine_sweep(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w,
                       const double *xs, size_t K, double *T_out, double *slope_out) {
  if (K == 0) return 0;
  double lo = xs[0], hi = xs[0];
  for (size_t k = 1; k < K; k++) {
    if (xs[k] < lo) lo = xs[k];
    if (xs[k] > hi) hi = xs[k];
  }
  llamp_line_t *l = NULL;
  size_t n = 0;
  if (lo < 0 || envelope_pass(e, p, w, lo, hi, (size_t)(e->n + 1) * 2, NULL, &l, &n)) {
    /* lanes in blocks of 16 keep the working set bounded */
    for (size_t k = 0; k < K; k += 16)
      if (llamp_engine_sweep_lanes(e, p, w, xs + k, K - k < 16 ? K - k : 16, T_out + k,
                                   slope_out ? slope_out + k : NULL))
        return -1;
    return 0;
  }
  for (size_t k = 0; k < K; k++) {
    double s;
    llamp_engine_envelope_eval(l, n, xs[k], &T_out[k], &s);
    if (slope_out) slope_out[k] = s;
  }
  free(l);
  return 0;
}

/* ---- affine costs ---------------------------------------------------------------------- */

/* The affine form of a cost from its evaluation at 0 and its coefficients. */
static llamp_affine_t affine_of(double c0, double nL, double nG, double no, double ng) {
  llamp_affine_t a = {c0, nL, nG, no, ng};
  return a;
}

/* The plan kind of graph vertex v: a receive of a message above S is a
 * rendezvous receive. */
static unsigned plan_kind(const llamp_engine_t *e, uint64_t v, double *bytes) {
  const llamp_graph_t *g = e->graph;
  unsigned k = llamp_graph_kind(g, v);
  *bytes = llamp_graph_value(g, v);
  if (k == LLAMP_VERTEX_RECV) {
    uint64_t u = llamp_graph_partner(g, v);
    *bytes = llamp_graph_value(g, u);
    if (*bytes > llamp_params_leave_max(&e->proto) || (llamp_graph_flags(g, u) & LLAMP_VERTEX_F_SYNC)) return K_RECV_RNDV;
  }
  return k;
}

/* For the affine forms: theta at L = G = o = g = 0 whose only message kind
 * is graph vertex gv's (its extra parameters at the creation point's
 * values), and gv's size-dependent costs in *pw (when the engine has them). */
typedef struct {
  uint32_t pk;
  double kl, klat, kg, kb;
} kview_t;
static theta_t zero_theta(const llamp_engine_t *e, uint64_t gv, kview_t *kv, pwv_t *pw) {
  theta_t t = {0, 0, 0, 0, proto_flags(e), NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL};
  uint32_t k = e->pk ? vertex_kind(e, gv) : 0;
  if (e->pw) {
    pw_vertex(e, gv, pw);
    if (e->pk && k >= (e->pairs ? e->pairs->num_kinds : 1)) pw->c = self_c(e, pw->c, e->kc0[k]);
    else if (e->pairs && k < e->pairs->num_kinds && llamp_graph_kind(e->graph, gv) != LLAMP_VERTEX_CALC)
      pw->c = llamp_netmodel_route_c(&e->net, pw->c, llamp_pairs_route_latency(e->pairs, k)); /* as costs_fill */
    pw->c += observed_excess(e, gv, pw, k);
  }
  if (!e->pk) return t;
  kv->pk = 0;
  kv->kl = e->kl[k];
  kv->klat = e->kc0[k];
  for (uint32_t x = 0; x < e->K; x++) kv->klat += e->kcoef[(size_t)k * e->K + x] * e->proto.x[x];
  kv->kg = e->kg[k];
  kv->kb = e->kb[k];
  t.pk = &kv->pk;
  t.kl = &kv->kl;
  t.klat = &kv->klat;
  t.kg = &kv->kg;
  t.kb = &kv->kb;
  return t;
}

int llamp_engine_vertex_cost(const llamp_engine_t *e, uint64_t v, llamp_affine_t *out) {
  if (v >= llamp_graph_num_vertices(e->graph)) return -1;
  double s;
  unsigned k = plan_kind(e, v, &s);
  kview_t kw;
  pwv_t one, *pw = e->pw ? &one : NULL;
  theta_t zero = zero_theta(e, v, &kw, &one);
  *out = affine_of(vcost(k, s, &zero, pw, 0), vcoef(k, s, LLAMP_PARAM_L, &zero, pw, 0),
                   vcoef(k, s, LLAMP_PARAM_G, &zero, pw, 0), vcoef(k, s, LLAMP_PARAM_O, &zero, pw, 0),
                   vcoef(k, s, LLAMP_PARAM_GAP, &zero, pw, 0));
  return 0;
}

int llamp_engine_edge_cost(const llamp_engine_t *e, uint64_t v, uint64_t i, llamp_affine_t *out,
                           int *from_start_out) {
  const llamp_graph_t *g = e->graph;
  uint64_t first, last;
  if (v >= llamp_graph_num_vertices(g)) return -1;
  llamp_graph_in_edges(g, v, &first, &last);
  if (i >= last - first) return -1;
  uint64_t u = llamp_graph_edge_source(g, first + i);
  unsigned type = llamp_graph_edge_kind(g, first + i);
  double s;
  unsigned kv = plan_kind(e, v, &s);
  if (type == LLAMP_EDGE_CPU) type = E_END; /* (none when it does not bind: the plan drops it) */
  else if (type == LLAMP_EDGE_MESSAGE) type = kv == K_RECV_RNDV ? E_RTS : E_EAGER;
  double su = llamp_graph_value(g, u); /* a message edge's source is the send: its size */
  kview_t kw;
  pwv_t one, *pw = e->pw ? &one : NULL;
  theta_t zero = zero_theta(e, u, &kw, &one);
  *out = affine_of(ecost(type, su, &zero, pw, 0), ecoef(type, su, LLAMP_PARAM_L, &zero, pw, 0),
                   ecoef(type, su, LLAMP_PARAM_G, &zero, pw, 0), ecoef(type, su, LLAMP_PARAM_O, &zero, pw, 0),
                   ecoef(type, su, LLAMP_PARAM_GAP, &zero, pw, 0));
  if (from_start_out) *from_start_out = from_start(type);
  return 0;
}

/* ---- per-pair sensitivities (llamp_engine_pair_lambda; docs/topology.md) ---------------- */

static int pair_cmp(const void *a, const void *b) {
  const llamp_pair_lambda_t *x = a, *y = b;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* The critical path of the L pass, as the timeline walks it, with each cost's
 * latency terms and bytes (counted without the routes' scales) charged to
 * the ordered rank pair of the message the cost belongs to. */
int llamp_engine_pair_lambda(llamp_engine_t *e, const llamp_params_t *p, llamp_pair_lambda_t **out,
                             size_t *count) {
  llamp_eval_t r;
  *out = NULL;
  *count = 0;
  if (eval_L(e, p, &r)) return -1;
  theta_t t = theta_of(e, p), raw = t;
  raw.pk = NULL; /* coefficients in L and G of the pair's own L_ij and G_ij */
  uint64_t *path = NULL, len = 0;
  int *fs = NULL, done_end = 0;
  if (backtrack(e, &t, r.T, r.slope_right, &path, &len, &done_end, &fs)) return -1;
  llamp_pair_lambda_t *v = malloc((2 * len + 1) * sizeof *v);
  if (!v) {
    free(path);
    free(fs);
    return -1;
  }
  size_t n = 0;
  const llamp_graph_t *g = e->graph;
  /* one cost of x's message (x: a send or receive, plan id) */
#define PAIR_ADD(x, nl, nb)                                                                     \
  do {                                                                                          \
    double nl_ = (nl), nb_ = (nb);                                                              \
    /* a message to oneself costs no L or G (its kind's kl is 0) */                             \
    if ((nl_ != 0 || nb_ != 0) && !(t.pk && t.kl[t.pk[x]] == 0)) {                                \
      uint64_t gx = e->gv ? e->gv[x] : (x), px = llamp_graph_partner(g, gx);                    \
      int snd = llamp_graph_kind(g, gx) == LLAMP_VERTEX_SEND;                                   \
      v[n++] = (llamp_pair_lambda_t){llamp_graph_rank(g, snd ? gx : px),                        \
                                     llamp_graph_rank(g, snd ? px : gx), nl_, nb_};             \
    }                                                                                           \
  } while (0)
  for (uint64_t i = 0; i < len; i++) {
    uint64_t x = path[i];
    unsigned k = e->kind[x];
    double s = e->value[x];
    if (!fs[i]) PAIR_ADD(x, vcoef(k, s, LLAMP_PARAM_L, &raw, e->pw, x), vcoef(k, s, LLAMP_PARAM_G, &raw, e->pw, x));
    double from = fs[i] ? e->start[x] : e->start[x] + vcost(k, s, &t, e->pw, x);
    if (i + 1 < len) { /* the tight edge x -> next that carries the path's coefficient */
      uint64_t nx = path[i + 1];
      double want = e->cmax[nx] - e->cmax[x] - (fs[i] ? 0 : vcoef(k, s, LLAMP_PARAM_L, &t, e->pw, x));
      uint32_t best = UINT32_MAX;
      double miss = INFINITY;
      for (uint32_t j = e->in_beg[nx]; j < e->in_end[nx]; j++) {
        if ((e->in_src[j] & e->mask) != x) continue;
        uint32_t type = e->in_src[j] >> e->shift;
        if ((from_start(type) != 0) != (fs[i] != 0)) continue;
        double d = fabs(from + ecost_uv(type, s, &t, e->pw, x, e->kind[nx], e->value[nx], nx) - e->start[nx]);
        if (ecoef_uv(type, s, LLAMP_PARAM_L, &t, e->pw, x, e->kind[nx], e->value[nx], nx) != want)
          d += 1; /* a tie of another slope */
        if (d < miss) {
          miss = d;
          best = type;
        }
      }
      if (best == E_GAPR) /* the NIC rule's receive chain: the target's transfer */
        PAIR_ADD(nx, ecoef_uv(best, s, LLAMP_PARAM_L, &raw, e->pw, x, e->kind[nx], e->value[nx], nx),
                 ecoef_uv(best, s, LLAMP_PARAM_G, &raw, e->pw, x, e->kind[nx], e->value[nx], nx));
      else if (best != UINT32_MAX)
        PAIR_ADD(x, ecoef(best, s, LLAMP_PARAM_L, &raw, e->pw, x), ecoef(best, s, LLAMP_PARAM_G, &raw, e->pw, x));
    } else if (done_end) { /* the rendezvous sender's completion ends the run */
      PAIR_ADD(x, ecoef(E_RNDV_DONE, s, LLAMP_PARAM_L, &raw, e->pw, x), ecoef(E_RNDV_DONE, s, LLAMP_PARAM_G, &raw, e->pw, x));
    }
  }
#undef PAIR_ADD
  free(path);
  free(fs);
  qsort(v, n, sizeof *v, pair_cmp);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m && v[m - 1].src == v[i].src && v[m - 1].dst == v[i].dst) {
      v[m - 1].lambda_L += v[i].lambda_L;
      v[m - 1].lambda_G += v[i].lambda_G;
    } else {
      v[m++] = v[i];
    }
  }
  *out = v;
  *count = m;
  return 0;
}
