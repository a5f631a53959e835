/* classify.c - C1-C5 classification by the trend over three configuration
 * sets (llamp_classify.h, docs/classify.md). */
#include "llamp_classify.h"
#include "llamp_units.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static const double K[LLAMP_CLASSIFY_K] = {0.125, 0.25, 0.5, 1, 2, 4, 8};
#define ANCHOR 3

void llamp_classify_rules_default(llamp_classify_rules_t *r) {
  /* Tong et al. §IV-C */
  r->compute_share = 0.90;
  r->insensitive = 0.05;
  r->bound_share = 0.25;
  r->sensitive_share = 0.10;
  r->factor = 2;
}

int llamp_classify_preset(const char *name, double *L, double *G) {
  static const struct {
    const char *name;
    double gbps, us;
  } presets[] = {{"e1g", 1, 50}, {"e10g", 10, 5}, {"qdr", 32, 1.3}};
  for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
    if (!strcmp(name, presets[i].name)) {
      *L = presets[i].us * 1e-6;
      *G = 8 / (presets[i].gbps * 1e9);
      return 0;
    }
  return -1;
}

int llamp_classify_anchor(const char *text, llamp_params_t *p, char *err, size_t errlen) {
  static const char *expected = "expected here, e1g, e10g, qdr, or BANDWIDTH@LATENCY such as 10Gbps@5us";
  if (!strcmp(text, "here")) return 0;
  double L, G;
  if (llamp_classify_preset(text, &L, &G) == 0) {
    p->L = L;
    p->G = G;
    return 0;
  }
  const char *at = strchr(text, '@');
  if (!at || at == text || !at[1] || at - text > 120) {
    seterr(err, errlen, "'%.200s' (%s)", text, expected);
    return -1;
  }
  char bw[128], e2[256];
  snprintf(bw, sizeof bw, "%.*s", (int)(at - text), text);
  if (llamp_units_parse(bw, LLAMP_UNIT_PER_BYTE, "ns", &G, e2, sizeof e2) || !(G > 0)) {
    seterr(err, errlen, "'%.200s': bandwidth '%s' (%s)", text, bw, expected);
    return -1;
  }
  if (llamp_units_parse(at + 1, LLAMP_UNIT_TIME, "us", &L, e2, sizeof e2) || !(L >= 0)) {
    seterr(err, errlen, "'%.200s': latency '%s' (%s)", text, at + 1, expected);
    return -1;
  }
  p->L = L;
  p->G = G;
  return 0;
}

const char *llamp_class_code(llamp_class_t c) {
  static const char *codes[] = {"-", "C1", "C2", "C3", "C4", "C5"};
  return (unsigned)c <= LLAMP_CLASS_COMMUNICATION ? codes[c] : "-";
}

const char *llamp_class_name(llamp_class_t c, int sensitive) {
  switch (c) {
  case LLAMP_CLASS_COMPUTATION: return "computation-bound";
  case LLAMP_CLASS_IMBALANCE: return sensitive ? "load-imbalance-sensitive" : "load-imbalance-bound";
  case LLAMP_CLASS_BANDWIDTH: return sensitive ? "bandwidth-sensitive" : "bandwidth-bound";
  case LLAMP_CLASS_LATENCY: return sensitive ? "latency-sensitive" : "latency-bound";
  case LLAMP_CLASS_COMMUNICATION: return sensitive ? "communication-sensitive" : "communication-bound";
  default: return "mixed";
  }
}

/* a rank's own compute: its calc vertices (the time between its MPI calls;
 * they follow each other in program order) */
static int mean_compute(const llamp_graph_t *g, double *out, char *err, size_t errlen) {
  uint64_t n = llamp_graph_num_vertices(g);
  uint32_t P = llamp_graph_num_ranks(g);
  if (P == 0) {
    seterr(err, errlen, "classify: the graph has no ranks");
    return -1;
  }
  double total = 0;
  for (uint64_t v = 0; v < n; v++)
    if (llamp_graph_kind(g, v) == LLAMP_VERTEX_CALC) total += llamp_graph_value(g, v);
  *out = total / P;
  return 0;
}

/* One configuration's shares from T, lambda_L, lambda_G and the critical
 * path's overheads. */
