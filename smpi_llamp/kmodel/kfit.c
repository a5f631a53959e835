/* kfit.c - fitting a kernel model to measured calls with GSL's linear least
 * squares (llamp_kmodel.h, llamp_kmodel_fit). */
#define _GNU_SOURCE
#include "llamp_kmodel.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_randist.h>

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* E|y - mu| / sigma for a half-normal y: with c = sqrt(2/pi),
 * E||Z| - c| = 4 (phi(c) - c Q(c)), and sigma = b sqrt(1 - 2/pi). */
static double abs_dev_ratio(void) {
  double c = sqrt(2 / M_PI);
  return 4 * (gsl_ran_ugaussian_pdf(c) - c * gsl_cdf_ugaussian_Q(c)) / sqrt(1 - 2 / M_PI);
}

/* weighted least squares of v on X; c receives the coefficients */
static int wls(const gsl_matrix *X, const gsl_vector *w, const double *v, size_t n, double *c) {
  size_t p = X->size2;
  gsl_vector *y = gsl_vector_alloc(n), *cv = gsl_vector_alloc(p);
  gsl_matrix *cov = gsl_matrix_alloc(p, p);
  gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, p);
  int rc = -1;
  if (y && cv && cov && ws) {
    double chisq;
    for (size_t i = 0; i < n; i++) gsl_vector_set(y, i, v[i]);
    rc = (w ? gsl_multifit_wlinear(X, w, y, cv, cov, &chisq, ws) : gsl_multifit_linear(X, y, cv, cov, &chisq, ws))
             ? -1 : 0;
    for (size_t j = 0; j < p && rc == 0; j++) c[j] = gsl_vector_get(cv, j);
  }
  if (ws) gsl_multifit_linear_free(ws);
  if (cov) gsl_matrix_free(cov);
  if (cv) gsl_vector_free(cv);
  if (y) gsl_vector_free(y);
  return rc;
}

static double r_squared(const gsl_matrix *X, const double *c, const double *v, size_t n) {
  double mean = 0, sst = 0, sse = 0;
  for (size_t i = 0; i < n; i++) mean += v[i];
  mean /= (double)n;
  for (size_t i = 0; i < n; i++) {
    double f = 0;
    for (size_t j = 0; j < X->size2; j++) f += gsl_matrix_get(X, i, j) * c[j];
    sse += (v[i] - f) * (v[i] - f);
    sst += (v[i] - mean) * (v[i] - mean);
  }
  return sst > 0 ? 1 - sse / sst : 1;
}

/* The terms the calls can tell apart, in the given order: a term whose
 * column is (numerically) a combination of the kept ones is dropped.  A
 * kernel always called with the same sizes keeps its first term only (e.g.
 * mnk, not also the constant): with both, least squares has no unique
 * answer and returned huge coefficients of opposite signs.  Modified
 * Gram-Schmidt on the columns scaled to unit norm; returns the count. */
static unsigned select_terms(const double *dims, size_t n, const llamp_kmodel_term_t *terms, unsigned nterms,
                             llamp_kmodel_term_t *kept) {
  double *basis = malloc((size_t)nterms * n * sizeof *basis);
  if (!basis) return 0;
  unsigned k = 0;
  for (unsigned j = 0; j < nterms; j++) {
    double *v = basis + (size_t)k * n, norm = 0;
    for (size_t i = 0; i < n; i++) {
      v[i] = llamp_kmodel_term_value(&terms[j], dims[3 * i], dims[3 * i + 1], dims[3 * i + 2]);
      norm += v[i] * v[i];
    }
    if (!(norm > 0) || !isfinite(norm)) continue;
    norm = sqrt(norm);
    for (size_t i = 0; i < n; i++) v[i] /= norm;
    for (unsigned b = 0; b < k; b++) {
      const double *u = basis + (size_t)b * n;
      double dot = 0;
      for (size_t i = 0; i < n; i++) dot += u[i] * v[i];
      for (size_t i = 0; i < n; i++) v[i] -= dot * u[i];
    }
    norm = 0;
    for (size_t i = 0; i < n; i++) norm += v[i] * v[i];
    if (sqrt(norm) < 1e-9) continue;
    norm = sqrt(norm);
    for (size_t i = 0; i < n; i++) v[i] /= norm;
    kept[k++] = terms[j];
  }
  free(basis);
  return k;
}

