/* The engine's algorithms against each other on random trace-like graphs:
 * single evaluations, the lane pass, the parametric (envelope) pass and
 * Eisner-Severance must agree; every critical latency is confirmed by
 * evaluations on both sides; budget answers satisfy their definition.
 * Eager, rendezvous (small S) and gap (g > 0) variants. */
#include <stdlib.h>
#include <string.h>

#include "lanes_check.h"
#include "llamp_engine.h"
#include "llamp_synth.h"
#include "llamp_test.h"

static double rel(double a, double b) { return fabs(a - b) / fmax(1e-30, fmax(fabs(a), fabs(b))); }

/* llamp_engine_point's one pass for every parameter against one pass per
 * parameter (llamp_engine_eval), bit for bit; and the critical path it
 * leaves behind is the L pass's. */
static int lanes_with_overhead, lanes_checked;

/* The critical path right after a point (its pass reused) and after a pass
 * in another parameter (run again): the same per-rank times and pairs. */
static void check_path_reuse(llamp_engine_t *e, const llamp_graph_t *g, const llamp_params_t *p) {
  uint32_t P = llamp_graph_num_ranks(g);
  double *a = calloc(P, sizeof *a), *b = calloc(P, sizeof *b);
  llamp_pair_lambda_t *pa = NULL, *pb = NULL;
  size_t na = 0, nb = 0;
  llamp_point_t pt;
  llamp_eval_t r;
  CHECK(llamp_engine_point(e, p, &pt) == 0);
  CHECK(llamp_engine_path_by_rank(e, p, a) == 0);
  CHECK(llamp_engine_pair_lambda(e, p, &pa, &na) == 0);
  CHECK(llamp_engine_eval(e, p, LLAMP_PARAM_G, &r) == 0); /* the work arrays now hold G's pass */
  CHECK(llamp_engine_path_by_rank(e, p, b) == 0);
  CHECK(llamp_engine_eval(e, p, LLAMP_PARAM_O, &r) == 0);
  CHECK(llamp_engine_pair_lambda(e, p, &pb, &nb) == 0);
  CHECK(memcmp(a, b, P * sizeof *a) == 0);
  CHECK(na == nb && (na == 0 || memcmp(pa, pb, na * sizeof *pa) == 0));
  free(a);
  free(b);
  free(pa);
  free(pb);
}

static void check_point(llamp_engine_t *e, const llamp_graph_t *g, const llamp_params_t *p) {
  llamp_point_t pt, again;
  /* the classification's points in one pass, before and after the rest */
  lanes_with_overhead += check_points_lg(e, p);
  lanes_checked += 7;
  check_path_reuse(e, g, p);
  CHECK(llamp_engine_point(e, p, &pt) == 0);
  for (int x = 0; x < LLAMP_NUM_PARAMS; x++) {
    if (x == LLAMP_PARAM_GAP && !(p->g > 0)) continue;
    llamp_eval_t r;
    CHECK(llamp_engine_eval(e, p, (llamp_param_t)x, &r) == 0);
    CHECK(r.T == pt.T && r.slope_right == pt.lambda[x] && r.slope_left == pt.lambda_left[x]);
  }
  for (uint32_t x = 0; p->pairs && x < p->pairs->num_params; x++) { /* the routes' parameters */
    llamp_eval_t r;
    CHECK(llamp_engine_eval(e, p, LLAMP_PARAM_X(x), &r) == 0);
    CHECK(r.T == pt.T && r.slope_right == pt.lambda_x[x] && r.slope_left == pt.lambda_x_left[x]);
  }
  /* once more after the separate passes (the work arrays in another state):
   * the same report, breakdown and path included */
  CHECK(llamp_engine_point(e, p, &again) == 0);
  CHECK(memcmp(&pt, &again, sizeof pt) == 0);
  check_points_lg(e, p);
}

