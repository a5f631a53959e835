/* plot_cmd.c - `llamp plot KIND INPUT -o FILE`: pictures of an analysis.
 * Reads what the other commands write (report.json, graphs, CSV), asks the
 * engine where a graph is given, and draws with the plot module. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_histogram.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "cli.h"
#include "llamp_json.h"
#include "llamp_plot.h"

static const char *plot_help =
    "usage: llamp plot KIND INPUT -o FILE.svg|FILE.png [options]\n"
    "Pictures of an analysis: SVG written directly, PNG converted by rsvg-convert.\n\n"
    "Kinds:\n"
    "  runtime   INPUT: a report.json (capture or 'llamp analyze --format json'), a\n"
    "            capture's output directory, or a graph (analysed here). Runtime vs L\n"
    "            with the 1/2/5 %% tolerance zones shaded and the critical latencies\n"
    "            marked; lambda_L and rho_L in panels below.\n"
    "  timeline  INPUT: a graph. The critical path as a per-rank timeline: compute,\n"
    "            overhead, latency and bandwidth segments.\n"
    "  hist      INPUT: a CSV file with a header (e.g. study.csv): histogram of --column.\n"
    "  cdf       INPUT: a CSV file: empirical CDF of --column.\n"
    "  validate  INPUT: llamp-validate's validate.csv. Predicted runtime vs injected dL\n"
    "            (and anchored at the measured dL = 0), the measured median, min and\n"
    "            max, the prediction's 1/2/5 %% tolerance zones.\n\n"
    "Options:\n"
    "  -o FILE           the picture, .svg or .png (required)\n"
    "  --range LMIN:LMAX runtime from a graph: the L interval (default 0:10 L)\n"
    "  --points N        runtime from a graph: sweep points (default 201)\n"
    "  --delta           runtime: x axis is dL = L - L0 instead of L\n"
    "  --column NAME     hist/cdf: the CSV column (default: the second one)\n"
    "  --bins N          hist: number of bins (default: Freedman-Diaconis rule)\n"
    "  --title TEXT      the figure's title\n"
    "  --size WxH        pixels (default 800x500)\n\n%s";

enum { P_RANGE = 2000, P_POINTS, P_DELTA, P_COLUMN, P_BINS, P_TITLE, P_SIZE };

typedef struct {
  const char *out, *title, *column, *range;
  int width, height, delta, bins;
  size_t points;
} plot_opts_t;

/* ---- runtime vs L -------------------------------------------------------------- */

typedef struct {
  double L0, T0;
  double *x, *T, *lam; /* sweep, sorted by x, breakpoints merged in */
  size_t n;
  double tol_pct[16], tol_L[16];
  int tol_unb[16];
  size_t ntol;
  double *crit;
  size_t ncrit;
} runtime_data_t;

static void runtime_data_free(runtime_data_t *d) {
  free(d->x);
  free(d->T);
  free(d->lam);
  free(d->crit);
}

static void push(runtime_data_t *d, size_t *cap, double x, double T, double lam) {
  if (d->n == *cap) {
    *cap = *cap ? 2 * *cap : 256;
    d->x = realloc(d->x, *cap * sizeof *d->x);
    d->T = realloc(d->T, *cap * sizeof *d->T);
    d->lam = realloc(d->lam, *cap * sizeof *d->lam);
    if (!d->x || !d->T || !d->lam) die("out of memory");
  }
  d->x[d->n] = x;
  d->T[d->n] = T;
  d->lam[d->n] = lam;
  d->n++;
}

/* A required number in a report, or a one-line error naming file, line and key. */
static double need_number(const char *file, const llamp_json_t *obj, const char *key) {
  double v;
  if (llamp_json_get_number(obj, key, &v) || !isfinite(v))
    die("%s:%d: \"%s\": expected a number", file, llamp_json_line(obj), key);
  return v;
}