static void split(double L, double G, double compute, double T, double lambda_L, double lambda_G,
                  double t_overhead, llamp_class_point_t *out) {
  out->L = L;
  out->G = G;
  out->T = T;
  out->compute = compute;
  out->comm = T - compute > 0 ? T - compute : 0;
  /* what of the critical path's latency and bandwidth terms is exposed:
   * compute overlaps latency first, then bandwidth (Tong et al. §III-E) */
  double lat = lambda_L * L, bw = lambda_G * G, left = out->comm;
  out->bandwidth = bw < left ? bw : left;
  left -= out->bandwidth;
  out->latency = lat < left ? lat : left;
  left -= out->latency;
  out->overhead = t_overhead < left ? t_overhead : left;
  out->wait = left - out->overhead;
}

/* One configuration by itself (two passes and the path's timeline). */
static int eval(llamp_engine_t *e, const llamp_params_t *p, double L, double G, double compute,
                llamp_class_point_t *out) {
  llamp_params_t q = *p;
  q.L = L;
  q.G = G;
  llamp_point_t pt;
  if (llamp_engine_point_of(e, &q, 1u << LLAMP_PARAM_G, &pt)) return -1;
  split(L, G, compute, pt.T, pt.lambda[LLAMP_PARAM_L], pt.lambda[LLAMP_PARAM_G], pt.t_overhead, out);
  return 0;
}

static double rel(double x, double ref) {
  if (ref > 0) return fabs(x / ref - 1);
  return x > 0 ? INFINITY : 0;
}
static double ratio(double a, double b) { return b > 0 ? a / b : (a > 0 ? INFINITY : 1); }

/* The 19 distinct configurations: the anchor, then per factor K[i] the
 * latency set (L K), the bandwidth set (G / K) and both (L / K, G / K). */
enum { NUM_CONFIGS = 1 + 3 * (LLAMP_CLASSIFY_K - 1) };

struct llamp_classify_job {
  llamp_params_t p;
  double compute;
  llamp_class_point_t *slot[NUM_CONFIGS];
  double L[NUM_CONFIGS], G[NUM_CONFIGS];
  int failed[NUM_CONFIGS];
  atomic_int next;
  int take; /* configurations a worker evaluates in one pass (llamp_engine_points_lg) */
  llamp_classification_t c;
};

llamp_classify_job_t *llamp_classify_job_create(const llamp_graph_t *g, const llamp_params_t *p, char *err,
                                                size_t errlen) {
  if (!(p->L >= 0) || !(p->G > 0)) {
    seterr(err, errlen, "classify: the anchor needs L >= 0 and G > 0 (a finite bandwidth), got L = %g s, G = %g s/B",
           p->L, p->G);
    return NULL;
  }
  llamp_classify_job_t *j = calloc(1, sizeof *j);
  if (!j) {
    seterr(err, errlen, "classify: out of memory");
    return NULL;
  }
  if (mean_compute(g, &j->compute, err, errlen)) {
    free(j);
    return NULL;
  }
  j->p = *p;
  llamp_classification_t *c = &j->c;
  int k = 0;
  j->slot[k] = &c->lat[ANCHOR], j->L[k] = p->L, j->G[k++] = p->G;
  for (int i = 0; i < LLAMP_CLASSIFY_K; i++) {
    if (i == ANCHOR) continue;
    j->slot[k] = &c->lat[i], j->L[k] = p->L * K[i], j->G[k++] = p->G;
    j->slot[k] = &c->bw[i], j->L[k] = p->L, j->G[k++] = p->G / K[i];
    j->slot[k] = &c->both[i], j->L[k] = p->L / K[i], j->G[k++] = p->G / K[i];
  }
  atomic_init(&j->next, 0);
  /* all 19 in one pass.  A pass costs ~60 ms on bench_capture64's graph
   * before any lane (the graph's walk), and four lanes a vector (AVX2) make
   * each lane cheap: 19 in one pass took 125-190 ms, 10 a pass 80-130 ms
   * each.  The capture's second worker (its main thread) comes only after
   * T and the critical latencies, too late to share a second pass.  One
   * lane at a time, 19 and 10 a pass took 0.23 s alike (19 separate
   * point_of 0.47 s). */
  j->take = NUM_CONFIGS;
  return j;
}

