/* Size-dependent message costs (llamp_netmodel.h): SimGrid's piecewise
 * semantics, and hand-checked answers of every engine path on tiny graphs.
 *
 * Model used below (L_ref = 2 us, G_ref = 0.1 ns/B, envelope 16 B):
 *   os  "0:1e-6:1e-9;1000:2e-6:0"   s <= 1000: 1 us + 1 ns/B, above: 2 us
 *   or  "0:0.5e-6:0"                0.5 us
 *   ois "0:0.3e-6:0"                0.3 us
 *   lat "0:1;500:2"                 s + 16 > 500 (s >= 485): 2, else 1
 *   bw  "0:0.5;2000:1"              s + 16 > 2000 (s >= 1985): 1, else 0.5 */
#include "llamp_engine.h"
#include "lanes_check.h"
#include "llamp_netmodel.h"
#include "llamp_synth.h"
#include "llamp_test.h"

#include <string.h>

static const double us = 1e-6, ns = 1e-9;

/* rank 0: [calc c0] -> send s (blocking, or an Isend irequired by the
 * calc after it) -> calc 1 us; rank 1: recv -> calc 1 us */
static llamp_graph_t *pingone_as(double s, int isend, unsigned flags) {
  llamp_builder_t *b = llamp_builder_create(2, "pingone");
  int64_t snd = llamp_builder_add(b, 0, LLAMP_VERTEX_SEND, s, 1, 0, 1);
  if (flags) CHECK(llamp_builder_set_flags(b, snd, flags) == 0);
  int64_t a1 = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 2);
  llamp_builder_depend(b, a1, snd, isend ? LLAMP_EDGE_IREQUIRES : LLAMP_EDGE_REQUIRES, 3);
  int64_t r = llamp_builder_add(b, 1, LLAMP_VERTEX_RECV, s, 0, 0, 4);
  int64_t a3 = llamp_builder_add(b, 1, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 5);
  llamp_builder_depend(b, a3, r, LLAMP_EDGE_REQUIRES, 6);
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  if (!g) fprintf(stderr, "%s\n", err);
  return g;
}
static llamp_graph_t *pingone(double s, int isend) { return pingone_as(s, isend, 0); }

static void model(llamp_netmodel_t *m) {
  char err[256];
  llamp_netmodel_init(m);
  m->L_ref = 2 * us;
  m->G_ref = 0.1 * ns;
  CHECK(llamp_netmodel_parse_overhead("0:1e-6:1e-9;1000:2e-6:0", "os", &m->o_send, err, sizeof err) == 0);
  CHECK(llamp_netmodel_parse_overhead("0:0.5e-6:0", "or", &m->o_recv, err, sizeof err) == 0);
  CHECK(llamp_netmodel_parse_overhead("0:0.3us:0", "ois", &m->o_isend, err, sizeof err) == 0);
  CHECK(llamp_netmodel_parse_factor("500:2;0:1", "lat", 16, &m->lat_factor, err, sizeof err) == 0);
  CHECK(llamp_netmodel_parse_factor("0:0.5;2000:1", "bw", 16, &m->bw_factor, err, sizeof err) == 0);
}

/* Every path of the engine at one point: eval (T and slopes in L and G),
 * point (lambdas, breakdown summing to T), lanes, envelope, affine costs
 * re-summed along the critical path. */
