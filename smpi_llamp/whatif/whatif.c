/* whatif.c - platform variants, the runs' and predictions' numbers, the
 * diagnosis of disagreements, and the outputs of a what-if study. */
#define _GNU_SOURCE
#include "llamp_whatif.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "llamp_json.h"
#include "llamp_plot.h"
#include "llamp_topo.h"
#include "llamp_units.h"

static const char *const families[] = {"fattree", "dragonfly", "torus", "flat", "simgrid"};

static char *xstrdup(const char *s) { return strdup(s ? s : ""); }

static int seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

void llamp_whatif_variant_free(llamp_whatif_variant_t *v) {
  free(v->name);
  free(v->spec);
  for (int i = 0; i < v->nopts; i++) free(v->opts[i]);
  free(v->opts);
  memset(v, 0, sizeof *v);
}

/* The name shown when none is given: the spec and its options. */
static int rename_auto(llamp_whatif_variant_t *v) {
  size_t len = strlen(v->spec) + 1;
  for (int i = 0; i < v->nopts; i++) len += strlen(v->opts[i]) + 1;
  char *s = malloc(len), *p = s;
  if (!s) return -1;
  p += sprintf(p, "%s", v->spec);
  for (int i = 0; i < v->nopts; i++) p += sprintf(p, " %s", v->opts[i]);
  free(v->name);
  v->name = s;
  return 0;
}

/* llamp-platform takes bare numbers as us. */
static int opt_time(const char *where, const char *opt, const char *value, double *out, char *err,
                    size_t errlen) {
  char e[256];
  if (llamp_units_parse(value, LLAMP_UNIT_TIME, "us", out, e, sizeof e) || *out < 0)
    return seterr(err, errlen, "%s: %s '%s' (expected a non-negative time such as 300ns)", where,
                  opt, value);
  return 0;
}

static int push_opt(llamp_whatif_variant_t *v, const char *s) {
  char **o = realloc(v->opts, (size_t)(v->nopts + 1) * sizeof *o);
  if (!o) return -1;
  v->opts = o;
  if (!(o[v->nopts] = xstrdup(s))) return -1;
  v->nopts++;
  return 0;
}

int llamp_whatif_variant_add_opt(llamp_whatif_variant_t *v, const char *opt, const char *value,
                                 char *err, size_t errlen) {
  if (v->is_file)
    return seterr(err, errlen, "%s: %s applies to llamp-platform families, not to a platform file",
                  v->name, opt);
  double t = 0;
  if (!strcmp(opt, "--wire") || !strcmp(opt, "--switch")) {
    if (opt_time(v->name, opt, value, &t, err, errlen)) return -1;
    if (!strcmp(opt, "--wire")) v->wire = t;
    else v->sw = t;
  }
  int auto_name = v->name && strncmp(v->name, v->spec, strlen(v->spec)) == 0;
  if (push_opt(v, opt) || push_opt(v, value)) return seterr(err, errlen, "out of memory");
  if (auto_name && rename_auto(v)) return seterr(err, errlen, "out of memory");
  return 0;
}