/* Sweep rows from a capture's sweep.csv (L,runtime,lambda_L). */
static void read_sweep_csv(const char *path, runtime_data_t *d, size_t *cap) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[512];
  int ln = 0;
  while (fgets(line, sizeof line, f)) {
    ln++;
    if (ln == 1) {
      if (strncmp(line, "L,runtime,lambda_L", 18)) die("%s:1: expected the header L,runtime,lambda_L", path);
      continue;
    }
    double x, T, lam;
    char tail;
    if (sscanf(line, "%lf,%lf,%lf %c", &x, &T, &lam, &tail) != 3 || !isfinite(x) || !isfinite(T))
      die("%s:%d: expected L,runtime,lambda_L (three numbers)", path, ln);
    push(d, cap, x, T, lam);
  }
  fclose(f);
}

static int cmp_x(const void *a, const void *b) {
  double u = *(const double *)a, v = *(const double *)b;
  return u < v ? -1 : u > v;
}

/* Sort the sweep by x (with breakpoints merged in, T is exact between points). */
static void sort_sweep(runtime_data_t *d) {
  double *tri = malloc((d->n ? d->n : 1) * 3 * sizeof *tri);
  if (!tri) die("out of memory");
  for (size_t i = 0; i < d->n; i++) {
    tri[3 * i] = d->x[i];
    tri[3 * i + 1] = d->T[i];
    tri[3 * i + 2] = d->lam[i];
  }
  qsort(tri, d->n, 3 * sizeof *tri, cmp_x);
  for (size_t i = 0; i < d->n; i++) {
    d->x[i] = tri[3 * i];
    d->T[i] = tri[3 * i + 1];
    d->lam[i] = tri[3 * i + 2];
  }
  free(tri);
}

static void runtime_from_report(const char *input, runtime_data_t *d) {
  char path[4096], err[1024];
  struct stat st;
  if (stat(input, &st) == 0 && S_ISDIR(st.st_mode))
    snprintf(path, sizeof path, "%s/report.json", input);
  else
    snprintf(path, sizeof path, "%s", input);
  llamp_json_t *r = llamp_json_read_file(path, err, sizeof err);
  if (!r) die("%s", err);
  const llamp_json_t *params = llamp_json_get(r, "params");
  if (!params) die("%s:1: \"params\": expected the model's parameters (is this a report.json?)", path);
  d->L0 = need_number(path, params, "L");
  d->T0 = need_number(path, r, "runtime");
  size_t cap = 0;
  const llamp_json_t *sw = llamp_json_get(r, "sweep");
  for (size_t i = 0; i < llamp_json_size(sw); i++) {
    const llamp_json_t *row = llamp_json_at(sw, i);
    push(d, &cap, need_number(path, row, "L"), need_number(path, row, "runtime"),
         need_number(path, row, "lambda_L"));
  }
  if (!d->n) { /* a capture keeps the sweep in sweep.csv next to report.json */
    char csv[4096];
    snprintf(csv, sizeof csv, "%s", path);
    char *slash = strrchr(csv, '/');
    snprintf(slash ? slash + 1 : csv, sizeof csv - (size_t)(slash ? slash + 1 - csv : 0), "sweep.csv");
    read_sweep_csv(csv, d, &cap);
  }
  if (!d->n)
    die("%s: no sweep to plot (expected \"sweep\" in the report or a sweep.csv beside it; "
        "run 'llamp analyze GRAPH --sweep A:B:STEP --format json')", path);
  const llamp_json_t *crit = llamp_json_get(r, "critical_latencies");
  d->ncrit = llamp_json_size(crit);
  d->crit = malloc((d->ncrit ? d->ncrit : 1) * sizeof *d->crit);
  for (size_t i = 0; i < d->ncrit; i++) {
    const llamp_json_t *b = llamp_json_at(crit, i);
    d->crit[i] = need_number(path, b, "L");
    double T = need_number(path, b, "runtime");
    push(d, &cap, d->crit[i], T, need_number(path, b, "lambda_after"));
  }
  const llamp_json_t *tol = llamp_json_get(r, "tolerance");
  for (size_t i = 0; i < llamp_json_size(tol) && d->ntol < 16; i++) {
    const llamp_json_t *t = llamp_json_at(tol, i);
    d->tol_pct[d->ntol] = need_number(path, t, "percent");
    const llamp_json_t *L = llamp_json_get(t, "L");
    if (llamp_json_type(L) == LLAMP_JSON_NULL) d->tol_unb[d->ntol] = 1;
    else d->tol_L[d->ntol] = need_number(path, t, "L");
    d->ntol++;
  }
  llamp_json_free(r);
  sort_sweep(d);
}