static void check_all(const llamp_graph_t *g, llamp_params_t *p, double T, double lG, double lo) {
  char err[256];
  llamp_engine_t *e = llamp_engine_create(g, p, err, sizeof err);
  CHECK(e != NULL);
  if (!e) return;
  llamp_eval_t r;
  CHECK(llamp_engine_eval(e, p, LLAMP_PARAM_L, &r) == 0);
  CHECK_CLOSE(r.T, T, 1e-15);
  CHECK(r.slope_right == 1);
  llamp_point_t pt;
  CHECK(llamp_engine_point(e, p, &pt) == 0);
  CHECK_CLOSE(pt.T, T, 1e-15);
  /* the classification's points in one pass: point_of's, bit for bit */
  if (pt.t_overhead > 0) CHECK(check_points_lg(e, p) > 0);
  CHECK_CLOSE(pt.lambda[LLAMP_PARAM_G], lG, 1e-9);
  CHECK_CLOSE(pt.lambda[LLAMP_PARAM_O], lo, 1e-12);
  CHECK_CLOSE(pt.t_compute + pt.t_overhead + pt.t_latency + pt.t_bandwidth + pt.t_gap, T, 1e-15);
  /* T(L + 1 us) = T + 1 us: L stays an additive offset of every message */
  double xs[3] = {p->L, p->L + 1 * us, p->L + 10 * us}, Ts[3], sl[3];
  CHECK(llamp_engine_sweep_lanes(e, p, LLAMP_PARAM_L, xs, 3, Ts, sl) == 0);
  CHECK_CLOSE(Ts[0], T, 1e-15);
  CHECK_CLOSE(Ts[1], T + 1 * us, 1e-15);
  CHECK_CLOSE(Ts[2], T + 10 * us, 1e-15);
  CHECK(llamp_engine_sweep(e, p, LLAMP_PARAM_L, xs, 3, Ts, sl) == 0);
  CHECK_CLOSE(Ts[1], T + 1 * us, 1e-15);
  /* G is a scale: the G slope is lambda_G */
  double gs[2] = {p->G, 2 * p->G}, TG[2];
  CHECK(llamp_engine_sweep_lanes(e, p, LLAMP_PARAM_G, gs, 2, TG, NULL) == 0);
  CHECK_CLOSE(TG[1] - TG[0], lG * p->G, 1e-15);
  llamp_line_t *lines = NULL;
  size_t nl = 0;
  CHECK(llamp_engine_envelope(e, p, LLAMP_PARAM_L, 0, 20 * us, 0, &lines, &nl) == 0);
  double Te, se;
  llamp_engine_envelope_eval(lines, nl, p->L, &Te, &se);
  CHECK_CLOSE(Te, T, 1e-15);
  free(lines);
  /* budget: T + 5 us allows L + 5 us (slope 1 everywhere here) */
  double x;
  int unb;
  CHECK(llamp_engine_budget(e, p, LLAMP_PARAM_L, T + 5 * us, &x, &unb, NULL) == 0);
  CHECK_CLOSE(x, p->L + 5 * us, 1e-15);
  /* the affine costs of the graph's own vertices and edges, along the path */
  uint64_t *path = NULL, len = 0;
  CHECK(llamp_engine_critical_path(e, p, &path, &len) == 0);
  double sum = 0;
  for (uint64_t i = 0; i < len; i++) {
    llamp_affine_t a;
    llamp_engine_vertex_cost(e, path[i], &a);
    if (i + 1 < len) { /* the edge to the next vertex */
      uint64_t f, l;
      llamp_graph_in_edges(g, path[i + 1], &f, &l);
      for (uint64_t j = 0; j < l - f; j++) {
        if (llamp_graph_edge_source(g, f + j) != path[i]) continue;
        llamp_affine_t ea;
        int fs;
        llamp_engine_edge_cost(e, path[i + 1], j, &ea, &fs);
        sum += ea.c0 + ea.nL * p->L + ea.nG * p->G + ea.no * p->o;
        if (fs) a = (llamp_affine_t){0, 0, 0, 0, 0}; /* leaves the vertex at its start */
      }
    }
    sum += a.c0 + a.nL * p->L + a.nG * p->G + a.no * p->o;
  }
  if (len && llamp_graph_kind(g, path[len - 1]) != LLAMP_VERTEX_CALC) sum = T; /* ends in a message */
  CHECK_CLOSE(sum, T, 1e-15);
  free(path);
  llamp_engine_destroy(e);
}