/* Options llamp-platform takes for a family (each with one value). */
static int family_opt(const char *o) {
  static const char *const ok[] = {"--wire", "--switch", "-G", "--gap", "-s", "--speed", "-e",
                                   "--eager", "--gamma", "-n", "--hosts", "-l", "--loopback"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
    if (!strcmp(o, ok[i])) return 1;
  return 0;
}

int llamp_whatif_variant_parse(const char *text, const char *where, llamp_whatif_variant_t *v,
                               char *err, size_t errlen) {
  memset(v, 0, sizeof *v);
  v->wire = 0.5e-6;
  char *buf = xstrdup(text), *save = NULL;
  if (!buf) return seterr(err, errlen, "out of memory");
  char *words[256];
  int n = 0;
  for (char *w = strtok_r(buf, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
    if (n == 256) {
      free(buf);
      return seterr(err, errlen, "%s: too many words (at most 256)", where);
    }
    words[n++] = w;
  }
  if (n == 0) {
    free(buf);
    return seterr(err, errlen, "%s: empty variant (expected [NAME=]PLATFORM.xml or [NAME=]FAMILY "
                               "[llamp-platform options])", where);
  }
  char *spec = words[0], *eq = strchr(spec, '=');
  const char *name = NULL;
  const char *colon0 = strchr(spec, ':');
  if (eq && eq != spec && (!colon0 || eq < colon0)) { /* NAME=SPEC: families have no '=' before ':' */
    *eq = 0;
    name = spec;
    spec = eq + 1;
  }
  if (!*spec) {
    seterr(err, errlen, "%s: no platform after '%s=' (expected PLATFORM.xml or FAMILY)", where, name);
    free(buf); /* name points into it */
    return -1;
  }
  struct stat st;
  size_t sl = strlen(spec);
  v->is_file = (sl > 4 && !strcasecmp(spec + sl - 4, ".xml")) || stat(spec, &st) == 0;
  if (!v->is_file) {
    const char *colon = strchr(spec, ':');
    int known = 0;
    for (size_t i = 0; colon && i < sizeof families / sizeof *families; i++)
      known |= strlen(families[i]) == (size_t)(colon - spec) &&
               !strncmp(spec, families[i], (size_t)(colon - spec));
    if (!known || !colon[1]) {
      seterr(err, errlen,
             "%s: '%s' is neither a platform file nor a family (expected PLATFORM.xml, or "
             "fattree:K,LEVELS, dragonfly:G,A,P[,H], torus:X,Y[,Z], flat:N, simgrid:KIND:PARAMS)",
             where, spec);
      free(buf);
      return -1;
    }
  } else if (n > 1) {
    seterr(err, errlen, "%s: platform file %s takes no llamp-platform options ('%s')", where, spec,
           words[1]);
    free(buf);
    return -1;
  }
  if (!(v->spec = xstrdup(spec)) || !(v->name = xstrdup(name ? name : spec))) goto oom;
  for (int i = 1; i < n; i++) {
    if (!family_opt(words[i]) || i + 1 >= n) {
      seterr(err, errlen, "%s: llamp-platform option '%s' %s (expected --wire T, --switch T, -G X, "
             "-s F, -e B, --gamma B, -n N or -l KIND)", where, words[i],
             family_opt(words[i]) ? "needs a value" : "is not one for a family");
      llamp_whatif_variant_free(v);
      free(buf);
      return -1;
    }
    if (llamp_whatif_variant_add_opt(v, words[i], words[i + 1], err, errlen)) {
      char e[512];
      snprintf(e, sizeof e, "%s", err);
      char *colon = strstr(e, ": ");
      seterr(err, errlen, "%s%s", where, colon ? colon : e);
      llamp_whatif_variant_free(v);
      free(buf);
      return -1;
    }
    i++;
  }
  if (name) {
    free(v->name);
    if (!(v->name = xstrdup(name))) goto oom;
  }
  free(buf);
  return 0;
oom:
  free(buf);
  llamp_whatif_variant_free(v);
  return seterr(err, errlen, "out of memory");
}

int llamp_whatif_read_variants(const char *path, llamp_whatif_variant_t **vs, size_t *n, char *err,
                               size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) return seterr(err, errlen, "%s: cannot read the variants file", path);
  char line[4096], where[600];
  int lineno = 0, rc = 0;
  size_t added = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *p = line;
    while (isspace((unsigned char)*p)) p++;
    if (!*p) continue;
    snprintf(where, sizeof where, "%s:%d", path, lineno);
    llamp_whatif_variant_t v;
    if (llamp_whatif_variant_parse(p, where, &v, err, errlen)) {
      rc = -1;
      break;
    }
    llamp_whatif_variant_t *g = realloc(*vs, (*n + 1) * sizeof *g);
    if (!g) {
      llamp_whatif_variant_free(&v);
      rc = seterr(err, errlen, "out of memory");
      break;
    }
    *vs = g;
    g[(*n)++] = v;
    added++;
  }
  fclose(f);
  if (rc == 0 && added == 0) rc = seterr(err, errlen, "%s:%d: no variant in the file", path, lineno);
  return rc;
}

