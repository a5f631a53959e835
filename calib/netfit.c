/* calib_netfit - fit the raw network samples of calib_netbench into the
 * piecewise network model: the `network` (LogGPS view) and `smpi` (SimGrid
 * settings) groups of a model file (docs/models.md), and a gnuplot script
 * of the fits.  llamp-calibrate network runs it; docs/calib.md explains
 * every rule used here.
 *
 *   calib_netfit [-o FILE] [--plot PREFIX] [--primary intra|inter]
 *                [--use-load] [--min-points N] [--penalty P] RAW.csv...
 *
 * Per scope (intra, inter) and load flag: one segmented fit
 * (smpi_llamp/fit, robust, relative least squares) per curve: one_way
 * (pingpong), o_send (send), o_recv (recv), o_isend (isend); the eager limit
 * S from `late` (the size that best separates sends that returned before
 * the receiver's delay from those that waited).  The `smpi` group is
 * derived from the primary scope (inter when measured), see smpi_factors(). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llamp_fit.h"
#include "netcal.h"

enum { INTRA, INTER, NSCOPES };
static const char *const scope_names[NSCOPES] = {"intra", "inter"};
/* the curves, in the order of netcal_kind_t (late is not a curve) */
static const char *const curve_names[NETCAL_NKINDS] = {"one_way", "o_send", "o_recv", "o_isend", "late"};

typedef struct {
  double *x, *y;
  size_t n, cap;
} series_t;

typedef struct {
  int have;                    /* any samples */
  llamp_fit_t fit[NETCAL_NKINDS - 1];
  int fitted[NETCAL_NKINDS - 1];
  unsigned char *kept[NETCAL_NKINDS - 1];
  long eager_max;              /* largest eager size (S) */
  long rdv_min;                /* smallest size seen waiting (S < rdv_min) */
  int late_errors;             /* late samples on the wrong side of S */
  double L, G;
} model_t;

static series_t data[NSCOPES][2][NETCAL_NKINDS];
static model_t model[NSCOPES][2];
static char source_note[512];
static size_t nsamples_total;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "calib_netfit: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

static void push(series_t *s, double x, double y) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 256;
    s->x = realloc(s->x, s->cap * sizeof *s->x);
    s->y = realloc(s->y, s->cap * sizeof *s->y);
    if (!s->x || !s->y) die("out of memory");
  }
  s->x[s->n] = x, s->y[s->n] = y, s->n++;
}

/* Read one raw file (calib/netcal.h): comment lines (#), the header line,
 * then kind,scope,size,duration,load.  Every error names file:line, the
 * field and what was expected: -1 with the one-line message in err.  (A
 * function of its own so that tests/fuzz/fuzz_netcal.c can call it.) */
#define RAW_FAIL(...) \
  do {                                  \
    snprintf(err, errlen, __VA_ARGS__); \
    fclose(f);                          \
    return -1;                          \
  } while (0)
static int read_raw(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) return snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)), -1;
  char line[1024];
  int lineno = 0, header = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    size_t len = strlen(line);
    if (len == sizeof line - 1 && line[len - 1] != '\n') RAW_FAIL("%s:%d: line longer than %zu characters", path, lineno, sizeof line - 2);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (line[0] == '#') {
      if (!source_note[0] && !strncmp(line, "# host ", 7)) snprintf(source_note, sizeof source_note, "%.500s", line + 7);
      continue;
    }
    if (!len) continue;
    if (!header) {
      if (strcmp(line, NETCAL_CSV_HEADER))
        RAW_FAIL("%s:%d: header: expected '%s', got '%s'", path, lineno, NETCAL_CSV_HEADER, line);
      header = 1;
      continue;
    }
    char *field[6];
    int nf = 0;
    for (char *p = line, *tok; nf < 6 && (tok = strsep(&p, ",")) != NULL;) field[nf++] = tok;
    if (nf != 5) RAW_FAIL("%s:%d: expected 5 fields (%s), got %d", path, lineno, NETCAL_CSV_HEADER, nf);
    int kind = -1, scope = -1;
    for (int k = 0; k < NETCAL_NKINDS; k++)
      if (!strcmp(field[0], netcal_kind_names[k])) kind = k;
    if (kind < 0)
      RAW_FAIL("%s:%d: kind: expected pingpong, send, recv, isend or late, got '%s'", path, lineno, field[0]);
    for (int s = 0; s < NSCOPES; s++)
      if (!strcmp(field[1], scope_names[s])) scope = s;
    if (scope < 0) RAW_FAIL("%s:%d: scope: expected intra or inter, got '%s'", path, lineno, field[1]);
    char *end;
    errno = 0;
    long long size = strtoll(field[2], &end, 10);
    if (end == field[2] || *end || errno || size < 0 || size > (1LL << 31) - 1)
      RAW_FAIL("%s:%d: size: expected an integer number of bytes 0 .. 2^31-1, got '%s'", path, lineno, field[2]);
    double d = strtod(field[3], &end);
    if (end == field[3] || *end || !isfinite(d) || d < 0 || d > 3600)
      RAW_FAIL("%s:%d: duration: expected seconds (0 .. 3600), got '%s'", path, lineno, field[3]);
    if (strcmp(field[4], "0") && strcmp(field[4], "1"))
      RAW_FAIL("%s:%d: load: expected 0 or 1, got '%s'", path, lineno, field[4]);
    push(&data[scope][field[4][0] - '0'][kind], (double)size, d);
    nsamples_total++;
  }
  if (ferror(f)) RAW_FAIL("%s: read error", path);
  if (!header) RAW_FAIL("%s:%d: header: expected '%s', got end of file", path, lineno, NETCAL_CSV_HEADER);
  fclose(f);
  return 0;
}
#undef RAW_FAIL

