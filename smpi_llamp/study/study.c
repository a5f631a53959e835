/* study.c - samples of a variability study: reading, statistics, output. */
#include "llamp_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "llamp_json.h"
#include "llamp_units.h"

const double llamp_study_tol_percent[LLAMP_STUDY_NTOL] = {1, 2, 5};

static int need(const char *file, const llamp_json_t *obj, const char *key, double *out, char *err,
                size_t errlen) {
  if (llamp_json_get_number(obj, key, out) == 0 && isfinite(*out)) return 0;
  snprintf(err, errlen, "%s:%d: \"%s\": expected a number", file, llamp_json_line(obj), key);
  return -1;
}

static void free_strings(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

void llamp_study_sample_free(llamp_study_sample_t *s) {
  free(s->path_share);
  s->path_share = NULL;
  free_strings(s->rank_hosts, s->nrank_hosts);
  free_strings(s->hosts, s->nhosts);
  free(s->host_scale);
  s->rank_hosts = s->hosts = NULL;
  s->host_scale = NULL;
  s->nrank_hosts = s->nhosts = 0;
}

void llamp_study_free(llamp_study_t *st) {
  free(st->rank_share);
  st->rank_share = NULL;
}

int llamp_study_read_sample(const char *path, llamp_study_sample_t *s, char *err, size_t errlen) {
  uint64_t seed = s->seed;
  llamp_study_sample_free(s);
  memset(s, 0, sizeof *s);
  s->seed = seed;
  llamp_json_t *r = llamp_json_read_file(path, err, errlen);
  if (!r) return -1;
  int rc = -1;
  const llamp_json_t *params = llamp_json_get(r, "params"), *cap = llamp_json_get(r, "capture");
  if (!params || !cap) {
    snprintf(err, errlen, "%s:1: expected \"params\" and \"capture\" (a capture's report.json)", path);
    goto out;
  }
  if (need(path, params, "L", &s->L0, err, errlen) || need(path, r, "runtime", &s->T, err, errlen) ||
      need(path, r, "lambda_L", &s->lambda_L, err, errlen) ||
      need(path, r, "rho_L", &s->rho_L, err, errlen) ||
      need(path, cap, "simulated_time", &s->simulated, err, errlen))
    goto out;
  const llamp_json_t *tol = llamp_json_get(r, "tolerance");
  for (int k = 0; k < LLAMP_STUDY_NTOL; k++) {
    const llamp_json_t *hit = NULL;
    for (size_t i = 0; i < llamp_json_size(tol); i++) {
      double pct;
      const llamp_json_t *t = llamp_json_at(tol, i);
      if (llamp_json_get_number(t, "percent", &pct) == 0 && pct == llamp_study_tol_percent[k]) hit = t;
    }
    if (!hit) {
      snprintf(err, errlen, "%s:%d: \"tolerance\": expected an entry for %g %%", path,
               tol ? llamp_json_line(tol) : 1, llamp_study_tol_percent[k]);
      goto out;
    }
    const llamp_json_t *d = llamp_json_get(hit, "delta_L");
    if (llamp_json_type(d) == LLAMP_JSON_NULL) s->tol_unbounded[k] = 1;
    else if (need(path, hit, "delta_L", &s->tol_dL[k], err, errlen))
      goto out;
  }
  const char *mode = llamp_json_string(llamp_json_get(llamp_json_get(cap, "compute"), "mode"));
  s->measured_compute = mode && strcmp(mode, "none") != 0;
  /* optional: the critical path's time per rank */
  const llamp_json_t *br = llamp_json_get(llamp_json_get(r, "critical_path"), "by_rank");
  size_t nr = llamp_json_size(br);
  if (nr && s->T > 0) {
    s->path_share = malloc(nr * sizeof *s->path_share);
    if (!s->path_share) {
      snprintf(err, errlen, "%s: out of memory", path);
      goto out;
    }
    for (size_t i = 0; i < nr; i++)
      /* each rank's part of the critical path is a part of T (to the
       * report's printed precision) */
      if (llamp_json_number(llamp_json_at(br, i), &s->path_share[i]) || !(s->path_share[i] >= 0) ||
          !(s->path_share[i] <= s->T * 1.001)) {
        snprintf(err, errlen, "%s:%d: \"by_rank\": expected times in seconds, 0 .. runtime", path,
                 llamp_json_line(br));
        llamp_study_sample_free(s);
        goto out;
      } else
        s->path_share[i] /= s->T;
    s->ranks = (uint32_t)nr;
  }
  /* optional: where the ranks ran and the generated hosts' scales */
  const llamp_json_t *kern = llamp_json_get(cap, "kernels");
  const llamp_json_t *rh = llamp_json_get(kern, "rank_hosts"), *hs = llamp_json_get(kern, "host_scale");
  if (llamp_json_size(rh) && llamp_json_size(hs)) {
    s->nrank_hosts = llamp_json_size(rh);
    s->nhosts = llamp_json_size(hs);
    s->rank_hosts = calloc(s->nrank_hosts, sizeof *s->rank_hosts);
    s->hosts = calloc(s->nhosts, sizeof *s->hosts);
    s->host_scale = calloc(s->nhosts, sizeof *s->host_scale);
    if (!s->rank_hosts || !s->hosts || !s->host_scale) {
      snprintf(err, errlen, "%s: out of memory", path);
      llamp_study_sample_free(s);
      goto out;
    }
    for (size_t i = 0; i < s->nrank_hosts; i++) {
      const char *h = llamp_json_string(llamp_json_at(rh, i));
      if (!h || !(s->rank_hosts[i] = strdup(h))) {
        snprintf(err, errlen, "%s:%d: \"rank_hosts\": expected host names", path, llamp_json_line(rh));
        llamp_study_sample_free(s);
        goto out;
      }
    }
    for (size_t i = 0; i < s->nhosts; i++) {
      const llamp_json_t *e = llamp_json_at(hs, i);
      const char *h = llamp_json_string(llamp_json_get(e, "host"));
      if (!h || !(s->hosts[i] = strdup(h)) ||
          llamp_json_get_number(e, "scale", &s->host_scale[i]) || !isfinite(s->host_scale[i]) ||
          !(s->host_scale[i] > 0)) {
        snprintf(err, errlen, "%s:%d: \"host_scale\": expected {\"host\": NAME, \"scale\": NUMBER > 0}",
                 path, llamp_json_line(e));
        llamp_study_sample_free(s);
        goto out;
      }
    }
  }
  s->done = 1;
  rc = 0;
out:
  llamp_json_free(r);
  return rc;
}

int llamp_study_evict(const llamp_study_sample_t *s, unsigned k, const char ***hostlist,
                      const char ***evicted, char *err, size_t errlen) {
  *hostlist = *evicted = NULL;
  if (!s->nrank_hosts || !s->nhosts) {
    snprintf(err, errlen, "sample %llu: its report has no host scales (eviction needs kernel models "
             "with a generator: docs/studies.md)", (unsigned long long)s->seed);
    return -1;
  }
  size_t nh = s->nhosts, nr = s->nrank_hosts;
  int *used = calloc(nh, sizeof *used);
  const char **list = malloc(nr * sizeof *list), **ev = calloc(k ? k : 1, sizeof *ev);
  if (!used || !list || !ev) goto oom;
  for (size_t r = 0; r < nr; r++) {
    list[r] = s->rank_hosts[r];
    for (size_t h = 0; h < nh; h++)
      if (!strcmp(s->hosts[h], s->rank_hosts[r])) used[h] = 1;
  }
  size_t spare = 0;
  for (size_t h = 0; h < nh; h++) spare += !used[h];
  if (spare < k) {
    snprintf(err, errlen, "the platform has %zu hosts for %zu ranks: evicting %u needs %u spare hosts",
             nh, nr, k, k);
    goto fail;
  }
  for (unsigned j = 0; j < k; j++) {
    /* the slowest used host, and the fastest spare one (ties: the first) */
    size_t worst = nh, best = nh;
    for (size_t h = 0; h < nh; h++) {
      if (used[h] == 1 && (worst == nh || s->host_scale[h] > s->host_scale[worst])) worst = h;
      if (used[h] == 0 && (best == nh || s->host_scale[h] < s->host_scale[best])) best = h;
    }
    if (worst == nh || best == nh) break;
    used[worst] = 2; /* evicted */
    used[best] = 3;  /* taken in */
    ev[j] = s->hosts[worst];
    for (size_t r = 0; r < nr; r++)
      if (!strcmp(list[r], s->hosts[worst])) list[r] = s->hosts[best];
  }
  free(used);
  *hostlist = list;
  *evicted = ev;
  return 0;
oom:
  snprintf(err, errlen, "out of memory");
fail:
  free(used);
  free(list);
  free(ev);
  return -1;
}

static int cmp_double(const void *a, const void *b) {
  double u = *(const double *)a, v = *(const double *)b;
  return u < v ? -1 : u > v;
}

int llamp_study_stats(const double *x, size_t n, uint64_t seed, size_t reps,
                      llamp_study_stats_t *out) {
  memset(out, 0, sizeof *out);
  out->n = n;
  if (n == 0) return 0;
  double *v = malloc(n * sizeof *v);
  if (!v) return -1;
  memcpy(v, x, n * sizeof *v);
  gsl_sort(v, 1, n);
  out->mean = gsl_stats_mean(v, 1, n);
  out->median = gsl_stats_median_from_sorted_data(v, 1, n);
  out->sd = n > 1 ? gsl_stats_sd_m(v, 1, n, out->mean) : 0;
  out->min = v[0];
  out->max = v[n - 1];
  /* Bootstrap of the mean: resample n values with replacement `reps` times;
   * the 2.5 and 97.5 % quantiles of the resampled means bound the mean. */
  if (!reps) reps = 2000;
  double *means = malloc(reps * sizeof *means);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (!means || !rng) {
    free(v);
    free(means);
    if (rng) gsl_rng_free(rng);
    return -1;
  }
  gsl_rng_set(rng, (unsigned long)seed);
  for (size_t b = 0; b < reps; b++) {
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[gsl_rng_uniform_int(rng, n)];
    means[b] = sum / (double)n;
  }
  qsort(means, reps, sizeof *means, cmp_double);
  out->ci_lo = gsl_stats_quantile_from_sorted_data(means, 1, reps, 0.025);
  out->ci_hi = gsl_stats_quantile_from_sorted_data(means, 1, reps, 0.975);
  gsl_rng_free(rng);
  free(means);
  free(v);
  return 0;
}

const char *llamp_study_quantity_name(llamp_study_quantity_t q) {
  static const char *names[LLAMP_STUDY_NQ] = {"simulated_time", "runtime",       "lambda_L",
                                              "rho_L",          "tolerance_1pc", "tolerance_2pc",
                                              "tolerance_5pc"};
  return (unsigned)q < LLAMP_STUDY_NQ ? names[q] : "?";
}

int llamp_study_value(const llamp_study_sample_t *s, llamp_study_quantity_t q, double *out) {
  if (!s->done) return 0;
  switch (q) {
  case LLAMP_STUDY_SIMULATED: *out = s->simulated; return 1;
  case LLAMP_STUDY_T: *out = s->T; return 1;
  case LLAMP_STUDY_LAMBDA_L: *out = s->lambda_L; return 1;
  case LLAMP_STUDY_RHO_L: *out = s->rho_L; return 1;
  case LLAMP_STUDY_TOL1:
  case LLAMP_STUDY_TOL2:
  case LLAMP_STUDY_TOL5: {
    int k = (int)q - (int)LLAMP_STUDY_TOL1;
    if (s->tol_unbounded[k]) return 0;
    *out = s->tol_dL[k];
    return 1;
  }
  default: return 0;
  }
}

int llamp_study_summarise(llamp_study_t *st) {
  double *x = malloc((st->n ? st->n : 1) * sizeof *x);
  if (!x) return -1;
  for (int q = 0; q < LLAMP_STUDY_NQ; q++) {
    size_t m = 0;
    for (size_t i = 0; i < st->n; i++)
      if (llamp_study_value(&st->samples[i], (llamp_study_quantity_t)q, &x[m])) m++;
    /* one bootstrap stream per quantity, all from the study's seed */
    if (llamp_study_stats(x, m, st->base_seed * 31 + (uint64_t)q, 0, &st->stats[q])) {
      free(x);
      return -1;
    }
  }
  free(x);
  if (st->evicted) { /* the same seeds without the slowest hosts */
    double *a = malloc((st->n ? st->n : 1) * sizeof *a), *g = malloc((st->n ? st->n : 1) * sizeof *g);
    size_t m = 0;
    if (!a || !g) {
      free(a);
      free(g);
      return -1;
    }
    for (size_t i = 0; i < st->n; i++)
      if (st->samples[i].done && st->evicted[i].done && st->samples[i].T > 0) {
        a[m] = st->evicted[i].T;
        g[m] = 1 - st->evicted[i].T / st->samples[i].T;
        m++;
      }
    int bad = llamp_study_stats(a, m, st->base_seed * 31 + 101, 0, &st->evict_T) ||
              llamp_study_stats(g, m, st->base_seed * 31 + 102, 0, &st->evict_gain);
    free(a);
    free(g);
    if (bad) return -1;
  }
  /* ranks that matter: mean share of the critical path over the samples that report it */
  free(st->rank_share);
  st->rank_share = NULL;
  st->ranks = 0;
  size_t with = 0;
  for (size_t i = 0; i < st->n; i++)
    if (st->samples[i].done && st->samples[i].path_share && st->samples[i].ranks > st->ranks)
      st->ranks = st->samples[i].ranks;
  if (!st->ranks) return 0;
  st->rank_share = calloc(st->ranks, sizeof *st->rank_share);
  if (!st->rank_share) return -1;
  for (size_t i = 0; i < st->n; i++) {
    const llamp_study_sample_t *s = &st->samples[i];
    if (!s->done || !s->path_share) continue;
    with++;
    for (uint32_t r = 0; r < s->ranks; r++) st->rank_share[r] += s->path_share[r];
  }
  for (uint32_t r = 0; r < st->ranks; r++) st->rank_share[r] /= (double)with;
  return 0;
}

static void num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.12g", v);
  else fprintf(f, "null");
}

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

