/* llamp_lp.h - export the LLAMP linear program of an execution graph.
 *
 * The exported LP is exactly the model the engine evaluates (llamp_engine.h,
 * docs/model.md), written for any LP solver (GLPK, HiGHS, Gurobi, CPLEX):
 *
 *   variables  y<v>  start time of graph vertex v (v = llamp_graph vertex id)
 *              t     runtime (end of the last vertex)
 *              l     latency L             o    overhead o
 *              G     gap per byte G        gap  gap g (only when p->g > 0)
 *   rows       y<w> >= y<u> + cost(u,w)    one per in-edge (two for the
 *                                          `requires` successors of a
 *                                          rendezvous send), one per gap pair
 *              t >= y<v> + cost(v)         the end of every vertex that has no
 *                                          end-type out-edge (plus the
 *                                          rendezvous sender completion)
 *   costs      affine in l, G, o, gap with the engine's coefficients; with
 *              p->net (size-dependent costs) their constants go to the
 *              right-hand sides (llamp_netmodel_vertex, as the engine).
 *              With p->pairs (per-pair costs, routes) every extra parameter
 *              (l_wire, d_switch, dl_CLASS) is a column named after it, and
 *              each message term costs its route kind's constant plus
 *              coefficients x those columns, as the engine charges it.
 *
 * Objectives:
 *   LLAMP_LP_MIN_RUNTIME  min t with l >= L, G >= G, o >= o, gap >= g
 *                         (the paper's Eq. 6).  Optimum = T(theta); the
 *                         reduced cost of l is lambda_L (of G: lambda_G...).
 *   LLAMP_LP_MAX_LATENCY  max l subject to t <= t_max, G, o, gap fixed at
 *                         their values (the paper's Fig. 6).  Optimum = the
 *                         largest L with T(L) <= t_max = llamp_engine_budget.
 *
 * UNITS: the LP works in MICROSECONDS (times, l, o, gap, t, t_max in us; G in
 * us per byte; message sizes in bytes), which keeps solvers well conditioned.
 * The files say so in a comment line.  t_max is passed in seconds (SI, like
 * the rest of the library) and converted.
 *
 * The file is streamed (no in-memory text).  Extra memory: a byte per vertex
 * (12 more with g > 0); the MPS writer, column oriented, adds an out-edge
 * index (4 bytes per vertex, 8 per edge).  Layout and naming: docs/lp.md.
 *
 * Error rule: 0 on success, -1 on failure with a one-line message in err. */
#ifndef LLAMP_LP_H
#define LLAMP_LP_H

#include <stddef.h>
#include <stdio.h>

#include "llamp_engine.h"
#include "llamp_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  LLAMP_LP_CPLEX = 0, /* CPLEX LP text format (.lp): glpsol --lp, highs, gurobi_cl */
  LLAMP_LP_MPS = 1    /* free MPS (.mps): glpsol --freemps, highs, gurobi_cl */
} llamp_lp_format_t;

typedef enum {
  LLAMP_LP_MIN_RUNTIME = 0, /* min t, parameters bounded below by their values */
  LLAMP_LP_MAX_LATENCY = 1  /* max l s.t. t <= t_max, other parameters fixed */
} llamp_lp_objective_t;

/* Write the LP of graph `g` under parameters `p` to `path` ("-" = stdout).
 * `t_max` (seconds) is used by LLAMP_LP_MAX_LATENCY only.  Fails (without
 * leaving a partial file behind) on bad parameters, on an I/O error, and when
 * the rendezvous/gap modelling makes the graph cyclic (as the engine does). */
int llamp_lp_write(const llamp_graph_t *g, const llamp_params_t *p, llamp_lp_format_t fmt,
                   llamp_lp_objective_t obj, double t_max, const char *path, char *err,
                   size_t errlen);

/* The same into an open stream (not closed; flushed). */
int llamp_lp_write_stream(const llamp_graph_t *g, const llamp_params_t *p, llamp_lp_format_t fmt,
                          llamp_lp_objective_t obj, double t_max, FILE *out, char *err,
                          size_t errlen);

/* The same with the MAX_LATENCY objective along parameter `wrt` (L, G, o,
 * g, or an extra parameter of p->pairs, LLAMP_PARAM_X(x)): max wrt subject
 * to t <= t_max, the others fixed; llamp_lp_write is wrt = LLAMP_PARAM_L.
 * MIN_RUNTIME does not depend on wrt: every parameter has its column. */
int llamp_lp_write_wrt(const llamp_graph_t *g, const llamp_params_t *p, llamp_lp_format_t fmt,
                       llamp_lp_objective_t obj, llamp_param_t wrt, double t_max, const char *path,
                       char *err, size_t errlen);
int llamp_lp_write_stream_wrt(const llamp_graph_t *g, const llamp_params_t *p, llamp_lp_format_t fmt,
                              llamp_lp_objective_t obj, llamp_param_t wrt, double t_max, FILE *out,
                              char *err, size_t errlen);

/* "lp" / "mps" and back ("lp", "cplex", "mps", "freemps"; -1 if unknown). */
const char *llamp_lp_format_name(llamp_lp_format_t fmt);
int llamp_lp_format_parse(const char *name, llamp_lp_format_t *fmt);

/* Seconds to LP units and back (the LP's time unit is the microsecond). */
#define LLAMP_LP_UNITS_PER_SECOND 1e6

#ifdef __cplusplus
}
#endif
#endif
