/* Cross-check of the engine against GLPK on random trace-like graphs.
 *
 * For every graph: the MIN_RUNTIME LP (CPLEX LP and free MPS alternately) is
 * solved by glpsol; its optimum must equal the engine's T and the reduced
 * costs of l, G, o (and gap) must lie in the engine's [left, right]
 * derivatives (equal to them at random, non-breakpoint parameter values).
 * The MAX_LATENCY LP must equal llamp_engine_budget (including the
 * infeasible and unbounded cases).  Every critical latency reported by
 * llamp_engine_breakpoints is confirmed by evaluations on both sides
 * (continuity, the slopes left and right) and, for some, by GLPK's reduced
 * cost on both sides; tolerance answers are checked against their definition.
 *
 * usage: test_lp_glpk [graphs [max_ops [seed [glpk_breakpoints_per_graph [first]]]]]
 * (graph i is fully determined by seed and i: `test_lp_glpk 1 400 7 4 291`
 * replays graph 291 of the slow run; LLAMP_LP_KEEP=1 keeps the files)
 * Exit 77 (skipped) when glpsol is not installed. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>

#include "llamp_test.h"
#include "test_lp_common.h"

static const double US = 1e6;

typedef struct {
  long l_exact, l_kinked, exact_resolved, bp_exact, bp_too_close;
  long graphs, glpsol_runs, min_checks, max_checks, infeasible, unbounded, breakpoints,
      bp_glpk_confirmed, tolerances, rndv_graphs, gap_graphs, net_graphs, nic_graphs, self_graphs, sync_graphs;
  double max_rel_T, max_rel_budget;
} stats_t;

static stats_t S;

/* Graphs with per-pair costs (a routes table): GLPK against the engine along
 * every parameter, the topology ones included. */
typedef struct {
  long graphs, points, min_checks, max_checks, infeasible, unbounded;
  long lambda_checks[LP_MAX_COLS], lambda_kinked[LP_MAX_COLS];
  double max_rel_T, max_rel_budget[LP_MAX_COLS], max_rel_lambda[LP_MAX_COLS];
} pair_stats_t;
static pair_stats_t PS;

/* Columns of interest: t, l, G, o, gap, then the routes' extra parameters;
 * column k > 0 is parameter k - 1 (llamp_param_t). */
static const char *cols[LP_MAX_COLS] = {"t", "l", "G", "o", "gap"};
static int ncols = 5;

static double engine_lambda(const llamp_point_t *pt, int w, int left) {
  if (w < LLAMP_NUM_PARAMS) return left ? pt->lambda_left[w] : pt->lambda[w];
  return left ? pt->lambda_x_left[w - LLAMP_NUM_PARAMS] : pt->lambda_x[w - LLAMP_NUM_PARAMS];
}
static char work[1024];

static int in_range(double x, double lo, double hi) {
  double tol = 1e-6 * fmax(1.0, fmax(fabs(lo), fabs(hi)));
  return x >= lo - tol && x <= hi + tol;
}

/* glpsol with its defaults (attempt 0) or in exact rational arithmetic
 * (attempt 1, "--exact"): GLPK's floating-point simplex occasionally
 * declares a feasible LP of ours infeasible, or cannot resolve two paths
 * whose lengths differ by less than its tolerances.  Every check runs the
 * default first and, on a mismatch, again with --exact; only a mismatch
 * that survives the exact solve is a failure. */
static const char *attempt_opts[2] = {"", "--exact"};

#define MSG_LEN 2048
static void msgf(char *msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void msgf(char *msg, const char *fmt, ...) {
  size_t n = strlen(msg);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg + n, MSG_LEN - n, fmt, ap);
  va_end(ap);
}