/* The options other than --wire/--switch, as one string, for comparison. */
static void other_opts(const llamp_whatif_variant_t *v, char *buf, size_t len) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i + 1 < v->nopts; i += 2)
    if (strcmp(v->opts[i], "--wire") && strcmp(v->opts[i], "--switch") && k < len)
      k += (size_t)snprintf(buf + k, len - k, "%s %s;", v->opts[i], v->opts[i + 1]);
}

int llamp_whatif_is_shift(const llamp_whatif_variant_t *base, const llamp_whatif_variant_t *v,
                          double *dwire, double *dswitch) {
  if (base->is_file || v->is_file || strcmp(base->spec, v->spec)) return 0;
  char a[2048], b[2048];
  other_opts(base, a, sizeof a);
  other_opts(v, b, sizeof b);
  if (strcmp(a, b)) return 0;
  /* SimGrid's own clusters take --wire only */
  *dwire = v->wire - base->wire;
  *dswitch = v->sw - base->sw;
  return 1;
}

/* ---- reading ---------------------------------------------------------------------- */

static int need(const char *file, const llamp_json_t *obj, const char *key, double *out, char *err,
                size_t errlen) {
  if (llamp_json_get_number(obj, key, out) == 0 && isfinite(*out)) return 0;
  return seterr(err, errlen, "%s:%d: \"%s\": expected a number", file, obj ? llamp_json_line(obj) : 1,
                key);
}

/* A count: a whole number 0 .. 2^53 (a double holds it exactly). */
static int count(const char *file, const llamp_json_t *obj, const char *key, double v, uint64_t *out,
                 char *err, size_t errlen) {
  if (v >= 0 && v <= 9007199254740992.0 && v == floor(v)) {
    *out = (uint64_t)v;
    return 0;
  }
  return seterr(err, errlen, "%s:%d: \"%s\": expected a count (a whole number >= 0)", file,
                llamp_json_line(obj), key);
}

int llamp_whatif_read_run(const char *path, llamp_whatif_result_t *r, char *err, size_t errlen) {
  llamp_json_t *j = llamp_json_read_file(path, err, errlen);
  if (!j) return -1;
  int rc = -1;
  const llamp_json_t *cap = llamp_json_get(j, "capture"), *g = llamp_json_get(j, "graph");
  double ev = 0, msg = 0, b = 0;
  if (!cap || !g) {
    seterr(err, errlen, "%s:1: expected \"graph\" and \"capture\" (a capture's report.json)", path);
    goto out;
  }
  if (need(path, cap, "simulated_time", &r->simulated, err, errlen) ||
      need(path, j, "runtime", &r->own_T, err, errlen) || need(path, g, "events", &ev, err, errlen) ||
      need(path, g, "messages", &msg, err, errlen))
    goto out;
  if (count(path, g, "events", ev, &r->own_events, err, errlen) ||
      count(path, g, "messages", msg, &r->own_messages, err, errlen))
    goto out;
  if (llamp_json_get_number(cap, "back_to_back_sends", &b) == 0 &&
      count(path, cap, "back_to_back_sends", b, &r->bursts, err, errlen))
    goto out;
  if (llamp_json_get(cap, "back_to_back_time") &&
      (need(path, cap, "back_to_back_time", &r->burst_time, err, errlen) || r->burst_time < 0))
    goto out;
  const llamp_json_t *kc = llamp_json_get(llamp_json_get(cap, "simulated_vs_predicted"), "known_causes");
  size_t nk = llamp_json_size(kc);
  if (nk) {
    r->causes = calloc(nk, sizeof *r->causes);
    if (!r->causes) {
      seterr(err, errlen, "out of memory");
      goto out;
    }
    for (size_t i = 0; i < nk; i++) {
      const char *s = llamp_json_string(llamp_json_at(kc, i));
      if (s && (r->causes[r->ncauses] = xstrdup(s))) r->ncauses++;
    }
  }
  r->ran = 1;
  rc = 0;
out:
  llamp_json_free(j);
  return rc;
}

