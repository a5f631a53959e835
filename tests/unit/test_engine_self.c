/* Messages to oneself (docs/model.md, "Messages to oneself"): they never
 * cross the network, so no L, no G and no topology parameter; their latency
 * and time per byte are the constants of the host's route to itself (per-pair
 * costs) or 0.  Hand-checked on a token ring where rank 1 sends to itself on
 * the way, with and without per-pair costs and size-dependent costs, eager
 * and rendezvous, through every engine path, and through the LP export
 * solved by GLPK (when glpsol is installed). */
#include "llamp_engine.h"
#include "llamp_lp.h"
#include "llamp_netmodel.h"
#include "llamp_test.h"
#include "test_lp_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const double us = 1e-6, ns = 1e-9;

/* 0 -> 1, 1 -> 1 (Isend, Recv, then the wait), 1 -> 2, 2 -> 0: three
 * network messages and one to oneself on the only path. */
static llamp_graph_t *ring(double s) {
  llamp_builder_t *b = llamp_builder_create(3, "selfring");
  int64_t s0 = llamp_builder_add(b, 0, LLAMP_VERTEX_SEND, s, 1, 0, 1);
  int64_t r0 = llamp_builder_add(b, 0, LLAMP_VERTEX_RECV, s, 2, 0, 2);
  llamp_builder_depend(b, r0, s0, LLAMP_EDGE_REQUIRES, 3);
  int64_t r1 = llamp_builder_add(b, 1, LLAMP_VERTEX_RECV, s, 0, 0, 4);
  int64_t ss = llamp_builder_add(b, 1, LLAMP_VERTEX_SEND, s, 1, 7, 5);
  int64_t rs = llamp_builder_add(b, 1, LLAMP_VERTEX_RECV, s, 1, 7, 6);
  int64_t s1 = llamp_builder_add(b, 1, LLAMP_VERTEX_SEND, s, 2, 0, 7);
  llamp_builder_depend(b, ss, r1, LLAMP_EDGE_REQUIRES, 8);
  llamp_builder_depend(b, rs, ss, LLAMP_EDGE_IREQUIRES, 9); /* the Isend */
  llamp_builder_depend(b, s1, rs, LLAMP_EDGE_REQUIRES, 10);
  llamp_builder_depend(b, s1, ss, LLAMP_EDGE_REQUIRES, 11); /* its wait */
  int64_t r2 = llamp_builder_add(b, 2, LLAMP_VERTEX_RECV, s, 1, 0, 12);
  int64_t s2 = llamp_builder_add(b, 2, LLAMP_VERTEX_SEND, s, 0, 0, 13);
  llamp_builder_depend(b, s2, r2, LLAMP_EDGE_REQUIRES, 14);
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  if (!g) fprintf(stderr, "%s\n", err);
  return g;
}

/* Per-pair costs of 3 ranks on distinct hosts, one extra parameter x0
 * ("l_wire"): every pair between distinct ranks costs L + 0.5 us + 2 x0
 * per latency term and 1.5 G per byte; each rank's loopback 0.7 us and
 * 0.2 ns/B. */
static void pairs3(llamp_pairs_t *q, uint32_t *pk, double *c0, double *coef, double *gs, double *sl,
                   double *sg) {
  memset(q, 0, sizeof *q);
  q->ranks = 3;
  q->num_params = 1;
  q->num_kinds = 2;
  snprintf(q->name[0], sizeof q->name[0], "l_wire");
  q->ref[0] = 0.25 * us;
  for (int i = 0; i < 9; i++) pk[i] = i % 4 == 0 ? 1 : 0; /* the diagonal: kind 1 (not used) */
  c0[0] = 0.5 * us, coef[0] = 2, gs[0] = 1.5;
  c0[1] = 9 * us, coef[1] = 5, gs[1] = 7; /* what a self-message would cost as a pair: ignored */
  for (int r = 0; r < 3; r++) sl[r] = 0.7 * us, sg[r] = 0.2 * ns;
  q->pair_kind = pk;
  q->c0 = c0;
  q->coef = coef;
  q->gscale = gs;
  q->self_lat = sl;
  q->self_G = sg;
}

/* The exported LP solved by GLPK: the optimum T, the reduced costs of l, G,
 * o and (per-pair costs) l_wire the slopes. */