/* Solve the MIN_RUNTIME LP at p and compare with the engine's point. */
static int check_min(const llamp_graph_t *g, llamp_engine_t *e, const llamp_params_t *p,
                     llamp_lp_format_t fmt, long id, const char *what) {
  char path[1100], err[256], msg[MSG_LEN];
  snprintf(path, sizeof path, "%s/a.%s", work, llamp_lp_format_name(fmt));
  if (llamp_lp_write(g, p, fmt, LLAMP_LP_MIN_RUNTIME, 0, path, err, sizeof err)) {
    fprintf(stderr, "graph %ld: export failed: %s\n", id, err);
    llamp_test_failures++;
    return -1;
  }
  llamp_point_t pt;
  CHECK(llamp_engine_point(e, p, &pt) == 0);
  /* the point's one pass gives the routes' parameters too: bit for bit
   * their own passes */
  for (uint32_t x = 0; p->pairs && x < p->pairs->num_params; x++) {
    llamp_eval_t r;
    CHECK(llamp_engine_eval(e, p, LLAMP_PARAM_X(x), &r) == 0);
    CHECK(r.T == pt.T && r.slope_right == pt.lambda_x[x] && r.slope_left == pt.lambda_x_left[x]);
  }
  if (p->pairs) PS.min_checks++;
  else S.min_checks++;
  double Tus = pt.T * US;
  msg[0] = 0;
  for (int attempt = 0; attempt < 2; attempt++) {
    lp_solution_t sol;
    S.glpsol_runs++;
    size_t pre = strlen(msg);
    msgf(msg, "graph %ld (%s)%s:", id, what, attempt ? " [glpsol --exact]" : "");
    size_t mark = strlen(msg);
    if (lp_glpsol_cols(path, fmt, attempt_opts[attempt], work, cols, ncols, &sol) || sol.status != 0) {
      msgf(msg, " glpsol status '%s'\n", sol.status_text);
      continue;
    }
    double rel = fabs(sol.obj - Tus) / fmax(fabs(Tus), 1e-3);
    if (rel > 1e-6) msgf(msg, " LP optimum %.12g us, engine T %.12g us;", sol.obj, Tus);
    /* reduced costs vs [left, right] derivatives */
    for (int k = 1; k < ncols; k++) {
      if (k - 1 == LLAMP_PARAM_GAP && !(p->g > 0)) continue; /* the NIC rule's gap column too */
      double d = sol.dual[k], lo = engine_lambda(&pt, k - 1, 1), hi = engine_lambda(&pt, k - 1, 0);
      if (isnan(d)) d = 0; /* a column GLPK dropped: never happens with our files */
      if (!in_range(d, lo, hi))
        msgf(msg, " reduced cost of %s = %.10g, engine derivatives left %.10g right %.10g;",
             cols[k], d, lo, hi);
    }
    if (strlen(msg) == mark && p->pairs) { /* agreement, per-pair costs: the errors per column */
      if (rel > PS.max_rel_T) PS.max_rel_T = rel;
      for (int k = 1; k < ncols; k++) {
        if (k - 1 == LLAMP_PARAM_GAP && !(p->g > 0)) continue;
        double d = isnan(sol.dual[k]) ? 0 : sol.dual[k], lo = engine_lambda(&pt, k - 1, 1),
               hi = engine_lambda(&pt, k - 1, 0);
        if (lo != hi) { /* at a kink any value in [left, right] is an optimal dual */
          PS.lambda_kinked[k]++;
          continue;
        }
        PS.lambda_checks[k]++;
        double rl = fabs(d - hi) / fmax(fabs(hi), 1);
        if (rl > PS.max_rel_lambda[k]) PS.max_rel_lambda[k] = rl;
      }
    }
    if (strlen(msg) == mark) { /* agreement */
      if (!p->pairs && rel > S.max_rel_T) S.max_rel_T = rel;
      double d = sol.dual[1];
      if (pt.lambda_left[LLAMP_PARAM_L] != pt.lambda[LLAMP_PARAM_L]) S.l_kinked++;
      else if (fabs(d - pt.lambda[LLAMP_PARAM_L]) <= 1e-9) S.l_exact++;
      if (attempt) {
        S.exact_resolved++;
        msg[pre] = 0;
        fprintf(stderr, "note (GLPK numerics, resolved by --exact): %s", msg);
      }
      return 0;
    }
    msgf(msg, "\n");
  }
  fputs(msg, stderr);
  llamp_test_failures++;
  return -1;
}

/* T and the reduced cost of l at p (for breakpoint confirmation). */
static int glpk_lambda_L(const llamp_graph_t *g, const llamp_params_t *p, llamp_lp_format_t fmt,
                         int exact, double *T_us, double *lam) {
  char path[1100], err[256];
  snprintf(path, sizeof path, "%s/b.%s", work, llamp_lp_format_name(fmt));
  if (llamp_lp_write(g, p, fmt, LLAMP_LP_MIN_RUNTIME, 0, path, err, sizeof err)) return -1;
  lp_solution_t sol;
  S.glpsol_runs++;
  if (lp_glpsol(path, fmt, attempt_opts[exact != 0], work, &sol) || sol.status != 0) return -1;
  *T_us = sol.obj;
  *lam = sol.dual[1];
  return 0;
}