void llamp_study_write_csv(FILE *f, const llamp_study_t *st) {
  fprintf(f, "sample,seed");
  for (int q = 0; q < LLAMP_STUDY_NQ; q++) fprintf(f, ",%s", llamp_study_quantity_name((llamp_study_quantity_t)q));
  fprintf(f, "\n");
  for (size_t i = 0; i < st->n; i++) {
    const llamp_study_sample_t *s = &st->samples[i];
    fprintf(f, "%zu,%llu", i, (unsigned long long)s->seed);
    for (int q = 0; q < LLAMP_STUDY_NQ; q++) {
      double v;
      if (llamp_study_value(s, (llamp_study_quantity_t)q, &v)) fprintf(f, ",%.12g", v);
      else fprintf(f, ",%s", s->done ? "null" : "");
    }
    fprintf(f, "\n");
  }
}

void llamp_study_write_json(FILE *f, const llamp_study_t *st) {
  size_t done = 0;
  for (size_t i = 0; i < st->n; i++) done += st->samples[i].done;
  fprintf(f, "{\n  \"command\": ");
  json_str(f, st->command);
  fprintf(f, ",\n  \"variability\": ");
  json_str(f, st->variability);
  fprintf(f, ",\n  \"base_seed\": %llu,\n  \"samples_planned\": %zu,\n  \"samples_done\": %zu,\n",
          (unsigned long long)st->base_seed, st->n, done);
  fprintf(f, "  \"confidence\": \"95 %% bootstrap percentile interval of the mean, 2000 resamples\",\n");
  fprintf(f, "  \"summary\": {");
  for (int q = 0; q < LLAMP_STUDY_NQ; q++) {
    const llamp_study_stats_t *x = &st->stats[q];
    fprintf(f, "%s\n    \"%s\": {\"n\": %zu, \"mean\": ", q ? "," : "",
            llamp_study_quantity_name((llamp_study_quantity_t)q), x->n);
    double vals[] = {x->mean, x->median, x->sd, x->ci_lo, x->ci_hi, x->min, x->max};
    static const char *keys[] = {"mean", "median", "sd", "ci95_lo", "ci95_hi", "min", "max"};
    for (int k = 0; k < 7; k++) {
      if (k) fprintf(f, ", \"%s\": ", keys[k]);
      if (x->n) num(f, vals[k]);
      else fprintf(f, "null");
    }
    fprintf(f, "}");
  }
  fprintf(f, "\n  },\n");
  if (st->rank_share) {
    fprintf(f, "  \"critical_path_share_by_rank\": [");
    for (uint32_t r = 0; r < st->ranks; r++) {
      if (r) fprintf(f, ", ");
      num(f, st->rank_share[r]);
    }
    fprintf(f, "],\n");
  }
  if (st->evicted) {
    fprintf(f, "  \"eviction\": {\"hosts_evicted\": %u, \"samples_done\": %zu,", st->evict_k,
            st->evict_T.n);
    const llamp_study_stats_t *es[2] = {&st->evict_T, &st->evict_gain};
    static const char *ek[2] = {"runtime", "gain"};
    for (int q = 0; q < 2; q++) {
      const llamp_study_stats_t *x = es[q];
      fprintf(f, "%s\n    \"%s\": {\"n\": %zu", q ? "," : "", ek[q], x->n);
      double vals[] = {x->mean, x->median, x->sd, x->ci_lo, x->ci_hi, x->min, x->max};
      static const char *keys[] = {"mean", "median", "sd", "ci95_lo", "ci95_hi", "min", "max"};
      for (int j = 0; j < 7; j++) {
        fprintf(f, ", \"%s\": ", keys[j]);
        if (x->n) num(f, vals[j]);
        else fprintf(f, "null");
      }
      fprintf(f, "}");
    }
    fprintf(f, ",\n    \"samples\": [");
    for (size_t i = 0; i < st->n; i++) {
      fprintf(f, "%s{\"sample\": %zu, \"runtime\": ", i ? ", " : "", i);
      if (st->evicted[i].done) num(f, st->evicted[i].T);
      else fprintf(f, "null");
      fprintf(f, "}");
    }
    fprintf(f, "]},\n");
  }
  fprintf(f, "  \"samples\": [");
  for (size_t i = 0; i < st->n; i++) {
    const llamp_study_sample_t *s = &st->samples[i];
    fprintf(f, "%s\n    {\"sample\": %zu, \"seed\": %llu, \"done\": %s", i ? "," : "", i,
            (unsigned long long)s->seed, s->done ? "true" : "false");
    for (int q = 0; q < LLAMP_STUDY_NQ && s->done; q++) {
      double v;
      fprintf(f, ", \"%s\": ", llamp_study_quantity_name((llamp_study_quantity_t)q));
      if (llamp_study_value(s, (llamp_study_quantity_t)q, &v)) num(f, v);
      else fprintf(f, "null");
    }
    fprintf(f, "}");
  }
  fprintf(f, "\n  ],\n  \"units\": \"SI (seconds); rho_L is a fraction; tolerances are extra latency\"\n}\n");
}

