/* The LLAMP paper's running example (Fig. 4c, Eq. 6, Fig. 5-6, App. D):
 * rank 0: c0 -> S -> c1, rank 1: c2 -> R -> c3, one 4-byte message,
 * c0=0.1us c1=1us c2=0.5us c3=1us, o=0, G=5ns:  T(L) = max(L+1.115us, 1.5us). */
#include "llamp_engine.h"
#include "llamp_test.h"

static llamp_graph_t *running_example(double c0) {
  llamp_builder_t *b = llamp_builder_create(2, "running-example");
  int64_t a0 = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, c0, 0, 0, 1);
  int64_t s = llamp_builder_add(b, 0, LLAMP_VERTEX_SEND, 4, 1, 0, 2);
  int64_t a1 = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 3);
  llamp_builder_depend(b, s, a0, LLAMP_EDGE_REQUIRES, 4);
  llamp_builder_depend(b, a1, s, LLAMP_EDGE_REQUIRES, 5);
  int64_t a2 = llamp_builder_add(b, 1, LLAMP_VERTEX_CALC, 0.5e-6, 0, 0, 6);
  int64_t r = llamp_builder_add(b, 1, LLAMP_VERTEX_RECV, 4, 0, 0, 7);
  int64_t a3 = llamp_builder_add(b, 1, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 8);
  llamp_builder_depend(b, r, a2, LLAMP_EDGE_REQUIRES, 9);
  llamp_builder_depend(b, a3, r, LLAMP_EDGE_REQUIRES, 10);
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  if (!g) fprintf(stderr, "%s\n", err);
  return g;
}