static double T_along(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w, double x,
                      llamp_eval_t *r);
static double T_at(llamp_engine_t *e, const llamp_params_t *p, double L, llamp_eval_t *r) {
  return T_along(e, p, LLAMP_PARAM_L, L, r);
}

/* MAX_LATENCY LP along parameter w vs the engine's budget. */
static void check_max(const llamp_graph_t *g, llamp_engine_t *e, const llamp_params_t *p,
                      llamp_param_t w, double t_max, llamp_lp_format_t fmt, long id) {
  char path[1100], err[256], msg[MSG_LEN];
  snprintf(path, sizeof path, "%s/a.%s", work, llamp_lp_format_name(fmt));
  if (llamp_lp_write_wrt(g, p, fmt, LLAMP_LP_MAX_LATENCY, w, t_max, path, err, sizeof err)) {
    fprintf(stderr, "graph %ld: export (max) failed: %s\n", id, err);
    llamp_test_failures++;
    return;
  }
  double x = -1;
  int unb = 0, evals = 0;
  int rc = llamp_engine_budget(e, p, w, t_max, &x, &unb, &evals);
  /* A graph without messages gives, for an unmeetable budget, an LP that is
   * primal AND dual infeasible (l unbounded in the homogeneous system);
   * GLPK's presolver may report either.  T(0) == T(1 s) identifies it. */
  int no_latency = T_along(e, p, w, 0, NULL) == T_along(e, p, w, 1.0, NULL);
  if (p->pairs) {
    PS.max_checks++;
    PS.infeasible += rc != 0;
    PS.unbounded += rc == 0 && unb;
  } else {
    S.max_checks++;
    if (rc != 0) S.infeasible++;
    else if (unb) S.unbounded++;
  }
  msg[0] = 0;
  for (int attempt = 0; attempt < 2; attempt++) {
    lp_solution_t sol;
    S.glpsol_runs++;
    size_t pre = strlen(msg);
    msgf(msg, "graph %ld (max %s, %s)%s:", id, cols[w + 1], llamp_lp_format_name(fmt),
         attempt ? " [glpsol --exact]" : "");
    size_t mark = strlen(msg);
    double rel = 0;
    if (lp_glpsol_cols(path, fmt, attempt_opts[attempt], work, cols, ncols, &sol)) {
      msgf(msg, " glpsol failed");
    } else if (rc != 0) { /* over budget even at L = 0 */
      if (sol.status != 1 && !(no_latency && sol.status == 2))
        msgf(msg, " engine says t_max %.12g us infeasible, glpsol '%s'", t_max * US,
             sol.status_text);
    } else if (unb) {
      if (sol.status != 2)
        msgf(msg, " engine says unbounded, glpsol '%s' %s=%.12g", sol.status_text, cols[w + 1],
             sol.val[w + 1]);
    } else if (sol.status != 0) {
      msgf(msg, " engine budget %.12g us, glpsol '%s'", x * US, sol.status_text);
    } else {
      double lus = sol.val[w + 1], xus = x * US;
      rel = fabs(lus - xus) / fmax(fabs(xus), 1e-3);
      if (rel > 1e-6)
        msgf(msg, " max-%s LP %s = %.12g us, engine budget %.12g us (t_max %.12g us)", cols[w + 1],
             cols[w + 1], lus, xus, t_max * US);
    }
    if (strlen(msg) == mark) {
      if (p->pairs) {
        if (rel > PS.max_rel_budget[w + 1]) PS.max_rel_budget[w + 1] = rel;
      } else if (rel > S.max_rel_budget) {
        S.max_rel_budget = rel;
      }
      if (attempt) {
        S.exact_resolved++;
        msg[pre] = 0;
        fprintf(stderr, "note (GLPK numerics, resolved by --exact): %s", msg);
      }
      return;
    }
    msgf(msg, "\n");
  }
  fputs(msg, stderr);
  llamp_test_failures++;
}

