/* Segmented regression (smpi_llamp/fit): breakpoints of synthetic curves
 * with known segments recovered within 5 % (1 000 log-uniform sizes, 1 %
 * and 3 % Gaussian noise; every change of the curve at a breakpoint is well
 * above the noise: a kink hidden in the noise cannot be placed within 5 %), slopes and offsets within a
 * few %, the right number of segments, R^2 against a hand computation. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <string.h>

#include "llamp_fit.h"
#include "llamp_test.h"

typedef struct {
  const char *name;
  int nseg;
  double from[4], offset[4], slope[4]; /* from[0] = 0 */
} shape_t;

static const shape_t shapes[] = {
    /* eager -> rendezvous jump at 64 KiB */
    {"jump", 2, {0, 65536}, {2e-6, 12e-6}, {0.1e-9, 0.08e-9}},
    /* three regimes: small-message slope, a kink at 1 KiB, a jump at 256 KiB */
    {"three", 3, {0, 1024, 262144}, {1e-6, 1.2e-6, 30e-6}, {0.5e-9, 0.2e-9, 0.1e-9}},
    /* one line: no breakpoint */
    {"line", 1, {0}, {5e-6, 0}, {0.1e-9, 0}},
    /* four segments, faster at the end (a 20 % drop at 4 MiB) */
    {"four", 4, {0, 4096, 65536, 4194304}, {1e-6, 6e-6, 20e-6, 0.1e-3}, {1e-9, 0.3e-9, 0.15e-9, 0.1e-9}},
};

static double truth(const shape_t *sh, double s) {
  int k = 0;
  while (k + 1 < sh->nseg && s >= sh->from[k + 1]) k++;
  return sh->offset[k] + sh->slope[k] * s;
}

static void check_shape(const shape_t *sh, gsl_rng *rng, double noise) {
  enum { N = 1000 };
  static double x[N], y[N];
  for (int i = 0; i < N; i++) {
    /* log-uniform sizes 1 B .. 64 MiB, as the benchmark samples them */
    x[i] = floor(pow(2.0, gsl_rng_uniform(rng) * 26.0));
    y[i] = truth(sh, x[i]) * (1.0 + gsl_ran_gaussian(rng, noise));
  }
  llamp_fit_t fit;
  char err[256];
  int rc = llamp_fit_segmented(x, y, N, NULL, &fit, err, sizeof err);
  CHECK(rc == 0);
  if (rc) {
    fprintf(stderr, "%s: %s\n", sh->name, err);
    return;
  }
  printf("%s (noise %.1f %%): %d segments, R^2 %.6f, rel rms %.4f\n", sh->name, noise * 100, fit.nseg, fit.r2,
         fit.rel_rms);
  for (int k = 0; k < fit.nseg; k++)
    printf("  from %10.0f  offset %.4g  slope %.4g  r2 %.5f  n %zu\n", fit.seg[k].from, fit.seg[k].offset,
           fit.seg[k].slope, fit.seg[k].r2, fit.seg[k].n);
  CHECK(fit.nseg == sh->nseg);
  if (fit.nseg != sh->nseg) {
    fprintf(stderr, "%s: %d segments, expected %d\n", sh->name, fit.nseg, sh->nseg);
    return;
  }
  for (int k = 1; k < sh->nseg; k++) CHECK_CLOSE(fit.seg[k].from / sh->from[k], 1.0, 0.05);
  for (int k = 0; k < sh->nseg; k++) {
    /* the value at the segment's two ends (offset and slope are correlated) */
    double a = k ? sh->from[k] : 1.0, b = k + 1 < sh->nseg ? sh->from[k + 1] - 1 : 67108864.0;
    double ta = sh->offset[k] + sh->slope[k] * a, tb = sh->offset[k] + sh->slope[k] * b;
    double fa = fit.seg[k].offset + fit.seg[k].slope * a, fb = fit.seg[k].offset + fit.seg[k].slope * b;
    CHECK_CLOSE(fa / ta, 1.0, 3 * noise + 0.01);
    CHECK_CLOSE(fb / tb, 1.0, 3 * noise + 0.01);
  }
  CHECK(fit.r2 > 0.99);
  CHECK_CLOSE(fit.rel_rms / noise, 1.0, 0.2);
  CHECK(fit.n == N);
}