/* "12.3 ms  ±0.4 %  [95 % CI 12.2 .. 12.4 ms]  range 12.0 .. 12.9 ms" */
static void time_line(FILE *f, const char *what, const llamp_study_stats_t *x) {
  char a[32], b[32], c[32], d[32], e[32], g[32];
  if (!x->n) {
    fprintf(f, "  %-22s no value (unbounded in every sample)\n", what);
    return;
  }
  fprintf(f, "  %-22s median %s  mean %s  sd %.2g %%  95 %% CI of the mean %s .. %s  range %s .. %s\n",
          what, llamp_units_format_time(x->median, a, sizeof a),
          llamp_units_format_time(x->mean, b, sizeof b), x->mean ? 100 * x->sd / fabs(x->mean) : 0,
          llamp_units_format_time(x->ci_lo, c, sizeof c), llamp_units_format_time(x->ci_hi, d, sizeof d),
          llamp_units_format_time(x->min, e, sizeof e),
          llamp_units_format_time(x->max, g, sizeof g));
}

void llamp_study_write_text(FILE *f, const llamp_study_t *st) {
  size_t done = 0;
  for (size_t i = 0; i < st->n; i++) done += st->samples[i].done;
  fprintf(f, "study of %s\n", st->command ? st->command : "?");
  fprintf(f, "  %zu of %zu samples done, seeds %llu .. %llu, variability: %s\n", done, st->n,
          (unsigned long long)st->base_seed, (unsigned long long)(st->base_seed + (st->n ? st->n - 1 : 0)),
          st->variability ? st->variability : "?");
  size_t measured = 0;
  for (size_t i = 0; i < st->n; i++) measured += st->samples[i].done && st->samples[i].measured_compute;
  if (measured)
    fprintf(f, "  note: %zu sample(s) also timed this machine's CPU for compute outside the kernel\n"
               "        models, so a rerun will not reproduce them bit for bit (-llamp-compute none\n"
               "        leaves the compute to the models alone)\n", measured);
  time_line(f, "runtime T(L0)", &st->stats[LLAMP_STUDY_T]);
  time_line(f, "simulated (SimGrid)", &st->stats[LLAMP_STUDY_SIMULATED]);
  static const char *tl[] = {"latency tolerance 1 %", "latency tolerance 2 %", "latency tolerance 5 %"};
  for (int k = 0; k < LLAMP_STUDY_NTOL; k++) {
    const llamp_study_stats_t *x = &st->stats[LLAMP_STUDY_TOL1 + k];
    size_t unb = st->stats[LLAMP_STUDY_T].n - x->n;
    time_line(f, tl[k], x);
    if (unb) fprintf(f, "  %-22s (+ %zu sample(s) with no bound)\n", "", unb);
  }
  const llamp_study_stats_t *lam = &st->stats[LLAMP_STUDY_LAMBDA_L], *rho = &st->stats[LLAMP_STUDY_RHO_L];
  if (lam->n)
    fprintf(f, "  %-22s median %.6g  range %.6g .. %.6g;  rho_L median %.3g %%  range %.3g .. %.3g %%\n",
            "lambda_L", lam->median, lam->min, lam->max, 100 * rho->median, 100 * rho->min, 100 * rho->max);
  if (st->evicted && st->evict_gain.n) {
    char a[32], b[32];
    const llamp_study_stats_t *g = &st->evict_gain;
    fprintf(f, "  %-22s T(L0) median %s -> %s: %.2f %% faster (mean %.2f %%, 95 %% CI %.2f .. %.2f %%, "
               "range %.2f .. %.2f %%) over %zu samples\n",
            "evicting slowest hosts", llamp_units_format_time(st->stats[LLAMP_STUDY_T].median, a, sizeof a),
            llamp_units_format_time(st->evict_T.median, b, sizeof b), 100 * g->median, 100 * g->mean,
            100 * g->ci_lo, 100 * g->ci_hi, 100 * g->min, 100 * g->max, g->n);
    fprintf(f, "  %-22s (%u host(s) per sample, replaced by the fastest spare ones)\n", "", st->evict_k);
  }
  if (st->rank_share && st->ranks > 1) { /* the three ranks the critical path spends most time on */
    uint32_t top[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    for (uint32_t r = 0; r < st->ranks; r++)
      for (int j = 0; j < 3; j++)
        if (top[j] == UINT32_MAX || st->rank_share[r] > st->rank_share[top[j]]) {
          for (int m = 2; m > j; m--) top[m] = top[m - 1];
          top[j] = r;
          break;
        }
    /* the host of each rank, when every sample ran the rank on the same one */
    const llamp_study_sample_t *first = NULL;
    int same = 1;
    for (size_t i = 0; i < st->n; i++) {
      const llamp_study_sample_t *s = &st->samples[i];
      if (!s->done) continue;
      if (!first) first = s;
      else if (s->nrank_hosts != first->nrank_hosts) same = 0;
      else
        for (size_t r = 0; r < s->nrank_hosts && same; r++) same = !strcmp(s->rank_hosts[r], first->rank_hosts[r]);
    }
    fprintf(f, "  %-22s", "ranks that matter most");
    for (int j = 0; j < 3 && top[j] != UINT32_MAX; j++) {
      fprintf(f, "%s rank %u", j ? "," : "", top[j]);
      if (same && first && top[j] < first->nrank_hosts) fprintf(f, " on %s", first->rank_hosts[top[j]]);
      fprintf(f, " (%.1f %%)", 100 * st->rank_share[top[j]]);
    }
    fprintf(f, " of the critical path, mean over samples\n");
  }
}