static double T_along(llamp_engine_t *e, const llamp_params_t *p, llamp_param_t w, double x,
                      llamp_eval_t *r) {
  llamp_params_t q = *p;
  llamp_params_set(&q, w, x);
  llamp_eval_t tmp;
  if (!r) r = &tmp;
  if (llamp_engine_eval(e, &q, w, r)) return NAN;
  return r->T;
}

/* Every critical latency in [lo, hi]: slopes on both sides, continuity,
 * nothing missed between consecutive ones; GLPK on both sides of the first
 * `nglpk` ones. */
static void check_breakpoints(const llamp_graph_t *g, llamp_engine_t *e, const llamp_params_t *p,
                              double lo, double hi, int nglpk, long id) {
  llamp_breakpoint_t *bp = NULL;
  size_t n = 0;
  int evals = 0;
  if (llamp_engine_breakpoints(e, p, LLAMP_PARAM_L, lo, hi, &bp, &n, &evals)) {
    fprintf(stderr, "graph %ld: breakpoints failed\n", id);
    llamp_test_failures++;
    return;
  }
  S.breakpoints += (long)n;
  llamp_eval_t rlo, rhi;
  T_at(e, p, lo, &rlo);
  T_at(e, p, hi, &rhi);
  double prev_slope = rlo.slope_right, prev_x = lo;
  int bad = 0;
  for (size_t i = 0; i <= n; i++) {
    double x = i < n ? bp[i].x : hi;
    double before = i < n ? bp[i].slope_before : rhi.slope_left;
    /* linear between the previous breakpoint and this one: same slope at both ends */
    if (before != prev_slope) {
      fprintf(stderr, "graph %ld: slope %.0f after %.9g us but %.0f before %.9g us (missed breakpoint?)\n",
              id, prev_slope, prev_x * US, before, x * US);
      bad = 1;
    }
    if (i == n) break;
    if (!(x > prev_x || (i == 0 && x >= lo)) || x > hi) {
      fprintf(stderr, "graph %ld: breakpoint %.12g us out of order\n", id, x * US);
      bad = 1;
    }
    double next = i + 1 < n ? bp[i + 1].x : hi;
    double d = fmin(x - prev_x, next - x) / 4;
    if (!(bp[i].slope_before < bp[i].slope_after)) {
      fprintf(stderr, "graph %ld: breakpoint %.12g us has slopes %.0f -> %.0f\n", id, x * US,
              bp[i].slope_before, bp[i].slope_after);
      bad = 1;
    }
    if (d > 1e-9 * x + 1e-18) {
      llamp_eval_t a, c, m;
      double Ta = T_at(e, p, x - d, &a), Tc = T_at(e, p, x + d, &c), Tm = T_at(e, p, x, &m);
      double tol = 1e-9 * fmax(Tm, 1e-9);
      if (a.slope_right != bp[i].slope_before || a.slope_left != bp[i].slope_before ||
          c.slope_left != bp[i].slope_after || c.slope_right != bp[i].slope_after ||
          m.slope_left != bp[i].slope_before || m.slope_right != bp[i].slope_after) {
        fprintf(stderr,
                "graph %ld: breakpoint %.12g us: slopes %g|%g at -d, %g|%g at x, %g|%g at +d, "
                "reported %g -> %g\n",
                id, x * US, a.slope_left, a.slope_right, m.slope_left, m.slope_right, c.slope_left,
                c.slope_right, bp[i].slope_before, bp[i].slope_after);
        bad = 1;
      }
      if (fabs(Ta - (Tm - d * bp[i].slope_before)) > tol ||
          fabs(Tc - (Tm + d * bp[i].slope_after)) > tol || fabs(Tm - bp[i].T) > tol) {
        fprintf(stderr, "graph %ld: T not continuous / linear around %.12g us\n", id, x * US);
        bad = 1;
      }
      /* Independent confirmation by GLPK on both sides and at the kink.  When
       * the kink changes T by less than ~1e-6 relative over d, GLPK's
       * floating-point tolerances cannot see it: solve in exact arithmetic
       * then (and skip kinks below double precision altogether). */
      double effect = d * (bp[i].slope_after - bp[i].slope_before) / Tm;
      if ((int)i < nglpk && effect < 1e-11) S.bp_too_close++;
      if ((int)i < nglpk && effect >= 1e-11) {
        int first = effect < 1e-6;
        char msg[MSG_LEN] = "";
        for (int attempt = first; attempt < 2; attempt++) {
          llamp_params_t q = *p;
          double T1 = NAN, T2 = NAN, l1 = NAN, l2 = NAN, Tk = NAN, lk = NAN;
          q.L = x - d;
          int ok1 = glpk_lambda_L(g, &q, (llamp_lp_format_t)(i & 1), attempt, &T1, &l1) == 0;
          q.L = x + d;
          int ok2 = glpk_lambda_L(g, &q, (llamp_lp_format_t)((i + 1) & 1), attempt, &T2, &l2) == 0;
          q.L = x; /* at the kink itself any optimal dual lies in [before, after] */
          int ok3 = glpk_lambda_L(g, &q, (llamp_lp_format_t)(i & 1), attempt, &Tk, &lk) == 0;
          if (ok1 && ok2 && ok3 && fabs(l1 - bp[i].slope_before) <= 1e-6 &&
              fabs(l2 - bp[i].slope_after) <= 1e-6 && fabs(T1 - Ta * US) <= 1e-6 * Ta * US &&
              fabs(T2 - Tc * US) <= 1e-6 * Tc * US &&
              in_range(lk, bp[i].slope_before, bp[i].slope_after) &&
              fabs(Tk - Tm * US) <= 1e-6 * Tm * US) {
            S.bp_glpk_confirmed++;
            S.bp_exact += attempt;
            if (attempt && !first) {
              S.exact_resolved++;
              fprintf(stderr, "note (GLPK numerics, resolved by --exact): %s", msg);
            }
            msg[0] = 0;
            break;
          }
          msgf(msg,
               "graph %ld: critical latency %.12g us%s: GLPK lambda_L %g | %g | %g (T %.12g / "
               "%.12g / %.12g us), engine %g -> %g (T %.12g / %.12g / %.12g us) at x-d, x, x+d "
               "(d = %.3g us)\n",
               id, x * US, attempt ? " [glpsol --exact]" : "", l1, lk, l2, T1, Tk, T2,
               bp[i].slope_before, bp[i].slope_after, Ta * US, Tm * US, Tc * US, d * US);
        }
        if (msg[0]) {
          fputs(msg, stderr);
          bad = 1;
        }
      }
    }
    prev_slope = bp[i].slope_after;
    prev_x = x;
  }
  if (bad) llamp_test_failures++;
  free(bp);
}