static void runtime_from_graph(const char *input, const common_opts_t *co, const plot_opts_t *po,
                               runtime_data_t *d) {
  llamp_graph_t *g = load_graph(input, co);
  char err[1024];
  llamp_engine_t *e = llamp_engine_create(g, &co->params, err, sizeof err);
  if (!e) die("%s: %s", input, err);
  llamp_point_t pt;
  if (llamp_engine_point(e, &co->params, &pt)) die("out of memory during evaluation");
  d->L0 = co->params.L;
  d->T0 = pt.T;
  double lo = 0, hi = 10 * co->params.L;
  if (po->range) parse_span("range", po->range, LLAMP_PARAM_L, &lo, &hi, NULL);
  if (!(hi > lo)) hi = lo + 10e-6; /* L0 = 0: still show a range */
  size_t k = po->points, cap = 0;
  double *xs = malloc(k * sizeof *xs), *Ts = malloc(k * sizeof *Ts), *ls = malloc(k * sizeof *ls);
  if (!xs || !Ts || !ls) die("out of memory for %zu sweep points", k);
  for (size_t i = 0; i < k; i++) xs[i] = lo + (hi - lo) * (double)i / (double)(k - 1);
  stage_begin("sweeping", "");
  if (llamp_engine_sweep(e, &co->params, LLAMP_PARAM_L, xs, k, Ts, ls)) die("out of memory during the sweep");
  stage_end();
  for (size_t i = 0; i < k; i++) push(d, &cap, xs[i], Ts[i], ls[i]);
  free(xs);
  free(Ts);
  free(ls);
  stage_begin("finding critical latencies", "");
  llamp_breakpoint_t *bps = NULL;
  size_t nb = 0;
  if (llamp_engine_breakpoints(e, &co->params, LLAMP_PARAM_L, lo, hi, &bps, &nb, NULL))
    die("critical latency search failed (out of memory or no convergence)");
  stage_end();
  d->crit = malloc((nb ? nb : 1) * sizeof *d->crit);
  d->ncrit = nb;
  for (size_t i = 0; i < nb; i++) {
    d->crit[i] = bps[i].x;
    push(d, &cap, bps[i].x, bps[i].T, bps[i].slope_after);
  }
  free(bps);
  static const double pct[] = {1, 2, 5};
  for (size_t i = 0; i < 3; i++) {
    double x;
    int unb;
    if (llamp_engine_budget(e, &co->params, LLAMP_PARAM_L, (1 + pct[i] / 100) * d->T0, &x, &unb, NULL))
      die("tolerance search failed");
    d->tol_pct[i] = pct[i];
    d->tol_L[i] = x;
    d->tol_unb[i] = unb;
  }
  d->ntol = 3;
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  sort_sweep(d);
}

