/* Critical latencies that coincide in exact arithmetic are one, however the
 * path sums round; a piece of T 1 ps high is still two.
 *
 * Three ranks in a chain, o = 0, G = 0, 1-byte messages:
 *   rank 0: X (a chain of calcs), send to 1
 *   rank 1: Y, recv from 0, Z, send to 2
 *   rank 2: W, recv from 1, V
 * T(L) = V + max(W, Y + Z + L, X + Z + 2 L).  With Y = X + 1 ns + h and
 * W = X + Z + 2 ns, the lines of slope 0 and 2 cross at L = 1 ns and the
 * one of slope 1 rises h above them there: breakpoints at 1 ns -/+ h, or one
 * at 1 ns (0 -> 2) when h = 0.  The chains hold ~100 calcs of up to 1 ms in
 * different orders (T ~ 0.1 s), so the sums differ by rounding (~1e-17 s):
 * before piece_tol, h = 0 gave two breakpoints 1e-17 s apart on most seeds. */
#include "llamp_engine.h"
#include "llamp_test.h"

enum { CHAIN = 100 };

static void shuffle(double *v, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(llamp_test_rng() % (uint64_t)(i + 1));
    double t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

/* rank's calcs v[0..n) in a chain after *prev (-1: none); returns the last */
static int64_t chain(llamp_builder_t *b, uint32_t rank, const double *v, int n, int64_t prev) {
  for (int i = 0; i < n; i++) {
    int64_t c = llamp_builder_add(b, rank, LLAMP_VERTEX_CALC, v[i], 0, 0, 0);
    if (prev >= 0) llamp_builder_depend(b, c, prev, LLAMP_EDGE_REQUIRES, 0);
    prev = c;
  }
  return prev;
}

static int64_t op(llamp_builder_t *b, uint32_t rank, llamp_vertex_kind_t kind, int32_t peer, int64_t prev) {
  int64_t o = llamp_builder_add(b, rank, kind, 1, peer, 0, 0);
  if (prev >= 0) llamp_builder_depend(b, o, prev, LLAMP_EDGE_REQUIRES, 0);
  return o;
}

/* the graph above; h in seconds */
static llamp_graph_t *ties_graph(double h) {
  double x[CHAIN], y[CHAIN + 2], z[CHAIN], w[2 * CHAIN + 2];
  for (int i = 0; i < CHAIN; i++) {
    x[i] = (double)(llamp_test_rng() % 1000000 + 1) * 1e-9;
    z[i] = (double)(llamp_test_rng() % 1000000 + 1) * 1e-9;
  }
  /* Y = X + 1 ns + h, W = X + Z + 2 ns: the same terms, other orders */
  for (int i = 0; i < CHAIN; i++) y[i] = x[i], w[i] = x[i], w[CHAIN + i] = z[i];
  y[CHAIN] = 1e-9, y[CHAIN + 1] = h;
  w[2 * CHAIN] = 1e-9, w[2 * CHAIN + 1] = 1e-9;
  int ny = h > 0 ? CHAIN + 2 : CHAIN + 1; /* h = 0: no calc of no cost */
  shuffle(x, CHAIN);
  shuffle(y, ny);
  shuffle(w, 2 * CHAIN + 2);
  llamp_builder_t *b = llamp_builder_create(3, "ties");
  int64_t s0 = op(b, 0, LLAMP_VERTEX_SEND, 1, chain(b, 0, x, CHAIN, -1));
  (void)s0;
  int64_t r1 = op(b, 1, LLAMP_VERTEX_RECV, 0, chain(b, 1, y, ny, -1));
  op(b, 1, LLAMP_VERTEX_SEND, 2, chain(b, 1, z, CHAIN, r1));
  int64_t r2 = op(b, 2, LLAMP_VERTEX_RECV, 1, chain(b, 2, w, 2 * CHAIN + 2, -1));
  double v = 1e-6;
  chain(b, 2, &v, 1, r2);
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  if (!g) fprintf(stderr, "ties graph: %s\n", err);
  return g;
}

int main(void) {
  char err[256];
  llamp_params_t p;
  llamp_params_default(&p);
  p.o = 0;
  p.G = 0;
  p.S = 1e9;
  p.L = 2e-9;
  llamp_test_rng_seed(0x9e3779b97f4a7c15ull);
  const double lo = 0, hi = 5e-9;
  int seeds = 40, one = 0, two = 0;
  for (int s = 0; s < seeds; s++) {
    double h = s % 2 ? 1e-12 : 0; /* odd: a real piece 1 ps high */
    llamp_graph_t *g = ties_graph(h);
    CHECK(g != NULL);
    if (!g) break;
    llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
    CHECK(e != NULL);
    llamp_breakpoint_t *a = NULL, *c = NULL;
    size_t na = 0, nc = 0;
    CHECK(e && llamp_engine_breakpoints(e, &p, LLAMP_PARAM_L, lo, hi, &a, &na, NULL) == 0);
    CHECK(e && llamp_engine_breakpoints_es(e, &p, LLAMP_PARAM_L, lo, hi, &c, &nc, NULL) == 0);
    if (h == 0) {
      one += na == 1;
      CHECK(na == 1 && nc == 1);
      if (na != 1 || nc != 1)
        fprintf(stderr, "  seed %d: %zu breakpoints (ES %zu), first at %.17g\n", s, na, nc, na ? a[0].x : 0.0);
      for (size_t i = 0; i < na && i < 1; i++) {
        CHECK(fabs(a[i].x - 1e-9) < 1e-15);
        CHECK(a[i].slope_before == 0 && a[i].slope_after == 2);
      }
      for (size_t i = 0; i < nc && i < 1; i++) {
        CHECK(fabs(c[i].x - 1e-9) < 1e-15);
        CHECK(c[i].slope_before == 0 && c[i].slope_after == 2);
      }
    } else {
      two += na == 2;
      CHECK(na == 2 && nc == 2);
      for (size_t i = 0; i < na && i < 2; i++) {
        CHECK(fabs(a[i].x - (i ? 1e-9 + h : 1e-9 - h)) < 1e-15);
        CHECK(a[i].slope_before == (double)i && a[i].slope_after == (double)i + 1);
      }
      for (size_t i = 0; i < nc && i < 2; i++) CHECK(fabs(c[i].x - (i ? 1e-9 + h : 1e-9 - h)) < 1e-15);
    }
    free(a);
    free(c);
    llamp_engine_destroy(e);
    llamp_graph_destroy(g);
  }
  printf("%d of %d rounding-only ties gave one critical latency, %d of %d 1 ps pieces two\n", one, seeds / 2, two,
         seeds / 2);
  TEST_DONE();
}