/* x% tolerance: the largest L with T(L) <= (1+x) T(L0). */
static void check_tolerance(llamp_engine_t *e, const llamp_params_t *p, double pct, long id) {
  double T0 = T_at(e, p, p->L, NULL), tmax = (1 + pct / 100) * T0, x = -1;
  int unb = 0, evals = 0;
  if (llamp_engine_budget(e, p, LLAMP_PARAM_L, tmax, &x, &unb, &evals)) {
    fprintf(stderr, "graph %ld: tolerance %g%% failed\n", id, pct);
    llamp_test_failures++;
    return;
  }
  S.tolerances++;
  if (unb) {
    if (T_at(e, p, 1.0, NULL) > tmax * (1 + 1e-12)) {
      fprintf(stderr, "graph %ld: tolerance %g%% unbounded but T(1 s) > t_max\n", id, pct);
      llamp_test_failures++;
    }
    return;
  }
  double Tx = T_at(e, p, x, NULL), eps = 1e-7 * fmax(x, 1e-6);
  double Tn = T_at(e, p, x + eps, NULL);
  if (!(x >= p->L) || Tx > tmax * (1 + 1e-12) || !(Tn > tmax) ||
      Tx < tmax * (1 - 1e-9)) {
    fprintf(stderr,
            "graph %ld: tolerance %g%%: L = %.12g us, T(L) = %.12g us, T(L+eps) = %.12g us, "
            "t_max = %.12g us\n",
            id, pct, x * US, Tx * US, Tn * US, tmax * US);
    llamp_test_failures++;
  }
}

/* A small routes table: NKINDS route kinds, like a fat tree's and a
 * dragonfly's (links, switches, inter-group links crossed), a random kind
 * per rank pair, each with its own constant and time per byte, and every
 * rank's loopback (messages to oneself: constants only); with `negative`,
 * constants down to -0.25 us (a route faster than the reference). */
#define NKINDS 5
#define NX 3
typedef struct {
  llamp_pairs_t q;
  uint32_t kind[8 * 8];
  double c0[NKINDS], coef[NKINDS * NX], gscale[NKINDS], self_lat[8], self_G[8];
} routes_t;

