/* kmodel.c - kernel models: terms, the half-normal draw, model files (the
 * `kernels` group, libconfig) and the hierarchical generator
 * (llamp_kmodel.h).  The least-squares fit is in kfit.c. */
#define _GNU_SOURCE
#include "llamp_kmodel.h"

#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

static void seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  /* one line, whatever a name from the file quoted */
  for (char *c = err; c && errlen && *c; c++)
    if ((unsigned char)*c < 0x20) *c = '?';
}

/* ---- terms ------------------------------------------------------------------------- */

int llamp_kmodel_term_parse(const char *text, llamp_kmodel_term_t *t) {
  memset(t, 0, sizeof *t);
  if (!text || !*text) return -1;
  if (strcmp(text, "1") == 0) return 0;
  for (const char *p = text; *p; p++) {
    int i = *p == 'm' ? 0 : *p == 'n' ? 1 : *p == 'k' ? 2 : -1;
    if (i < 0 || t->e[i] == 3) return -1; /* at most cubes: d^3 */
    t->e[i]++;
  }
  return 0;
}

void llamp_kmodel_term_format(const llamp_kmodel_term_t *t, char *buf, size_t len) {
  size_t o = 0;
  static const char letter[3] = {'m', 'n', 'k'};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < t->e[i] && o + 1 < len; j++) buf[o++] = letter[i];
  if (o == 0 && len > 1) buf[o++] = '1';
  if (len) buf[o < len ? o : len - 1] = '\0';
}

double llamp_kmodel_term_value(const llamp_kmodel_term_t *t, double d1, double d2, double d3) {
  double v = 1, d[3] = {d1, d2, d3};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < t->e[i]; j++) v *= d[i];
  return v;
}

unsigned llamp_kmodel_default_terms(const char *name, llamp_kmodel_term_t *t) {
  static const struct {
    const char *name;
    const char *terms[6];
  } defaults[] = {
      {"dgemm", {"mnk", "mn", "mk", "nk", "1", NULL}}, /* seed 004 Eq. 1 */
      {"dtrsm", {"mmn", "mn", "1", NULL}},              /* m x m triangle, n right-hand sides */
      {"dgemv", {"mn", "m", "1", NULL}},
      {"daxpy", {"m", "1", NULL}},
      {"ddot", {"m", "1", NULL}},
  };
  const char *const *terms = NULL;
  static const char *const other[] = {"mnk", "1", NULL};
  for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
    if (strcmp(defaults[i].name, name) == 0) terms = defaults[i].terms;
  if (!terms) terms = other;
  unsigned n = 0;
  for (; terms[n]; n++) llamp_kmodel_term_parse(terms[n], &t[n]);
  return n;
}

/* ---- one model ------------------------------------------------------------------- */

static double poly(const llamp_kmodel_t *m, const double *c, double d1, double d2, double d3) {
  double v = 0;
  for (unsigned i = 0; i < m->nterms; i++)
    if (c[i] != 0) v += c[i] * llamp_kmodel_term_value(&m->term[i], d1, d2, d3);
  return v > 0 ? v : 0;
}

double llamp_kmodel_mu(const llamp_kmodel_t *m, double d1, double d2, double d3) {
  return poly(m, m->mu, d1, d2, d3);
}

double llamp_kmodel_sigma(const llamp_kmodel_t *m, double d1, double d2, double d3) {
  return poly(m, m->sigma, d1, d2, d3);
}

double llamp_kmodel_halfnormal(gsl_rng *r, double mu, double sigma) {
  if (!(sigma > 0)) return mu;
  /* |N(0, b)| has mean b sqrt(2/pi) and variance b^2 (1 - 2/pi) */
  double b = sigma / sqrt(1 - 2 / M_PI);
  double a = mu - b * sqrt(2 / M_PI);
  double x = a + fabs(b * gsl_ran_ugaussian(r));
  return x > 0 ? x : 0;
}