void llamp_classify_job_work(llamp_classify_job_t *j, llamp_engine_t *e) {
  int take = j->take;
  for (int k0; (k0 = atomic_fetch_add(&j->next, take)) < NUM_CONFIGS;) {
    int K = NUM_CONFIGS - k0 < take ? NUM_CONFIGS - k0 : take;
    llamp_lane_point_t pt[NUM_CONFIGS];
    int rc = llamp_engine_points_lg(e, &j->p, j->L + k0, j->G + k0, (size_t)K, pt);
    for (int k = k0; k < k0 + K; k++) {
      if (rc == 0)
        split(j->L[k], j->G[k], j->compute, pt[k - k0].T, pt[k - k0].lambda_L, pt[k - k0].lambda_G,
              pt[k - k0].t_overhead, j->slot[k]);
      j->failed[k] = rc < 0 || (rc == 1 && eval(e, &j->p, j->L[k], j->G[k], j->compute, j->slot[k]) != 0);
    }
  }
}

void llamp_classify_job_free(llamp_classify_job_t *j) { free(j); }

int llamp_classify(llamp_engine_t *e, const llamp_graph_t *g, const llamp_params_t *p,
                   const llamp_classify_rules_t *rules, llamp_classification_t *c, char *err,
                   size_t errlen) {
  memset(c, 0, sizeof *c);
  llamp_classify_job_t *j = llamp_classify_job_create(g, p, err, errlen);
  if (!j) return -1;
  llamp_classify_job_work(j, e);
  int rc = llamp_classify_job_finish(j, rules, c, err, errlen);
  llamp_classify_job_free(j);
  return rc;
}