static void random_routes(lp_rng_t *r, uint32_t P, int negative, routes_t *rt, llamp_params_t *p) {
  static const double hops[NKINDS][NX] = {{2, 1, 0}, {4, 3, 0}, {6, 5, 2}, {3, 2, 1}, {5, 4, 1}};
  static const char *names[NX] = {"l_wire", "d_switch", "dl_inter"};
  memset(rt, 0, sizeof *rt);
  llamp_pairs_t *q = &rt->q;
  q->ranks = P;
  q->num_params = NX;
  q->num_kinds = NKINDS;
  for (int x = 0; x < NX; x++) snprintf(q->name[x], sizeof q->name[x], "%s", names[x]);
  q->ref[0] = (0.05 + lp_rng_unif(r) * 0.45) * 1e-6;
  q->ref[1] = lp_rng_unif(r) * 0.3e-6;
  q->ref[2] = lp_rng_unif(r) * 0.2e-6;
  for (int k = 0; k < NKINDS; k++) {
    rt->c0[k] = (lp_rng_unif(r) - (negative ? 0.5 : 0)) * 0.5e-6; /* < 0: every end row written */
    rt->gscale[k] = 0.5 + 2 * lp_rng_unif(r);
    for (int x = 0; x < NX; x++) rt->coef[k * NX + x] = hops[k][x];
  }
  for (uint32_t i = 0; i < P; i++) {
    for (uint32_t j = 0; j < P; j++) rt->kind[i * P + j] = i == j ? 0 : lp_rng_int(r, NKINDS);
    rt->self_lat[i] = lp_rng_unif(r) * 0.2e-6;
    rt->self_G[i] = lp_rng_chance(r, 0.2) ? 0 : lp_rng_unif(r) * 0.2e-9;
  }
  q->pair_kind = rt->kind;
  q->c0 = rt->c0;
  q->coef = rt->coef;
  q->gscale = rt->gscale;
  q->self_lat = rt->self_lat;
  q->self_G = rt->self_G;
  q->L0 = p->L;
  q->G0 = p->G;
  p->pairs = q;
  for (int x = 0; x < NX; x++) p->x[x] = q->ref[x];
}

/* Graph `id` of the run: random parameters, every third with size-dependent
 * costs, every fourth with the NIC rule (its receive order from the engine)
 * and a third of its messages to oneself, every 40th without messages; with
 * `rt`, a routes table too (from an rng of its own, so the graphs are the
 * same with and without).  NULL (a failure counted) if it cannot be built. */
static llamp_graph_t *random_case(long id, uint64_t seed, uint32_t max_ops, lp_rng_t *r,
                                  llamp_params_t *p, llamp_netmodel_t *net, routes_t *rt,
                                  llamp_engine_t **e, uint32_t **chain) {
  lp_random_params(r, p);
  if (id % 3 == 2) {
    lp_rng_t rn = {seed * 7919u + (uint64_t)id};
    lp_random_netmodel(&rn, net, p->S, p->L, p->G);
    p->net = net;
  }
  p->nic = id % 4 == 1;
  uint32_t ranks = 2 + lp_rng_int(r, 5);
  uint32_t ops = 4 + lp_rng_int(r, max_ops);
  char err[256];
  double p_msg = id % 40 == 39 ? 0 : 0.55;
  lp_self_share = id % 4 == 1 ? 0.3 : 0;
  lp_sync_share = id % 6 == 5 ? 0.3 : 0;
  lp_cpu_share = id % 5 == 4 ? 0.5 : 0;
  llamp_graph_t *g = lp_random_graph(r, ranks, ops, p->S, p_msg, err, sizeof err);
  if (!g) {
    fprintf(stderr, "graph %ld: %s\n", id, err);
    llamp_test_failures++;
    return NULL;
  }
  if (rt) {
    lp_rng_t rr = {seed * 104729u + (uint64_t)id};
    random_routes(&rr, ranks, id % 5 == 3, rt, p);
  }
  *e = llamp_engine_create(g, p, err, sizeof err);
  if (!*e) {
    fprintf(stderr, "graph %ld: engine: %s\n", id, err);
    llamp_test_failures++;
    llamp_graph_destroy(g);
    return NULL;
  }
  *chain = NULL;
  if (p->nic) { /* the engine's receive order, bursts and chained reads, in one block */
    uint64_t n1 = llamp_graph_num_vertices(g) + 1;
    /* uint32 blocks: chain, bursts, reads; then the aheads' three double blocks */
    uint64_t nw = 4 * ((3 * n1 + 3) / 4); /* the doubles 16-byte aligned */
    *chain = malloc(nw * sizeof **chain + 3 * n1 * sizeof(double));
    double *ahead = *chain ? (double *)(*chain + nw) : NULL;
    CHECK(*chain && llamp_engine_gap_chain(*e, *chain) == 0 &&
          llamp_engine_burst_sources(*e, *chain + n1) == 0 &&
          llamp_engine_chain_reads(*e, (uint8_t *)(*chain + 2 * n1)) == 0 &&
          llamp_engine_burst_ahead(*e, ahead, ahead + n1, ahead + 2 * n1) == 0);
    p->gap_prev = *chain;
    p->burst_from = *chain + n1;
    p->chain_reads = (const uint8_t *)(*chain + 2 * n1);
    p->ahead_bytes = ahead;
    p->ahead_count = ahead + n1;
    p->chain_bytes = ahead + 2 * n1;
  }
  return g;
}