double llamp_kmodel_draw(const llamp_kmodel_t *m, gsl_rng *r, double d1, double d2, double d3) {
  double mu = llamp_kmodel_mu(m, d1, d2, d3);
  if (!r) return mu;
  return llamp_kmodel_halfnormal(r, mu, llamp_kmodel_sigma(m, d1, d2, d3));
}

/* ---- sets ------------------------------------------------------------------------- */

void llamp_kmodel_set_init(llamp_kmodel_set_t *s) { memset(s, 0, sizeof *s); }

void llamp_kmodel_set_free(llamp_kmodel_set_t *s) {
  free(s->m);
  free(s->gen);
  memset(s, 0, sizeof *s);
}

int llamp_kmodel_set_add(llamp_kmodel_set_t *s, const llamp_kmodel_t *m) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    llamp_kmodel_t *p = realloc(s->m, cap * sizeof *p);
    if (!p) return -1;
    s->m = p;
    s->cap = cap;
  }
  s->m[s->n++] = *m;
  return 0;
}

const llamp_kmodel_t *llamp_kmodel_find(const llamp_kmodel_set_t *s, const char *name,
                                        const char *host) {
  const llamp_kmodel_t *any = NULL;
  for (size_t i = 0; i < s->n; i++) {
    if (strcmp(s->m[i].name, name) != 0) continue;
    if (host && strcmp(s->m[i].host, host) == 0) return &s->m[i];
    if (strcmp(s->m[i].host, "*") == 0) any = &s->m[i];
  }
  return any;
}

/* ---- semi-definite Cholesky (n <= 16): L L^T = A; 0 / -1 if not PSD ----------------- */

static int cholesky(const double *a, unsigned n, double *l) {
  memset(l, 0, (size_t)n * n * sizeof *l);
  double scale = 0;
  for (unsigned i = 0; i < n; i++) scale = fmax(scale, fabs(a[i * n + i]));
  double tol = 1e-12 * (scale > 0 ? scale : 1);
  for (unsigned j = 0; j < n; j++) {
    if (fabs(a[j * n + j] - a[j * n + j]) > 0) return -1;
    for (unsigned i = 0; i < j; i++)
      if (fabs(a[i * n + j] - a[j * n + i]) > 1e-9 * (scale > 0 ? scale : 1)) return -1;
    double d = a[j * n + j];
    for (unsigned k = 0; k < j; k++) d -= l[j * n + k] * l[j * n + k];
    if (d < -tol) return -1;
    if (d <= tol) { /* a degenerate direction: the column must vanish */
      for (unsigned i = j + 1; i < n; i++) {
        double v = a[i * n + j];
        for (unsigned k = 0; k < j; k++) v -= l[i * n + k] * l[j * n + k];
        if (fabs(v) > 1e-6 * sqrt(scale)) return -1;
      }
      continue;
    }
    l[j * n + j] = sqrt(d);
    for (unsigned i = j + 1; i < n; i++) {
      double v = a[i * n + j];
      for (unsigned k = 0; k < j; k++) v -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = v / l[j * n + j];
    }
  }
  return 0;
}

/* ---- the hierarchical generator -------------------------------------------------- */

static uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t llamp_kmodel_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

void llamp_kmodel_seed_rng(gsl_rng *r, uint64_t seed, uint64_t stream, uint64_t index) {
  uint64_t x = splitmix(splitmix(splitmix(seed) ^ stream) ^ index);
  /* mt19937 keeps 32 bits of its seed; 0 means its default seed */
  unsigned long s = (unsigned long)(x ^ (x >> 32)) & 0xffffffffUL;
  gsl_rng_set(r, s ? s : 1);
}

/* x += L z, z standard normal (n dims) */
static void add_mvn(gsl_rng *r, const double *l, unsigned n, double *x) {
  double z[LLAMP_KMODEL_MAX_COEF];
  for (unsigned i = 0; i < n; i++) z[i] = gsl_ran_ugaussian(r);
  for (unsigned i = 0; i < n; i++) {
    double v = 0;
    for (unsigned k = 0; k <= i; k++) v += l[i * n + k] * z[k];
    x[i] += v;
  }
}