static void check_graph(llamp_graph_t *g, llamp_params_t p, llamp_param_t w, double lo, double hi,
                        int *nbreak_total, int *pruned_checked) {
  char err[256];
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  if (!e) { /* rendezvous may make a random graph cyclic only if it deadlocks; synth avoids it */
    fprintf(stderr, "engine: %s\n", err);
    CHECK(0);
    return;
  }
  check_point(e, g, &p);
  /* sweep: parametric vs lanes vs single evaluations */
  enum { K = 9 };
  double xs[K], T1[K], s1[K], T2[K], s2[K];
  for (int k = 0; k < K; k++) xs[k] = lo + (hi - lo) * k / (K - 1);
  CHECK(llamp_engine_sweep(e, &p, w, xs, K, T1, s1) == 0);
  CHECK(llamp_engine_sweep_lanes(e, &p, w, xs, K, T2, s2) == 0);
  for (int k = 0; k < K; k++) {
    llamp_params_t q = p;
    llamp_params_set(&q, w, xs[k]);
    llamp_eval_t r;
    CHECK(llamp_engine_eval(e, &q, w, &r) == 0);
    CHECK(rel(r.T, T1[k]) < 1e-11);
    CHECK(rel(r.T, T2[k]) < 1e-11);
    CHECK(r.slope_right == s2[k]);
    CHECK(r.slope_right == s1[k]);
  }
  /* 2-D sweep (llamp_engine_sweep_grid) against single evaluations at each
   * grid point: 9 x 8 = 72 points, two passes of lanes (64 + 8) */
  {
    enum { N1 = 9, N2 = 8 };
    llamp_param_t w2 = w == LLAMP_PARAM_L ? LLAMP_PARAM_G : LLAMP_PARAM_L;
    double base2 = llamp_params_get(&p, w2), span2 = w2 == LLAMP_PARAM_G ? 1e-9 : 5e-6;
    double y[N2], TG[N1 * N2], sG[N1 * N2];
    for (int j = 0; j < N2; j++) y[j] = base2 + span2 * j / (N2 - 1);
    CHECK(llamp_engine_sweep_grid(e, &p, w, xs, N1, w2, y, N2, TG, sG) == 0);
    CHECK(llamp_engine_sweep_grid(e, &p, w, xs, N1, w, y, N2, TG, sG) == -1);
    for (int k = 0; k < N1 * N2; k++) {
      llamp_params_t q = p;
      llamp_params_set(&q, w, xs[k / N2]);
      llamp_params_set(&q, w2, y[k % N2]);
      llamp_eval_t r;
      CHECK(llamp_engine_eval(e, &q, w, &r) == 0);
      CHECK(rel(r.T, TG[k]) < 1e-11);
      CHECK(r.slope_right == sG[k]);
    }
  }
  /* breakpoints: parametric vs Eisner-Severance, each confirmed */
  llamp_breakpoint_t *a = NULL, *b = NULL;
  size_t na = 0, nb = 0;
  CHECK(llamp_engine_breakpoints(e, &p, w, lo, hi, &a, &na, NULL) == 0);
  CHECK(llamp_engine_breakpoints_es(e, &p, w, lo, hi, &b, &nb, NULL) == 0);
  CHECK(na == nb);
  for (size_t i = 0; i < na && i < nb; i++) {
    /* two lines cross at x = db/da: the error scales with T / (slope change) */
    double xtol = 1e-9 * (hi - lo) + 1e-11 * a[i].T / (a[i].slope_after - a[i].slope_before);
    CHECK(fabs(a[i].x - b[i].x) <= xtol);
    if (fabs(a[i].x - b[i].x) > xtol)
      fprintf(stderr, "  breakpoint %zu: parametric %.17g (%g->%g) ES %.17g (%g->%g)\n", i, a[i].x,
              a[i].slope_before, a[i].slope_after, b[i].x, b[i].slope_before, b[i].slope_after);
    CHECK(a[i].slope_before == b[i].slope_before && a[i].slope_after == b[i].slope_after);
  }
  /* the breakpoints as envelope lines (what the capture uses when the
   * parametric pass gives up): the same T and right slope as the sweep */
  {
    llamp_params_t q = p;
    llamp_eval_t r0;
    llamp_params_set(&q, w, lo);
    CHECK(llamp_engine_eval(e, &q, w, &r0) == 0);
    llamp_line_t *bl = NULL;
    size_t nbl = 0;
    CHECK(llamp_engine_breakpoint_lines(b, nb, lo, r0.T, r0.slope_right, &bl, &nbl) == 0);
    CHECK(nbl == nb + 1);
    for (int k = 0; k < K && bl; k++) {
      double Tk, sk;
      llamp_engine_envelope_eval(bl, nbl, xs[k], &Tk, &sk);
      CHECK(rel(Tk, T1[k]) < 1e-9);
      /* at a breakpoint the right slope may be either piece's within rounding */
      int at_bp = 0;
      for (size_t i = 0; i < nb; i++) at_bp |= fabs(b[i].x - xs[k]) <= 1e-9 * (hi - lo);
      if (!at_bp) CHECK(sk == s1[k]);
    }
    free(bl);
  }
  for (size_t i = 0; i < na; i++) {
    llamp_params_t q = p;
    llamp_eval_t r;
    double x = a[i].x, d = 1e-6 * (hi - lo);
    llamp_params_set(&q, w, x);
    llamp_engine_eval(e, &q, w, &r);
    CHECK(rel(r.T, a[i].T) < 1e-10);
    CHECK(r.slope_left == a[i].slope_before && r.slope_right == a[i].slope_after);
    if (x - d > lo && (i == 0 || a[i - 1].x < x - d)) {
      llamp_params_set(&q, w, x - d);
      llamp_engine_eval(e, &q, w, &r);
      CHECK(r.slope_right == a[i].slope_before);
    }
    if (x + d < hi && (i + 1 == na || a[i + 1].x > x + d)) {
      llamp_params_set(&q, w, x + d);
      llamp_engine_eval(e, &q, w, &r);
      CHECK(r.slope_left == a[i].slope_after);
    }
  }
  /* the pruned parametric pass (forced by a one-line-per-vertex budget for
   * the plain pass) gives the same envelope breakpoints */
  llamp_line_t *lines = NULL;
  size_t nl = 0;
  if (llamp_engine_envelope(e, &p, w, lo, hi, 1, &lines, &nl) == 0) {
    CHECK(nl == na + 1);
    for (size_t i = 0; i + 1 < nl && i < na; i++) {
      double x = (lines[i].b - lines[i + 1].b) / (lines[i + 1].a - lines[i].a);
      double xtol = 1e-9 * (hi - lo) + 1e-11 * a[i].T / (a[i].slope_after - a[i].slope_before);
      CHECK(fabs(x - a[i].x) <= xtol);
      CHECK(lines[i].a == a[i].slope_before && lines[i + 1].a == a[i].slope_after);
    }
    (*pruned_checked)++;
  }
  free(lines);
  *nbreak_total += (int)na;
  free(a);
  free(b);
  /* budget: largest x with T(x) <= (1 + 2 %) T(p) */
  llamp_eval_t r0;
  llamp_engine_eval(e, &p, w, &r0);
  double tmax = 1.02 * r0.T, x;
  int unb;
  CHECK(llamp_engine_budget(e, &p, w, tmax, &x, &unb, NULL) == 0);
  if (!unb) {
    llamp_params_t q = p;
    llamp_eval_t r;
    llamp_params_set(&q, w, x);
    llamp_engine_eval(e, &q, w, &r);
    CHECK(r.T <= tmax * (1 + 1e-11));
    llamp_params_set(&q, w, x * (1 + 1e-7) + 1e-15);
    llamp_engine_eval(e, &q, w, &r);
    CHECK(r.T > tmax);
  }
  llamp_engine_destroy(e);
}

