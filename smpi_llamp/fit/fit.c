/* fit.c - segmented linear regression (llamp_fit.h): GSL's weighted least
 * squares per segment, dynamic programming over candidate breakpoints, BIC
 * for the number of segments, local refinement of each breakpoint. */
#include "llamp_fit.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void llamp_fit_opts_default(llamp_fit_opts_t *opts) {
  opts->max_segments = 6;
  opts->min_points = 8;
  opts->penalty = 1.0;
  opts->relative = 1;
  opts->max_candidates = 256;
  opts->trim = 0;
}

int llamp_fit_line(const double *x, const double *y, const double *w, size_t n, double *c0, double *c1,
                   double *rss, char *err, size_t errlen) {
  double cov00, cov01, cov11;
  if (n < 2) {
    snprintf(err, errlen, "a line needs at least 2 points, got %zu", n);
    return -1;
  }
  int rc = w ? gsl_fit_wlinear(x, 1, w, 1, y, 1, n, c0, c1, &cov00, &cov01, &cov11, rss)
             : gsl_fit_linear(x, 1, y, 1, n, c0, c1, &cov00, &cov01, &cov11, rss);
  if (rc != GSL_SUCCESS || !isfinite(*c0) || !isfinite(*c1)) {
    snprintf(err, errlen, "least squares failed (%s)", gsl_strerror(rc));
    return -1;
  }
  return 0;
}

double llamp_fit_r2(const double *y, const double *yhat, const double *w, size_t n) {
  double *res = malloc((n ? n : 1) * sizeof *res);
  if (!res) return NAN;
  for (size_t i = 0; i < n; i++) res[i] = y[i] - yhat[i];
  double rss, tss;
  if (w) {
    /* weighted sums of squares about 0 (residuals) and about the weighted mean */
    rss = gsl_stats_wtss_m(w, 1, res, 1, n, 0.0);
    tss = gsl_stats_wtss(w, 1, y, 1, n);
  } else {
    rss = gsl_stats_tss_m(res, 1, n, 0.0);
    tss = gsl_stats_tss(y, 1, n);
  }
  free(res);
  return tss > 0 ? 1.0 - rss / tss : NAN;
}

int llamp_fit_segment_of(const llamp_fit_t *fit, double x) {
  int k = 0;
  while (k + 1 < fit->nseg && x >= fit->seg[k + 1].from) k++;
  return k;
}

double llamp_fit_eval(const llamp_fit_t *fit, double x) {
  const llamp_fit_segment_t *s = &fit->seg[llamp_fit_segment_of(fit, x)];
  return s->offset + s->slope * x;
}

/* The sorted data and the cost of a segment [a, b) (indices). */
typedef struct {
  const double *x, *y, *w;
  size_t n, min_points;
} fitdata_t;

static double seg_cost(const fitdata_t *d, size_t a, size_t b) {
  if (b - a < d->min_points || d->x[a] == d->x[b - 1]) return INFINITY;
  double c0, c1, rss;
  char e[8];
  if (llamp_fit_line(d->x + a, d->y + a, d->w ? d->w + a : NULL, b - a, &c0, &c1, &rss, e, sizeof e))
    return INFINITY;
  return rss;
}

/* Best split of [0, n) into k segments whose inner boundaries are among
 * cand[1..K-1] (cand[0] = 0, cand[K] = n): dynamic programming over the
 * candidate costs.  bounds gets k+1 indices; returns the total cost. */
static double dp_split(const double *cost, const size_t *cand, size_t K, int k, size_t *bounds,
                       double *best, int *arg) {
  /* best[j*(K+1)+m]: cost of [0, cand[m]) in j+1 segments */
  size_t W = K + 1;
  for (size_t m = 0; m <= K; m++) best[m] = cost[0 * W + m], arg[m] = 0;
  for (int j = 1; j < k; j++)
    for (size_t m = 0; m <= K; m++) {
      double b = INFINITY;
      int am = -1;
      for (size_t i = 1; i < m; i++) {
        double c = best[(j - 1) * W + i] + cost[i * W + m];
        if (c < b) b = c, am = (int)i;
      }
      best[j * W + m] = b;
      arg[j * W + m] = am;
    }
  double total = best[(k - 1) * W + K];
  if (!isfinite(total)) return INFINITY;
  size_t m = K;
  bounds[k] = cand[K];
  for (int j = k - 1; j >= 1; j--) {
    m = (size_t)arg[j * W + m];
    bounds[j] = cand[m];
  }
  bounds[0] = 0;
  return total;
}

/* Move each inner boundary to the best position between its neighbours'
 * coarse candidates (all distinct-x positions), until nothing moves. */