int llamp_kmodel_generate(const llamp_kmodel_gen_t *g, const llamp_kmodel_t *base, gsl_rng *cluster,
                          gsl_rng *day, const char *host, llamp_kmodel_t *out, int *slow,
                          char *err, size_t errlen) {
  unsigned t = base->nterms, n = 2 * t;
  double th[LLAMP_KMODEL_MAX_COEF], ls[LLAMP_KMODEL_MAX_COEF * LLAMP_KMODEL_MAX_COEF],
      lt[LLAMP_KMODEL_MAX_COEF * LLAMP_KMODEL_MAX_COEF];
  int is_slow = g->slow_weight > 0 && gsl_rng_uniform(cluster) < g->slow_weight;
  double scale = is_slow ? g->slow_scale : 1;
  for (unsigned i = 0; i < t; i++) {
    th[i] = scale * base->mu[i];
    th[t + i] = scale * base->sigma[i];
  }
  if (cholesky(is_slow ? g->slow_spatial : g->spatial, n, ls)) {
    seterr(err, errlen, "generator '%s': the spatial covariance is not positive semi-definite", g->name);
    return -1;
  }
  add_mvn(cluster, ls, n, th);
  if (day) {
    if (cholesky(g->temporal, n, lt)) {
      seterr(err, errlen, "generator '%s': the temporal covariance is not positive semi-definite", g->name);
      return -1;
    }
    add_mvn(day, lt, n, th);
  }
  *out = *base;
  snprintf(out->host, sizeof out->host, "%s", host);
  for (unsigned i = 0; i < t; i++) {
    out->mu[i] = th[i];
    out->sigma[i] = th[t + i];
  }
  out->generated = 1;
  out->r2 = out->r2_sigma = 0;
  out->points = 0;
  if (slow) *slow = is_slow;
  return 0;
}

/* ---- the model file: the `kernels` group ------------------------------------------- */

typedef struct {
  const char *path;
  char *err;
  size_t errlen;
} rd_t;