static llamp_plot_t *plot_runtime(const runtime_data_t *d, const plot_opts_t *po) {
  /* Units that read well: us for L, and ms or us for T. */
  double tscale = d->T0 >= 1e-3 ? 1e3 : 1e6;
  const char *tunit = d->T0 >= 1e-3 ? "ms" : "us";
  double shift = po->delta ? d->L0 : 0;
  llamp_plot_t *p = llamp_plot_create(po->title ? po->title : "Runtime vs network latency",
                                      po->width, po->height);
  char ylab[64];
  snprintf(ylab, sizeof ylab, "runtime (%s)", tunit);
  int top = llamp_plot_panel(p, 3, ylab), mid = llamp_plot_panel(p, 1.2, "lambda_L"),
      bot = llamp_plot_panel(p, 1.2, "rho_L (%)");
  llamp_plot_xlabel(p, po->delta ? "dL = L - L0 (us)" : "L (us)");
  double *x = malloc(d->n * sizeof *x), *T = malloc(d->n * sizeof *T), *rho = malloc(d->n * sizeof *rho);
  if (!x || !T || !rho) die("out of memory");
  for (size_t i = 0; i < d->n; i++) {
    x[i] = (d->x[i] - shift) * 1e6;
    T[i] = d->T[i] * tscale;
    rho[i] = d->T[i] > 0 ? 100 * d->lam[i] * d->x[i] / d->T[i] : 0;
  }
  /* Tolerance zones: widest first so the narrower ones show on top. */
  static const char *shades[] = {"#009E73", "#E69F00", "#D55E00"};
  for (size_t j = d->ntol; j-- > 0;) {
    double hi = d->tol_unb[j] ? d->x[d->n - 1] : d->tol_L[j];
    char lab[64];
    snprintf(lab, sizeof lab, "%g %% tolerance", d->tol_pct[j]);
    llamp_plot_band(p, top, 'x', (d->L0 - shift) * 1e6, (hi - shift) * 1e6, lab,
                    shades[j % 3], 0.18);
  }
  llamp_plot_series(p, top, "T", LLAMP_PLOT_LINE, x, T, NULL, d->n, "#0072B2");
  llamp_plot_series(p, mid, "lambda_L", LLAMP_PLOT_STEP, x, d->lam, NULL, d->n, "#CC79A7");
  llamp_plot_series(p, bot, "rho_L", LLAMP_PLOT_LINE, x, rho, NULL, d->n, "#56B4E9");
  llamp_plot_marker(p, top, 'x', (d->L0 - shift) * 1e6, "L0");
  if (d->ncrit <= 10) {
    for (size_t i = 0; i < d->ncrit; i++) {
      char lab[64];
      snprintf(lab, sizeof lab, "critical latency %.4g us", d->crit[i] * 1e6);
      for (int pan = 0; pan < 3; pan++) llamp_plot_marker(p, pan, 'x', (d->crit[i] - shift) * 1e6, lab);
    }
  } else if (d->ncrit) { /* many: dots on the curve instead of a forest of lines */
    double *cx = malloc(d->ncrit * sizeof *cx), *cy = malloc(d->ncrit * sizeof *cy);
    if (!cx || !cy) die("out of memory");
    for (size_t i = 0, j = 0; i < d->ncrit; i++) {
      while (j + 1 < d->n && d->x[j] < d->crit[i]) j++;
      cx[i] = (d->crit[i] - shift) * 1e6;
      cy[i] = d->T[j] * tscale;
    }
    char lab[64];
    snprintf(lab, sizeof lab, "%zu critical latencies", d->ncrit);
    llamp_plot_series(p, top, lab, LLAMP_PLOT_POINTS, cx, cy, NULL, d->ncrit, "#555555");
    free(cx);
    free(cy);
  }
  llamp_plot_xrange(p, (d->x[0] - shift) * 1e6, (d->x[d->n - 1] - shift) * 1e6);
  free(x);
  free(T);
  free(rho);
  return p;
}

/* ---- critical path timeline ----------------------------------------------------- */

static const char *seg_colors[LLAMP_NUM_SEGS] = {"#009E73", "#E69F00", "#0072B2", "#CC79A7",
                                                 "#999999"};