static void check_lp(const llamp_graph_t *g, const llamp_params_t *p, double T, double lL, double lG,
                     double lo, double lx) {
  static int have = -1;
  if (have < 0) have = lp_have_glpsol();
  if (!have) return;
  char *dir = lp_scratch_dir(), path[1100], err[256];
  CHECK(dir != NULL);
  if (!dir) return;
  snprintf(path, sizeof path, "%s/a.lp", dir);
  CHECK(llamp_lp_write(g, p, LLAMP_LP_CPLEX, LLAMP_LP_MIN_RUNTIME, 0, path, err, sizeof err) == 0);
  const char *cols[6] = {"t", "l", "G", "o", "gap", "l_wire"};
  lp_solution_t sol;
  CHECK(lp_glpsol_cols(path, LLAMP_LP_CPLEX, "", dir, cols, p->pairs ? 6 : 5, &sol) == 0);
  CHECK(sol.status == 0);
  CHECK_CLOSE(sol.obj, T * 1e6, 1e-9);
  CHECK_CLOSE(sol.dual[1], lL, 1e-9);
  CHECK_CLOSE(sol.dual[2], lG, 1e-6);
  CHECK_CLOSE(sol.dual[3], lo, 1e-9);
  if (p->pairs) CHECK_CLOSE(sol.dual[5], lx, 1e-9);
  lp_scratch_cleanup(dir);
}

/* Every path at p against the hand-computed T and slopes. */
static void check(const llamp_graph_t *g, llamp_params_t *p, double T, double lL, double lG, double lo,
                  double lx) {
  char err[256];
  llamp_engine_t *e = llamp_engine_create(g, p, err, sizeof err);
  CHECK(e != NULL);
  if (!e) {
    fprintf(stderr, "%s\n", err);
    return;
  }
  llamp_point_t pt;
  CHECK(llamp_engine_point(e, p, &pt) == 0);
  CHECK_CLOSE(pt.T, T, 1e-14);
  CHECK_CLOSE(pt.lambda[LLAMP_PARAM_L], lL, 1e-12);
  CHECK_CLOSE(pt.lambda_left[LLAMP_PARAM_L], lL, 1e-12);
  CHECK_CLOSE(pt.lambda[LLAMP_PARAM_G], lG, 1e-9);
  CHECK_CLOSE(pt.lambda[LLAMP_PARAM_O], lo, 1e-12);
  if (p->pairs) CHECK_CLOSE(pt.lambda_x[0], lx, 1e-12);
  check_lp(g, p, T, lL, lG, lo, lx);
  CHECK_CLOSE(pt.rho_L, lL * p->L / T, 1e-12);
  CHECK_CLOSE(pt.t_compute + pt.t_overhead + pt.t_latency + pt.t_bandwidth + pt.t_gap, T, 1e-14);
  /* sweeps along L: slope lL exactly (the self-message adds no L) */
  double xs[3] = {p->L, p->L + 1 * us, p->L + 10 * us}, Ts[3];
  CHECK(llamp_engine_sweep_lanes(e, p, LLAMP_PARAM_L, xs, 3, Ts, NULL) == 0);
  CHECK_CLOSE(Ts[1], T + lL * 1 * us, 1e-14);
  CHECK_CLOSE(Ts[2], T + lL * 10 * us, 1e-14);
  CHECK(llamp_engine_sweep(e, p, LLAMP_PARAM_L, xs, 3, Ts, NULL) == 0);
  CHECK_CLOSE(Ts[2], T + lL * 10 * us, 1e-14);
  llamp_line_t *lines = NULL;
  size_t nl = 0;
  CHECK(llamp_engine_envelope(e, p, LLAMP_PARAM_L, 0, 20 * us, 0, &lines, &nl) == 0);
  double Te, se;
  llamp_engine_envelope_eval(lines, nl, p->L, &Te, &se);
  CHECK_CLOSE(Te, T, 1e-14);
  CHECK_CLOSE(se, lL, 1e-12);
  free(lines);
  /* budget T + 6 us: L may grow by 6 us / lL */
  double x;
  int unb;
  CHECK(llamp_engine_budget(e, p, LLAMP_PARAM_L, T + 6 * us, &x, &unb, NULL) == 0);
  CHECK(!unb);
  CHECK_CLOSE(x, p->L + 6 * us / lL, 1e-14);
  /* the affine costs along the path re-sum to T at (L, G, o) */
  uint64_t *path = NULL, len = 0;
  CHECK(llamp_engine_critical_path(e, p, &path, &len) == 0);
  double sum = 0, nL = 0;
  for (uint64_t i = 0; i < len; i++) {
    llamp_affine_t a;
    llamp_engine_vertex_cost(e, path[i], &a);
    double va = a.c0 + a.nL * p->L + a.nG * p->G + a.no * p->o, best = va, bestL = a.nL;
    if (i + 1 < len) { /* the tightest edge to the next vertex (the Isend has two) */
      uint64_t f, l;
      llamp_graph_in_edges(g, path[i + 1], &f, &l);
      best = -1;
      for (uint64_t j = 0; j < l - f; j++) {
        if (llamp_graph_edge_source(g, f + j) != path[i]) continue;
        llamp_affine_t ea;
        int fs;
        llamp_engine_edge_cost(e, path[i + 1], j, &ea, &fs);
        double c = ea.c0 + ea.nL * p->L + ea.nG * p->G + ea.no * p->o + (fs ? 0 : va);
        if (c > best) best = c, bestL = ea.nL + (fs ? 0 : a.nL);
      }
    }
    sum += best;
    nL += bestL;
  }
  CHECK_CLOSE(sum, T, 1e-14);
  CHECK_CLOSE(nL, lL, 1e-12);
  free(path);
  llamp_engine_destroy(e);
}