int main(void) {
  /* R^2 by hand: y = 1 2 3 5, fit 1.1 1.9 3.2 4.8: RSS 0.10, mean 2.75,
   * TSS 8.75 -> 1 - 0.1 / 8.75; weights 1 1 2 2: weighted mean 19/6,
   * TSS 462/36, RSS 0.18 -> 1 - 6.48 / 462 */
  const double y[] = {1, 2, 3, 5}, yh[] = {1.1, 1.9, 3.2, 4.8}, w[] = {1, 1, 2, 2};
  CHECK_CLOSE(llamp_fit_r2(y, yh, NULL, 4), 1.0 - 0.1 / 8.75, 1e-12);
  CHECK_CLOSE(llamp_fit_r2(y, yh, w, 4), 1.0 - 6.48 / 462.0, 1e-12);
  CHECK(isnan(llamp_fit_r2((const double[]){2, 2}, (const double[]){2, 2}, NULL, 2)));

  /* a straight line through exact points: R^2 = 1, the coefficients */
  const double lx[] = {1, 2, 4, 8, 16}, ly[] = {3, 5, 9, 17, 33};
  double c0, c1, rss;
  char err[256];
  CHECK(llamp_fit_line(lx, ly, NULL, 5, &c0, &c1, &rss, err, sizeof err) == 0);
  CHECK_CLOSE(c0, 1.0, 1e-12);
  CHECK_CLOSE(c1, 2.0, 1e-12);
  CHECK_CLOSE(rss, 0.0, 1e-20);

  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 20261124);
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    check_shape(&shapes[i], rng, 0.01);
    check_shape(&shapes[i], rng, 0.03);
  }
  /* noise-free data: exact coefficients, the data split exactly at the
   * breakpoints */
  {
    enum { N = 300 };
    double x[N], yy[N];
    for (int i = 0; i < N; i++) {
      x[i] = floor(pow(2.0, gsl_rng_uniform(rng) * 26.0));
      yy[i] = truth(&shapes[3], x[i]);
    }
    llamp_fit_t fit;
    CHECK(llamp_fit_segmented(x, yy, N, NULL, &fit, err, sizeof err) == 0);
    CHECK(fit.nseg == 4);
    for (int k = 0; k < fit.nseg && fit.nseg == 4; k++) {
      CHECK_CLOSE(fit.seg[k].offset / shapes[3].offset[k], 1.0, 1e-6);
      CHECK_CLOSE(fit.seg[k].slope / shapes[3].slope[k], 1.0, 1e-6);
      if (k) CHECK(fit.seg[k].first >= shapes[3].from[k] && fit.seg[k - 1].last < shapes[3].from[k]);
    }
    CHECK_CLOSE(fit.r2, 1.0, 1e-12);
    CHECK_CLOSE(llamp_fit_eval(&fit, 5000), 6e-6 + 0.3e-9 * 5000, 1e-15);
    CHECK(llamp_fit_segment_of(&fit, 0) == 0);
  }
  /* robust: 5 % of the points delayed 1.5-5x (preempted ranks) */
  {
    enum { N = 1000 };
    static double x[N], yy[N];
    static unsigned char kept[N];
    const shape_t *sh = &shapes[1];
    int bad = 0;
    for (int i = 0; i < N; i++) {
      x[i] = floor(pow(2.0, gsl_rng_uniform(rng) * 26.0));
      yy[i] = truth(sh, x[i]) * (1.0 + gsl_ran_gaussian(rng, 0.01));
      if (gsl_rng_uniform(rng) < 0.05) yy[i] *= 1.5 + 3.5 * gsl_rng_uniform(rng), bad++;
    }
    llamp_fit_opts_t o;
    llamp_fit_opts_default(&o);
    o.trim = 5;
    llamp_fit_t fit;
    CHECK(llamp_fit_segmented_robust(x, yy, N, &o, &fit, kept, err, sizeof err) == 0);
    printf("robust: %d segments, %zu dropped (%d delayed)\n", fit.nseg, fit.dropped, bad);
    CHECK(fit.nseg == sh->nseg);
    for (int k = 1; k < sh->nseg && fit.nseg == sh->nseg; k++) CHECK_CLOSE(fit.seg[k].from / sh->from[k], 1.0, 0.05);
    CHECK(fit.dropped >= (size_t)bad && fit.dropped <= (size_t)bad + N / 50);
    CHECK(fit.n + fit.dropped == N);
    size_t nk = 0;
    for (int i = 0; i < N; i++) nk += kept[i];
    CHECK(nk == fit.n);
    CHECK_CLOSE(fit.rel_rms / 0.01, 1.0, 0.2);
  }
  /* errors */
  llamp_fit_t fit;
  CHECK(llamp_fit_segmented(lx, ly, 5, NULL, &fit, err, sizeof err) == -1 && strstr(err, "at least"));
  llamp_fit_opts_t o;
  llamp_fit_opts_default(&o);
  o.max_segments = 99;
  CHECK(llamp_fit_segmented(lx, ly, 5, &o, &fit, err, sizeof err) == -1 && strstr(err, "max_segments"));
  gsl_rng_free(rng);
  TEST_DONE();
}