int llamp_whatif_read_prediction(const char *path, double *T, double *lambda_L,
                                 double *lambda_l_wire, double *lambda_d_switch, char *err,
                                 size_t errlen) {
  llamp_json_t *j = llamp_json_read_file(path, err, errlen);
  if (!j) return -1;
  int rc = need(path, j, "runtime", T, err, errlen);
  const llamp_json_t *p = llamp_json_get(j, "parameters");
  *lambda_L = *lambda_l_wire = *lambda_d_switch = NAN;
  llamp_json_get_number(llamp_json_get(p, "L"), "lambda", lambda_L);
  llamp_json_get_number(llamp_json_get(p, "l_wire"), "lambda", lambda_l_wire);
  llamp_json_get_number(llamp_json_get(p, "d_switch"), "lambda", lambda_d_switch);
  llamp_json_free(j);
  return rc;
}

int llamp_whatif_compare_routes(const char *base, const char *other, size_t *pairs,
                                size_t *changed, double *mean_delta, char *err, size_t errlen) {
  llamp_topo_t *a = llamp_topo_read(base, err, errlen), *b = NULL;
  if (!a) return -1;
  int rc = -1;
  if (!(b = llamp_topo_read(other, err, errlen))) goto out;
  uint32_t P = llamp_topo_num_ranks(a);
  if (llamp_topo_num_ranks(b) != P) {
    seterr(err, errlen, "%s: %u ranks, but %s has %u", other, llamp_topo_num_ranks(b), base, P);
    goto out;
  }
  size_t np = 0, nc = 0;
  double sum = 0;
  for (uint32_t i = 0; i < P; i++)
    for (uint32_t k = 0; k < P; k++) {
      llamp_topo_route_t ra, rb;
      if (llamp_topo_route(a, llamp_topo_rank_host(a, i), llamp_topo_rank_host(a, k), &ra) ||
          llamp_topo_route(b, llamp_topo_rank_host(b, i), llamp_topo_rank_host(b, k), &rb))
        continue;
      np++;
      double d = rb.latency - ra.latency;
      /* a relative tolerance: the files print latencies to 12 digits */
      if (fabs(d) > 1e-9 * fmax(ra.latency, rb.latency) + 1e-18 || ra.links != rb.links ||
          ra.switches != rb.switches || ra.bandwidth != rb.bandwidth)
        nc++;
      sum += d;
    }
  *pairs = np;
  *changed = nc;
  *mean_delta = np ? sum / (double)np : 0;
  rc = 0;
out:
  llamp_topo_destroy(a);
  llamp_topo_destroy(b);
  return rc;
}

void llamp_whatif_result_free(llamp_whatif_result_t *r) {
  free(r->error);
  for (size_t i = 0; i < r->ncauses; i++) free(r->causes[i]);
  free(r->causes);
  free(r->why);
  memset(r, 0, sizeof *r);
}

/* ---- diagnosis -------------------------------------------------------------------- */

double llamp_whatif_diff(const llamp_whatif_result_t *r) {
  if (!r->ran || !r->predicted_ok || !(r->simulated > 0)) return NAN;
  return (r->predicted - r->simulated) / r->simulated;
}

static void cat(char **s, size_t *len, size_t *cap, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
  if (*len + (size_t)n + 1 > *cap) {
    size_t c = (*len + (size_t)n + 1) * 2;
    char *t = realloc(*s, c);
    if (!t) return;
    *s = t;
    *cap = c;
  }
  memcpy(*s + *len, buf, (size_t)n + 1);
  *len += (size_t)n;
}