static llamp_plot_t *plot_timeline(const char *input, const common_opts_t *co, const plot_opts_t *po) {
  llamp_graph_t *g = load_graph(input, co);
  char err[1024];
  llamp_engine_t *e = llamp_engine_create(g, &co->params, err, sizeof err);
  if (!e) die("%s: %s", input, err);
  llamp_point_t pt;
  if (llamp_engine_point(e, &co->params, &pt)) die("out of memory during evaluation");
  llamp_segment_t *sg = NULL;
  size_t ns = 0;
  if (llamp_engine_path_timeline(e, &co->params, &sg, &ns)) die("critical path timeline failed");
  double tscale = pt.T >= 1e-3 ? 1e3 : 1e6;
  const char *tunit = pt.T >= 1e-3 ? "ms" : "us";
  uint32_t P = llamp_graph_num_ranks(g);
  char **labels = malloc(P * sizeof *labels);
  if (!labels) die("out of memory");
  for (uint32_t r = 0; r < P; r++) {
    labels[r] = malloc(24);
    snprintf(labels[r], 24, "rank %u", r);
  }
  llamp_plot_t *p = llamp_plot_create(po->title ? po->title : "Critical path per rank",
                                      po->width, po->height);
  int pan = llamp_plot_panel(p, 1, NULL);
  llamp_plot_rows(p, pan, (const char *const *)labels, P);
  char xl[64];
  snprintf(xl, sizeof xl, "time (%s)", tunit);
  llamp_plot_xlabel(p, xl);
  double *x0 = malloc((ns ? ns : 1) * sizeof *x0), *x1 = malloc((ns ? ns : 1) * sizeof *x1),
         *row = malloc((ns ? ns : 1) * sizeof *row);
  if (!x0 || !x1 || !row) die("out of memory");
  for (int k = 0; k < LLAMP_NUM_SEGS; k++) {
    size_t m = 0;
    for (size_t i = 0; i < ns; i++)
      if ((int)sg[i].kind == k) {
        x0[m] = sg[i].t0 * tscale;
        x1[m] = sg[i].t1 * tscale;
        row[m] = sg[i].rank;
        m++;
      }
    if (m || k != LLAMP_SEG_GAP)
      llamp_plot_series(p, pan, llamp_seg_name((llamp_seg_kind_t)k), LLAMP_PLOT_SEGMENTS, x0, row,
                        x1, m, seg_colors[k]);
  }
  llamp_plot_xrange(p, 0, pt.T * tscale);
  free(x0);
  free(x1);
  free(row);
  for (uint32_t r = 0; r < P; r++) free(labels[r]);
  free(labels);
  free(sg);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  return p;
}

/* ---- histograms and CDFs of a CSV column ---------------------------------------- */

/* The numeric values of one column of a CSV file with a header line. */
static double *read_column(const char *path, const char *column, size_t *n, char *name, size_t namelen) {
  FILE *f = fopen(path, "r");
  if (!f) die("%s: cannot open: %s", path, strerror(errno));
  char *line = NULL;
  size_t cap = 0, m = 0, mcap = 0;
  double *vals = NULL;
  int ln = 0, col = -1;
  while (getline(&line, &cap, f) > 0) {
    ln++;
    line[strcspn(line, "\r\n")] = 0;
    if (ln == 1) {
      int c = 0;
      for (char *tok = line, *next; tok; tok = next, c++) {
        next = strchr(tok, ',');
        if (next) *next++ = 0;
        if (column ? strcmp(tok, column) == 0 : c == 1) {
          col = c;
          snprintf(name, namelen, "%s", tok);
        }
      }
      if (col < 0)
        die("%s:1: no column '%s' in the header", path, column ? column : "(second)");
      continue;
    }
    if (!*line) continue;
    int c = 0;
    char *tok = line;
    for (; tok && c < col; c++) {
      tok = strchr(tok, ',');
      if (tok) tok++;
    }
    if (!tok) die("%s:%d: column '%s': expected a value (the row is short)", path, ln, name);
    char *end;
    double v = strtod(tok, &end);
    if (end == tok || (*end && *end != ',')) {
      if (strncmp(tok, "null", 4) == 0 || strncmp(tok, "inf", 3) == 0 || *tok == ',' || !*tok)
        continue; /* unbounded / missing values are not drawn */
      die("%s:%d: column '%s': expected a number", path, ln, name);
    }
    if (!isfinite(v)) continue;
    if (m == mcap) {
      mcap = mcap ? 2 * mcap : 64;
      vals = realloc(vals, mcap * sizeof *vals);
      if (!vals) die("out of memory");
    }
    vals[m++] = v;
  }
  free(line);
  fclose(f);
  if (!m) die("%s: column '%s' has no numeric value", path, name);
  gsl_sort(vals, 1, m);
  *n = m;
  return vals;
}

/* Columns of seconds (a study's times and tolerances) read better in a time
 * unit that suits their size. */
static double time_scale(const char *name, const double *v, size_t n, const char **unit) {
  static const char *time_cols[] = {"runtime", "simulated_time", "tolerance_", "T", "L", "delta_L"};
  int is_time = 0;
  for (size_t i = 0; i < sizeof time_cols / sizeof *time_cols; i++)
    is_time |= strncmp(name, time_cols[i], strlen(time_cols[i])) == 0 &&
               (time_cols[i][strlen(time_cols[i]) - 1] == '_' || !name[strlen(time_cols[i])]);
  *unit = NULL;
  if (!is_time) return 1;
  double m = fmax(fabs(v[0]), fabs(v[n - 1]));
  if (m >= 1) return *unit = "s", 1;
  if (m >= 1e-3) return *unit = "ms", 1e3;
  if (m >= 1e-6) return *unit = "us", 1e6;
  return *unit = "ns", 1e9;
}