int main(void) {
  char err[256];
  const double s = 1001, L = 2 * us, o = 0.1 * us, G = 0.1 * ns;
  llamp_graph_t *g = ring(s);
  CHECK(g != NULL);
  if (!g) TEST_DONE();
  llamp_params_t p;
  llamp_params_default(&p);
  p.L = L, p.o = o, p.G = G, p.g = 0, p.S = 65536;

  /* scalar model, no routes: 8 o (every send and receive on the path), 3
   * network messages L + (s-1) G, the self-message free */
  double T = 8 * o + 3 * (L + (s - 1) * G);
  check(g, &p, T, 3, 3 * (s - 1), 8, 0);
  /* the count the engine asks for: counted on first use in memory, by the
   * bounds check when read from a file (the engine then sees the same) */
  CHECK(llamp_graph_num_self_messages(g) == 1);
  char tmp[] = "/tmp/test_engine_self_XXXXXX";
  int fd = mkstemp(tmp);
  CHECK(fd >= 0);
  close(fd);
  CHECK(llamp_graph_write_binary(g, tmp, err, sizeof err) == 0);
  llamp_graph_t *gr = llamp_graph_read_binary(tmp, err, sizeof err);
  CHECK(gr != NULL);
  if (gr) {
    CHECK(llamp_graph_num_self_messages(gr) == 1);
    /* the longest in-edge, from the bounds check, as counted in memory */
    CHECK(llamp_graph_reach(gr) == llamp_graph_reach(g) && llamp_graph_reach(g) >= 1 &&
          llamp_graph_reach(g) < llamp_graph_num_vertices(g));
    check(gr, &p, T, 3, 3 * (s - 1), 8, 0);
    llamp_graph_destroy(gr);
  }
  unlink(tmp);

  /* per-pair costs: 3 x (L + 0.5 us + 2 x0 + (s-1) 1.5 G) + 0.7 us + (s-1) 0.2 ns */
  llamp_pairs_t q;
  uint32_t pk[9];
  double c0[2], coef[2], gs[2], sl[3], sg[3];
  pairs3(&q, pk, c0, coef, gs, sl, sg);
  p.pairs = &q;
  p.x[0] = q.ref[0];
  T = 8 * o + 3 * (L + 0.5 * us + 2 * p.x[0] + (s - 1) * 1.5 * G) + 0.7 * us + (s - 1) * 0.2 * ns;
  check(g, &p, T, 3, 3 * (s - 1) * 1.5, 8, 6);

  /* size-dependent costs on top: lat_factor 2, bw_factor 0.5 (k = 2 (s + 16)).
   * SimGrid multiplies each route's own latency by lat_factor: c = (2 - 1) x
   * the route's latency at the table's reference, L0 + 0.5 us + 2 x0_ref =
   * 3 us (not L_ref), and the loopback's 0.7 us for the self-message */
  llamp_netmodel_t m;
  llamp_netmodel_init(&m);
  m.L_ref = 2 * us;
  m.G_ref = G;
  CHECK(llamp_netmodel_parse_factor("0:2", "lat", 16, &m.lat_factor, err, sizeof err) == 0);
  CHECK(llamp_netmodel_parse_factor("0:0.5", "bw", 16, &m.bw_factor, err, sizeof err) == 0);
  p.net = &m;
  double k = 2 * (s + 16);
  q.L0 = L;
  const double route = q.L0 + 0.5 * us + 2 * q.ref[0];
  T = 8 * o + 3 * (L + route + 0.5 * us + 2 * p.x[0] + k * 1.5 * G) + 2 * 0.7 * us + k * 0.2 * ns;
  check(g, &p, T, 3, 3 * k * 1.5, 8, 6);
  /* the same at another L and x0: c stays the route's at the reference
   * (L and the topology parameters are offsets on top of it) */
  p.L = 5 * us, p.x[0] = 1 * us;
  T = 8 * o + 3 * (p.L + route + 0.5 * us + 2 * p.x[0] + k * 1.5 * G) + 2 * 0.7 * us + k * 0.2 * ns;
  check(g, &p, T, 3, 3 * k * 1.5, 8, 6);
  p.L = L, p.x[0] = q.ref[0];
  /* observed transfer times (the capture's observed contention model): each
   * network message took 1 us more than the model (shared links), the
   * self-message has none (NAN: the model's).  T grows by 3 us at the
   * creation point, the slopes stay (L, G and x0 are offsets), and the LP
   * export agrees (check_lp); at another L and x0 the same offsets. */
  uint64_t nv = llamp_graph_num_vertices(g);
  double *obs = malloc(nv * sizeof *obs);
  for (uint64_t v = 0; v < nv; v++) {
    obs[v] = NAN;
    if (llamp_graph_kind(g, v) != LLAMP_VERTEX_RECV) continue;
    if (llamp_graph_rank(g, llamp_graph_partner(g, v)) == llamp_graph_rank(g, v)) continue;
    obs[v] = L + route + 0.5 * us + 2 * p.x[0] + k * 1.5 * G + 1 * us;
  }
  p.observed = obs;
  T = 8 * o + 3 * (L + route + 0.5 * us + 2 * p.x[0] + k * 1.5 * G + 1 * us) + 2 * 0.7 * us + k * 0.2 * ns;
  check(g, &p, T, 3, 3 * k * 1.5, 8, 6);
  /* the engine keeps the creation point's offsets: evaluated elsewhere */
  {
    llamp_engine_t *eo = llamp_engine_create(g, &p, err, sizeof err);
    CHECK(eo != NULL);
    llamp_params_t at = p;
    at.L = 5 * us, at.x[0] = 1 * us;
    llamp_point_t pt;
    CHECK(eo && llamp_engine_point(eo, &at, &pt) == 0);
    CHECK_CLOSE(pt.T, T + 3 * (at.L - L) + 3 * 2 * (at.x[0] - q.ref[0]), 1e-14);
    llamp_engine_destroy(eo);
  }
  /* a transfer faster than the model (a negative excess) */
  for (uint64_t v = 0; v < nv; v++)
    if (isfinite(obs[v])) obs[v] -= 1.5 * us;
  T -= 3 * 1.5 * us;
  check(g, &p, T, 3, 3 * k * 1.5, 8, 6);
  /* without a net model the engine refuses observed times */
  p.net = NULL;
  CHECK(llamp_engine_create(g, &p, err, sizeof err) == NULL);
  p.net = &m;
  p.observed = NULL;
  free(obs);
  /* ... and without routes: the self-message is free */
  p.pairs = NULL;
  T = 8 * o + 3 * (L + 2 * us + k * G);
  check(g, &p, T, 3, 3 * k, 8, 0);
  p.net = NULL;
  llamp_graph_destroy(g);

  /* rendezvous (s > S, SMPI's direct protocol): the self-message's receive
   * costs o + its loopback's constants; the wait after the Isend waits for
   * its completion, the same constants */
  const double sb = 100000;
  g = ring(sb);
  CHECK(g != NULL);
  if (!g) TEST_DONE();
  p.rndv_direct = 1;
  p.pairs = &q;
  T = 8 * o + 3 * (L + 0.5 * us + 2 * p.x[0] + (sb - 1) * 1.5 * G) + 0.7 * us + (sb - 1) * 0.2 * ns;
  check(g, &p, T, 3, 3 * (sb - 1) * 1.5, 8, 6);
  p.pairs = NULL;
  T = 8 * o + 3 * (L + (sb - 1) * G);
  check(g, &p, T, 3, 3 * (sb - 1), 8, 0);
  /* the RDMA-read rendezvous: 2 latency terms in each network receive and
   * one request, none for the self-message */
  p.rndv_direct = 0;
  T = 8 * o + 3 * (3 * L + (sb - 1) * G);
  check(g, &p, T, 9, 3 * (sb - 1), 8, 0);
  llamp_graph_destroy(g);
  TEST_DONE();
}