/* Per-pair costs: the MIN_RUNTIME LP at three points of the topology
 * parameters (their reference values, random ones up to 1 us, l_wire =
 * d_switch = 0), T and every column's reduced cost against the engine; the
 * MAX objective along one topology parameter against llamp_engine_budget. */
static void check_pairs_case(long id, uint64_t seed, uint32_t max_ops) {
  lp_rng_t r = {(seed + 1) * 1000003u + (uint64_t)id};
  llamp_params_t p;
  llamp_netmodel_t net;
  routes_t rt;
  llamp_engine_t *e = NULL;
  uint32_t *chain = NULL;
  llamp_graph_t *g = random_case(id, seed + 1, max_ops, &r, &p, &net, &rt, &e, &chain);
  if (!g) return;
  PS.graphs++;
  for (int x = 0; x < NX; x++) cols[5 + x] = rt.q.name[x];
  ncols = 5 + NX;
  for (int k = 0; k < 3; k++) {
    llamp_params_t q = p;
    if (k == 1)
      for (int x = 0; x < NX; x++) q.x[x] = lp_rng_unif(&r) * (x == 2 ? 0.5e-6 : 1e-6);
    if (k == 2) q.x[0] = q.x[1] = 0;
    char what[160];
    snprintf(what, sizeof what, "%s, routes, L=%.6g us, l_wire=%.6g us, d_switch=%.6g us, dl_inter=%.6g us",
             (id + k) & 1 ? "mps" : "lp", q.L * US, q.x[0] * US, q.x[1] * US, q.x[2] * US);
    PS.points++;
    check_min(g, e, &q, (llamp_lp_format_t)((id + k) & 1), id, what);
  }
  llamp_param_t w = LLAMP_PARAM_X(id % NX);
  double T0 = T_along(e, &p, w, p.x[id % NX], NULL), Tz = T_along(e, &p, w, 0, NULL);
  double tmax = lp_rng_chance(&r, 0.1) ? 0.9 * Tz : T0 * (1 + 0.01 + lp_rng_unif(&r));
  check_max(g, e, &p, w, tmax, (llamp_lp_format_t)((id >> 1) & 1), id);
  ncols = 5;
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  free(chain);
}