static llamp_plot_t *plot_distribution(const char *input, const plot_opts_t *po, int cdf) {
  char name[256], label[300];
  size_t n;
  double *v = read_column(input, po->column, &n, name, sizeof name);
  const char *unit;
  double scale = time_scale(name, v, n, &unit);
  for (size_t i = 0; i < n; i++) v[i] *= scale;
  if (unit) snprintf(label, sizeof label, "%s (%s)", name, unit);
  else snprintf(label, sizeof label, "%s", name);
  llamp_plot_t *p = llamp_plot_create(po->title ? po->title : label, po->width, po->height);
  llamp_plot_xlabel(p, label);
  double pad = (v[n - 1] - v[0]) * 0.03; /* the first and last steps stay inside the frame */
  if (pad > 0) llamp_plot_xrange(p, v[0] - pad, v[n - 1] + pad);
  double mean = gsl_stats_mean(v, 1, n), med = gsl_stats_median_from_sorted_data(v, 1, n);
  if (cdf) {
    int pan = llamp_plot_panel(p, 1, "fraction of samples");
    double *x = malloc(2 * n * sizeof *x), *y = malloc(2 * n * sizeof *y);
    for (size_t i = 0; i < n; i++) { /* a staircase: up by 1/n at each sample */
      x[2 * i] = x[2 * i + 1] = v[i];
      y[2 * i] = (double)i / (double)n;
      y[2 * i + 1] = (double)(i + 1) / (double)n;
    }
    llamp_plot_series(p, pan, "empirical CDF", LLAMP_PLOT_LINE, x, y, NULL, 2 * n, NULL);
    llamp_plot_yrange(p, pan, 0, 1.02);
    llamp_plot_marker(p, pan, 'x', med, "median");
    free(x);
    free(y);
  } else {
    int pan = llamp_plot_panel(p, 1, "samples");
    size_t bins = (size_t)po->bins;
    double lo = v[0], hi = v[n - 1];
    if (!bins) { /* Freedman-Diaconis: width 2 IQR / n^(1/3) */
      double iqr = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.75) -
                   gsl_stats_quantile_from_sorted_data(v, 1, n, 0.25);
      double w = 2 * iqr / cbrt((double)n);
      bins = w > 0 ? (size_t)ceil((hi - lo) / w) : 1;
      if (bins < 1) bins = 1;
      if (bins > 200) bins = 200;
    }
    if (!(hi > lo)) { /* all samples equal: one bin around them */
      double d = lo ? fabs(lo) * 1e-3 : 1e-9;
      lo -= d;
      hi += d;
    }
    gsl_histogram *h = gsl_histogram_alloc(bins);
    if (!h) die("out of memory");
    gsl_histogram_set_ranges_uniform(h, lo, hi + (hi - lo) * 1e-9); /* the max falls in the last bin */
    for (size_t i = 0; i < n; i++) gsl_histogram_increment(h, v[i]);
    double *edges = malloc((bins + 1) * sizeof *edges), *cnt = malloc(bins * sizeof *cnt);
    for (size_t i = 0; i <= bins; i++) edges[i] = h->range[i];
    for (size_t i = 0; i < bins; i++) cnt[i] = h->bin[i];
    llamp_plot_series(p, pan, "samples", LLAMP_PLOT_BARS, edges, cnt, NULL, bins, NULL);
    llamp_plot_marker(p, pan, 'x', med, "median");
    free(edges);
    free(cnt);
    gsl_histogram_free(h);
  }
  llamp_plot_marker(p, 0, 'x', mean, "mean");
  free(v);
  return p;
}

/* ---- output ----------------------------------------------------------------------- */

static int ends_with_ci(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcasecmp(s + a - b, suf) == 0;
}