int main(void) {
  char err[256];
  llamp_netmodel_t m;
  model(&m);

  /* SimGrid's semantics: an overhead section of threshold T holds for
   * s > T, the first also below; a factor for s + 16 > T, 1 below */
  CHECK_CLOSE(llamp_netmodel_curve_eval(&m.o_send, 0, 0), 1 * us, 1e-18);
  CHECK_CLOSE(llamp_netmodel_curve_eval(&m.o_send, 1000, 0), 2 * us, 1e-18);
  CHECK_CLOSE(llamp_netmodel_curve_eval(&m.o_send, 1001, 0), 2 * us, 1e-18);
  CHECK_CLOSE(llamp_netmodel_curve_eval(&m.o_send, 999, 0), 1.999 * us, 1e-18);
  CHECK(llamp_netmodel_curve_eval(&m.lat_factor, 484, 1) == 1);
  CHECK(llamp_netmodel_curve_eval(&m.lat_factor, 485, 1) == 2);
  CHECK(llamp_netmodel_curve_eval(&m.bw_factor, 0, 1) == 0.5);
  CHECK(llamp_netmodel_curve_eval(&m.bw_factor, 1984, 1) == 0.5);
  CHECK(llamp_netmodel_curve_eval(&m.bw_factor, 1985, 1) == 1);
  llamp_netmodel_curve_t c;
  CHECK(llamp_netmodel_parse_factor("100:3", "f", 16, &c, err, sizeof err) == 0);
  CHECK(c.n == 2 && llamp_netmodel_curve_eval(&c, 84, 1) == 1 && llamp_netmodel_curve_eval(&c, 85, 1) == 3);
  /* SimGrid's default factors are not 1: the bundled platforms set 0:1 */
  CHECK(llamp_netmodel_parse_factor("65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;"
                                    "1426:1.61075;732:1.9503;257:1.95341;0:2.01467",
                                    "lat", 16, &c, err, sizeof err) == 0);
  CHECK(c.n == 9 && llamp_netmodel_curve_eval(&c, 0, 1) == 2.01467 &&
        llamp_netmodel_curve_eval(&c, 65457, 1) == 11.6436 && llamp_netmodel_curve_eval(&c, 65456, 1) == 3.48845);
  /* errors: one line naming the setting, the section and what was expected */
  CHECK(llamp_netmodel_parse_factor("0:1;x:2", "smpi/lat-factor", 16, &c, err, sizeof err) == -1);
  CHECK(strstr(err, "smpi/lat-factor") && strstr(err, "section 2") && strstr(err, "threshold 'x'"));
  CHECK(llamp_netmodel_parse_factor("0:0", "smpi/bw-factor", 16, &c, err, sizeof err) == -1);
  CHECK(strstr(err, "expected > 0") != NULL);
  CHECK(llamp_netmodel_parse_overhead("0:1e-6", "smpi/os", &c, err, sizeof err) == -1);
  CHECK(strstr(err, "THRESHOLD:OFFSET:PER_BYTE") != NULL);
  CHECK(llamp_netmodel_parse_overhead("0:1:0;0:2:0", "smpi/os", &c, err, sizeof err) == -1);
  CHECK(strstr(err, "twice") != NULL);
  CHECK(llamp_netmodel_parse_overhead("", "smpi/or", &c, err, sizeof err) == -1);

  llamp_params_t p;
  llamp_params_default(&p);
  p.L = 2 * us;
  p.G = 0.1 * ns;
  p.o = 0;
  p.S = 65535;
  p.rndv_direct = 1;
  p.net = &m;

  /* 100 B, blocking: os = 1.1 us; transfer L + 116 / 0.5 x G = 2.0232 us;
   * or = 0.5 us; calc 1 us.  T = 4.6232 us, lambda_G = 232, lambda_o = 2 */
  llamp_graph_t *g = pingone(100, 0);
  check_all(g, &p, 4.6232 * us, 232, 2);
  /* o stays an additive offset per send / receive: +1 us each on the path */
  p.o = 1 * us;
  check_all(g, &p, 6.6232 * us, 232, 2);
  p.o = 0;
  llamp_graph_destroy(g);

  /* 1000 B: os = 2 us; lat factor 2: L + (2-1) L_ref + 1016/0.5 G = 6.2032
   * us at L = 2 us ... T = 2 + 4.2032 + 0.5 + 1 = 7.7032 us; at 3 us 8.7032 */
  g = pingone(1000, 0);
  check_all(g, &p, 7.7032 * us, 2032, 2);
  p.L = 3 * us;
  check_all(g, &p, 8.7032 * us, 2032, 2);
  p.L = 2 * us;
  llamp_graph_destroy(g);

  /* 100 B Isend: ois = 0.3 us, and the calc irequiring it waits for it:
   * 0.3 + 2.0232 + 0.5 + 1 = 3.8232 us (rank 0: 0.3 + 1 = 1.3 us) */
  g = pingone(100, 1);
  check_all(g, &p, 3.8232 * us, 232, 2);
  llamp_graph_destroy(g);

  /* 100 B MPI_Sendrecv's send (LLAMP_VERTEX_F_ISEND; the calc requires it):
   * SMPI sleeps ois, not os: 0.3 + 2.0232 + 0.5 + 1 = 3.8232 us as the
   * Isend's; the same through the binary file and GOAL text */
  g = pingone_as(100, 0, LLAMP_VERTEX_F_ISEND);
  check_all(g, &p, 3.8232 * us, 232, 2);
  {
    const char *path = "test_engine_netmodel_isend.llg";
    CHECK(llamp_graph_write_binary(g, path, err, sizeof err) == 0);
    llamp_graph_t *h = llamp_graph_read_binary(path, err, sizeof err);
    CHECK(h != NULL && llamp_graph_flags(h, 0) == LLAMP_VERTEX_F_ISEND);
    if (h) check_all(h, &p, 3.8232 * us, 232, 2);
    llamp_graph_destroy(h);
    remove(path);
  }
  llamp_graph_destroy(g);
  /* a 2000 B one (ois 0.3 us, os would be 2 us): lat factor 2, bw 1:
   * 0.3 + (2 + 2 + 2016 x 0.1 ns) + 0.5 + 1 = 6.0016 us (with os: 7.7016) */
  g = pingone_as(2000, 0, LLAMP_VERTEX_F_ISEND);
  check_all(g, &p, 6.0016 * us, 2016, 2);
  llamp_graph_destroy(g);
  g = pingone_as(2000, 0, 0);
  check_all(g, &p, 7.7016 * us, 2016, 2);
  llamp_graph_destroy(g);

  /* the MPI_Start of a 100 B Send_init request (irequired, LLAMP_VERTEX_F_OS):
   * SMPI sleeps os, not ois, as for a blocking send: 1.1 + 2.0232 + 0.5 + 1 =
   * 4.6232 us (as an Isend 3.8232); the same through the binary file */
  g = pingone_as(100, 1, LLAMP_VERTEX_F_OS);
  check_all(g, &p, 4.6232 * us, 232, 2);
  {
    const char *path = "test_engine_netmodel_os.llg";
    CHECK(llamp_graph_write_binary(g, path, err, sizeof err) == 0);
    llamp_graph_t *h = llamp_graph_read_binary(path, err, sizeof err);
    CHECK(h != NULL && llamp_graph_flags(h, 0) == LLAMP_VERTEX_F_OS);
    if (h) check_all(h, &p, 4.6232 * us, 232, 2);
    llamp_graph_destroy(h);
    remove(path);
  }
  llamp_graph_destroy(g);
  /* its rank waits for that os: with 5 us of calc after the Start, rank 0
   * ends at 1.1 + 5 = 6.1 us (after an Isend 0.3 + 5 = 5.3 us) */
  {
    llamp_builder_t *b = llamp_builder_create(2, "start");
    int64_t snd = llamp_builder_add(b, 0, LLAMP_VERTEX_SEND, 100, 1, 0, 1);
    CHECK(llamp_builder_set_flags(b, snd, LLAMP_VERTEX_F_OS) == 0);
    int64_t a1 = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 5e-6, 0, 0, 2);
    llamp_builder_depend(b, a1, snd, LLAMP_EDGE_IREQUIRES, 3);
    llamp_builder_add(b, 1, LLAMP_VERTEX_RECV, 100, 0, 0, 4);
    g = llamp_builder_finish(b, err, sizeof err);
    CHECK(g != NULL);
    llamp_point_t pt;
    llamp_engine_t *e = g ? llamp_engine_create(g, &p, err, sizeof err) : NULL;
    CHECK(e && llamp_engine_point(e, &p, &pt) == 0);
    if (e) CHECK_CLOSE(pt.T, 6.1 * us, 1e-15);
    llamp_engine_destroy(e);
    llamp_graph_destroy(g);
  }

  /* 70000 B (rendezvous, SMPI's direct protocol): no os, no or; the
   * receive ends at L + (2-1) L_ref + 70016 G = 11.0016 us; +1 us calc */
  g = pingone(70000, 0);
  check_all(g, &p, 12.0016 * us, 70016, 2);
  llamp_graph_destroy(g);

  /* random trace-like graphs under the piecewise model: the classification's
   * one-pass points follow the critical path through Isends' ois too */
  int with_overhead = 0;
  for (int seed = 1; seed <= 12; seed++) {
    char params[128];
    snprintf(params, sizeof params, "ranks=%d,ops=%d,seed=%d,compute=%dus", 2 + seed % 5, 60 + 13 * seed,
             seed, 1 + seed % 3);
    g = llamp_synth_graph("random", params, err, sizeof err);
    CHECK(g != NULL);
    if (!g) continue;
    p.o = 0.2 * us * (seed % 2);
    p.S = seed % 3 ? 65535 : 4096;
    llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
    CHECK(e != NULL);
    if (e) with_overhead += check_points_lg(e, &p);
    llamp_engine_destroy(e);
    llamp_graph_destroy(g);
  }
  CHECK(with_overhead > 40);
  printf("classification lanes: %d passes four a vector (available here: %d)\n", lanes_vector_passes,
         llamp_engine_lanes4_available());
  p.o = 0;
  p.S = 65535;

  /* a fitted one-way curve (the network group): L + (offset - L_ref) +
   * per_byte s / G_ref x G; no factors */
  llamp_netmodel_t f;
  llamp_netmodel_init(&f);
  f.L_ref = 2 * us;
  f.G_ref = 0.1 * ns;
  f.envelope = 0;
  f.one_way.n = 2;
  f.one_way.seg[0] = (llamp_netmodel_seg_t){0, 2.5 * us, 0.2 * ns};
  f.one_way.seg[1] = (llamp_netmodel_seg_t){500, 4 * us, 0.1 * ns};
  CHECK(llamp_netmodel_curve_check(&f.one_way, "one_way", 0, err, sizeof err) == 0);
  p.net = &f;
  g = pingone(100, 0); /* 2.5 us + 20 ns, then 1 us: T = 3.52 us, lambda_G = 200 */
  check_all(g, &p, 3.52 * us, 200, 2);
  llamp_graph_destroy(g);
  g = pingone(1000, 0); /* 4 us + 100 ns + 1 us */
  check_all(g, &p, 5.1 * us, 1000, 2);
  llamp_graph_destroy(g);
  f.one_way.seg[1].from = 0;
  CHECK(llamp_netmodel_curve_check(&f.one_way, "network.one_way", 0, err, sizeof err) == -1);
  CHECK(strstr(err, "network.one_way: piece 2") != NULL);
  TEST_DONE();
}