int llamp_classify_job_finish(llamp_classify_job_t *j, const llamp_classify_rules_t *rules,
                              llamp_classification_t *c, char *err, size_t errlen) {
  llamp_classify_rules_t def;
  if (!rules) {
    llamp_classify_rules_default(&def);
    rules = &def;
  }
  for (int k = 0; k < NUM_CONFIGS; k++)
    if (j->failed[k] || k >= atomic_load(&j->next)) {
      seterr(err, errlen, "classify: evaluation at L = %g s, G = %g s/B %s", j->L[k], j->G[k],
             j->failed[k] ? "failed" : "was never run");
      return -1;
    }
  *c = j->c;
  c->evaluations = NUM_CONFIGS;
  c->bw[ANCHOR] = c->both[ANCHOR] = c->lat[ANCHOR];
  const llamp_class_point_t *a = &c->lat[ANCHOR];
  if (!(a->T > 0)) {
    seterr(err, errlen, "classify: T = %g s at the anchor (expected > 0)", a->T);
    return -1;
  }
  c->compute_share = a->compute / a->T;
  c->comm_share = a->comm / a->T;
  c->wait_share = a->wait / a->T;
  c->latency_share = a->latency / a->T;
  c->bandwidth_share = a->bandwidth / a->T;
  c->overhead_share = a->overhead / a->T;
  const llamp_class_point_t *sets[3] = {c->lat, c->bw, c->both};
  for (int s = 0; s < 3; s++)
    for (int i = 0; i < LLAMP_CLASSIFY_K; i++) {
      c->T_change = fmax(c->T_change, rel(sets[s][i].T, a->T));
      c->wait_change = fmax(c->wait_change, rel(sets[s][i].wait, a->wait));
      if (s == 0) c->comm_change_lat = fmax(c->comm_change_lat, rel(sets[s][i].comm, a->comm));
      if (s == 1) c->comm_change_bw = fmax(c->comm_change_bw, rel(sets[s][i].comm, a->comm));
    }
  c->comm_ratio_lat = ratio(c->lat[ANCHOR + 1].comm, c->lat[ANCHOR - 1].comm);
  c->comm_ratio_bw = ratio(c->bw[ANCHOR - 1].comm, c->bw[ANCHOR + 1].comm);
  c->comm_ratio_both = ratio(c->both[ANCHOR - 1].comm, c->both[ANCHOR + 1].comm);

  const double ins = rules->insensitive, f = rules->factor;
  if (c->compute_share >= rules->compute_share && c->T_change < ins) {
    c->cls = LLAMP_CLASS_COMPUTATION;
    snprintf(c->reason, sizeof c->reason,
             "compute %.1f %% of T (>= %.0f %%), T changes by at most %.2f %% (< %.0f %%) from 1/8 to 8 x BW and L",
             100 * c->compute_share, 100 * rules->compute_share, 100 * c->T_change, 100 * ins);
    return 0;
  }
  if (c->comm_share >= rules->sensitive_share) {
    c->sensitive = c->comm_share < rules->bound_share;
    double need = c->sensitive ? rules->sensitive_share : rules->bound_share;
    if (c->comm_change_lat < ins && c->comm_ratio_bw >= f) {
      c->cls = LLAMP_CLASS_BANDWIDTH;
      snprintf(c->reason, sizeof c->reason,
               "communication %.1f %% of T (>= %.0f %%), changes by at most %.2f %% (< %.0f %%) from L/8 to 8L, "
               "shrinks %.2fx (>= %g) from BW/2 to 2BW",
               100 * c->comm_share, 100 * need, 100 * c->comm_change_lat, 100 * ins, c->comm_ratio_bw, f);
      return 0;
    }
    if (c->comm_change_bw < ins && c->comm_ratio_lat >= f) {
      c->cls = LLAMP_CLASS_LATENCY;
      snprintf(c->reason, sizeof c->reason,
               "communication %.1f %% of T (>= %.0f %%), changes by at most %.2f %% (< %.0f %%) from BW/8 to 8BW, "
               "shrinks %.2fx (>= %g) from 2L to L/2",
               100 * c->comm_share, 100 * need, 100 * c->comm_change_bw, 100 * ins, c->comm_ratio_lat, f);
      return 0;
    }
    if (c->comm_ratio_both >= f) {
      c->cls = LLAMP_CLASS_COMMUNICATION;
      snprintf(c->reason, sizeof c->reason,
               "communication %.1f %% of T (>= %.0f %%), shrinks %.2fx (>= %g) from (BW/2, 2L) to (2BW, L/2); "
               "it changes %.1f %% over the latency set and %.1f %% over the bandwidth set",
               100 * c->comm_share, 100 * need, c->comm_ratio_both, f, 100 * c->comm_change_lat,
               100 * c->comm_change_bw);
      return 0;
    }
    c->sensitive = 0;
  }
  /* communication that does not follow L or BW: waiting for each other */
  if (c->wait_share >= rules->sensitive_share && c->wait_change < ins) {
    c->cls = LLAMP_CLASS_IMBALANCE;
    c->sensitive = c->wait_share < rules->bound_share;
    snprintf(c->reason, sizeof c->reason,
             "wait %.1f %% of T (>= %.0f %%), changes by at most %.2f %% (< %.0f %%) from 1/8 to 8 x BW and L; "
             "communication shrinks only %.2fx from (BW/2, 2L) to (2BW, L/2)",
             100 * c->wait_share, 100 * (c->sensitive ? rules->sensitive_share : rules->bound_share),
             100 * c->wait_change, 100 * ins, c->comm_ratio_both);
    return 0;
  }
  if (c->comm_share >= rules->sensitive_share)
    snprintf(c->reason, sizeof c->reason,
             "communication %.1f %% of T, but it shrinks only %.2fx from (BW/2, 2L) to (2BW, L/2) (< %g), "
             "and its wait part (%.1f %% of T) changes %.1f %% (>= %.0f %%)",
             100 * c->comm_share, c->comm_ratio_both, f, 100 * c->wait_share, 100 * c->wait_change, 100 * ins);
  else if (c->compute_share >= rules->compute_share)
    snprintf(c->reason, sizeof c->reason,
             "compute %.1f %% of T (>= %.0f %%) but T changes by %.1f %% (>= %.0f %%) from 1/8 to 8 x BW and L; "
             "communication %.1f %% of T (< %.0f %%)",
             100 * c->compute_share, 100 * rules->compute_share, 100 * c->T_change, 100 * ins, 100 * c->comm_share,
             100 * rules->sensitive_share);
  else
    snprintf(c->reason, sizeof c->reason, "compute %.1f %% of T (< %.0f %%), communication %.1f %% (< %.0f %%)",
             100 * c->compute_share, 100 * rules->compute_share, 100 * c->comm_share, 100 * rules->sensitive_share);
  return 0;
}

static const char *set_names[3] = {"latency", "bandwidth", "communication"};

