/* llamp_engine.h - exact LLAMP answers on an execution DAG, no LP solver.
 *
 * Error rule: int functions return 0 / -1, pointer functions NULL; the
 * message of the last failure is in the `err` buffer the caller passes.
 *
 * Model (docs/model.md is the reference; all values SI):
 *   calc vertex            cost = duration
 *   send vertex            cost = o
 *   eager message (s<=S)   start(recv) >= end(send) + L + (s-1)*G   [s*G with size_g_full]
 *   recv vertex (eager)    cost = o
 *   rendezvous (s > S)     RDMA-read protocol (paper App. B):
 *       RTS edge           start(recv) >= end(send) + L          (recv start = match time m)
 *       recv cost          2L + (s-1)G + o                        (read request, data back, o)
 *       send completion    the send's `requires` successors start >= m + L + (s-1)G
 *     rndv_direct (SMPI):  RTS edge cost 0, recv cost L + (s-1)G + o, completion as above
 *   async_small (SMPI)     a message of s >= A bytes (s <= S) starts at its match too: its
 *                          receive is charged as a direct rendezvous one, its send
 *                          completes at once (detached); s < A: eager as above
 *   g (optional, g > 0)    consecutive sends (and receives) of a rank start >= g apart
 *   NIC rule (p->nic)      a rank's eager messages leave its NIC >= g + bw(s_prev) G
 *                          apart while the rank goes on (runs), eager receives end
 *                          >= g + bw(s) G apart in arrival order, and the
 *                          messages of a burst of equal sends end together
 *   size-dependent costs   with p->net (llamp_netmodel.h): send cost o + cpu_send(s)
 *     (cpu_isend(s) for a send whose successor irequires it, and that
 *     successor waits cpu_isend(s) too), eager recv o + cpu_recv(s), and
 *     every L + (s-1)G above becomes L + c(s) + k(s) G (docs/model.md);
 *     with per-pair costs and SimGrid's factors c(s) scales with the route's
 *     own latency (llamp_netmodel_route_c, llamp_pairs_route_latency)
 *   per-pair costs         with p->pairs: each L above is L + the route's latency
 *     (affine in the topology parameters) and each G, G x the route's scale
 *   messages to oneself    (sender rank = receiver rank) never cross the
 *     network: each L above is a constant, the latency of the host's route
 *     to itself with p->pairs (SimGrid's loopback), else 0, and each G the
 *     route's time per byte (else 0); no coefficient on L, G or a topology
 *     parameter (lambda_L counts zero for them); o stays.  c(s) becomes
 *     (lat_factor - 1) x that latency.
 *
 * T(theta) = max over vertices of end(v) = the LLAMP LP optimum (Algorithm 1).
 * T is convex, piecewise linear and non-decreasing in each of L, G, o, g. */
#ifndef LLAMP_ENGINE_H
#define LLAMP_ENGINE_H

#include "llamp_graph.h"
#include "llamp_netmodel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { LLAMP_PARAM_L = 0, LLAMP_PARAM_G = 1, LLAMP_PARAM_O = 2, LLAMP_PARAM_GAP = 3 } llamp_param_t;
#define LLAMP_NUM_PARAMS 4

/* Per rank pair message costs (heterogeneous L and G, topology parameters;
 * built by smpi_llamp/topo from a platform's routes, docs/topology.md).  A
 * message from rank i to rank j has kind k = pair_kind[i * ranks + j]; each
 * of its latency terms costs L + c0[k] + sum_x coef[k * num_params + x] *
 * X_x and its bandwidth term bytes * G * gscale[k].  The X_x are extra
 * parameters (l_wire, d_switch, ...): llamp_param_t values
 * LLAMP_PARAM_X(x), their values in llamp_params_t.x. */