/* A graph whose in-edges stay near but for a few that reach past the fused
 * passes' ring (ring_plan keeps their sources' coefficients apart): rank 0
 * posts an Irecv from rank 2 in each of its first `far` iterations of a
 * ping-pong with rank 1, and rank 2 sends those messages only at the end,
 * after a long compute; the receives sit at the graph's end, their posts
 * near its start, and so does rank 2's first send, its compute near the
 * start (that edge is tight: a wrong far slot changes lambda_G). */
static llamp_graph_t *far_edges_graph(int iters, int far) {
  llamp_builder_t *bd = llamp_builder_create(3, "far_edges");
  int64_t prev = llamp_builder_add(bd, 0, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 0), early[8];
  for (int i = 0; i < iters; i++) {
    int64_t x = llamp_builder_add(bd, 0, LLAMP_VERTEX_CALC, 0.5e-6 + 1e-8 * (i % 7), 0, 0, 0);
    llamp_builder_depend(bd, x, prev, LLAMP_EDGE_REQUIRES, 0);
    if (i < far) {
      early[i] = llamp_builder_add(bd, 0, LLAMP_VERTEX_RECV, 512 + 64 * i, 2, 7, 0);
      llamp_builder_depend(bd, early[i], x, LLAMP_EDGE_IREQUIRES, 0);
    }
    int64_t s = llamp_builder_add(bd, 0, LLAMP_VERTEX_SEND, 1024, 1, 0, 0);
    int64_t r = llamp_builder_add(bd, 0, LLAMP_VERTEX_RECV, 1024, 1, 0, 0);
    llamp_builder_depend(bd, s, x, LLAMP_EDGE_REQUIRES, 0);
    llamp_builder_depend(bd, r, s, LLAMP_EDGE_REQUIRES, 0);
    prev = r;
  }
  int64_t last = llamp_builder_add(bd, 0, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 0);
  llamp_builder_depend(bd, last, prev, LLAMP_EDGE_REQUIRES, 0);
  for (int i = 0; i < far; i++) llamp_builder_depend(bd, last, early[i], LLAMP_EDGE_REQUIRES, 0);
  prev = -1;
  for (int i = 0; i < iters; i++) {
    int64_t r = llamp_builder_add(bd, 1, LLAMP_VERTEX_RECV, 1024, 0, 0, 0);
    int64_t s = llamp_builder_add(bd, 1, LLAMP_VERTEX_SEND, 1024, 0, 0, 0);
    if (prev >= 0) llamp_builder_depend(bd, r, prev, LLAMP_EDGE_REQUIRES, 0);
    llamp_builder_depend(bd, s, r, LLAMP_EDGE_REQUIRES, 0);
    prev = s;
  }
  prev = llamp_builder_add(bd, 2, LLAMP_VERTEX_CALC, iters * 8e-6, 0, 0, 0);
  for (int i = 0; i < far; i++) {
    int64_t s = llamp_builder_add(bd, 2, LLAMP_VERTEX_SEND, 512 + 64 * i, 0, 7, 0);
    llamp_builder_depend(bd, s, prev, LLAMP_EDGE_REQUIRES, 0);
    prev = s;
  }
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(bd, err, sizeof err);
  if (!g) fprintf(stderr, "builder: %s\n", err);
  return g;
}