int llamp_whatif_explain(llamp_whatif_t *w) {
  const llamp_whatif_result_t *base = &w->results[0];
  for (size_t i = 0; i < w->n; i++) {
    llamp_whatif_result_t *r = &w->results[i];
    free(r->why);
    r->why = NULL;
    double d = llamp_whatif_diff(r);
    if (!isfinite(d) || fabs(d) <= w->threshold) continue;
    char *s = NULL;
    size_t len = 0, cap = 0;
    double own = r->simulated > 0 ? (r->own_T - r->simulated) / r->simulated : NAN;
    double graph = r->own_T > 0 ? (r->predicted - r->own_T) / r->own_T : NAN;
    char b1[64];
    if (isfinite(own) && fabs(own) > w->threshold) {
      cat(&s, &len, &cap, "SimGrid does what the DAG does not model on this platform: the DAG of this "
          "very run is off by %+.2f %% too", 100 * own);
      if (r->bursts)
        cat(&s, &len, &cap, "; %llu back-to-back sends to one peer (%s of transfer sharing the pair's "
            "link)", (unsigned long long)r->bursts,
            llamp_units_format_time(r->burst_time, b1, sizeof b1));
      for (size_t k = 0; k < r->ncauses; k++) cat(&s, &len, &cap, "; %s", r->causes[k]);
      if (!r->ncauses && !r->bursts) cat(&s, &len, &cap, "; the capture named no known cause");
    }
    if (isfinite(graph) && fabs(graph) > w->threshold) {
      cat(&s, &len, &cap, "%sthe program ran differently here than in the base capture (prediction "
          "%+.2f %% from this run's own DAG): ", len ? ". Also " : "", 100 * graph);
      if (r->own_events != base->own_events || r->own_messages != base->own_messages)
        cat(&s, &len, &cap, "its graph has %llu events and %llu messages against %llu and %llu "
            "(message matching or polling depends on timing)", (unsigned long long)r->own_events,
            (unsigned long long)r->own_messages, (unsigned long long)base->own_events,
            (unsigned long long)base->own_messages);
      else
        cat(&s, &len, &cap, "same graph size, so other durations: measured compute differs from run "
            "to run (use kernel models or -llamp-compute none with a fixed --seed)");
    }
    if (!len) cat(&s, &len, &cap, "small differences add up: this run's DAG is off by %+.2f %%, the "
                  "base capture's graph by %+.2f %% from it", 100 * own, 100 * graph);
    if (r->routes_changed)
      cat(&s, &len, &cap, ". Routes: %zu of %zu rank pairs differ from the base platform's (mean %+.4g "
          "ns)", r->routes_changed, r->pairs, 1e9 * r->route_delta_mean);
    if (r->run_routes_differ)
      cat(&s, &len, &cap, ". The run's own routes.txt differs from the routes predicted on (host "
          "mapping)");
    r->why = s;
  }
  return 0;
}

/* ---- output ----------------------------------------------------------------------- */

static void csv_str(FILE *f, const char *s) {
  if (!s) return;
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s == '\n' ? ' ' : *s, f);
  }
  fputc('"', f);
}

static void csv_num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, ",%.12g", v);
  else fputc(',', f);
}

/* Change against the base variant, fraction. */
static double vs_base(double v, double b) { return isfinite(v) && b > 0 ? (v - b) / b : NAN; }

