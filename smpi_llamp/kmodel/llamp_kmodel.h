/* llamp_kmodel.h - stochastic kernel models (docs/models.md, "Kernel models").
 *
 * A kernel model gives the duration of one call of a compute kernel (a BLAS
 * routine, an annotated region) on one host as a half-normal random variable
 * whose mean mu and standard deviation sigma are polynomials in the call's
 * dimensions d1, d2, d3 (Cornebize & Legrand, Eq. 1):
 *     mu    = sum_i mu_i    * term_i(d1, d2, d3)
 *     sigma = sum_i sigma_i * term_i(d1, d2, d3)
 * e.g. dgemm with the terms mnk, mn, mk, nk, 1.  Models are per kernel and
 * per host (spatial variability); a hierarchical generator (Eq. 3-5) draws
 * per-host models of a synthetic cluster, with a mixture for slow nodes.
 * Every random number comes from a GSL generator the caller seeds.
 *
 * Error rule: int functions return 0 / -1 with a one-line reason (file:line:
 * key: what was expected) in the caller's `err` buffer; the module prints
 * nothing. */
#ifndef LLAMP_KMODEL_H
#define LLAMP_KMODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LLAMP_KMODEL_MAX_TERMS 8
#define LLAMP_KMODEL_NAME 48
#define LLAMP_KMODEL_HOST 128

/* One monomial d1^e[0] d2^e[1] d3^e[2]; written with the letters m, n, k
 * for d1, d2, d3 ("mnk", "mn", "mm", "1"). */
typedef struct {
  unsigned char e[3];
} llamp_kmodel_term_t;

typedef struct {
  char name[LLAMP_KMODEL_NAME]; /* kernel: "dgemm", an annotated region's name */
  char host[LLAMP_KMODEL_HOST]; /* SimGrid host name, "*" = every other host */
  unsigned nterms;
  llamp_kmodel_term_t term[LLAMP_KMODEL_MAX_TERMS];
  double mu[LLAMP_KMODEL_MAX_TERMS];    /* s per unit of each term */
  double sigma[LLAMP_KMODEL_MAX_TERMS]; /* s per unit of each term */
  /* fit quality (0 when written by hand) */
  double r2, r2_sigma;
  uint64_t points;
  int generated; /* 1: drawn by a generator, not read */
  int line;      /* line in the model file (0: not from a file) */
} llamp_kmodel_t;

/* Hierarchical generator of per-host models for one kernel (Eq. 3-5): the
 * coefficient vector theta = (mu_1..mu_t, sigma_1..sigma_t) of the kernel's
 * "*" model is the population mean; a host p draws
 *     theta_p   ~ N(scale_c * theta, Sigma_S)      component c: normal or slow
 *     theta_p,d ~ N(theta_p, Sigma_T)               the day d of this run
 * The component is "slow" with probability slow_weight. */
#define LLAMP_KMODEL_MAX_COEF (2 * LLAMP_KMODEL_MAX_TERMS)
typedef struct {
  char name[LLAMP_KMODEL_NAME];
  int has_seed;
  uint64_t seed;      /* the cluster's seed (default: the run's seed) */
  double spatial[LLAMP_KMODEL_MAX_COEF * LLAMP_KMODEL_MAX_COEF];  /* Sigma_S, row-major, 2t x 2t */
  double temporal[LLAMP_KMODEL_MAX_COEF * LLAMP_KMODEL_MAX_COEF]; /* Sigma_T */
  double slow_weight, slow_scale; /* mixture: P(slow), mean multiplier */
  double slow_spatial[LLAMP_KMODEL_MAX_COEF * LLAMP_KMODEL_MAX_COEF]; /* Sigma_S of slow nodes */
  int line;
} llamp_kmodel_gen_t;

typedef struct {
  llamp_kmodel_t *m;
  size_t n, cap;
  llamp_kmodel_gen_t *gen;
  size_t ngen;
  char source[256];       /* free text: who wrote the models */
  double reference_speed; /* flop/s; > 0: durations scale with the host speed */
  char path[1024];        /* the file read ("" = built in memory) */
} llamp_kmodel_set_t;