/* The eager limit: the threshold S minimising the number of `late` samples
 * on the wrong side (eager = returned before half the receiver's delay). */
static void eager_limit(const series_t *s, model_t *m) {
  m->eager_max = -1;
  m->rdv_min = -1;
  if (!s->n) return;
  size_t n = s->n;
  size_t *idx = malloc(n * sizeof *idx);
  for (size_t i = 0; i < n; i++) idx[i] = i;
  /* insertion sort by size (a few hundred points) */
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && s->x[idx[j - 1]] > s->x[idx[j]]; j--) {
      size_t t = idx[j];
      idx[j] = idx[j - 1], idx[j - 1] = t;
    }
  int rdv_total = 0;
  for (size_t i = 0; i < n; i++) rdv_total += !(s->y[i] < netcal_delay(s->x[i]) / 2);
  /* split after position p (p = 0: nothing eager) */
  int best = rdv_total, rdv_below = 0;
  size_t best_p = 0;
  for (size_t p = 1; p <= n; p++) {
    size_t i = idx[p - 1];
    int eager = s->y[i] < netcal_delay(s->x[i]) / 2;
    rdv_below += !eager;
    if (p < n && s->x[idx[p]] == s->x[i]) continue;
    /* waiting sizes at or below the split + eager sizes above it */
    int errors = rdv_below + ((int)(n - p) - (rdv_total - rdv_below));
    if (errors < best) best = errors, best_p = p;
  }
  m->late_errors = best;
  m->eager_max = best_p ? (long)s->x[idx[best_p - 1]] : 0;
  m->rdv_min = best_p < n ? (long)s->x[idx[best_p]] : -1;
  free(idx);
}

/* CPU overheads: a segment whose line goes below 0 or slopes down is
 * replaced by a constant (its value at the geometric middle, at least 0), so
 * that SimGrid (which skips negative sleeps) and the DAG charge the same. */
static void clamp_overhead(llamp_fit_t *f, double xmax) {
  for (int k = 0; k < f->nseg; k++) {
    llamp_fit_segment_t *s = &f->seg[k];
    double a = fmax(k ? s->from : 0, 1), b = k + 1 < f->nseg ? f->seg[k + 1].from : xmax;
    if (s->slope < 0 || s->offset + s->slope * a < 0) {
      double mid = sqrt(a * fmax(b, a));
      s->offset = fmax(0, s->offset + s->slope * mid);
      s->slope = 0;
    } else if (s->offset < 0) {
      /* positive on the segment but a negative intercept: keep the line */
    }
  }
}

static void fit_model(int scope, int load, size_t min_points, double penalty) {
  model_t *m = &model[scope][load];
  for (int k = 0; k < NETCAL_NKINDS; k++)
    if (data[scope][load][k].n) m->have = 1;
  if (!m->have) return;
  llamp_fit_opts_t o;
  llamp_fit_opts_default(&o);
  o.trim = 5;
  o.min_points = min_points;
  o.penalty = penalty;
  double xmax = 1;
  for (int k = 0; k < NETCAL_LATE; k++) {
    series_t *s = &data[scope][load][k];
    for (size_t i = 0; i < s->n; i++) xmax = fmax(xmax, s->x[i]);
  }
  for (int k = 0; k < NETCAL_LATE; k++) {
    series_t *s = &data[scope][load][k];
    char err[256];
    if (s->n < min_points) {
      fprintf(stderr, "calib_netfit: %s%s: %s: %zu samples, at least %zu needed: not fitted\n", scope_names[scope],
              load ? " (load)" : "", curve_names[k], s->n, min_points);
      continue;
    }
    m->kept[k] = malloc(s->n);
    if (llamp_fit_segmented_robust(s->x, s->y, s->n, &o, &m->fit[k], m->kept[k], err, sizeof err))
      die("%s %s: %s", scope_names[scope], curve_names[k], err);
    m->fitted[k] = 1;
    if (k != NETCAL_PINGPONG) clamp_overhead(&m->fit[k], xmax);
  }
  eager_limit(&data[scope][load][NETCAL_LATE], m);
  if (m->fitted[NETCAL_PINGPONG]) {
    const llamp_fit_t *ow = &m->fit[NETCAL_PINGPONG];
    double o0 = (m->fitted[NETCAL_SEND] ? llamp_fit_eval(&m->fit[NETCAL_SEND], 0) : 0) +
                (m->fitted[NETCAL_RECV] ? llamp_fit_eval(&m->fit[NETCAL_RECV], 0) : 0);
    m->L = fmax(1e-9, llamp_fit_eval(ow, 0) - o0);
    m->G = ow->seg[ow->nseg - 1].slope;
  }
}