/* the point, the separate passes and the lanes agree on it, with the graph
 * in place and through the NIC rule's plan; and whether rank 2's compute or
 * the ping-pong is the longer, T is the one the far edges allow */
static void check_far_edges(void) {
  enum { ITERS = 3000, FAR = 5 };
  llamp_graph_t *g = far_edges_graph(ITERS, FAR);
  CHECK(g != NULL);
  if (!g) return;
  CHECK(llamp_graph_reach(g) > 8192); /* past the ring the passes use below 8 Ki */
  char err[256];
  for (int nic = 0; nic < 2; nic++)
    for (int slow = 0; slow < 2; slow++) {
      llamp_params_t p;
      llamp_params_default(&p);
      p.nic = nic;
      p.L = slow ? 5e-6 : 1e-6; /* a slow network: the ping-pong ends last */
      p.o = 0.2e-6;
      llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
      CHECK(e != NULL);
      if (!e) continue;
      check_point(e, g, &p);
      llamp_point_t pt;
      CHECK(llamp_engine_point(e, &p, &pt) == 0);
      /* each iteration of rank 0: its calc, o + L + 1023 G + o there and
       * back (at least); rank 2's compute alone is ITERS x 8 us */
      double pingpong = ITERS * (0.5e-6 + 2 * (2 * p.o + p.L + 1023 * p.G));
      CHECK(pt.T >= (slow ? pingpong : ITERS * 8e-6));
      CHECK(pt.lambda[LLAMP_PARAM_L] == (slow ? 2 * ITERS : 1)); /* one message after the compute */
      llamp_engine_destroy(e);
    }
  llamp_graph_destroy(g);
}

/* The classification's lanes four a vector: they run only when no
 * overhead can be on the path (o = 0, every message eager), so the graphs
 * above (o > 0, or rendezvous messages) leave them out.  Random graphs and
 * the far-edge graph, with the NIC rule, gap edges and s G charges in turn. */