void llamp_whatif_write_csv(FILE *f, const llamp_whatif_t *w) {
  fprintf(f, "variant,platform,simulated,predicted,diff_percent,own_T,own_diff_percent,"
             "simulated_vs_base_percent,predicted_vs_base_percent,predicted_shift,lambda_L,"
             "lambda_l_wire,lambda_d_switch,routes_changed,pairs,bursts,why\n");
  const llamp_whatif_result_t *b = &w->results[0];
  for (size_t i = 0; i < w->n; i++) {
    const llamp_whatif_result_t *r = &w->results[i];
    csv_str(f, r->variant->name);
    fputc(',', f);
    csv_str(f, r->variant->spec);
    csv_num(f, r->ran ? r->simulated : NAN);
    csv_num(f, r->predicted_ok ? r->predicted : NAN);
    csv_num(f, 100 * llamp_whatif_diff(r));
    csv_num(f, r->ran ? r->own_T : NAN);
    csv_num(f, r->ran && r->simulated > 0 ? 100 * (r->own_T - r->simulated) / r->simulated : NAN);
    csv_num(f, 100 * vs_base(r->ran ? r->simulated : NAN, b->ran ? b->simulated : NAN));
    csv_num(f, 100 * vs_base(r->predicted_ok ? r->predicted : NAN, b->predicted_ok ? b->predicted : NAN));
    csv_num(f, r->is_shift ? r->predicted_shift : NAN);
    csv_num(f, r->lambda_L);
    csv_num(f, r->lambda_l_wire);
    csv_num(f, r->lambda_d_switch);
    fprintf(f, ",%zu,%zu,", r->routes_changed, r->pairs);
    if (r->ran) fprintf(f, "%llu", (unsigned long long)r->bursts);
    fputc(',', f);
    csv_str(f, r->why ? r->why : r->error);
    fputc('\n', f);
  }
}