/* ---- terms ---------------------------------------------------------------- */
int llamp_kmodel_term_parse(const char *text, llamp_kmodel_term_t *t);
void llamp_kmodel_term_format(const llamp_kmodel_term_t *t, char *buf, size_t len);
double llamp_kmodel_term_value(const llamp_kmodel_term_t *t, double d1, double d2, double d3);
/* The default terms of a kernel: dgemm mnk mn mk nk 1; dtrsm mmn mn 1;
 * dgemv mn m 1; daxpy, ddot n 1 (as m); others: mnk 1. Returns the count. */
unsigned llamp_kmodel_default_terms(const char *name, llamp_kmodel_term_t *t);

/* ---- one model ---------------------------------------------------------------- */
/* mu and sigma at (d1, d2, d3), both clamped at 0. */
double llamp_kmodel_mu(const llamp_kmodel_t *m, double d1, double d2, double d3);
double llamp_kmodel_sigma(const llamp_kmodel_t *m, double d1, double d2, double d3);
/* One draw of a half-normal with mean mu and standard deviation sigma:
 * a + |N(0, b)| with b = sigma / sqrt(1 - 2/pi), a = mu - b sqrt(2/pi).
 * When sigma > 0.7555 mu, a < 0 and a draw below 0 is returned as 0 (the
 * moments are then not exact); sigma <= 0 gives mu. */
double llamp_kmodel_halfnormal(gsl_rng *r, double mu, double sigma);
/* One duration (seconds) of a call: a draw at (d1, d2, d3); r == NULL: mu. */
double llamp_kmodel_draw(const llamp_kmodel_t *m, gsl_rng *r, double d1, double d2, double d3);

/* ---- sets and files ------------------------------------------------------------- */
void llamp_kmodel_set_init(llamp_kmodel_set_t *s);
void llamp_kmodel_set_free(llamp_kmodel_set_t *s);
/* Appends a copy; -1 when out of memory. */
int llamp_kmodel_set_add(llamp_kmodel_set_t *s, const llamp_kmodel_t *m);
/* The model of `name` for `host`: its own, else the "*" one, else NULL. */
const llamp_kmodel_t *llamp_kmodel_find(const llamp_kmodel_set_t *s, const char *name,
                                        const char *host);
/* Read the `kernels` group of a libconfig model file.  A file without the
 * group gives an empty set (0).  Errors: "file:line: kernels.models.[i].mu:
 * expected ...". */
int llamp_kmodel_load(llamp_kmodel_set_t *s, const char *path, char *err, size_t errlen);
/* Write the set as a `kernels = { ... };` group (with a comment header). */
int llamp_kmodel_write(const llamp_kmodel_set_t *s, FILE *f);

/* ---- the hierarchical generator --------------------------------------------- */
/* Seeds a GSL generator from (seed, stream, index): streams of one seed are
 * independent and do not depend on the order they are used in. */
void llamp_kmodel_seed_rng(gsl_rng *r, uint64_t seed, uint64_t stream, uint64_t index);
uint64_t llamp_kmodel_hash(const char *s);
/* Draw host `host`'s model from generator g around `base` (its "*" model):
 * theta_p from `cluster` (a generator seeded for this host), theta_p,d from
 * `day` (NULL: no day-to-day term).  *slow tells the mixture's choice. */
int llamp_kmodel_generate(const llamp_kmodel_gen_t *g, const llamp_kmodel_t *base, gsl_rng *cluster,
                          gsl_rng *day, const char *host, llamp_kmodel_t *out, int *slow,
                          char *err, size_t errlen);

/* ---- fitting (GSL least squares) ----------------------------------------------- */
/* Fit mu and sigma of `name` on `host` from n calls (dims[3 i .. 3 i + 2],
 * seconds y[i]) with the given terms: mu by weighted least squares (weights
 * 1 / mu^2 of an ordinary first fit, so small calls count), sigma from the
 * absolute residuals (E|y - mu| is proportional to sigma for a half-normal).
 * Sets r2 (of mu, unweighted), r2_sigma, points.  Terms the calls cannot
 * tell apart are dropped (out->nterms <= nterms: a kernel recorded at one
 * size keeps its first term).  Needs more calls than kept terms. */
int llamp_kmodel_fit(const double *dims, const double *y, size_t n, const llamp_kmodel_term_t *terms,
                     unsigned nterms, const char *name, const char *host, llamp_kmodel_t *out,
                     char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