static void check_lanes4(void) {
  char err[256], params[256];
  llamp_graph_t *far = far_edges_graph(3000, 5);
  CHECK(far != NULL);
  for (int seed = 1; seed <= 24; seed++) {
    snprintf(params, sizeof params, "ranks=%d,ops=%d,seed=%d,compute=%dus", 2 + seed % 7, 40 + (seed * 29) % 200,
             100 + seed, 1 + seed % 4);
    llamp_graph_t *g = seed <= 2 ? far : llamp_synth_graph("random", params, err, sizeof err);
    CHECK(g != NULL);
    if (!g) continue;
    llamp_params_t p;
    llamp_params_default(&p);
    p.o = 0;
    p.S = 1u << 30; /* every message eager */
    p.nic = seed % 2;
    p.g = seed % 4 == 3 ? 0.5e-6 : 0;
    p.size_g_full = seed % 5 == 4;
    llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
    CHECK(e != NULL);
    if (e) {
      check_points_lg(e, &p);
      lanes_checked += 7;
    }
    llamp_engine_destroy(e);
    if (g != far) llamp_graph_destroy(g);
  }
  llamp_graph_destroy(far);
}

int main(void) {
  char err[256], params[256];
  int graphs = 0, breaks = 0, pruned = 0, xparam_breaks = 0;
  check_far_edges();
  check_lanes4();
  for (int seed = 1; seed <= 40; seed++) {
    snprintf(params, sizeof params, "ranks=%d,ops=%d,seed=%d,compute=%dus", 2 + seed % 7,
             40 + (seed * 37) % 200, seed, 1 + seed % 5);
    llamp_graph_t *g = llamp_synth_graph("random", params, err, sizeof err);
    if (!g) {
      fprintf(stderr, "%s\n", err);
      CHECK(0);
      continue;
    }
    { /* the NIC rule's plan (gap and burst edges) through the point */
      llamp_params_t p;
      llamp_params_default(&p);
      p.nic = 1;
      p.S = 4096;
      llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
      CHECK(e != NULL);
      if (e) check_point(e, g, &p);
      llamp_engine_destroy(e);
    }
    for (int variant = 0; variant < 4; variant++) {
      llamp_params_t p;
      llamp_params_default(&p);
      p.o = 0.3e-6 * (seed % 3);
      if (variant == 1) p.S = 4096;     /* many rendezvous messages */
      if (variant == 2) p.g = 0.5e-6;   /* gap edges */
      if (variant == 3) p.size_g_full = 1;
      llamp_param_t w = variant == 3 ? LLAMP_PARAM_G : LLAMP_PARAM_L;
      if (w == LLAMP_PARAM_G) check_graph(g, p, w, 0, 2e-9, &breaks, &pruned);
      else check_graph(g, p, w, 0, 3e-6, &breaks, &pruned);
      graphs++;
    }
    llamp_graph_destroy(g);
  }
  printf("%d graph/parameter combinations, %d critical latencies confirmed, %d pruned envelopes\n",
         graphs, breaks, pruned);
  printf("%d classification points in one pass, %d with overhead on the path: bit for bit point_of's\n",
         lanes_checked, lanes_with_overhead);
  CHECK(lanes_with_overhead > lanes_checked / 4);
  /* and the four-wide pass ran where it can (o = 0 and eager only) */
  printf("%d of them four lanes a vector (available here: %d), all again one lane at a time\n", lanes_vector_passes,
         llamp_engine_lanes4_available());
  if (llamp_engine_lanes4_available()) CHECK(lanes_vector_passes > 0);
  CHECK(pruned > graphs / 2);
  CHECK(breaks > 50); /* the graphs really exercise breakpoints */
  /* Critical values along a route parameter (--wrt l_wire): per-pair costs
   * whose latency terms weigh x0 by 1, 2 or 4 depending on the pair.  The
   * pruned pass's backward pass evaluates its lanes at different x0; each
   * lane needs its own per-kind latencies (they are derived from x0). */
  for (int seed = 1; seed <= 6; seed++) {
    char params[128];
    snprintf(params, sizeof params, "ranks=6,ops=%d,seed=%d,compute=2us", 300 + 50 * seed, 100 + seed);
    llamp_graph_t *g = llamp_synth_graph("random", params, err, sizeof err);
    CHECK(g != NULL);
    if (!g) continue;
    enum { P = 6 };
    uint32_t pk[P * P];
    double c0[3] = {0.3e-6, 0.1e-6, 0.7e-6}, coef[3] = {1, 2, 4}, gs[3] = {1, 1.5, 0.5}, sl[P], sg[P];
    llamp_pairs_t q;
    memset(&q, 0, sizeof q);
    q.ranks = P;
    q.num_params = 1;
    q.num_kinds = 3;
    snprintf(q.name[0], sizeof q.name[0], "l_wire");
    q.ref[0] = 0.2e-6;
    for (int i = 0; i < P * P; i++) pk[i] = (uint32_t)((i / P + i % P) % 3);
    for (int r = 0; r < P; r++) sl[r] = 0.4e-6, sg[r] = 0.05e-9;
    q.pair_kind = pk, q.c0 = c0, q.coef = coef, q.gscale = gs, q.self_lat = sl, q.self_G = sg;
    llamp_params_t p;
    llamp_params_default(&p);
    p.pairs = &q;
    p.x[0] = q.ref[0];
    llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
    CHECK(e != NULL);
    llamp_breakpoint_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    int evals = 0, es_evals = 0;
    double lo = 0, hi = 5e-6;
    llamp_param_t w = LLAMP_PARAM_X(0);
    CHECK(e && llamp_engine_breakpoints(e, &p, w, lo, hi, &a, &na, &evals) == 0);
    CHECK(e && llamp_engine_breakpoints_es(e, &p, w, lo, hi, &b, &nb, &es_evals) == 0);
    CHECK(evals == 1); /* the parametric pass (pruned), not the fallback */
    CHECK(na == nb);
    for (size_t i = 0; i < na && i < nb; i++) {
      double xtol = 1e-9 * (hi - lo) + 1e-11 * a[i].T / (a[i].slope_after - a[i].slope_before);
      CHECK(fabs(a[i].x - b[i].x) <= xtol);
      CHECK(a[i].slope_before == b[i].slope_before && a[i].slope_after == b[i].slope_after);
    }
    xparam_breaks += (int)na;
    free(a);
    free(b);
    llamp_engine_destroy(e);
    llamp_graph_destroy(g);
  }
  printf("%d critical l_wire values on 6 random graphs with per-pair costs, as Eisner-Severance's\n",
         xparam_breaks);
  CHECK(xparam_breaks > 10);
  /* A graph whose vertices hold 30-60 envelope lines each on [0, 20 us] (64 k
   * events): kept to the end that was over the pruned pass's budget of 16 a
   * vertex, and the capture fell back to Eisner-Severance.  With the lines
   * nobody reads any more dropped, one pass gives every breakpoint.  These
   * graphs take the last pruning step, in two parts (envelope_parts; seeds
   * 3, 5, 7 cut at 7.1, 7.0, 6.9 us). */
  for (int run = 0; run < 6; run++) {
    int seed = 3 + 2 * (run % 3), cut = run >= 3;
    char spec[64];
    snprintf(spec, sizeof spec, "ranks=16,ops=4000,seed=%d", seed);
    /* the second time with a budget of half a line a vertex: the parts are cut
     * again and again (envelope_parts' rounds, which larger graphs take),
     * the answer the same */
    if (cut) setenv("LLAMP_ENVELOPE_PART_AVG", "0.5", 1);
    llamp_graph_t *g = llamp_synth_graph("random", spec, err, sizeof err);
    CHECK(g != NULL);
    llamp_params_t p;
    llamp_params_default(&p);
    llamp_engine_t *e = g ? llamp_engine_create(g, &p, err, sizeof err) : NULL;
    CHECK(e != NULL);
    llamp_breakpoint_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    int evals = 0, es_evals = 0;
    double lo = 0, hi = 20e-6;
    CHECK(e && llamp_engine_breakpoints(e, &p, LLAMP_PARAM_L, lo, hi, &a, &na, &evals) == 0);
    CHECK(evals == 1); /* the parametric pass, not the fallback */
    CHECK(e && llamp_engine_breakpoints_es(e, &p, LLAMP_PARAM_L, lo, hi, &b, &nb, &es_evals) == 0);
    CHECK(na == nb && na > 50);
    for (size_t i = 0; i < na && i < nb; i++) {
      double xtol = 1e-9 * (hi - lo) + 1e-11 * a[i].T / (a[i].slope_after - a[i].slope_before);
      CHECK(fabs(a[i].x - b[i].x) <= xtol);
      CHECK(a[i].slope_before == b[i].slope_before && a[i].slope_after == b[i].slope_after);
    }
    printf("%s random graph%s: %zu critical latencies in one pass (Eisner-Severance: %d)\n", spec,
           cut ? ", parts cut" : "", na, es_evals);
    unsetenv("LLAMP_ENVELOPE_PART_AVG");
    free(a);
    free(b);
    llamp_engine_destroy(e);
    llamp_graph_destroy(g);
  }
  TEST_DONE();
}