/* ---- the smpi group ----------------------------------------------------
 * SimGrid's time for an s-byte message over a route of latency lat and
 * bandwidth bw: os(s) [eager only] + lf(s+16) lat + (s+16) / (bw bf(s+16))
 * + or(s) [eager only] (network_smpi.cpp, smpi_request.cpp, 3.32).  On each
 * interval between the union of the breakpoints of one_way, os, or and the
 * eager limit, the network part T(s) = one_way(s) - [eager](os(s) + or(s))
 * is a line a + b s; lf lat + 16 / (bw bf) = a and 1 / (bw bf) = b give the
 * factors.  Where that needs lf < 0 or bf <= 0 (a negative intercept or
 * slope: caches, overheads that exceed the one-way time), the interval is
 * cut into pieces matched at their middle with lf = 0 (or bf = 100), short
 * enough for 0.5 %; check_smpi() reports what remains. */
typedef struct {
  long from;        /* message size, inclusive */
  double lf, bf;
} factor_t;

typedef struct {
  factor_t f[512];
  int n;
  double lat, bw;   /* reference_latency, reference_bandwidth */
  long detached;    /* send_is_detached_thresh = S + 1 */
} smpi_t;

static double net_time(const model_t *m, double s) {
  double t = llamp_fit_eval(&m->fit[NETCAL_PINGPONG], s);
  if (s <= m->eager_max) {
    if (m->fitted[NETCAL_SEND]) t -= llamp_fit_eval(&m->fit[NETCAL_SEND], s);
    if (m->fitted[NETCAL_RECV]) t -= llamp_fit_eval(&m->fit[NETCAL_RECV], s);
  }
  return t;
}

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static void smpi_factors(const model_t *m, double xmax, smpi_t *sm) {
  long cut[64];
  int nc = 0;
  cut[nc++] = 0;
  for (int k = 0; k < 3; k++) {
    int kind = k == 0 ? NETCAL_PINGPONG : k == 1 ? NETCAL_SEND : NETCAL_RECV;
    if (!m->fitted[kind]) continue;
    for (int j = 1; j < m->fit[kind].nseg; j++) cut[nc++] = (long)m->fit[kind].seg[j].from;
  }
  if (m->eager_max >= 0) cut[nc++] = m->eager_max + 1;
  qsort(cut, (size_t)nc, sizeof *cut, cmp_long);
  int u = 0;
  for (int i = 0; i < nc; i++)
    if (!u || cut[i] != cut[u - 1]) cut[u++] = cut[i];
  nc = u;
  /* the reference values: the first interval's intercept (lf = 1 there) and
   * the fastest bandwidth of any interval (every bf <= 1) */
  double a0 = net_time(m, 0), b0 = net_time(m, 1) - a0;
  sm->lat = a0 - 16 * b0 > 1e-9 ? a0 - 16 * b0 : 1e-9;
  double bmin = INFINITY;
  for (int i = 0; i < nc; i++) {
    double lo = (double)cut[i], hi = i + 1 < nc ? (double)cut[i + 1] - 1 : fmax(xmax, lo + 1);
    if (hi <= lo) hi = lo + 1;
    double b = (net_time(m, hi) - net_time(m, lo)) / (hi - lo);
    if (b > 0 && b < bmin) bmin = b;
  }
  sm->bw = isfinite(bmin) ? 1.0 / bmin : 1e10;
  sm->detached = m->eager_max + 1;
  sm->n = 0;
  for (int i = 0; i < nc; i++) {
    double lo = (double)cut[i], hi = i + 1 < nc ? (double)cut[i + 1] : INFINITY;
    double h = isfinite(hi) ? hi - 1 : fmax(xmax, lo + 1);
    if (h <= lo) h = lo + 1;
    double b = (net_time(m, h) - net_time(m, lo)) / (h - lo);
    double a = net_time(m, lo) - b * lo;
    double lf = (a - 16 * b) / sm->lat, bf = b > 0 ? 1.0 / (b * sm->bw) : 0;
    if (lf >= 0 && bf > 0) {
      if (sm->n < 512) sm->f[sm->n++] = (factor_t){cut[i], lf, bf};
      continue;
    }
    /* pieces matched at their middle, short enough that the line's
       difference from the true one stays under 0.5 % at the piece's ends:
       a rising line with a negative intercept by lf = 0 and the bandwidth,
       a flat or falling one by the latency and bf = 100 (nearly flat:
       SimGrid's rate is the link's bandwidth x bf, Action::get_rate) */
    double a16 = a - 16 * b;
    for (double q = lo; sm->n < 512;) {
      double qs = fmax(q, 1), tq = fmax(net_time(m, qs), 1e-9), next;
      if (b <= 0) {
        next = b < 0 ? qs + 2 * 0.005 * tq / -b : INFINITY;
      } else {
        double x = 0.005 * tq / fabs(a16);
        next = x >= 1 ? INFINITY : (qs + 16) / ((1 - x) * (1 - x)) - 16;
      }
      next = fmax(next, qs + 1);
      if (isfinite(hi) && next >= hi) next = hi;
      if (!isfinite(hi) && q >= xmax) next = INFINITY;
      double mid = isfinite(next) ? (b <= 0 ? 0.5 * (qs + next) : sqrt((qs + 16) * (next + 16)) - 16) : qs;
      double t = fmax(net_time(m, mid), 1e-9), rest = t - (mid + 16) / (100 * sm->bw);
      if (b <= 0 && rest >= 0)
        sm->f[sm->n++] = (factor_t){(long)ceil(q), rest / sm->lat, 100.0};
      else
        sm->f[sm->n++] = (factor_t){(long)ceil(q), 0.0, (mid + 16) / (sm->bw * t)};
      if (!isfinite(next) || next >= hi) break;
      q = ceil(next);
    }
  }
}