static void refine(const fitdata_t *d, size_t *bounds, int k, const size_t *cand, size_t K) {
  for (int pass = 0; pass < 8; pass++) {
    int moved = 0;
    for (int j = 1; j < k; j++) {
      /* the coarse candidates around bounds[j] */
      size_t lo = bounds[j - 1], hi = bounds[j + 1];
      for (size_t m = 0; m <= K; m++) {
        if (cand[m] < bounds[j] && cand[m] > lo) lo = cand[m];
      }
      for (size_t m = K + 1; m-- > 0;) {
        if (cand[m] > bounds[j] && cand[m] < hi) hi = cand[m];
      }
      /* from one coarse step below to one above: the DP may sit one off */
      size_t best_p = bounds[j];
      double best_c = seg_cost(d, bounds[j - 1], bounds[j]) + seg_cost(d, bounds[j], bounds[j + 1]);
      for (size_t p = lo + 1; p < hi; p++) {
        if (d->x[p - 1] == d->x[p]) continue;
        double c = seg_cost(d, bounds[j - 1], p) + seg_cost(d, p, bounds[j + 1]);
        if (c < best_c) best_c = c, best_p = p;
      }
      if (best_p != bounds[j]) bounds[j] = best_p, moved = 1;
    }
    if (!moved) break;
  }
}

int llamp_fit_segmented(const double *x_in, const double *y_in, size_t n, const llamp_fit_opts_t *opts_in,
                        llamp_fit_t *fit, char *err, size_t errlen) {
  llamp_fit_opts_t opts;
  if (opts_in)
    opts = *opts_in;
  else
    llamp_fit_opts_default(&opts);
  memset(fit, 0, sizeof *fit);
  if (opts.max_segments < 1 || opts.max_segments > LLAMP_FIT_MAX_SEGMENTS) {
    snprintf(err, errlen, "max_segments must be 1..%d, got %d", LLAMP_FIT_MAX_SEGMENTS, opts.max_segments);
    return -1;
  }
  if (opts.min_points < 3) opts.min_points = 3;
  if (opts.max_candidates < 4) opts.max_candidates = 4;
  if (n < opts.min_points) {
    snprintf(err, errlen, "%zu points, at least %zu needed", n, opts.min_points);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x_in[i]) || !isfinite(y_in[i])) {
      snprintf(err, errlen, "point %zu is not finite (%g, %g)", i, x_in[i], y_in[i]);
      return -1;
    }

  int rc = -1;
  size_t *perm = malloc(n * sizeof *perm);
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *w = NULL;
  double *cost = NULL, *best = NULL, *yhat = NULL, *ry = NULL;
  int *arg = NULL;
  size_t *cand = NULL;
  if (!perm || !x || !y) goto oom;
  gsl_sort_index(perm, x_in, 1, n);
  for (size_t i = 0; i < n; i++) x[i] = x_in[perm[i]], y[i] = y_in[perm[i]];

  if (opts.relative) {
    /* weights 1 / y^2; a floor keeps zero or negative durations finite */
    w = malloc(n * sizeof *w);
    if (!w) goto oom;
    double floor_y = 0;
    for (size_t i = 0; i < n; i++) floor_y = fmax(floor_y, fabs(y[i]));
    floor_y *= 1e-9;
    if (floor_y == 0) floor_y = 1e-300;
    for (size_t i = 0; i < n; i++) {
      double a = fmax(fabs(y[i]), floor_y);
      w[i] = 1.0 / (a * a);
    }
  }
  fitdata_t d = {x, y, w, n, opts.min_points};

  /* candidate boundaries: index quantiles moved forward to the next change of x */
  cand = malloc((opts.max_candidates + 2) * sizeof *cand);
  if (!cand) goto oom;
  size_t K = 0;
  cand[0] = 0;
  for (size_t q = 1; q < opts.max_candidates; q++) {
    size_t p = q * n / opts.max_candidates;
    while (p < n && p > 0 && x[p - 1] == x[p]) p++;
    if (p >= n || p <= cand[K]) continue;
    cand[++K] = p;
  }
  cand[++K] = n;

  size_t W = K + 1;
  cost = malloc(W * W * sizeof *cost);
  best = malloc((size_t)opts.max_segments * W * sizeof *best);
  arg = malloc((size_t)opts.max_segments * W * sizeof *arg);
  if (!cost || !best || !arg) goto oom;
  for (size_t i = 0; i < W; i++)
    for (size_t j = 0; j < W; j++) cost[i * W + j] = j > i ? seg_cost(&d, cand[i], cand[j]) : INFINITY;

  /* RSS below a relative residual of 1e-6 is noise-free: the floor keeps
   * BIC from buying segments with rounding errors */
  double scale2 = 1.0;
  if (!opts.relative) {
    scale2 = gsl_stats_tss_m(y, 1, n, 0.0) / (double)n;
    if (scale2 == 0) scale2 = 1;
  }
  double rss_floor = (double)n * 1e-12 * scale2;

  size_t bounds[LLAMP_FIT_MAX_SEGMENTS + 1], kbounds[LLAMP_FIT_MAX_SEGMENTS + 1];
  int kbest = 0;
  double bic_best = INFINITY;
  for (int k = 1; k <= opts.max_segments; k++) {
    double total = dp_split(cost, cand, K, k, kbounds, best, arg);
    if (!isfinite(total)) break;
    refine(&d, kbounds, k, cand, K);
    total = 0;
    for (int j = 0; j < k; j++) total += seg_cost(&d, kbounds[j], kbounds[j + 1]);
    double bic = (double)n * log(fmax(total, rss_floor) / (double)n) + opts.penalty * 3.0 * k * log((double)n);
    if (bic < bic_best) {
      bic_best = bic;
      kbest = k;
      memcpy(bounds, kbounds, (size_t)(k + 1) * sizeof *bounds);
    }
  }
  if (kbest == 0) {
    snprintf(err, errlen, "no segment of %zu points with distinct sizes", opts.min_points);
    goto out;
  }

  fit->nseg = kbest;
  fit->n = n;
  fit->bic = bic_best;
  yhat = malloc(n * sizeof *yhat);
  if (!yhat) goto oom;
  for (int j = 0; j < kbest; j++) {
    llamp_fit_segment_t *s = &fit->seg[j];
    size_t a = bounds[j], b = bounds[j + 1];
    double rss;
    if (llamp_fit_line(x + a, y + a, w ? w + a : NULL, b - a, &s->offset, &s->slope, &rss, err, errlen)) goto out;
    /* the jump lies somewhere in the gap between two samples: its middle
       (on the log scale sizes are sampled on) halves the expected error */
    s->from = j == 0 ? x[0] : fmin(ceil(sqrt(fmax(x[a - 1], 0) * x[a])), x[a]);
    if (j > 0 && s->from <= x[a - 1]) s->from = x[a];
    s->first = x[a];
    s->last = x[b - 1];
    s->n = b - a;
    for (size_t i = a; i < b; i++) yhat[i] = s->offset + s->slope * x[i];
    s->r2 = llamp_fit_r2(y + a, yhat + a, w ? w + a : NULL, b - a);
  }
  fit->r2 = llamp_fit_r2(y, yhat, NULL, n);
  fit->r2_weighted = w ? llamp_fit_r2(y, yhat, w, n) : fit->r2;
  /* relative residuals: mean square about 0 and the largest magnitude */
  ry = malloc(n * sizeof *ry);
  if (!ry) goto oom;
  for (size_t i = 0; i < n; i++) ry[i] = yhat[i] != 0 ? (y[i] - yhat[i]) / yhat[i] : 0;
  fit->rel_rms = sqrt(gsl_stats_tss_m(ry, 1, n, 0.0) / (double)n);
  double mn, mx;
  gsl_stats_minmax(&mn, &mx, ry, 1, n);
  fit->rel_max = fmax(fabs(mn), fabs(mx));
  rc = 0;
  goto out;