static void write_picture(const llamp_plot_t *p, const char *out) {
  char err[256];
  int png = ends_with_ci(out, ".png");
  if (!png && !ends_with_ci(out, ".svg")) die("-o %s: expected a .svg or .png file name", out);
  char svg[4096];
  if (png) snprintf(svg, sizeof svg, "%s.tmp.svg", out);
  else snprintf(svg, sizeof svg, "%s", out);
  FILE *f = fopen(svg, "w");
  if (!f) die("%s: cannot write: %s", svg, strerror(errno));
  if (llamp_plot_write_svg(p, f, err, sizeof err) || fclose(f) != 0) {
    unlink(svg);
    die("%s: %s", svg, err[0] ? err : "write failed");
  }
  if (!png) return;
  pid_t pid = fork();
  if (pid == 0) {
    execlp("rsvg-convert", "rsvg-convert", "-f", "png", "-o", out, svg, (char *)NULL);
    _exit(127);
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) < 0) st = -1;
  unlink(svg);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    die("%s: PNG conversion failed (%s); write .svg instead, or install librsvg2-bin", out,
        WIFEXITED(st) && WEXITSTATUS(st) == 127 ? "rsvg-convert not found" : "rsvg-convert failed");
}

/* ---- validate: llamp-validate's validate.csv -------------------------------------- */

/* Predicted (line) and measured (median and min..max) runtime vs dL, with
 * the 1/2/5 % tolerance zones of the prediction (docs/validation.md). */
static llamp_plot_t *plot_validate(const char *path, const plot_opts_t *po) {
  FILE *f = fopen(path, "r");
  if (!f) die("%s: cannot open: %s", path, strerror(errno));
  char line[1024];
  size_t n = 0, cap = 0;
  double *v[6] = {0};
  int ln = 0;
  while (fgets(line, sizeof line, f)) {
    ln++;
    if (ln == 1) {
      if (strncmp(line, "dL,predicted,anchored,measured,min,max", 38))
        die("%s:1: expected the header dL,predicted,anchored,measured,min,max,...", path);
      continue;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      for (int k = 0; k < 6; k++) {
        v[k] = realloc(v[k], cap * sizeof *v[k]);
        if (!v[k]) die("out of memory");
      }
    }
    double r[6];
    if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf", &r[0], &r[1], &r[2], &r[3], &r[4], &r[5]) != 6)
      die("%s:%d: expected six numbers dL,predicted,anchored,measured,min,max", path, ln);
    for (int k = 0; k < 6; k++) v[k][n] = r[k];
    n++;
  }
  fclose(f);
  if (n < 2) die("%s: fewer than two rows", path);
  double scale = v[3][0] >= 1e-3 ? 1e3 : 1e6;
  const char *unit = scale == 1e3 ? "ms" : "us";
  for (size_t i = 0; i < n; i++) {
    v[0][i] *= 1e6;
    for (int k = 1; k < 6; k++) v[k][i] *= scale;
  }
  llamp_plot_t *p = llamp_plot_create(po->title ? po->title : "Predicted vs measured runtime",
                                      po->width, po->height);
  char ylab[64];
  snprintf(ylab, sizeof ylab, "runtime (%s)", unit);
  int top = llamp_plot_panel(p, 1, ylab);
  llamp_plot_xlabel(p, "injected dL (us)");
  /* tolerance zones of the prediction: T(dL) <= (1 + x %) T(0) */
  static const double pct[] = {5, 2, 1};
  static const char *shades[] = {"#D55E00", "#E69F00", "#009E73"};
  for (int j = 0; j < 3; j++) {
    double lim = v[1][0] * (1 + pct[j] / 100), hi = v[0][n - 1];
    for (size_t i = 1; i < n; i++)
      if (v[1][i] > lim) {
        double a = v[1][i - 1], b = v[1][i];
        hi = v[0][i - 1] + (b > a ? (lim - a) / (b - a) : 0) * (v[0][i] - v[0][i - 1]);
        break;
      }
    char lab[64];
    snprintf(lab, sizeof lab, "%g %% tolerance", pct[j]);
    llamp_plot_band(p, top, 'x', v[0][0], hi, lab, shades[j], 0.18);
  }
  llamp_plot_series(p, top, "predicted", LLAMP_PLOT_LINE, v[0], v[1], NULL, n, "#0072B2");
  llamp_plot_series(p, top, "predicted, anchored at measured dL=0", LLAMP_PLOT_LINE, v[0], v[2],
                    NULL, n, "#56B4E9");
  llamp_plot_series(p, top, "measured", LLAMP_PLOT_POINTS, v[0], v[3], NULL, n, "#000000");
  llamp_plot_series(p, top, "measured min", LLAMP_PLOT_POINTS, v[0], v[4], NULL, n, "#999999");
  llamp_plot_series(p, top, "measured max", LLAMP_PLOT_POINTS, v[0], v[5], NULL, n, "#CC79A7");
  for (int k = 0; k < 6; k++) free(v[k]);
  return p;
}