/* SimGrid's one-way time from the smpi group, as network_smpi.cpp and
 * smpi_host.cpp evaluate it (a section applies when size > threshold). */
static double smpi_eval_factor(const smpi_t *sm, double s, int lat) {
  double v = 1.0;
  for (int i = 0; i < sm->n; i++) {
    double thr = sm->f[i].from == 0 ? 0 : (double)(sm->f[i].from + 15);
    if (s + 16 <= thr) break;
    v = lat ? sm->f[i].lf : sm->f[i].bf;
  }
  return v;
}

static double smpi_one_way(const model_t *m, const smpi_t *sm, double s) {
  double t = smpi_eval_factor(sm, s, 1) * sm->lat + (s + 16) / (sm->bw * smpi_eval_factor(sm, s, 0));
  if (s < sm->detached) {
    if (m->fitted[NETCAL_SEND]) t += llamp_fit_eval(&m->fit[NETCAL_SEND], s);
    if (m->fitted[NETCAL_RECV]) t += llamp_fit_eval(&m->fit[NETCAL_RECV], s);
  }
  return t;
}

/* Largest relative difference between SimGrid's one-way time under the
 * smpi group and the fitted one-way curve, over 0 .. xmax. */
static double check_smpi(const model_t *m, const smpi_t *sm, double xmax, double *at) {
  double worst = 0;
  *at = 0;
  for (double e = -1; e <= log2(xmax) + 1e-9; e += 1.0 / 32) {
    double s = e < 0 ? 0 : floor(pow(2, e));
    double f = llamp_fit_eval(&m->fit[NETCAL_PINGPONG], s), g = smpi_one_way(m, sm, s);
    double r = fabs(g - f) / f;
    if (r > worst) worst = r, *at = s;
  }
  return worst;
}

/* ---- writing ----------------------------------------------------------- */
/* A libconfig float: %.6g plus ".0" when that looks like an integer (libconfig
 * types 0 as an int). */
static const char *num(double v) {
  static char ring[16][40];
  static int r;
  char *b = ring[r++ % 16];
  snprintf(b, 40, "%.6g", v);
  if (!strpbrk(b, ".eEn")) strcat(b, ".0");
  return b;
}

static void write_curve(FILE *f, const char *ind, const char *name, const llamp_fit_t *fit) {
  fprintf(f, "%s%s = (", ind, name);
  for (int k = 0; k < fit->nseg; k++)
    fprintf(f, "%s\n%s  { from = %ld; offset = %s; per_byte = %s; }", k ? "," : "", ind,
            k ? (long)fit->seg[k].from : 0L, num(fit->seg[k].offset), num(fit->seg[k].slope));
  fprintf(f, " );\n");
}

/* R^2 is undefined for constant data (TSS = 0): written as 1 when the fit
 * is exact, else 0 (libconfig has no NaN) */
static double r2val(double r2, const llamp_fit_t *fit) { return isnan(r2) ? (fit->rel_max < 1e-12 ? 1.0 : 0.0) : r2; }

