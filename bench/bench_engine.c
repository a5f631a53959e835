/* Engine speed on a generated halo graph: one T(L) evaluation (edges/s), an
 * 11-point one-pass sweep, and all critical latencies in a range, printed as
 * ratios to one evaluation measured in the same run (no absolute targets are
 * asserted: machines are shared and noisy).
 * usage: bench_engine [GRAPH | pattern params]   default: halo3d ~10 M events */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llamp_engine.h"
#include "llamp_goal.h"
#include "llamp_synth.h"

/* CPU time of this process: less disturbed by other jobs on a shared machine
 * than wall time (single-threaded code, so the two agree on a quiet machine). */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Best of `reps` runs of fn (minimum: the least disturbed run). */
#define TIME_BEST(reps, out, code)                  \
  do {                                              \
    out = INFINITY;                                 \
    for (int _r = 0; _r < (reps); _r++) {           \
      double _t = now();                            \
      code;                                         \
      double _d = now() - _t;                       \
      if (_d < out) out = _d;                       \
    }                                               \
  } while (0)

int main(int argc, char **argv) {
  char err[1024];
  const char *pattern = "halo3d";
  const char *params = "px=8,py=8,pz=8,iters=1500,bytes=8KiB,compute=10us";
  llamp_graph_t *g;
  double t0 = now();
  if (argc == 2) {
    g = llamp_graph_is_binary(argv[1]) == 1 ? llamp_graph_read_binary(argv[1], err, sizeof err)
                                            : llamp_goal_read(argv[1], NULL, err, sizeof err);
  } else {
    if (argc == 3) pattern = argv[1], params = argv[2];
    g = llamp_synth_graph(pattern, params, err, sizeof err);
  }
  if (!g) {
    fprintf(stderr, "bench_engine: %s\n", err);
    return 1;
  }
  double tbuild = now() - t0;
  uint64_t n = llamp_graph_num_vertices(g), m = llamp_graph_num_edges(g);
  printf("graph: %s %s: %llu events, %llu edges, %u ranks (built in %.2f s)\n",
         argc == 2 ? argv[1] : pattern, argc == 2 ? "" : params, (unsigned long long)n,
         (unsigned long long)m, llamp_graph_num_ranks(g), tbuild);
  llamp_params_t p;
  llamp_params_default(&p);
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  if (!e) {
    fprintf(stderr, "bench_engine: %s\n", err);
    return 1;
  }
  llamp_eval_t r;
  if (getenv("BENCH_EVAL_ONLY")) { /* for bench_glpsol.sh: best of 20 evaluations, parameters from env */
    if (getenv("BENCH_O")) p.o = atof(getenv("BENCH_O"));
    double t_best = INFINITY;
    for (int i = 0; i < 20; i++) {
      double t0 = now();
      llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r);
      t_best = fmin(t_best, now() - t0);
    }
    printf("eval_seconds %.9f\nT_seconds %.12g\nlambda_L %g\n", t_best, r.T, r.slope_right);
    /* exact, for comparing two builds bit for bit (bench_scale.sh REF_BENCH) */
    printf("T_hex %a\nlambda_L_hex %a\n", r.T, r.slope_right);
    llamp_engine_destroy(e);
    llamp_graph_destroy(g);
    return 0;
  }
  double xs[11], T[11], sl[11];
  for (int k = 0; k < 11; k++) xs[k] = k * 1e-6;
  double lo = 0, hi = 200e-6;
  if (getenv("BENCH_RANGE_HI")) hi = atof(getenv("BENCH_RANGE_HI")) * 1e-6;
  llamp_breakpoint_t *bp = NULL;
  size_t nbp = 0;
  int evals = 0;
  /* warm-up (allocation, page faults), then interleaved rounds, best of each */
  llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r);
  llamp_engine_sweep(e, &p, LLAMP_PARAM_L, xs, 11, T, sl);
  double t_eval = INFINITY, t_sweep = INFINITY, t_lanes = INFINITY, t_bp = INFINITY, t_es = INFINITY;
  int rounds = getenv("BENCH_ROUNDS") ? atoi(getenv("BENCH_ROUNDS")) : 5;
  size_t nbp_es = 0;
  for (int round = 0; round < rounds; round++) {
    double t;
    TIME_BEST(1, t, llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r));
    t_eval = fmin(t_eval, t);
    TIME_BEST(1, t, llamp_engine_sweep(e, &p, LLAMP_PARAM_L, xs, 11, T, sl));
    t_sweep = fmin(t_sweep, t);
    TIME_BEST(1, t, {
      free(bp);
      llamp_engine_breakpoints(e, &p, LLAMP_PARAM_L, lo, hi, &bp, &nbp, &evals);
    });
    t_bp = fmin(t_bp, t);
    if (round == 0) { /* the slow references once */
      double T2[11], sl2[11];
      TIME_BEST(1, t_lanes, llamp_engine_sweep_lanes(e, &p, LLAMP_PARAM_L, xs, 11, T2, sl2));
      llamp_breakpoint_t *bp2 = NULL;
      int ev2 = 0;
      TIME_BEST(1, t_es, llamp_engine_breakpoints_es(e, &p, LLAMP_PARAM_L, lo, hi, &bp2, &nbp_es, &ev2));
      free(bp2);
    }
  }
  printf("one evaluation T(L), lambda_L: %8.3f s  %7.1f M edges/s  %7.1f M events/s  (T=%.6g s, lambda_L=%g)  (target >= 50 M edges/s)\n",
         t_eval, m / t_eval / 1e6, n / t_eval / 1e6, r.T, r.slope_right);
  /* the sweep must agree with single evaluations */
  int bad = 0;
  for (int k = 0; k < 11; k += 5) {
    p.L = xs[k];
    llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r);
    bad += fabs(r.T - T[k]) > 1e-12 * r.T || r.slope_right != sl[k];
  }
  llamp_params_default(&p);
  printf("11-point L sweep, one pass:    %8.3f s  = %5.2f x one evaluation  (target <= 2; lane pass: %.2f x)%s\n",
         t_sweep, t_sweep / t_eval, t_lanes / t_eval, bad ? "  MISMATCH" : "");
  printf("critical latencies in [%g, %g] us: %zu breakpoints, %8.3f s = %5.2f x one evaluation  (target <= 3 for <= 20; Eisner-Severance: %.2f x)%s\n",
         lo * 1e6, hi * 1e6, nbp, t_bp, t_bp / t_eval, t_es / t_eval, nbp != nbp_es ? "  MISMATCH" : "");
  bad += nbp != nbp_es;
  free(bp);
  if (!getenv("BENCH_NO_NET")) {
    /* size-dependent costs (SimGrid's default factors and some overheads):
     * computed once per vertex at creation, then the same passes */
    llamp_netmodel_t net;
    llamp_netmodel_init(&net);
    net.L_ref = p.L;
    net.G_ref = p.G;
    llamp_netmodel_parse_factor("65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;"
                                "1426:1.61075;732:1.9503;257:1.95341;0:2.01467", "lat", 16, &net.lat_factor, err, sizeof err);
    llamp_netmodel_parse_factor("65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;"
                                "1426:0.608902;732:0.341987;257:0.338112;0:0.812084", "bw", 16, &net.bw_factor, err, sizeof err);
    llamp_netmodel_parse_overhead("0:1e-6:1e-10;1024:2e-6:0", "os", &net.o_send, err, sizeof err);
    llamp_netmodel_parse_overhead("0:1e-6:1e-10;1024:2e-6:0", "or", &net.o_recv, err, sizeof err);
    llamp_params_t q = p;
    q.net = &net;
    double t_create, t_pw = INFINITY, t_pw_sweep = INFINITY;
    llamp_engine_t *ep = NULL;
    TIME_BEST(1, t_create, ep = llamp_engine_create(g, &q, err, sizeof err));
    if (ep) {
      llamp_engine_eval(ep, &q, LLAMP_PARAM_L, &r);
      for (int round = 0; round < rounds; round++) {
        double t;
        TIME_BEST(1, t, llamp_engine_eval(ep, &q, LLAMP_PARAM_L, &r));
        t_pw = fmin(t_pw, t);
        TIME_BEST(1, t, llamp_engine_sweep(ep, &q, LLAMP_PARAM_L, xs, 11, T, sl));
        t_pw_sweep = fmin(t_pw_sweep, t);
      }
      printf("size-dependent costs: engine creation %.3f s, one evaluation %8.3f s = %5.2f x the scalar one, "
             "11-point sweep %.2f x (T=%.6g s)\n", t_create, t_pw, t_pw / t_eval, t_pw_sweep / t_eval, r.T);
      llamp_engine_destroy(ep);
    }
  }
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  return bad;
}