#define LLAMP_MAX_XPARAMS 8
#define LLAMP_PARAM_X(x) ((llamp_param_t)(LLAMP_NUM_PARAMS + (x)))
typedef struct {
  uint32_t ranks, num_params, num_kinds;
  char name[LLAMP_MAX_XPARAMS][24]; /* "l_wire", "d_switch", "dl_terminal", ... */
  double ref[LLAMP_MAX_XPARAMS];    /* the parameters' reference values */
  double L0, G0;                    /* reference L and G */
  uint32_t *pair_kind;              /* ranks x ranks */
  double *c0, *coef, *gscale;       /* per kind (coef: num_kinds x num_params) */
  /* per rank: its host's route to itself, latency (s) and time per byte (s/B;
   * NULL: 0).  A message from a rank to itself costs these constants, not
   * pair_kind[i * ranks + i]'s costs (see "Messages to oneself" below). */
  double *self_lat, *self_G;
  /* Sparse form, pair_kind NULL (large runs: docs/topology.md, "Large
   * runs"): kinds per HOST pair of the routes known, not per rank pair.
   * Rank i runs on host rank_host[i]; hpair_key[] = host(i) << 32 | host(j),
   * sorted ascending, with hpair_kind[] alongside (nhpairs entries). */
  uint32_t *rank_host;
  uint64_t nhpairs;
  uint64_t *hpair_key;
  uint32_t *hpair_kind;
} llamp_pairs_t;

/* The kind of a message from rank i to rank j; UINT32_MAX when a sparse
 * table lacks the pair (the engine then refuses the graph, naming it). */