static void write_fitstats(FILE *f, const char *ind, const char *name, const llamp_fit_t *fit) {
  fprintf(f, "%s%s = { r2 = %.6f; r2_weighted = %.6f; rel_rms = %.4f; rel_max = %.4f; points = %zu; dropped = %zu; "
             "breakpoints = [",
          ind, name, r2val(fit->r2, fit), r2val(fit->r2_weighted, fit), fit->rel_rms, fit->rel_max, fit->n, fit->dropped);
  for (int k = 1; k < fit->nseg; k++) fprintf(f, "%s %ld", k > 1 ? "," : "", (long)fit->seg[k].from);
  fprintf(f, " ]; };\n");
}

static void write_model_keys(FILE *f, const char *ind, const model_t *m) {
  for (int k = 0; k < NETCAL_LATE; k++)
    if (m->fitted[k]) write_curve(f, ind, curve_names[k], &m->fit[k]);
  if (m->eager_max >= 0 && m->rdv_min > 0)
    fprintf(f, "%seager_max = %ld;   # the next size measured, %ld B, waited for the receiver (%d of the late samples "
               "on the wrong side)\n", ind, m->eager_max, m->rdv_min, m->late_errors);
  else if (m->eager_max >= 0)
    fprintf(f, "%seager_max = %ld;   # every size measured was eager\n", ind, m->eager_max);
  if (m->fitted[NETCAL_PINGPONG]) {
    fprintf(f, "%sL = %s;   # one_way(0) - o_send(0) - o_recv(0) (at least 1 ns)\n", ind, num(m->L));
    fprintf(f, "%sG = %s;   # per byte of one_way's last segment\n", ind, num(m->G));
    const llamp_fit_t *ow = &m->fit[NETCAL_PINGPONG];
    fprintf(f, "%sfit = { r2 = %.6f; points = %zu; breakpoints = [", ind, r2val(ow->r2, ow), ow->n);
    for (int k = 1; k < ow->nseg; k++) fprintf(f, "%s %ld", k > 1 ? "," : "", (long)ow->seg[k].from);
    fprintf(f, " ]; };\n");
  }
  fprintf(f, "%sfits = {\n", ind);
  char ind2[32];
  snprintf(ind2, sizeof ind2, "%s  ", ind);
  for (int k = 0; k < NETCAL_LATE; k++)
    if (m->fitted[k]) write_fitstats(f, ind2, curve_names[k], &m->fit[k]);
  fprintf(f, "%s};\n", ind);
}

static void write_factor(FILE *f, const char *name, const smpi_t *sm, int lat) {
  fprintf(f, "  %s = \"", name);
  for (int i = 0; i < sm->n; i++)
    fprintf(f, "%s%ld:%.6g", i ? ";" : "", sm->f[i].from ? sm->f[i].from + 15 : 0L,
            lat ? sm->f[i].lf : sm->f[i].bf);
  fprintf(f, "\";\n");
}

static void overhead_string(char *buf, size_t len, const llamp_fit_t *fit) {
  size_t o = 0;
  buf[0] = 0;
  for (int k = 0; k < fit->nseg && o < len; k++)
    o += (size_t)snprintf(buf + o, len - o, "%s%ld:%.6g:%.6g", k ? ";" : "",
                          k ? (long)fit->seg[k].from - 1 : 0L, fit->seg[k].offset, fit->seg[k].slope);
}

/* gnuplot: one panel per scope, log-log, the samples of each curve, the
 * fitted segments, the breakpoints of one_way as dashed verticals. */