oom:
  snprintf(err, errlen, "out of memory (%zu points)", n);
out:
  free(perm), free(x), free(y), free(w), free(cost), free(best), free(arg), free(cand);
  free(yhat), free(ry);
  return rc;
}

int llamp_fit_segmented_robust(const double *x, const double *y, size_t n, const llamp_fit_opts_t *opts,
                               llamp_fit_t *fit, unsigned char *kept_out, char *err, size_t errlen) {
  llamp_fit_opts_t o;
  if (opts)
    o = *opts;
  else
    llamp_fit_opts_default(&o);
  if (o.trim <= 0) {
    if (kept_out) memset(kept_out, 1, n);
    return llamp_fit_segmented(x, y, n, &o, fit, err, errlen);
  }
  int rc = -1;
  unsigned char *kept = malloc(n ? n : 1);
  double *kx = malloc((n ? n : 1) * sizeof *kx), *ky = malloc((n ? n : 1) * sizeof *ky);
  double *r = malloc((n ? n : 1) * sizeof *r), *rk = malloc((n ? n : 1) * sizeof *rk);
  if (!kept || !kx || !ky || !r || !rk) {
    snprintf(err, errlen, "out of memory (%zu points)", n);
    goto out;
  }
  memset(kept, 1, n);
  for (int round = 0; round < 5; round++) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (kept[i]) kx[m] = x[i], ky[m] = y[i], m++;
    if (llamp_fit_segmented(kx, ky, m, &o, fit, err, errlen)) goto out;
    fit->dropped = n - m;
    if (round == 4) break;
    /* relative residuals of every point; median and MAD of the kept ones */
    size_t mk = 0;
    for (size_t i = 0; i < n; i++) {
      double f = llamp_fit_eval(fit, x[i]);
      r[i] = f != 0 ? (y[i] - f) / fabs(f) : 0;
      if (kept[i]) rk[mk++] = r[i];
    }
    gsl_sort(rk, 1, mk);
    double med = gsl_stats_median_from_sorted_data(rk, 1, mk);
    for (size_t i = 0; i < mk; i++) rk[i] = fabs(rk[i] - med);
    gsl_sort(rk, 1, mk);
    double mad = 1.4826 * gsl_stats_median_from_sorted_data(rk, 1, mk);
    if (mad <= 0) break; /* exact data: nothing to trim */
    int changed = 0;
    for (size_t i = 0; i < n; i++) {
      unsigned char k = fabs(r[i] - med) <= o.trim * mad;
      if (k != kept[i]) kept[i] = k, changed = 1;
    }
    if (!changed) break;
  }
  if (kept_out) memcpy(kept_out, kept, n);
  rc = 0;
out:
  free(kept), free(kx), free(ky), free(r), free(rk);
  return rc;
}