static inline uint32_t llamp_pairs_kind(const llamp_pairs_t *q, uint32_t i, uint32_t j) {
  if (q->pair_kind) return q->pair_kind[(size_t)i * q->ranks + j];
  uint64_t key = (uint64_t)q->rank_host[i] << 32 | q->rank_host[j], lo = 0, hi = q->nhpairs;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (q->hpair_key[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo < q->nhpairs && q->hpair_key[lo] == key ? q->hpair_kind[lo] : UINT32_MAX;
}

/* The latency of the route of kind k at the table's reference point:
 * L0 + c0[k] + sum_x coef[k][x] ref[x] (what SimGrid's lat-factor
 * multiplies, llamp_netmodel_route_c). */
static inline double llamp_pairs_route_latency(const llamp_pairs_t *q, uint32_t k) {
  double r = q->L0 + q->c0[k];
  for (uint32_t x = 0; x < q->num_params; x++) r += q->coef[(size_t)k * q->num_params + x] * q->ref[x];
  return r;
}

typedef struct {
  double L;        /* latency, s */
  double o;        /* CPU overhead per message, s */
  double g;        /* gap between consecutive messages of a rank, s (0 = off) */
  double G;        /* gap per byte, s/B */
  double S;        /* rendezvous threshold, bytes: s > S is rendezvous */
  int size_g_full; /* 1: bandwidth term s*G (LLAMP code); 0: (s-1)*G (paper, LogGOPSim) */
  int rndv_direct; /* rendezvous: 0 = the paper's RDMA read (3 L); 1 = direct (SMPI): the
                      transfer starts once both sides are posted and costs one L */
  int async_small; /* 1: SMPI's smpi/async-small-thresh A holds (needs rndv_direct): a message
                      of s >= A bytes starts when its receive is matched, as a direct
                      rendezvous one does, while its sender goes on when s <= S (SMPI's
                      detached send); only s < A leaves at its send.  0 (default): every
                      message up to S leaves at its send */
  double A;        /* bytes (SMPI's default 0: every message starts at its match) */
  const double *observed; /* the observed contention model (needs net; NULL: off): per graph
                             vertex, a receive's observed transfer time in seconds (NAN: none,
                             the model's).  The message's transfer L + c(s) + k(s) G then costs
                             that at the creation point (L, G and the pairs' parameters act
                             as offsets from it: its constant absorbs the difference); an
                             RDMA-read request's latencies stay the model's.  Borrowed for
                             the engine's life. */
  const llamp_netmodel_t *net; /* size-dependent costs (NULL: the scalar LogGPS model above);
                                  the engine copies it at creation */
  int nic; /* 1: LogGP's NIC rule (docs/model.md, "The NIC rule"): a rank's consecutive
              messages leave its NIC at least g + bw(s_prev) G apart (posting order;
              an eager send's rank does not wait for it), and so do its
              receives, taken in their order of arrival at the parameters the engine is
              created with (an approximation: that order may change with L) */
  const uint32_t *gap_prev; /* for the LP export: the previous message of each graph
                               vertex's chain (llamp_engine_gap_chain); NULL = posting order */
  const uint32_t *burst_from; /* for the LP export: the NIC rule's runs
                                 (llamp_engine_burst_sources); NULL = none */
  const double *ahead_bytes, *ahead_count; /* for the LP export: what is ahead of those
                                              receives' messages (llamp_engine_burst_ahead) */
  const double *chain_bytes; /* for the LP export: the receive chain's extra bytes (same) */
  const uint8_t *chain_reads; /* for the LP export: the NIC rule's rendezvous receives that
                                 follow the previous one's read (llamp_engine_chain_reads);
                                 NULL = none */
  const llamp_pairs_t *pairs; /* per-pair costs (NULL: every pair alike); the engine borrows it */
  double x[LLAMP_MAX_XPARAMS]; /* values of the pairs' extra parameters */
} llamp_params_t;

/* The largest message that leaves at its send: S, or A - 1 when below with
 * async_small (sizes are whole bytes: s >= A is s > A - 1).  Larger ones
 * start when their receive is matched; only those above S keep their
 * sender waiting. */
double llamp_params_leave_max(const llamp_params_t *p);

/* Does a CPU edge (LLAMP_EDGE_CPU) into the receive of an s-byte message
 * bind?  Only when the receive starts at its data's arrival (s <= leave_max,
 * not synchronous) and has CPU time (o, or the model's or(s), above 0);
 * else the engine and the LP export drop the edge.  `net`: the size-dependent
 * model (NULL: none). */
int llamp_params_cpu_edge_binds(const llamp_params_t *p, const llamp_netmodel_t *net, double s, int sync);

/* Defaults: L=3us o=5us g=0 G=0.018ns/B S=256KiB, (s-1)G, no net model. */
void llamp_params_default(llamp_params_t *p);
double llamp_params_get(const llamp_params_t *p, llamp_param_t which);
void llamp_params_set(llamp_params_t *p, llamp_param_t which, double value);
const char *llamp_param_name(llamp_param_t which); /* "L", "G", "o", "g" */
/* Name of any parameter of p, its per-pair extra ones included ("l_wire"),
 * and how many there are (LLAMP_NUM_PARAMS + the pairs' extra ones). */
const char *llamp_params_name(const llamp_params_t *p, llamp_param_t which);
uint32_t llamp_params_count(const llamp_params_t *p);

typedef struct llamp_engine llamp_engine_t;

/* Prepare a graph for evaluation under the protocol choice implied by
 * p->S, p->size_g_full and whether g is modelled (p->g > 0).  The engine
 * borrows g: keep it alive.  Later calls may change L, o, G, g freely;
 * changing S, size_g_full, net or switching g on/off needs a new engine
 * (the size-dependent costs are computed once per vertex here). */
llamp_engine_t *llamp_engine_create(const llamp_graph_t *g, const llamp_params_t *p, char *err,
                                    size_t errlen);
void llamp_engine_destroy(llamp_engine_t *e);
/* A second engine on e's plan with its own work arrays, for evaluations in
 * another thread at the same time as e's (e.g. the capture's classification
 * beside its critical latencies).  Cheap: nothing of the plan is copied.
 * Destroy it before e; do not call llamp_engine_refresh_pairs on either
 * while both are in use.  NULL when out of memory. */
llamp_engine_t *llamp_engine_fork(const llamp_engine_t *e);

/* The engine copies the per-pair table's costs (c0, gscale, coef) at
 * creation: after changing them in place (same kinds, same pair_kind; a
 * placement search), call this before the next evaluation. */
int llamp_engine_refresh_pairs(llamp_engine_t *e);

/* The chains of the gap / NIC edges: prev[v] = the graph vertex whose start
 * vertex v's start follows (the rank's previous send, or previous receive in
 * the engine's order), UINT32_MAX when none; prev has one entry per graph
 * vertex.  Returns 0 (all UINT32_MAX when neither g nor the NIC rule is on). */
int llamp_engine_gap_chain(const llamp_engine_t *e, uint32_t *prev);

/* The NIC rule's runs (docs/model.md, "The NIC rule"): from[v] = the first
 * send of the run whose NIC queue receive v's message waited in: its end
 * bounds v's start, + the messages ahead of v's (llamp_engine_burst_ahead)
 * + L + v's own transfer; UINT32_MAX when none; one entry per graph vertex.
 * Returns 0 (all UINT32_MAX without the rule). */
int llamp_engine_burst_sources(const llamp_engine_t *e, uint32_t *from);

/* What is ahead of those receives' messages in their runs: bytes[v] their
 * bytes at G (in the cost model's units: (s-1), s, or a size-dependent
 * model's k(s), of the same route kind as v's), count[v] how many messages
 * (each g); chain_bytes[v] the bytes of the earlier messages of v's burst
 * to one host, which v's receive-chain edge charges beyond v's own; 0
 * where none; one entry per graph vertex.  Returns 0. */
int llamp_engine_burst_ahead(const llamp_engine_t *e, double *bytes, double *count, double *chain_bytes);

/* The NIC rule's rendezvous receives whose data waits for the previous
 * receive's (docs/model.md, "The NIC rule"): charged[v] = 1 when v's chain
 * edge costs g plus the previous rendezvous message's bytes at G, 0 when g
 * alone (or v's own bytes, eager); one entry per graph vertex.  Returns 0
 * (all 0 without the rule). */
int llamp_engine_chain_reads(const llamp_engine_t *e, uint8_t *charged);

/* The affine costs the engine uses (DESIGN §3), in the graph's vertex ids:
 * the cost of vertex v, and of its i-th in-edge (i < in-degree from
 * llamp_graph_in_edges) with `from_start` set to 1 when the edge leaves its
 * source's start (irequires) rather than its end.  Under rendezvous or g the
 * engine's plan adds edges the graph does not have (sender completion, gaps):
 * these functions describe the graph's own edges as the plan costs them. */
int llamp_engine_vertex_cost(const llamp_engine_t *e, uint64_t v, llamp_affine_t *out);
int llamp_engine_edge_cost(const llamp_engine_t *e, uint64_t v, uint64_t i, llamp_affine_t *out,
                           int *from_start);

/* One evaluation: T, and the left and right derivatives of T with respect to
 * `wrt` (the LP's reduced costs for decreasing / increasing that parameter). */
typedef struct {
  double T;
  double slope_right, slope_left;
} llamp_eval_t;
int llamp_engine_eval(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t wrt,
                      llamp_eval_t *out);
/* The start time of every graph vertex at p: start[v] for graph vertex v
 * (llamp_graph_num_vertices entries), when the DAG's schedule begins it (a
 * receive of a message that starts at its match: the match). */
int llamp_engine_starts(llamp_engine_t *e, const llamp_params_t *p, double *start);

/* Full report at one point: T, right derivatives in every parameter, left
 * derivative in L, and the critical path's time breakdown. */
typedef struct {
  double T;
  double lambda[LLAMP_NUM_PARAMS];      /* right derivatives */
  double lambda_left[LLAMP_NUM_PARAMS]; /* left derivatives */
  double rho_L, rho_G;                  /* lambda*value/T */
  /* the per-pair costs' extra parameters (p->pairs; l_wire, d_switch, ...) */
  double lambda_x[LLAMP_MAX_XPARAMS], lambda_x_left[LLAMP_MAX_XPARAMS];
  /* breakdown of the critical path (the one whose slopes give lambda_L right) */
  double t_compute, t_overhead, t_latency, t_bandwidth, t_gap;
  uint64_t path_vertices, path_messages;
} llamp_point_t;
int llamp_engine_point(llamp_engine_t *e, const llamp_params_t *p, llamp_point_t *out);
/* The same with the derivatives of only the parameters in `wrt` (bit
 * 1 << LLAMP_PARAM_*; L is always computed, extra parameters never): one
 * pass per parameter, so a caller that needs T, lambda_L and lambda_G at
 * many points (classification) pays two passes, not one per parameter. */
int llamp_engine_point_of(llamp_engine_t *e, const llamp_params_t *p, unsigned wrt,
                          llamp_point_t *out);

/* llamp_engine_point_of(e, p with L = L[k], G = G[k], 1 << LLAMP_PARAM_G) at
 * K points in one pass (the classification's 19): T, the right derivatives
 * in L and G and the critical path's overhead (t_overhead), each bit for bit
 * what point_of gives.  0; 1 when one pass cannot do it (K > 32, or an
 * in-edge reaching further back than point_of's ring): call point_of per
 * point; -1 when out of memory. */
typedef struct {
  double T, lambda_L, lambda_G, t_overhead;
} llamp_lane_point_t;
int llamp_engine_points_lg(llamp_engine_t *e, const llamp_params_t *p, const double *L, const double *G,
                           size_t K, llamp_lane_point_t *out);
/* When no overhead can be on the critical path (o = 0, no rendezvous
 * receive, no per-message CPU time) the pass runs four lanes a vector on a
 * CPU with AVX2, the same bits.  llamp_engine_lanes4_available: 1 when it
 * can here (not under valgrind, whose decoder lacks some of its AVX2, nor
 * with LLAMP_LANES=scalar in the environment); llamp_engine_points_lg_width:
 * how e's last pass ran, 4 or 1 lane a step (0: none yet). */
int llamp_engine_lanes4_available(void);
int llamp_engine_points_lg_width(const llamp_engine_t *e);

/* Out of core: T and the right and left derivatives along L, G and o at p
 * (lambda, lambda_left, rho_L, rho_G; the rest of *out zero) in one pass over
 * g in its stored order, holding only the last `window` vertices' start
 * times and coefficients (56 B each): a mapped 10^9-event graph file is read
 * once from disk and never held in memory.  The same numbers as
 * llamp_engine_point, bit for bit.  LogGP with eager messages only (no NIC
 * rule, gap, size-dependent or per-pair costs, no message above p->S or to
 * oneself), and every in-edge within `window` vertices of its target (the
 * locality layout of a halo: a few times the ranks); else -1 and a one-line
 * message in err naming the vertex. */
int llamp_engine_stream_point(const llamp_graph_t *g, const llamp_params_t *p, uint64_t window,
                              llamp_point_t *out, char *err, size_t errlen);

/* The critical path as vertex ids from the first to the last vertex
 * (caller frees *path).  Ties are broken toward more latency terms. */
int llamp_engine_critical_path(llamp_engine_t *e, const llamp_params_t *p, uint64_t **path,
                               uint64_t *len);

/* The critical path as a timeline: each vertex's cost and each edge's cost
 * between consecutive path vertices, split by what it is made of, with its
 * start and end time (sums to T).  Edges are drawn on the receiving vertex's
 * rank; the engine's own protocol edges (rendezvous completion, gaps) are
 * included.  Caller frees *segs. */
typedef enum {
  LLAMP_SEG_COMPUTE,
  LLAMP_SEG_OVERHEAD,
  LLAMP_SEG_LATENCY,
  LLAMP_SEG_BANDWIDTH,
  LLAMP_SEG_GAP,
  LLAMP_NUM_SEGS
} llamp_seg_kind_t;
typedef struct {
  uint64_t vertex; /* graph id of the vertex (its in-edge, for edge parts) */
  uint32_t rank;
  llamp_seg_kind_t kind;
  double t0, t1;
} llamp_segment_t;
int llamp_engine_path_timeline(llamp_engine_t *e, const llamp_params_t *p, llamp_segment_t **segs,
                               size_t *count);
const char *llamp_seg_name(llamp_seg_kind_t k); /* "compute", "overhead", ... */
/* The critical path's time per rank (the timeline's segments summed by rank;
 * per_rank has the graph's rank count of entries and sums to T). */
int llamp_engine_path_by_rank(llamp_engine_t *e, const llamp_params_t *p, double *per_rank);

/* T(x) for x = parameter `wrt` in [lo, hi] (the others fixed at p) as its
 * upper envelope of lines T = a*x + b, slopes increasing, computed by a
 * parametric pass that carries each vertex's start time as such an envelope
 * (exact: the LP's whole parametric solution on the interval).  When the
 * envelopes grow past `max_lines` per vertex on average (0 = 2), a backward
 * pass bounds every vertex's remaining path and the forward pass is redone
 * dropping lines that provably cannot reach T; when that backward pass's two
 * points and one evaluation show T in at most two pieces, those are the
 * answer without the forward pass.  Fails (-1) when even that
 * needs more than 16 lines per vertex; callers then fall back to point
 * evaluations.  Caller frees *lines. */
typedef struct {
  double a, b;
} llamp_line_t;
int llamp_engine_envelope(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t wrt, double lo,
                          double hi, size_t max_lines, llamp_line_t **lines, size_t *count);

/* How the last llamp_engine_envelope on e went: one pass; T in at most two
 * pieces, seen from the first pruning step's two points and one evaluation
 * (a regular code's T, often); a pass pruned at a few points; or the last
 * step in parts (LLAMP_DEBUG_ENVELOPE prints the steps). */
typedef enum {
  LLAMP_ENVELOPE_NONE = 0,
  LLAMP_ENVELOPE_PLAIN,
  LLAMP_ENVELOPE_TWO_PIECES,
  LLAMP_ENVELOPE_PRUNED,
  LLAMP_ENVELOPE_PARTS
} llamp_envelope_how_t;
llamp_envelope_how_t llamp_engine_envelope_how(const llamp_engine_t *e);

/* Reading an envelope (lines sorted by slope, as returned above):
 * T and its right slope at x; its breakpoints (caller frees *out); and the
 * largest x in [lo, hi] with T(x) <= t_max (1 with *x set; 0 when even T(hi)
 * is within t_max, or T(lo) is not). */
struct llamp_breakpoint;
void llamp_engine_envelope_eval(const llamp_line_t *lines, size_t n, double x, double *T,
                                double *slope);
int llamp_engine_envelope_breakpoints(const llamp_line_t *lines, size_t n,
                                      struct llamp_breakpoint **out, size_t *count);
int llamp_engine_envelope_solve(const llamp_line_t *lines, size_t n, double lo, double hi,
                                double t_max, double *x);

/* Every breakpoint of T(x) for x = parameter `wrt` in [lo, hi] (the others
 * fixed at p), with the slope on each side.  Exact.  Uses the parametric
 * pass, falling back to Eisner-Severance point evaluations (about 2k+1 of
 * them for k breakpoints); llamp_engine_breakpoints_es always uses the
 * latter (kept for cross-checks).  *evaluations counts graph passes.
 * Caller frees *out. */
typedef struct llamp_breakpoint {
  double x, slope_before, slope_after, T;
} llamp_breakpoint_t;
int llamp_engine_breakpoints(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t wrt,
                             double lo, double hi, llamp_breakpoint_t **out, size_t *count,
                             int *evaluations);
int llamp_engine_breakpoints_es(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t wrt,
                                double lo, double hi, llamp_breakpoint_t **out, size_t *count,
                                int *evaluations);
/* T on [lo, hi] as the lines of the envelope readers above, from its
 * breakpoints there (one line per piece; with none, the line through T_lo
 * with slope_lo, T and its right slope at lo): a sweep and the tolerances
 * then cost no further pass.  Caller frees *lines. */
int llamp_engine_breakpoint_lines(const llamp_breakpoint_t *bp, size_t nb, double lo, double T_lo,
                                  double slope_lo, llamp_line_t **lines, size_t *count);

/* Largest x (parameter `wrt`) with T(x) <= t_max, others fixed at p.
 * Returns 0 and sets *x; *unbounded = 1 when T never exceeds t_max;
 * -1 with a message when even x = 0... is over budget (*x = -1 then). */
int llamp_engine_budget(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t wrt,
                        double t_max, double *x, int *unbounded, int *evaluations);

/* Evaluate T and the right slope in `wrt` at K values of that parameter
 * in ONE pass over the graph: the parametric pass over [min, max] of xs,
 * or (if its envelopes grow too large) one pass carrying K lanes. */
int llamp_engine_sweep(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t wrt,
                       const double *xs, size_t k, double *T, double *slope);
/* The lane pass alone (kept for cross-checks and benchmarks). */
int llamp_engine_sweep_lanes(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t wrt,
                             const double *xs, size_t k, double *T, double *slope);
/* A 2-D sweep (e.g. l_wire x d_switch): T at every (x1[i], x2[j]) into
 * T[i * n2 + j] and its right slope along w1 into slope (may be NULL), one
 * pass per 64 grid points carrying one lane per point.  w1 != w2; -1 when
 * they are equal or unknown, or out of memory. */
int llamp_engine_sweep_grid(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w1,
                            const double *x1, size_t n1, llamp_param_t w2, const double *x2,
                            size_t n2, double *T, double *slope);

/* ---- per-pair sensitivities (docs/topology.md, "Per-pair sensitivities") ----
 * lambda_L^{ij} = dT/dL_ij and lambda_G^{ij} = dT/dG_ij, L_ij and G_ij being
 * the latency and the time per byte of messages from rank i to rank j
 * (HLogGP, seed 000 App. I): along the critical path the engine reports
 * (llamp_engine_critical_path: ties broken toward more latency terms), the
 * number of latency terms and the bytes charged at G of i -> j messages on
 * it, every pair from one pass.  The lambda_L sum to lambda_L (right).  When
 * several paths are critical a pair's own right derivative is the most terms
 * over them and its left one the fewest; these counts lie in between (an LP
 * solver's reduced costs are likewise one of the optimal duals).  Messages of
 * a rank to itself count on the diagonal as the model charges them.  Only
 * the pairs with a term on the path, sorted by (src, dst); caller frees *out. */
typedef struct {
  uint32_t src, dst;
  double lambda_L, lambda_G;
} llamp_pair_lambda_t;
int llamp_engine_pair_lambda(llamp_engine_t *e, const llamp_params_t *p, llamp_pair_lambda_t **out,
                             size_t *count);

#ifdef __cplusplus
}
#endif
#endif