static void write_plot(const char *prefix, const char *svg) {
  char path[4096];
  snprintf(path, sizeof path, "%s.dat", prefix);
  FILE *d = fopen(path, "w");
  if (!d) die("%s: cannot write: %s", path, strerror(errno));
  int nblocks = 0, block[NSCOPES][NETCAL_LATE][2];
  for (int sc = 0; sc < NSCOPES; sc++)
    for (int k = 0; k < NETCAL_LATE; k++) {
      series_t *s = &data[sc][0][k];
      model_t *m = &model[sc][0];
      block[sc][k][0] = block[sc][k][1] = -1;
      if (!m->fitted[k]) continue;
      block[sc][k][0] = nblocks++;
      fprintf(d, "# %s %s samples: size duration kept\n", scope_names[sc], curve_names[k]);
      for (size_t i = 0; i < s->n; i++) fprintf(d, "%g %g %d\n", fmax(s->x[i], 0.5), s->y[i], m->kept[k][i]);
      fprintf(d, "\n\n");
      block[sc][k][1] = nblocks++;
      fprintf(d, "# %s %s fit\n", scope_names[sc], curve_names[k]);
      const llamp_fit_t *fit = &m->fit[k];
      for (int j = 0; j < fit->nseg; j++) {
        double a = fmax(j ? fit->seg[j].from : fit->seg[j].first, 1);
        double b = fmax(j + 1 < fit->nseg ? fit->seg[j + 1].from - 1 : fit->seg[j].last, a);
        for (int q = 0; q <= 24; q++) {
          double x = a * pow(b / a, q / 24.0);
          fprintf(d, "%g %g\n", x, fit->seg[j].offset + fit->seg[j].slope * x);
        }
        fprintf(d, "\n");
      }
      fprintf(d, "\n");
    }
  fclose(d);
  snprintf(path, sizeof path, "%s.gp", prefix);
  FILE *g = fopen(path, "w");
  if (!g) die("%s: cannot write: %s", path, strerror(errno));
  int panels = 0;
  for (int sc = 0; sc < NSCOPES; sc++) panels += model[sc][0].fitted[NETCAL_PINGPONG];
  fprintf(g, "# gnuplot script written by calib_netfit (docs/calib.md)\n");
  fprintf(g, "set terminal svg size %d,520 font 'sans,11' background '#ffffff'\nset output '%s'\n",
          panels > 1 ? 1200 : 700, svg);
  fprintf(g, "set termoption noenhanced\nset logscale xy\nset format x '%%.0s%%cB'\nset xlabel 'message size'\nset ylabel 'seconds'\n"
             "set format y '%%.0s%%cs'\nset key top left\nset grid\n");
  if (panels > 1) fprintf(g, "set multiplot layout 1,%d\n", panels);
  static const char *const color[4] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"};
  for (int sc = 0; sc < NSCOPES; sc++) {
    const model_t *m = &model[sc][0];
    if (!m->fitted[NETCAL_PINGPONG]) continue;
    fprintf(g, "unset arrow\n");
    const llamp_fit_t *ow = &m->fit[NETCAL_PINGPONG];
    for (int j = 1; j < ow->nseg; j++)
      fprintf(g, "set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb '#555555'\n", ow->seg[j].from,
              ow->seg[j].from);
    fprintf(g, "set title '%s-node: samples (x: dropped outliers), fits, one_way breakpoints'\n",
            scope_names[sc]);
    fprintf(g, "plot ");
    int first = 1;
    for (int k = 0; k < NETCAL_LATE; k++) {
      if (block[sc][k][0] < 0) continue;
      fprintf(g, "%s'%s.dat' index %d using 1:($3==1?$2:1/0) with points pt 7 ps 0.3 lc rgb '%s' title '%s', \\\n"
                 "  '' index %d using 1:($3==0?$2:1/0) with points pt 2 ps 0.5 lc rgb '%s' notitle, \\\n"
                 "  '' index %d with lines lw 2 lc rgb '%s' notitle",
              first ? "" : ", \\\n  ", prefix, block[sc][k][0], color[k], curve_names[k], block[sc][k][0],
              color[k], block[sc][k][1], color[k]);
      first = 0;
    }
    fprintf(g, "\n");
  }
  if (panels > 1) fprintf(g, "unset multiplot\n");
  fclose(g);
}