static int bad(rd_t *rd, const config_setting_t *s, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad(rd_t *rd, const config_setting_t *s, const char *key, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  seterr(rd->err, rd->errlen, "%s:%u: %s: %s", rd->path, s ? config_setting_source_line(s) : 0, key, msg);
  return -1;
}

static int is_number(const config_setting_t *s) {
  int t = config_setting_type(s);
  return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
}

/* "7.4Gf", "7.4e9", 7.4e9 -> flop/s */
static int flops_value(const config_setting_t *s, double *v) {
  if (is_number(s)) {
    *v = config_setting_get_float(s);
    if (config_setting_type(s) != CONFIG_TYPE_FLOAT) *v = (double)config_setting_get_int64(s);
    return *v > 0 ? 0 : -1;
  }
  const char *t = config_setting_get_string(s);
  if (!t) return -1;
  char *end;
  double x = strtod(t, &end);
  if (end == t || !(x > 0)) return -1;
  while (*end == ' ') end++;
  const char *pre = "kMGTP";
  const char *p = *end ? strchr(pre, *end) : NULL;
  if (p && *end) {
    x *= pow(1e3, (double)(p - pre + 1));
    end++;
  }
  if (*end == 'f' || *end == 'F') {
    end++;
    if (!strcmp(end, "lops") || !strcmp(end, "lop/s")) end += strlen(end);
  }
  if (*end) return -1;
  *v = x;
  return 0;
}

static int num(const config_setting_t *s, double *v) {
  if (!is_number(s)) return -1;
  *v = config_setting_type(s) == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
                                                   : (double)config_setting_get_int64(s);
  return isfinite(*v) ? 0 : -1;
}

/* a list/array of exactly `want` numbers (want 0: any count up to max) */
static int numbers(rd_t *rd, const config_setting_t *s, const char *key, unsigned want, unsigned max,
                   double *out, unsigned *got) {
  int t = config_setting_type(s);
  if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
    return bad(rd, s, key, "expected a list of %u numbers [a, b, ...]", want ? want : max);
  unsigned n = (unsigned)config_setting_length(s);
  if ((want && n != want) || n > max)
    return bad(rd, s, key, "expected %u numbers, got %u", want ? want : max, n);
  for (unsigned i = 0; i < n; i++)
    if (num(config_setting_get_elem(s, i), &out[i]))
      return bad(rd, s, key, "element %u is not a number", i + 1);
  if (got) *got = n;
  return 0;
}

static int check_keys(rd_t *rd, const config_setting_t *g, const char *where, const char *const *valid) {
  for (int i = 0; i < config_setting_length(g); i++) {
    const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
    const char *name = config_setting_name(s);
    int ok = 0;
    for (const char *const *v = valid; *v && !ok; v++) ok = name && !strcmp(name, *v);
    if (!ok) {
      char list[400] = "", key[256];
      for (const char *const *v = valid; *v; v++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", v == valid ? "" : ", ", *v);
      snprintf(key, sizeof key, "%s.%s", where, name ? name : "?");
      return bad(rd, s, key, "unknown setting (valid: %s)", list);
    }
  }
  return 0;
}

static int read_model(rd_t *rd, const config_setting_t *g, unsigned idx, llamp_kmodel_t *m) {
  static const char *const valid[] = {"name", "host", "terms", "mu", "sigma", "r2", "r2_sigma", "points", NULL};
  char where[96], key[160];
  snprintf(where, sizeof where, "kernels.models.[%u]", idx);
  memset(m, 0, sizeof *m);
  m->line = (int)config_setting_source_line(g);
  if (!config_setting_is_group(g)) return bad(rd, g, where, "expected a group { name = ...; mu = [...]; }");
  if (check_keys(rd, g, where, valid)) return -1;
  const char *name = NULL, *host = "*";
  snprintf(key, sizeof key, "%s.name", where);
  if (!config_setting_lookup_string(g, "name", &name) || !*name)
    return bad(rd, config_setting_get_member(g, "name") ? config_setting_get_member(g, "name") : g, key,
               "expected the kernel's name, a non-empty string");
  if (strlen(name) >= sizeof m->name || strpbrk(name, " \t"))
    return bad(rd, g, key, "expected a name without spaces of at most %zu characters", sizeof m->name - 1);
  snprintf(m->name, sizeof m->name, "%s", name);
  const config_setting_t *s;
  snprintf(key, sizeof key, "%s.host", where);
  if ((s = config_setting_get_member(g, "host"))) {
    host = config_setting_get_string(s);
    if (!host || !*host || strlen(host) >= sizeof m->host)
      return bad(rd, s, key, "expected a SimGrid host name or \"*\" (every other host)");
  }
  snprintf(m->host, sizeof m->host, "%s", host);
  snprintf(key, sizeof key, "%s.terms", where);
  if ((s = config_setting_get_member(g, "terms"))) {
    int t = config_setting_type(s);
    unsigned n = (unsigned)config_setting_length(s);
    if ((t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) || n == 0 || n > LLAMP_KMODEL_MAX_TERMS)
      return bad(rd, s, key, "expected a list of 1 to %d terms such as [\"mnk\", \"mn\", \"1\"]",
                 LLAMP_KMODEL_MAX_TERMS);
    for (unsigned i = 0; i < n; i++) {
      const char *txt = config_setting_get_string_elem(s, (int)i);
      if (!txt || llamp_kmodel_term_parse(txt, &m->term[i]))
        return bad(rd, s, key, "term %u: expected \"1\" or a product of the letters m, n, k (d1, d2, d3), each at most 3 times", i + 1);
    }
    m->nterms = n;
  } else {
    m->nterms = llamp_kmodel_default_terms(m->name, m->term);
  }
  snprintf(key, sizeof key, "%s.mu", where);
  if (!(s = config_setting_get_member(g, "mu")))
    return bad(rd, g, key, "missing: expected a list of %u numbers (s per unit of each term)", m->nterms);
  if (numbers(rd, s, key, m->nterms, LLAMP_KMODEL_MAX_TERMS, m->mu, NULL)) return -1;
  snprintf(key, sizeof key, "%s.sigma", where);
  if ((s = config_setting_get_member(g, "sigma")) &&
      numbers(rd, s, key, m->nterms, LLAMP_KMODEL_MAX_TERMS, m->sigma, NULL))
    return -1;
  double v;
  if ((s = config_setting_get_member(g, "r2"))) {
    snprintf(key, sizeof key, "%s.r2", where);
    if (num(s, &v) || v > 1) return bad(rd, s, key, "expected a number <= 1");
    m->r2 = v;
  }
  if ((s = config_setting_get_member(g, "r2_sigma"))) {
    snprintf(key, sizeof key, "%s.r2_sigma", where);
    if (num(s, &v) || v > 1) return bad(rd, s, key, "expected a number <= 1");
    m->r2_sigma = v;
  }
  if ((s = config_setting_get_member(g, "points"))) {
    snprintf(key, sizeof key, "%s.points", where);
    if (num(s, &v) || v < 0) return bad(rd, s, key, "expected a count >= 0");
    m->points = (uint64_t)v;
  }
  return 0;
}

/* Sigma from `<prefix>_cv` (relative sd per coefficient) or `<prefix>_cov`
 * (full matrix, row-major); absent: 0. */
static int read_cov(rd_t *rd, const config_setting_t *g, const char *where, const char *prefix,
                    const llamp_kmodel_t *base, double scale, double *cov) {
  unsigned t = base->nterms, n = 2 * t;
  char name[32], key[200];
  memset(cov, 0, (size_t)n * n * sizeof *cov);
  snprintf(name, sizeof name, "%s_cv", prefix);
  const config_setting_t *cv = config_setting_get_member(g, name), *cm;
  snprintf(name, sizeof name, "%s_cov", prefix);
  cm = config_setting_get_member(g, name);
  if (cv && cm) {
    snprintf(key, sizeof key, "%s.%s", where, name);
    return bad(rd, cm, key, "expected either %s_cv or %s_cov, not both", prefix, prefix);
  }
  if (cv) {
    double c[LLAMP_KMODEL_MAX_COEF];
    snprintf(key, sizeof key, "%s.%s_cv", where, prefix);
    if (numbers(rd, cv, key, n, LLAMP_KMODEL_MAX_COEF, c, NULL)) return -1;
    for (unsigned i = 0; i < n; i++) {
      if (c[i] < 0) return bad(rd, cv, key, "element %u: expected a coefficient of variation >= 0", i + 1);
      double th = scale * (i < t ? base->mu[i] : base->sigma[i - t]);
      cov[i * n + i] = (c[i] * th) * (c[i] * th);
      if (!isfinite(cov[i * n + i]))
        return bad(rd, cv, key, "element %u: the variance (cv x coefficient)^2 is not a finite number", i + 1);
    }
  } else if (cm) {
    snprintf(key, sizeof key, "%s.%s", where, name);
    if (numbers(rd, cm, key, n * n, LLAMP_KMODEL_MAX_COEF * LLAMP_KMODEL_MAX_COEF, cov, NULL)) return -1;
    double l[LLAMP_KMODEL_MAX_COEF * LLAMP_KMODEL_MAX_COEF];
    if (cholesky(cov, n, l))
      return bad(rd, cm, key, "expected a symmetric positive semi-definite %ux%u matrix (row-major; "
                 "mu coefficients first, then sigma's)", n, n);
  }
  return 0;
}

static int read_gen(rd_t *rd, const config_setting_t *g, unsigned idx, const llamp_kmodel_set_t *set,
                    llamp_kmodel_gen_t *out) {
  static const char *const valid[] = {"name", "seed", "spatial_cv", "spatial_cov", "temporal_cv",
                                      "temporal_cov", "slow", NULL};
  static const char *const valid_slow[] = {"weight", "scale", "spatial_cv", "spatial_cov", NULL};
  char where[96], key[200];
  snprintf(where, sizeof where, "kernels.generators.[%u]", idx);
  memset(out, 0, sizeof *out);
  out->line = (int)config_setting_source_line(g);
  if (!config_setting_is_group(g)) return bad(rd, g, where, "expected a group { name = ...; spatial_cv = [...]; }");
  if (check_keys(rd, g, where, valid)) return -1;
  const char *name = NULL;
  snprintf(key, sizeof key, "%s.name", where);
  if (!config_setting_lookup_string(g, "name", &name) || !*name)
    return bad(rd, g, key, "expected the name of a kernel with a \"*\" model");
  snprintf(out->name, sizeof out->name, "%s", name);
  const llamp_kmodel_t *base = NULL;
  for (size_t i = 0; i < set->n; i++)
    if (!strcmp(set->m[i].name, name) && !strcmp(set->m[i].host, "*")) base = &set->m[i];
  if (!base) return bad(rd, g, key, "expected a kernel with a host = \"*\" model (the population mean); '%s' has none", name);
  const config_setting_t *s;
  if ((s = config_setting_get_member(g, "seed"))) {
    double v;
    snprintf(key, sizeof key, "%s.seed", where);
    if (config_setting_type(s) != CONFIG_TYPE_INT && config_setting_type(s) != CONFIG_TYPE_INT64)
      return bad(rd, s, key, "expected an integer >= 0");
    v = (double)config_setting_get_int64(s);
    if (v < 0) return bad(rd, s, key, "expected an integer >= 0");
    out->seed = (uint64_t)config_setting_get_int64(s);
    out->has_seed = 1;
  }
  if (read_cov(rd, g, where, "spatial", base, 1, out->spatial)) return -1;
  if (read_cov(rd, g, where, "temporal", base, 1, out->temporal)) return -1;
  out->slow_scale = 1;
  if ((s = config_setting_get_member(g, "slow"))) {
    char sw[120];
    snprintf(sw, sizeof sw, "%s.slow", where);
    if (!config_setting_is_group(s)) return bad(rd, s, sw, "expected a group { weight = 0.1; scale = 1.3; }");
    if (check_keys(rd, s, sw, valid_slow)) return -1;
    const config_setting_t *w = config_setting_get_member(s, "weight");
    snprintf(key, sizeof key, "%s.weight", sw);
    if (!w || num(w, &out->slow_weight) || out->slow_weight < 0 || out->slow_weight > 1)
      return bad(rd, w ? w : s, key, "expected the probability of a slow node, in [0, 1]");
    const config_setting_t *sc = config_setting_get_member(s, "scale");
    snprintf(key, sizeof key, "%s.scale", sw);
    if (!sc || num(sc, &out->slow_scale) || !(out->slow_scale > 0))
      return bad(rd, sc ? sc : s, key, "expected the multiplier (> 0) of a slow node's mean coefficients");
    if (config_setting_get_member(s, "spatial_cv") || config_setting_get_member(s, "spatial_cov")) {
      if (read_cov(rd, s, sw, "spatial", base, out->slow_scale, out->slow_spatial)) return -1;
    } else {
      unsigned n = 2 * base->nterms;
      for (unsigned i = 0; i < n * n; i++) out->slow_spatial[i] = out->spatial[i] * out->slow_scale * out->slow_scale;
    }
    /* the slow nodes' means and covariance must stay finite numbers */
    unsigned t = base->nterms, n = 2 * t;
    for (unsigned i = 0; i < n * n; i++)
      if (!isfinite(out->slow_spatial[i]))
        return bad(rd, s, sw, "the slow nodes' covariance (scale^2 x spatial) is not a finite number");
    for (unsigned i = 0; i < t; i++)
      if (!isfinite(out->slow_scale * base->mu[i]) || !isfinite(out->slow_scale * base->sigma[i]))
        return bad(rd, s, sw, "scale x the mean coefficients is not a finite number");
  }
  return 0;
}

int llamp_kmodel_load(llamp_kmodel_set_t *set, const char *path, char *err, size_t errlen) {
  config_t lc;
  config_init(&lc);
  rd_t rd = {path, err, errlen};
  int rc = -1;
  llamp_kmodel_set_init(set);
  snprintf(set->path, sizeof set->path, "%s", path);
  if (config_read_file(&lc, path) != CONFIG_TRUE) {
    if (config_error_type(&lc) == CONFIG_ERR_FILE_IO)
      seterr(err, errlen, "%s: cannot read the model file: %s", path, strerror(errno ? errno : ENOENT));
    else
      seterr(err, errlen, "%s:%d: %s (expected libconfig syntax: key = value;)", path,
             config_error_line(&lc), config_error_text(&lc));
    goto out;
  }
  const config_setting_t *k = config_lookup(&lc, "kernels"), *s;
  if (!k) {
    rc = 0;
    goto out;
  }
  if (!config_setting_is_group(k)) {
    bad(&rd, k, "kernels", "expected a group kernels = { models = ( ... ); };");
    goto out;
  }
  static const char *const valid[] = {"source", "reference_speed", "models", "generators", NULL};
  if (check_keys(&rd, k, "kernels", valid)) goto out;
  const char *src;
  if (config_setting_lookup_string(k, "source", &src)) snprintf(set->source, sizeof set->source, "%s", src);
  if ((s = config_setting_get_member(k, "reference_speed")) && flops_value(s, &set->reference_speed)) {
    bad(&rd, s, "kernels.reference_speed", "expected a flop rate > 0 such as \"7.4Gf\" or 7.4e9");
    goto out;
  }
  if ((s = config_setting_get_member(k, "models"))) {
    if (!config_setting_is_list(s)) {
      bad(&rd, s, "kernels.models", "expected a list ( { name = \"dgemm\"; mu = [...]; }, ... )");
      goto out;
    }
    for (int i = 0; i < config_setting_length(s); i++) {
      llamp_kmodel_t m;
      if (read_model(&rd, config_setting_get_elem(s, (unsigned)i), (unsigned)i, &m)) goto out;
      for (size_t j = 0; j < set->n; j++)
        if (!strcmp(set->m[j].name, m.name) && !strcmp(set->m[j].host, m.host)) {
          char key[96];
          snprintf(key, sizeof key, "kernels.models.[%d]", i);
          bad(&rd, config_setting_get_elem(s, (unsigned)i), key,
              "kernel '%s' on host '%s' already has a model (line %d); expected one per kernel and host",
              m.name, m.host, set->m[j].line);
          goto out;
        }
      if (llamp_kmodel_set_add(set, &m)) {
        seterr(err, errlen, "%s: out of memory", path);
        goto out;
      }
    }
  }
  if ((s = config_setting_get_member(k, "generators"))) {
    if (!config_setting_is_list(s)) {
      bad(&rd, s, "kernels.generators", "expected a list ( { name = \"dgemm\"; spatial_cv = [...]; }, ... )");
      goto out;
    }
    unsigned n = (unsigned)config_setting_length(s);
    set->gen = calloc(n ? n : 1, sizeof *set->gen);
    if (!set->gen) {
      seterr(err, errlen, "%s: out of memory", path);
      goto out;
    }
    for (unsigned i = 0; i < n; i++) {
      if (read_gen(&rd, config_setting_get_elem(s, i), i, set, &set->gen[i])) goto out;
      set->ngen++;
    }
  }
  rc = 0;
out:
  config_destroy(&lc);
  if (rc) {
    char keep[sizeof set->path];
    memcpy(keep, set->path, sizeof keep);
    llamp_kmodel_set_free(set);
    memcpy(set->path, keep, sizeof keep);
  }
  return rc;
}

static void write_list(FILE *f, const double *v, unsigned n) {
  fputc('[', f);
  for (unsigned i = 0; i < n; i++) fprintf(f, "%s%.9e", i ? ", " : "", v[i]);
  fputc(']', f);
}

static void write_cov(FILE *f, const char *key, const double *cov, unsigned n, const char *indent) {
  int any = 0;
  for (unsigned i = 0; i < n * n; i++) any |= cov[i] != 0;
  if (!any) return;
  fprintf(f, "%s%s = ", indent, key);
  write_list(f, cov, n * n);
  fprintf(f, ";\n");
}

/* A string as a libconfig literal.  The names, hosts and source come from a
 * model file, where "\\" and "\"" read as \ and ": written back verbatim they
 * would end the literal early or escape its closing quote (the fuzzer's
 * source = "\\" wrote "\" and the file no longer read). */
static void write_str(FILE *f, const char *v) {
  fputc('"', f);
  for (; *v; v++) {
    if (*v == '"' || *v == '\\') fputc('\\', f);
    fputc(*v, f);
  }
  fputc('"', f);
}

int llamp_kmodel_write(const llamp_kmodel_set_t *s, FILE *f) {
  fprintf(f, "# Kernel models (docs/models.md, \"Kernel models\"): duration of one call,\n"
             "# half-normal with mean mu and standard deviation sigma (seconds), both\n"
             "# polynomials in the call's dimensions: sum of coefficient x term, the terms\n"
             "# written with m, n, k for d1, d2, d3.\n");
  fprintf(f, "kernels = {\n");
  if (s->source[0]) {
    fprintf(f, "  source = ");
    write_str(f, s->source);
    fprintf(f, ";\n");
  }
  if (s->reference_speed > 0) fprintf(f, "  reference_speed = %.6g;\n", s->reference_speed);
  fprintf(f, "  models = (");
  for (size_t i = 0; i < s->n; i++) {
    const llamp_kmodel_t *m = &s->m[i];
    fprintf(f, "%s\n    { name = ", i ? "," : "");
    write_str(f, m->name);
    fprintf(f, "; host = ");
    write_str(f, m->host);
    fprintf(f, ";\n      terms = [");
    for (unsigned j = 0; j < m->nterms; j++) {
      char t[16];
      llamp_kmodel_term_format(&m->term[j], t, sizeof t);
      fprintf(f, "%s\"%s\"", j ? ", " : "", t);
    }
    fprintf(f, "];\n      mu = ");
    write_list(f, m->mu, m->nterms);
    fprintf(f, ";\n      sigma = ");
    write_list(f, m->sigma, m->nterms);
    fprintf(f, ";");
    if (m->points) fprintf(f, "\n      r2 = %.6f; r2_sigma = %.6f; points = %llu;", m->r2, m->r2_sigma,
                           (unsigned long long)m->points);
    fprintf(f, " }");
  }
  fprintf(f, "\n  );\n");
  if (s->ngen) {
    fprintf(f, "  generators = (");
    for (size_t i = 0; i < s->ngen; i++) {
      const llamp_kmodel_gen_t *g = &s->gen[i];
      const llamp_kmodel_t *base = llamp_kmodel_find(s, g->name, NULL);
      unsigned n = base ? 2 * base->nterms : 0;
      fprintf(f, "%s\n    { name = ", i ? "," : "");
      write_str(f, g->name);
      fprintf(f, ";\n");
      if (g->has_seed) fprintf(f, "      seed = %llu;\n", (unsigned long long)g->seed);
      write_cov(f, "spatial_cov", g->spatial, n, "      ");
      write_cov(f, "temporal_cov", g->temporal, n, "      ");
      if (g->slow_weight > 0) {
        fprintf(f, "      slow = { weight = %.6g; scale = %.6g;\n", g->slow_weight, g->slow_scale);
        write_cov(f, "spatial_cov", g->slow_spatial, n, "               ");
        fprintf(f, "      };\n");
      }
      fprintf(f, "    }");
    }
    fprintf(f, "\n  );\n");
  }
  fprintf(f, "};\n");
  return ferror(f) ? -1 : 0;
}