static void json_str(FILE *f, const char *s) {
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static void json_num(FILE *f, const char *key, double v) {
  if (isfinite(v)) fprintf(f, ", \"%s\": %.12g", key, v);
  else fprintf(f, ", \"%s\": null", key);
}

void llamp_whatif_write_json(FILE *f, const llamp_whatif_t *w) {
  const llamp_whatif_result_t *b = &w->results[0];
  fprintf(f, "{\n  \"command\": ");
  json_str(f, w->command);
  fprintf(f, ",\n  \"seed\": %llu, \"threshold_percent\": %g,\n", (unsigned long long)w->seed,
          100 * w->threshold);
  fprintf(f, "  \"base\": {\"variant\": ");
  json_str(f, b->variant->name);
  fprintf(f, ", \"reanalysis_matches_capture\": %s", w->base_check_ok ? "true" : "false");
  json_num(f, "reanalysis_T", w->base_check_T);
  fprintf(f, "},\n  \"variants\": [");
  for (size_t i = 0; i < w->n; i++) {
    const llamp_whatif_result_t *r = &w->results[i];
    const llamp_whatif_variant_t *v = r->variant;
    fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
    json_str(f, v->name);
    fprintf(f, ", \"platform\": ");
    json_str(f, v->spec);
    fprintf(f, ", \"options\": [");
    for (int k = 0; k < v->nopts; k++) {
      fprintf(f, "%s", k ? ", " : "");
      json_str(f, v->opts[k]);
    }
    fprintf(f, "], \"ran\": %s", r->ran ? "true" : "false");
    json_num(f, "simulated", r->ran ? r->simulated : NAN);
    json_num(f, "predicted", r->predicted_ok ? r->predicted : NAN);
    json_num(f, "diff", llamp_whatif_diff(r));
    json_num(f, "own_T", r->ran ? r->own_T : NAN);
    json_num(f, "simulated_vs_base", vs_base(r->ran ? r->simulated : NAN, b->ran ? b->simulated : NAN));
    json_num(f, "predicted_vs_base",
             vs_base(r->predicted_ok ? r->predicted : NAN, b->predicted_ok ? b->predicted : NAN));
    fprintf(f, ",\n     \"lambda\": {\"L\": %s", "");
    if (isfinite(r->lambda_L)) fprintf(f, "%.12g", r->lambda_L);
    else fputs("null", f);
    json_num(f, "l_wire", r->lambda_l_wire);
    json_num(f, "d_switch", r->lambda_d_switch);
    fputc('}', f);
    if (r->is_shift) {
      fprintf(f, ", \"shift\": {\"d_l_wire\": %.12g, \"d_switch\": %.12g", r->dwire, r->dswitch);
      json_num(f, "predicted", r->predicted_shift);
      fputc('}', f);
    }
    fprintf(f, ",\n     \"routes\": {\"pairs\": %zu, \"changed\": %zu, \"mean_latency_change\": %.12g, "
               "\"run_differs\": %s}",
            r->pairs, r->routes_changed, r->route_delta_mean, r->run_routes_differ ? "true" : "false");
    if (r->ran) {
      fprintf(f, ",\n     \"run\": {\"events\": %llu, \"messages\": %llu, \"back_to_back_sends\": %llu, "
                 "\"back_to_back_time\": %.12g, \"known_causes\": [",
              (unsigned long long)r->own_events, (unsigned long long)r->own_messages,
              (unsigned long long)r->bursts, r->burst_time);
      for (size_t k = 0; k < r->ncauses; k++) {
        fprintf(f, "%s", k ? ", " : "");
        json_str(f, r->causes[k]);
      }
      fprintf(f, "]}");
    }
    fprintf(f, ",\n     \"why\": ");
    json_str(f, r->why);
    fprintf(f, ", \"error\": ");
    json_str(f, r->error);
    fputc('}', f);
  }
  fprintf(f, "\n  ]\n}\n");
}

void llamp_whatif_write_text(FILE *f, const llamp_whatif_t *w) {
  const llamp_whatif_result_t *b = &w->results[0];
  size_t wn = 7;
  for (size_t i = 0; i < w->n; i++) wn = strlen(w->results[i].variant->name) > wn ? strlen(w->results[i].variant->name) : wn;
  if (wn > 40) wn = 40;
  fprintf(f, "what-if: %zu platform variant(s), one capture (on %s)\n", w->n, b->variant->name);
  fprintf(f, "%-*s  %12s  %12s  %8s  %10s  %10s  %9s\n", (int)wn, "variant", "SimGrid", "predicted",
          "diff", "sim/base", "pred/base", "λ_dswitch");
  for (size_t i = 0; i < w->n; i++) {
    const llamp_whatif_result_t *r = &w->results[i];
    char s1[64] = "-", s2[64] = "-", d[32] = "-", sb[32] = "-", pb[32] = "-", ls[32] = "-";
    if (r->ran) llamp_units_format_time(r->simulated, s1, sizeof s1);
    if (r->predicted_ok) llamp_units_format_time(r->predicted, s2, sizeof s2);
    double x = llamp_whatif_diff(r);
    if (isfinite(x)) snprintf(d, sizeof d, "%+.3f %%", 100 * x);
    x = vs_base(r->ran ? r->simulated : NAN, b->ran ? b->simulated : NAN);
    if (isfinite(x)) snprintf(sb, sizeof sb, "%+.3f %%", 100 * x);
    x = vs_base(r->predicted_ok ? r->predicted : NAN, b->predicted_ok ? b->predicted : NAN);
    if (isfinite(x)) snprintf(pb, sizeof pb, "%+.3f %%", 100 * x);
    if (isfinite(r->lambda_d_switch)) snprintf(ls, sizeof ls, "%.6g", r->lambda_d_switch);
    fprintf(f, "%-*.*s  %12s  %12s  %8s  %10s  %10s  %9s%s\n", (int)wn, (int)wn, r->variant->name, s1,
            s2, d, sb, pb, ls, r->why ? "  *" : "");
  }
  int any = 0;
  for (size_t i = 0; i < w->n; i++) {
    const llamp_whatif_result_t *r = &w->results[i];
    if (r->error) fprintf(f, "  %s: %s\n", r->variant->name, r->error);
    if (r->is_shift && r->predicted_ok && isfinite(r->predicted_shift) &&
        fabs(r->predicted_shift - r->predicted) > 1e-9 * r->predicted)
      fprintf(f, "  %s: WARNING: the shift along l_wire/d_switch gives %.9g s, the variant's routes %.9g s\n",
              r->variant->name, r->predicted_shift, r->predicted);
    if (!r->why) continue;
    if (!any++) fprintf(f, "* disagree by more than %g %%:\n", 100 * w->threshold);
    fprintf(f, "  %s: %s\n", r->variant->name, r->why);
  }
  if (!w->base_check_ok)
    fprintf(f, "WARNING: re-analysing the capture gives T = %.9g s, not the capture's own %.9g s: the "
               "predictions use another model than the capture (see whatif.json)\n",
            w->base_check_T, b->own_T);
}

int llamp_whatif_write_svg(FILE *f, const llamp_whatif_t *w, char *err, size_t errlen) {
  /* Horizontal bars: two rows per variant, SimGrid above the prediction. */
  size_t n = w->n, rows = 2 * n;
  llamp_plot_t *p = llamp_plot_create("Runtime per platform variant: SimGrid vs LLAMP (one capture)",
                                      900, (int)(120 + 36 * rows > 400 ? 120 + 36 * rows : 400));
  char **labels = calloc(rows, sizeof *labels);
  double *x0 = calloc(n, sizeof *x0), *x1 = calloc(n, sizeof *x1), *ys = calloc(n, sizeof *ys),
         *yp = calloc(n, sizeof *yp), *x2 = calloc(n, sizeof *x2);
  int rc = -1;
  if (!p || !labels || !x0 || !x1 || !ys || !yp || !x2) {
    seterr(err, errlen, "out of memory");
    goto out;
  }
  int pan = llamp_plot_panel(p, 1, "");
  llamp_plot_xlabel(p, "runtime (us)");
  for (size_t i = 0; i < n; i++) {
    const llamp_whatif_result_t *r = &w->results[i];
    char d[48] = "";
    double x = llamp_whatif_diff(r);
    if (isfinite(x)) snprintf(d, sizeof d, " (%+.2f %%)", 100 * x);
    if (asprintf(&labels[2 * i], "%.40s  SimGrid", r->variant->name) < 0 ||
        asprintf(&labels[2 * i + 1], "predicted%s", d) < 0) {
      labels[2 * i] = labels[2 * i + 1] = NULL;
      seterr(err, errlen, "out of memory");
      goto out;
    }
    ys[i] = (double)(2 * i);
    yp[i] = (double)(2 * i + 1);
    x1[i] = r->ran ? 1e6 * r->simulated : NAN;
    x2[i] = r->predicted_ok ? 1e6 * r->predicted : NAN;
  }
  llamp_plot_rows(p, pan, (const char *const *)labels, rows);
  double xmax = 0;
  for (size_t i = 0; i < n; i++) xmax = fmax(xmax, fmax(isfinite(x1[i]) ? x1[i] : 0, isfinite(x2[i]) ? x2[i] : 0));
  if (xmax > 0) llamp_plot_xrange(p, 0, 1.05 * xmax);
  if (llamp_plot_series(p, pan, "SimGrid", LLAMP_PLOT_SEGMENTS, x0, ys, x1, n, "#1f77b4") ||
      llamp_plot_series(p, pan, "predicted (LLAMP)", LLAMP_PLOT_SEGMENTS, x0, yp, x2, n, "#ff7f0e")) {
    seterr(err, errlen, "out of memory");
    goto out;
  }
  rc = llamp_plot_write_svg(p, f, err, errlen);
out:
  if (labels)
    for (size_t i = 0; i < rows; i++) free(labels[i]);
  free(labels);
  free(x0);
  free(x1);
  free(x2);
  free(ys);
  free(yp);
  llamp_plot_destroy(p);
  return rc;
}