int main(int argc, char **argv) {
  const char *out = NULL, *plot = NULL, *svg = NULL;
  int primary = -1, use_load = 0;
  size_t min_points = 8;
  double penalty = 1.0;
  int nfiles = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf("usage: calib_netfit [-o FILE] [--plot PREFIX [--svg FILE]] [--primary intra|inter]\n"
             "                    [--use-load] [--min-points N] [--penalty P] RAW.csv...\n"
             "Fits calib_netbench samples into the network and smpi groups of a model file\n"
             "(docs/calib.md, docs/models.md).\n");
      return 0;
    } else if (!strcmp(a, "-o") && v) out = v, i++;
    else if (!strcmp(a, "--plot") && v) plot = v, i++;
    else if (!strcmp(a, "--svg") && v) svg = v, i++;
    else if (!strcmp(a, "--primary") && v) {
      primary = !strcmp(v, "intra") ? INTRA : !strcmp(v, "inter") ? INTER : -2;
      if (primary == -2) die("--primary: expected intra or inter, got '%s'", v);
      i++;
    } else if (!strcmp(a, "--use-load")) use_load = 1;
    else if (!strcmp(a, "--min-points") && v) {
      min_points = (size_t)atol(v), i++;
      if (min_points < 3) die("--min-points: expected at least 3, got '%s'", v);
    } else if (!strcmp(a, "--penalty") && v) {
      penalty = atof(v), i++;
      if (!(penalty > 0)) die("--penalty: expected a positive number, got '%s'", v);
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "calib_netfit: unknown option or missing value: %s (see --help)\n", a);
      return 1;
    } else {
      char err[2048];
      if (read_raw(a, err, sizeof err)) die("%s", err);
      nfiles++;
    }
  }
  if (!nfiles) die("no raw file given (see --help)");
  double xmax = 1;
  for (int sc = 0; sc < NSCOPES; sc++)
    for (int l = 0; l < 2; l++) {
      fit_model(sc, l, min_points, penalty);
      for (int k = 0; k < NETCAL_LATE; k++)
        for (size_t i = 0; i < data[sc][l][k].n; i++) xmax = fmax(xmax, data[sc][l][k].x[i]);
    }
  if (primary < 0) primary = model[INTER][0].fitted[NETCAL_PINGPONG] || model[INTER][1].fitted[NETCAL_PINGPONG] ? INTER : INTRA;
  const model_t *pm = &model[primary][use_load];
  if (!pm->fitted[NETCAL_PINGPONG])
    die("no %s pingpong samples%s: nothing to fit", scope_names[primary], use_load ? " under load" : "");
  if (pm->eager_max < 0)
    fprintf(stderr, "calib_netfit: no late samples in %s: eager limit unknown, SimGrid's 65535 B assumed\n",
            scope_names[primary]);
  model_t pmc = *pm;
  if (pmc.eager_max < 0) pmc.eager_max = 65535;
  /* MPI overlaps the sender's and the receiver's overheads in a ping-pong,
   * SimGrid adds them: where o_send + o_recv exceed 90 % of the one-way
   * time, both are scaled down by one factor for the smpi group (the
   * network group keeps the measured curves and states the factor) */
  double oscale = 1.0;
  for (double e = -1; e <= log2((double)pmc.eager_max + 1) + 1e-9; e += 1.0 / 32) {
    double s = e < 0 ? 0 : floor(pow(2, e));
    if (s > pmc.eager_max) break;
    double o = (pmc.fitted[NETCAL_SEND] ? llamp_fit_eval(&pmc.fit[NETCAL_SEND], s) : 0) +
               (pmc.fitted[NETCAL_RECV] ? llamp_fit_eval(&pmc.fit[NETCAL_RECV], s) : 0);
    double ow = llamp_fit_eval(&pmc.fit[NETCAL_PINGPONG], s);
    if (o > 0 && 0.9 * ow / o < oscale) oscale = fmax(0.9 * ow / o, 0);
  }
  for (int k = NETCAL_SEND; k <= NETCAL_RECV; k++)
    for (int j = 0; j < pmc.fit[k].nseg; j++) pmc.fit[k].seg[j].offset *= oscale, pmc.fit[k].seg[j].slope *= oscale;
  if (oscale < 1)
    fprintf(stderr, "calib_netfit: o_send + o_recv exceed 90 %% of the one-way time: the smpi group's os and or are "
                    "the measured curves x %.3f\n", oscale);
  smpi_t sm;
  smpi_factors(&pmc, xmax, &sm);
  double at, worst = check_smpi(&pmc, &sm, xmax, &at);
  if (worst > 0.01)
    fprintf(stderr,
            "calib_netfit: warning: SimGrid's one-way time under the smpi group differs from the fitted one by up to "
            "%.1f %% (at %.0f B)\n", 100 * worst, at);

  FILE *f = stdout;
  if (out && !(f = fopen(out, "w"))) die("%s: cannot write: %s", out, strerror(errno));
  time_t now = time(NULL);
  char date[32];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
  fprintf(f, "# Network model written by llamp-calibrate network (calib_netfit, %s; docs/calib.md,\n"
             "# docs/models.md).  Numbers are SI: seconds, bytes, seconds per byte.\n", date);
  fprintf(f, "# Raw samples: %zu; %s.\n", nsamples_total, source_note[0] ? source_note : "source unknown");
  fprintf(f, "# Fits: segmented least squares on relative errors, breakpoints by dynamic programming + BIC,\n"
             "# points farther than 5 MAD from the fit dropped (smpi_llamp/fit/llamp_fit.h).\n");
  for (int sc = 0; sc < NSCOPES; sc++)
    if (!model[sc][0].have && !model[sc][1].have)
      fprintf(f, "# No %s samples: %s fit absent%s.\n", scope_names[sc], scope_names[sc],
              sc == INTER ? " (llamp-calibrate network --netns or --hosts measures between nodes)" : "");
  fprintf(f, "network = {\n  source = \"llamp-calibrate network, %s, %s\";\n  scope = \"%s\";\n",
          source_note[0] ? source_note : "unknown host", date, scope_names[primary]);
  if (use_load) fprintf(f, "  # measured under compute load (--use-load)\n");
  write_model_keys(f, "  ", pm);
  fprintf(f, "  overhead_scale = %s;   # the smpi group's os, or = o_send, o_recv x this (SimGrid adds the two\n"
             "                           # sides' overheads, MPI overlaps them: their sum is kept <= 90 %% of one_way)\n",
          num(oscale));
  for (int sc = 0; sc < NSCOPES; sc++) {
    if (sc == primary || !model[sc][0].fitted[NETCAL_PINGPONG]) continue;
    fprintf(f, "  %s = {   # the %s fit, kept apart\n", scope_names[sc], scope_names[sc]);
    write_model_keys(f, "    ", &model[sc][0]);
    fprintf(f, "  };\n");
  }
  for (int sc = 0; sc < NSCOPES; sc++) {
    if (!model[sc][1].fitted[NETCAL_PINGPONG] || (sc == primary && use_load)) continue;
    fprintf(f, "  %s_under_load = {   # %s, both ranks running a compute load before each repetition\n",
            scope_names[sc], scope_names[sc]);
    write_model_keys(f, "    ", &model[sc][1]);
    fprintf(f, "  };\n");
  }
  if (use_load && model[primary][0].fitted[NETCAL_PINGPONG]) {
    fprintf(f, "  %s_no_load = {\n", scope_names[primary]);
    write_model_keys(f, "    ", &model[primary][0]);
    fprintf(f, "  };\n");
  }
  fprintf(f, "};\n\n");

  char os[4096], or_[4096], ois[4096];
  llamp_fit_t zero = {.nseg = 1};
  overhead_string(os, sizeof os, pmc.fitted[NETCAL_SEND] ? &pmc.fit[NETCAL_SEND] : &zero);
  overhead_string(or_, sizeof or_, pmc.fitted[NETCAL_RECV] ? &pmc.fit[NETCAL_RECV] : &zero);
  overhead_string(ois, sizeof ois, pm->fitted[NETCAL_ISEND] ? &pm->fit[NETCAL_ISEND] : &zero);
  fprintf(f, "# The %s fit as SimGrid settings: a 2-host route with reference_latency and\n"
             "# reference_bandwidth and these factors gives os(s) + lat_factor lat + (s+16) / (bw bw_factor)\n"
             "# + or(s) = the fitted one_way (os, or: eager sizes only).  Largest difference from one_way\n"
             "# over 0 .. %.0f B: %.3f %% (at %.0f B).  The flags:\n",
          scope_names[primary], xmax, 100 * worst, at);
  fprintf(f, "#   --cfg=smpi/os:'%s' --cfg=smpi/or:'%s' --cfg=smpi/ois:'%s'\n", os, or_, ois);
  fprintf(f, "#   --cfg=smpi/lat-factor:'<lat_factor>' --cfg=smpi/bw-factor:'<bw_factor>'\n");
  fprintf(f, "#   --cfg=smpi/send-is-detached-thresh:%ld\n", sm.detached);
  fprintf(f, "smpi = {\n  os = \"%s\";\n  or = \"%s\";\n  ois = \"%s\";\n", os, or_, ois);
  write_factor(f, "lat_factor", &sm, 1);
  write_factor(f, "bw_factor", &sm, 0);
  fprintf(f, "  reference_latency = %s;      # seconds\n  reference_bandwidth = %s;    # bytes per second\n",
          num(sm.lat), num(sm.bw));
  fprintf(f, "  send_is_detached_thresh = %ld;\n", sm.detached);
  fprintf(f, "  overhead_scale = %s;   # os, or = network.o_send, o_recv x this (their sum <= 90 %% of one_way)\n",
          num(oscale));
  fprintf(f, "  check = { max_rel_error = %.6f; at = %.0f.0; };   # SimGrid's formula vs one_way\n", worst, at);
  fprintf(f, "};\n");
  if (f != stdout) fclose(f);

  if (plot) write_plot(plot, svg ? svg : "netcal.svg");

  /* a summary on stderr */
  for (int sc = 0; sc < NSCOPES; sc++)
    for (int l = 0; l < 2; l++) {
      const model_t *m = &model[sc][l];
      for (int k = 0; k < NETCAL_LATE; k++) {
        if (!m->fitted[k]) continue;
        const llamp_fit_t *fit = &m->fit[k];
        fprintf(stderr, "%s%s %-8s R^2 %.5f rel_rms %.3f, %zu points (%zu dropped), %d segment(s):", scope_names[sc],
                l ? "+load" : "", curve_names[k], fit->r2, fit->rel_rms, fit->n, fit->dropped, fit->nseg);
        for (int j = 0; j < fit->nseg; j++)
          fprintf(stderr, " [%ld: %.4g + %.4g s]", j ? (long)fit->seg[j].from : 0L, fit->seg[j].offset,
                  fit->seg[j].slope);
        fprintf(stderr, "\n");
      }
      if (m->have && m->eager_max >= 0)
        fprintf(stderr, "%s%s eager_max %ld (first waiting %ld)\n", scope_names[sc], l ? "+load" : "", m->eager_max,
                m->rdv_min);
    }
  return 0;
}