void llamp_classify_text(FILE *f, const llamp_classification_t *c, const char *in, int table) {
  const llamp_class_point_t *a = &c->lat[ANCHOR];
  fprintf(f, "%sclass: %s (%s) at BW = %.4g GB/s, L = %.4g us\n", in, llamp_class_name(c->cls, c->sensitive),
          llamp_class_code(c->cls), 1e-9 / a->G, a->L * 1e6);
  fprintf(f, "%s  because %s\n", in, c->reason);
  fprintf(f,
          "%s  at the anchor: compute %.1f %%, communication %.1f %% (latency %.1f %%, bandwidth %.1f %%, "
          "overhead %.1f %%, wait %.1f %%)\n",
          in, 100 * c->compute_share, 100 * c->comm_share, 100 * c->latency_share, 100 * c->bandwidth_share,
          100 * c->overhead_share, 100 * c->wait_share);
  if (!table) return;
  fprintf(f, "%s  %-13s %6s %12s %12s %12s %12s %12s %12s\n", in, "set", "k", "BW GB/s", "L us", "T us", "comm us",
          "latency us", "wait us");
  const llamp_class_point_t *sets[3] = {c->lat, c->bw, c->both};
  for (int s = 0; s < 3; s++)
    for (int i = 0; i < LLAMP_CLASSIFY_K; i++) {
      const llamp_class_point_t *x = &sets[s][i];
      fprintf(f, "%s  %-13s %6g %12.6g %12.6g %12.6g %12.6g %12.6g %12.6g\n", in, set_names[s], K[i],
              1e-9 / x->G, x->L * 1e6, x->T * 1e6, x->comm * 1e6, x->latency * 1e6, x->wait * 1e6);
    }
}

static void num(FILE *f, double x) {
  if (isfinite(x)) fprintf(f, "%.10g", x);
  else fputs("null", f);
}

void llamp_classify_json(FILE *f, const llamp_classification_t *c, const char *in) {
  fprintf(f, "%s\"class\": \"%s\",\n%s\"code\": \"%s\",\n%s\"sensitive\": %s,\n%s\"reason\": \"", in,
          llamp_class_name(c->cls, c->sensitive), in, llamp_class_code(c->cls), in, c->sensitive ? "true" : "false",
          in);
  for (const char *s = c->reason; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
  fprintf(f, "\",\n");
  const llamp_class_point_t *a = &c->lat[ANCHOR];
  fprintf(f, "%s\"anchor\": {\"L\": ", in);
  num(f, a->L);
  fprintf(f, ", \"G\": ");
  num(f, a->G);
  fprintf(f, "},\n");
  const struct {
    const char *k;
    double v;
  } trend[] = {{"compute_share", c->compute_share}, {"communication_share", c->comm_share},
               {"latency_share", c->latency_share}, {"bandwidth_share", c->bandwidth_share},
               {"overhead_share", c->overhead_share}, {"wait_share", c->wait_share},       {"T_change", c->T_change},
               {"wait_change", c->wait_change},     {"comm_change_latency_set", c->comm_change_lat},
               {"comm_change_bandwidth_set", c->comm_change_bw}, {"comm_ratio_latency", c->comm_ratio_lat},
               {"comm_ratio_bandwidth", c->comm_ratio_bw},       {"comm_ratio_both", c->comm_ratio_both}};
  fprintf(f, "%s\"trend\": {", in);
  for (size_t i = 0; i < sizeof trend / sizeof trend[0]; i++) {
    fprintf(f, "%s\"%s\": ", i ? ", " : "", trend[i].k);
    num(f, trend[i].v);
  }
  fprintf(f, "},\n%s\"evaluations\": %d,\n%s\"sets\": {", in, c->evaluations, in);
  static const char *keys[3] = {"latency", "bandwidth", "communication"};
  const llamp_class_point_t *sets[3] = {c->lat, c->bw, c->both};
  for (int s = 0; s < 3; s++) {
    fprintf(f, "%s\n%s  \"%s\": [", s ? "," : "", in, keys[s]);
    for (int i = 0; i < LLAMP_CLASSIFY_K; i++) {
      const llamp_class_point_t *x = &sets[s][i];
      fprintf(f, "%s{\"k\": %g, \"L\": ", i ? ", " : "", K[i]);
      num(f, x->L);
      fprintf(f, ", \"G\": ");
      num(f, x->G);
      fprintf(f, ", \"T\": ");
      num(f, x->T);
      fprintf(f, ", \"compute\": ");
      num(f, x->compute);
      fprintf(f, ", \"communication\": ");
      num(f, x->comm);
      fprintf(f, ", \"latency\": ");
      num(f, x->latency);
      fprintf(f, ", \"bandwidth\": ");
      num(f, x->bandwidth);
      fprintf(f, ", \"overhead\": ");
      num(f, x->overhead);
      fprintf(f, ", \"wait\": ");
      num(f, x->wait);
      fprintf(f, "}");
    }
    fprintf(f, "]");
  }
  fprintf(f, "\n%s}\n", in);
}