int main(void) {
  char err[256];
  llamp_params_t p;
  llamp_params_default(&p);
  p.o = 0;
  p.G = 5e-9;
  p.S = 1e9;
  const double us = 1e-6, tol = 1e-15;

  /* Fig. 4b: c0 = 1us gives T = L + 2.015us, lambda_L = 1 */
  llamp_graph_t *g1 = running_example(1e-6);
  CHECK(g1 && llamp_graph_check(g1, err, sizeof err) == 0);
  llamp_engine_t *e1 = llamp_engine_create(g1, &p, err, sizeof err);
  llamp_eval_t r;
  p.L = 0.5 * us;
  CHECK(llamp_engine_eval(e1, &p, LLAMP_PARAM_L, &r) == 0);
  CHECK_CLOSE(r.T, 2.515 * us, tol);
  CHECK(r.slope_right == 1 && r.slope_left == 1);
  llamp_engine_destroy(e1);
  llamp_graph_destroy(g1);

  llamp_graph_t *g = running_example(0.1e-6);
  CHECK(g != NULL);
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e != NULL);
  p.L = 0.5 * us;
  llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r);
  CHECK_CLOSE(r.T, 1.615 * us, tol);
  CHECK(r.slope_right == 1);
  p.L = 0.3 * us;
  llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r);
  CHECK_CLOSE(r.T, 1.5 * us, tol);
  CHECK(r.slope_right == 0);
  /* at the critical latency the two derivatives differ */
  p.L = 0.385 * us;
  llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r);
  CHECK_CLOSE(r.T, 1.5 * us, tol);
  CHECK(r.slope_right == 1 && r.slope_left == 0);

  /* App. D: the only critical latency in [0.2us, 0.5us] is 0.385us */
  llamp_breakpoint_t *bp = NULL;
  size_t nbp = 0;
  int evals = 0;
  CHECK(llamp_engine_breakpoints(e, &p, LLAMP_PARAM_L, 0.2 * us, 0.5 * us, &bp, &nbp, &evals) == 0);
  CHECK(nbp == 1);
  if (nbp == 1) {
    CHECK_CLOSE(bp[0].x, 0.385 * us, tol);
    CHECK(bp[0].slope_before == 0 && bp[0].slope_after == 1);
  }
  CHECK(evals <= 3);
  free(bp);

  /* the same from the envelope on [0.2us, 1us]: one breakpoint, and the
   * budget solved on the lines */
  llamp_line_t *lines = NULL;
  size_t nl = 0;
  CHECK(llamp_engine_envelope(e, &p, LLAMP_PARAM_L, 0.2 * us, 1 * us, 0, &lines, &nl) == 0);
  CHECK(nl == 2);
  double xb = 0;
  CHECK(llamp_engine_envelope_solve(lines, nl, 0.2 * us, 1 * us, 2 * us, &xb) == 1);
  CHECK_CLOSE(xb, 0.885 * us, tol);
  CHECK(llamp_engine_envelope_solve(lines, nl, 0.2 * us, 1 * us, 3 * us, &xb) == 0); /* beyond 1us */
  CHECK(llamp_engine_envelope_solve(lines, nl, 0.2 * us, 1 * us, 1.4 * us, &xb) == 0); /* T(0.2) > 1.4 */
  double Te, se;
  llamp_engine_envelope_eval(lines, nl, 0.5 * us, &Te, &se);
  CHECK_CLOSE(Te, 1.615 * us, tol);
  CHECK(se == 1);
  free(lines);

  /* Fig. 6: a 2us budget allows L = 0.885us */
  double L = 0;
  int unb = 0;
  p.L = 0.5 * us;
  CHECK(llamp_engine_budget(e, &p, LLAMP_PARAM_L, 2 * us, &L, &unb, NULL) == 0);
  CHECK(!unb);
  CHECK_CLOSE(L, 0.885 * us, tol);
  /* a budget below T(0) = 1.5us is infeasible */
  CHECK(llamp_engine_budget(e, &p, LLAMP_PARAM_L, 1.4 * us, &L, &unb, NULL) == -1);

  /* lambda_G on the critical path = (s-1) = 3 bytes; lambda_o: o on S and R */
  llamp_point_t pt;
  p.L = 0.5 * us;
  CHECK(llamp_engine_point(e, &p, &pt) == 0);
  CHECK(pt.lambda[LLAMP_PARAM_G] == 3);
  CHECK(pt.lambda[LLAMP_PARAM_O] == 2);
  CHECK_CLOSE(pt.t_compute, 1.1 * us, tol);
  CHECK_CLOSE(pt.t_latency, 0.5 * us, tol);
  CHECK_CLOSE(pt.t_bandwidth, 0.015 * us, tol);
  CHECK_CLOSE(pt.rho_L, 0.5 / 1.615, 1e-12);
  CHECK(pt.path_vertices == 4);

  /* the one-pass sweep agrees with single evaluations */
  double xs[5] = {0, 0.2 * us, 0.385 * us, 0.5 * us, 2 * us}, T[5], sl[5];
  CHECK(llamp_engine_sweep(e, &p, LLAMP_PARAM_L, xs, 5, T, sl) == 0);
  for (int k = 0; k < 5; k++) {
    p.L = xs[k];
    llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r);
    CHECK_CLOSE(T[k], r.T, tol);
    CHECK(sl[k] == r.slope_right);
  }
  /* the affine costs: the message edge is L + (s-1)G = L + 3G, send and
   * receive cost o, calc its duration */
  for (uint64_t v = 0; v < llamp_graph_num_vertices(g); v++) {
    llamp_affine_t c;
    CHECK(llamp_engine_vertex_cost(e, v, &c) == 0);
    if (llamp_graph_kind(g, v) == LLAMP_VERTEX_CALC)
      CHECK(c.c0 == llamp_graph_value(g, v) && c.nL == 0 && c.no == 0);
    else
      CHECK(c.c0 == 0 && c.no == 1 && c.nL == 0 && c.nG == 0);
    uint64_t first, last;
    llamp_graph_in_edges(g, v, &first, &last);
    for (uint64_t i = 0; i < last - first; i++) {
      int fs = -1;
      CHECK(llamp_engine_edge_cost(e, v, i, &c, &fs) == 0 && fs == 0);
      if (llamp_graph_edge_kind(g, first + i) == LLAMP_EDGE_MESSAGE)
        CHECK(c.c0 == 0 && c.nL == 1 && c.nG == 3 && c.no == 0);
      else
        CHECK(c.c0 == 0 && c.nL == 0 && c.nG == 0);
    }
  }
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  TEST_DONE();
}