int main(int argc, char **argv) {
  long count = argc > 1 ? atol(argv[1]) : 200;
  uint32_t max_ops = argc > 2 ? (uint32_t)atol(argv[2]) : 40;
  uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 20240601;
  int nglpk = argc > 4 ? atoi(argv[4]) : 1;
  long first = argc > 5 ? atol(argv[5]) : 0;
  if (!lp_have_glpsol()) {
    printf("glpsol not installed: skipped\n");
    return 77;
  }
  char *dir = lp_scratch_dir();
  if (!dir) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(work, sizeof work, "%s", dir);
  for (long id = first; id < first + count; id++) {
    lp_rng_t r = {seed * 1000003u + (uint64_t)id};
    llamp_params_t p;
    llamp_netmodel_t net;
    llamp_engine_t *e = NULL;
    uint32_t *chain = NULL;
    llamp_graph_t *g = random_case(id, seed, max_ops, &r, &p, &net, NULL, &e, &chain);
    if (!g) continue;
    S.graphs++;
    S.net_graphs += p.net != NULL;
    S.nic_graphs += p.nic;
    S.self_graphs += id % 4 == 1;
    S.sync_graphs += id % 6 == 5;
    int rndv = 0;
    for (uint64_t v = 0; v < llamp_graph_num_vertices(g); v++)
      rndv |= llamp_graph_kind(g, v) == LLAMP_VERTEX_SEND && llamp_graph_value(g, v) > p.S;
    S.rndv_graphs += rndv;
    S.gap_graphs += p.g > 0;
    char what[64];
    snprintf(what, sizeof what, "%s, L=%.6g us", id & 1 ? "mps" : "lp", p.L * US);
    check_min(g, e, &p, (llamp_lp_format_t)(id & 1), id, what);
    /* runtime budget: mostly feasible, sometimes below T(0) */
    double T0 = T_at(e, &p, p.L, NULL), Tz = T_at(e, &p, 0, NULL);
    double tmax = lp_rng_chance(&r, 0.1) ? 0.9 * Tz : T0 * (1 + 0.01 + lp_rng_unif(&r));
    check_max(g, e, &p, LLAMP_PARAM_L, tmax, (llamp_lp_format_t)((id >> 1) & 1), id);
    check_breakpoints(g, e, &p, 0, (5 + lp_rng_unif(&r) * 45) * 1e-6, nglpk, id);
    check_tolerance(e, &p, 1 + lp_rng_unif(&r) * 20, id);
    llamp_engine_destroy(e);
    llamp_graph_destroy(g);
    free(chain);
  }
  /* half as many graphs with per-pair costs */
  for (long id = first; id < first + (count + 1) / 2; id++) check_pairs_case(id, seed, max_ops);
  if (getenv("LLAMP_LP_KEEP")) printf("files kept in %s\n", work);
  else lp_scratch_cleanup(work);
  printf("graphs %ld (rendezvous %ld, gap %ld, size-dependent costs %ld, NIC rule %ld, messages to oneself %ld, "
         "synchronous sends %ld), glpsol runs %ld\n",
         S.graphs, S.rndv_graphs, S.gap_graphs, S.net_graphs, S.nic_graphs, S.self_graphs, S.sync_graphs,
         S.glpsol_runs);
  printf("min-runtime LPs %ld (max rel. error of T %.3g), max-latency LPs %ld (%ld infeasible, "
         "%ld unbounded; max rel. error %.3g)\n",
         S.min_checks, S.max_rel_T, S.max_checks, S.infeasible, S.unbounded, S.max_rel_budget);
  printf("reduced cost of l == engine lambda_L (right derivative) in %ld LPs; %ld LPs at a kink\n",
         S.l_exact, S.l_kinked);
  printf("critical latencies %ld, all confirmed by engine evaluations on both sides; %ld also by "
         "GLPK at x-d, x, x+d (%ld of them in exact arithmetic, %ld kinks below double precision "
         "not sent to GLPK); tolerances %ld\n",
         S.breakpoints, S.bp_glpk_confirmed, S.bp_exact, S.bp_too_close, S.tolerances);
  printf("per-pair costs (routes: %d kinds, l_wire, d_switch, dl_inter): %ld graphs, %ld min-runtime LPs "
         "(max rel. error of T %.3g), max LPs along a topology parameter %ld (%ld infeasible, %ld unbounded)\n",
         NKINDS, PS.graphs, PS.min_checks, PS.max_rel_T, PS.max_checks, PS.infeasible, PS.unbounded);
  for (int k = 1; k < 5 + NX; k++) {
    const char *nm = k < 5 ? lp_cols[k] : k == 5 ? "l_wire" : k == 6 ? "d_switch" : "dl_inter";
    printf("  %-8s reduced cost == engine lambda in %ld LPs (max rel. error %.3g), %ld at a kink (in [left, right])",
           nm, PS.lambda_checks[k], PS.max_rel_lambda[k], PS.lambda_kinked[k]);
    if (k >= 5) printf("; max-%s LP vs budget max rel. error %.3g", nm, PS.max_rel_budget[k]);
    printf("\n");
  }
  printf("GLPK floating-point mismatches resolved by glpsol --exact: %ld\n", S.exact_resolved);
  TEST_DONE();
}
