/* The critical latencies of a T in one or two pieces, read off the first
 * pruning step (llamp_engine_envelope's LLAMP_ENVELOPE_TWO_PIECES), equal
 * Eisner-Severance's; a T in more pieces still takes the pruned pass.
 *
 * Ranks 0 and 1 exchange N times (calc, send to the other, receive from
 * it), their calcs 10 us + 0-10 ns: a path's slope is how often it crosses,
 * so the vertices' envelopes hold many lines over [0, 20 us] and the plain
 * pass runs over its budget (2 lines a vertex).  P(L), their T, bends below
 * ~1 us and is one line (the path crossing every time) above.  Rank 2 is one
 * calc W: T = max(W, P(L)).  W chosen so that the lines meet at L = 5 us
 * gives two pieces; W above P(20 us), one; W = P(1 ns), several. */
#include <math.h>

#include "llamp_engine.h"
#include "llamp_test.h"

enum { N = 300 };

static int64_t after(llamp_builder_t *b, uint32_t rank, llamp_vertex_kind_t kind, double value, int32_t peer,
                     int64_t prev) {
  int64_t v = llamp_builder_add(b, rank, kind, value, peer, 0, 0);
  if (prev >= 0) llamp_builder_depend(b, v, prev, LLAMP_EDGE_REQUIRES, 0);
  return v;
}

/* the graph above; W <= 0: no rank 2 */
static llamp_graph_t *exchange_graph(const double *calc, double W) {
  llamp_builder_t *b = llamp_builder_create(W > 0 ? 3 : 2, "exchange");
  for (uint32_t r = 0; r < 2; r++) {
    int64_t prev = -1;
    for (int i = 0; i < N; i++) {
      prev = after(b, r, LLAMP_VERTEX_CALC, calc[2 * i + r], 0, prev);
      prev = after(b, r, LLAMP_VERTEX_SEND, 8, (int32_t)(1 - r), prev);
      prev = after(b, r, LLAMP_VERTEX_RECV, 8, (int32_t)(1 - r), prev);
    }
  }
  if (W > 0) after(b, 2, LLAMP_VERTEX_CALC, W, 0, -1);
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  if (!g) fprintf(stderr, "exchange graph: %s\n", err);
  return g;
}

/* The envelope and Eisner-Severance on [lo, hi]: the same breakpoints (x
 * within the tie tolerance's reach, slopes exact), and T from the lines
 * equal to an evaluation at a few points.  Returns the breakpoints found. */
static size_t compare(llamp_engine_t *e, const llamp_params_t *p, double lo, double hi,
                      llamp_envelope_how_t *how) {
  llamp_line_t *lines = NULL;
  size_t nl = 0, na = 0, nc = 0;
  llamp_breakpoint_t *a = NULL, *c = NULL;
  CHECK(llamp_engine_envelope(e, p, LLAMP_PARAM_L, lo, hi, 0, &lines, &nl) == 0);
  *how = llamp_engine_envelope_how(e);
  CHECK(llamp_engine_envelope_breakpoints(lines, nl, &a, &na) == 0);
  CHECK(llamp_engine_breakpoints_es(e, p, LLAMP_PARAM_L, lo, hi, &c, &nc, NULL) == 0);
  CHECK(na == nc);
  for (size_t i = 0; i < na && i < nc; i++) {
    double xtol = 1e-11 * a[i].T / (a[i].slope_after - a[i].slope_before);
    if (!(fabs(a[i].x - c[i].x) <= xtol))
      fprintf(stderr, "  breakpoint %zu: %.17g against Eisner-Severance's %.17g\n", i, a[i].x, c[i].x);
    CHECK(fabs(a[i].x - c[i].x) <= xtol);
    CHECK(a[i].slope_before == c[i].slope_before && a[i].slope_after == c[i].slope_after);
  }
  for (int k = 0; k <= 8; k++) {
    double x = lo + (hi - lo) * k / 8, T, slope;
    llamp_params_t q = *p;
    q.L = x;
    llamp_eval_t r;
    CHECK(llamp_engine_eval(e, &q, LLAMP_PARAM_L, &r) == 0);
    llamp_engine_envelope_eval(lines, nl, x, &T, &slope);
    CHECK(fabs(T - r.T) <= 1e-12 * r.T);
  }
  free(lines);
  free(a);
  free(c);
  return na;
}

int main(void) {
  char err[256];
  llamp_params_t p;
  llamp_params_default(&p);
  p.o = 0;
  p.G = 0;
  p.S = 1e9;
  llamp_test_rng_seed(0x2545f4914f6cdd1dull);
  double calc[2 * N];
  for (int i = 0; i < 2 * N; i++) calc[i] = 10e-6 + (double)(llamp_test_rng() % 10001) * 1e-12;
  const double lo = 0, hi = 20e-6;
  /* P's last line, from an evaluation of the two ranks alone at hi */
  llamp_graph_t *g = exchange_graph(calc, 0);
  llamp_engine_t *e = g ? llamp_engine_create(g, &p, err, sizeof err) : NULL;
  CHECK(e != NULL);
  if (!e) TEST_DONE();
  llamp_params_t q = p;
  q.L = hi;
  llamp_eval_t r;
  CHECK(llamp_engine_eval(e, &q, LLAMP_PARAM_L, &r) == 0);
  double s = r.slope_left, C = r.T - s * hi;
  printf("P(L) = %.9g s + %g L above ~1 us\n", C, s);
  CHECK(s == N); /* the path that crosses at every exchange */
  q.L = 1e-9;
  CHECK(llamp_engine_eval(e, &q, LLAMP_PARAM_L, &r) == 0);
  double P1ns = r.T;
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);

  static const struct {
    const char *what;
    double at; /* where W meets P's last line (0: W above it on the whole range) */
    int pieces; /* of T on [lo, hi]; 0: several */
  } cases[] = {{"W meets P at 5 us", 5e-6, 2}, {"W above P", 0, 1}, {"W meets P at 1 ns", -1, 0}};
  for (int k = 0; k < 3; k++) {
    double W = cases[k].at > 0 ? C + s * cases[k].at : cases[k].at == 0 ? C + s * hi * 1.5 : P1ns;
    g = exchange_graph(calc, W);
    e = g ? llamp_engine_create(g, &p, err, sizeof err) : NULL;
    CHECK(e != NULL);
    if (!e) break;
    llamp_envelope_how_t how = LLAMP_ENVELOPE_NONE;
    size_t nb = compare(e, &p, lo, hi, &how);
    printf("%s: %zu critical latencies, %s\n", cases[k].what, nb,
           how == LLAMP_ENVELOPE_TWO_PIECES ? "two pieces at most (one evaluation)"
           : how == LLAMP_ENVELOPE_PLAIN    ? "one pass"
                                            : "the pruned pass");
    if (cases[k].pieces) {
      CHECK(nb == (size_t)cases[k].pieces - 1);
      CHECK(how == LLAMP_ENVELOPE_TWO_PIECES);
    } else {
      CHECK(nb > 2);
      CHECK(how == LLAMP_ENVELOPE_PRUNED || how == LLAMP_ENVELOPE_PARTS);
    }
    llamp_engine_destroy(e);
    llamp_graph_destroy(g);
  }
  TEST_DONE();
}