int cmd_plot(int argc, char **argv) {
  common_opts_t co;
  common_init(&co);
  plot_opts_t po = {NULL, NULL, NULL, NULL, 0, 0, 0, 0, 201};
  static struct option lo[] = {COMMON_LONG_OPTIONS,
                               {"range", required_argument, 0, P_RANGE},
                               {"points", required_argument, 0, P_POINTS},
                               {"delta", no_argument, 0, P_DELTA},
                               {"column", required_argument, 0, P_COLUMN},
                               {"bins", required_argument, 0, P_BINS},
                               {"title", required_argument, 0, P_TITLE},
                               {"size", required_argument, 0, P_SIZE},
                               {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
    if (common_option(c, &co)) continue;
    char *end;
    switch (c) {
    case 'h': printf(plot_help, params_help); return 0;
    case 'o': po.out = optarg; break;
    case P_RANGE: po.range = optarg; break;
    case P_POINTS: {
      long k = strtol(optarg, &end, 10);
      if (*end || k < 2 || k > 100000) die("--points: '%s' (expected 2 .. 100000)", optarg);
      po.points = (size_t)k;
      break;
    }
    case P_DELTA: po.delta = 1; break;
    case P_COLUMN: po.column = optarg; break;
    case P_BINS: {
      long k = strtol(optarg, &end, 10);
      if (*end || k < 1 || k > 10000) die("--bins: '%s' (expected 1 .. 10000)", optarg);
      po.bins = (int)k;
      break;
    }
    case P_TITLE: po.title = optarg; break;
    case P_SIZE:
      if (sscanf(optarg, "%dx%d", &po.width, &po.height) != 2 || po.width < 100 ||
          po.height < 100 || po.width > 20000 || po.height > 20000)
        die("--size: '%s' (expected WxH, each 100 .. 20000 pixels)", optarg);
      break;
    default: bad_usage("plot");
    }
  }
  common_finish(&co);
  if (optind != argc - 2) {
    fprintf(stderr, "%s: plot needs KIND and INPUT\n", prog);
    bad_usage("plot");
  }
  if (!po.out) die("plot: -o FILE.svg|FILE.png is required");
  if (!ends_with_ci(po.out, ".svg") && !ends_with_ci(po.out, ".png"))
    die("-o %s: expected a .svg or .png file name", po.out);
  const char *kind = argv[optind], *input = argv[optind + 1];
  llamp_plot_t *p = NULL;
  if (strcmp(kind, "runtime") == 0) {
    runtime_data_t d;
    memset(&d, 0, sizeof d);
    struct stat st;
    if (stat(input, &st) != 0) die("%s: cannot open: %s", input, strerror(errno));
    int is_report = S_ISDIR(st.st_mode) || ends_with_ci(input, ".json");
    if (is_report) runtime_from_report(input, &d);
    else runtime_from_graph(input, &co, &po, &d);
    p = plot_runtime(&d, &po);
    runtime_data_free(&d);
  } else if (strcmp(kind, "timeline") == 0) {
    p = plot_timeline(input, &co, &po);
  } else if (strcmp(kind, "hist") == 0 || strcmp(kind, "cdf") == 0) {
    p = plot_distribution(input, &po, kind[0] == 'c');
  } else if (strcmp(kind, "validate") == 0) {
    p = plot_validate(input, &po);
  } else {
    die("plot: unknown kind '%s' (expected runtime, timeline, hist, cdf or validate)", kind);
  }
  if (!p) die("out of memory");
  write_picture(p, po.out);
  llamp_plot_destroy(p);
  return 0;
}