int llamp_kmodel_fit(const double *dims, const double *y, size_t n, const llamp_kmodel_term_t *terms,
                     unsigned nterms, const char *name, const char *host, llamp_kmodel_t *out,
                     char *err, size_t errlen) {
  if (nterms == 0 || nterms > LLAMP_KMODEL_MAX_TERMS) {
    seterr(err, errlen, "%s: expected 1 to %d terms", name, LLAMP_KMODEL_MAX_TERMS);
    return -1;
  }
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", name);
  snprintf(out->host, sizeof out->host, "%s", host);
  unsigned keep = select_terms(dims, n, terms, nterms, out->term);
  if (keep == 0) {
    seterr(err, errlen, "%s on %s: every term is 0 at every call (expected calls with nonzero sizes)", name, host);
    return -1;
  }
  if (n <= keep) {
    seterr(err, errlen, "%s on %s: %zu calls for %u terms (expected more calls than terms)", name, host, n, keep);
    return -1;
  }
  nterms = out->nterms = keep;
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  gsl_matrix *X = gsl_matrix_alloc(n, nterms);
  gsl_vector *w = gsl_vector_alloc(n);
  double *res = malloc(n * sizeof *res);
  int rc = -1;
  if (!X || !w || !res) {
    seterr(err, errlen, "out of memory fitting %s (%zu calls)", name, n);
    goto out;
  }
  for (size_t i = 0; i < n; i++)
    for (unsigned j = 0; j < nterms; j++)
      gsl_matrix_set(X, i, j,
                     llamp_kmodel_term_value(&out->term[j], dims[3 * i], dims[3 * i + 1], dims[3 * i + 2]));
  /* 1. ordinary least squares: a first mu; 2. weights 1 / mu^2, so the
   * relative error counts and small calls are not drowned by large ones */
  double c0[LLAMP_KMODEL_MAX_TERMS], ymean = 0;
  for (size_t i = 0; i < n; i++) ymean += y[i];
  ymean /= (double)n;
  if (wls(X, NULL, y, n, c0)) {
    seterr(err, errlen, "%s on %s: the least-squares fit failed (terms not independent?)", name, host);
    goto out;
  }
  for (size_t i = 0; i < n; i++) {
    double f = 0;
    for (unsigned j = 0; j < nterms; j++) f += gsl_matrix_get(X, i, j) * c0[j];
    double floor = 1e-3 * ymean > 0 ? 1e-3 * ymean : 1e-12;
    if (f < floor) f = fmax(y[i], floor);
    gsl_vector_set(w, i, 1 / (f * f));
  }
  if (wls(X, w, y, n, out->mu)) {
    seterr(err, errlen, "%s on %s: the weighted fit of mu failed", name, host);
    goto out;
  }
  out->r2 = r_squared(X, out->mu, y, n);
  /* sigma: E|y - mu| = k sigma for a half-normal, fitted with the same weights */
  for (size_t i = 0; i < n; i++) {
    double f = 0;
    for (unsigned j = 0; j < nterms; j++) f += gsl_matrix_get(X, i, j) * out->mu[j];
    res[i] = fabs(y[i] - f);
  }
  double s[LLAMP_KMODEL_MAX_TERMS];
  if (wls(X, w, res, n, s)) {
    seterr(err, errlen, "%s on %s: the fit of sigma failed", name, host);
    goto out;
  }
  out->r2_sigma = r_squared(X, s, res, n);
  double k = abs_dev_ratio();
  for (unsigned j = 0; j < nterms; j++) out->sigma[j] = s[j] / k;
  out->points = n;
  rc = 0;
out:
  free(res);
  if (w) gsl_vector_free(w);
  if (X) gsl_matrix_free(X);
  gsl_set_error_handler(old);
  return rc;
}
