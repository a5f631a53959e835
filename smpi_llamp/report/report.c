/* Report formatting.  Text is a ten-second read; JSON uses SI units and the
 * key names documented in docs/cli.md; CSV is one table (the sweep, else the
 * critical latencies, else one row of the main metrics). */
#include "llamp_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_units.h"

static const char *kind_name(int k) {
  return k == LLAMP_VERTEX_CALC ? "calc" : k == LLAMP_VERTEX_SEND ? "send" : "recv";
}

static double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0; }

/* A tolerance line for parameter w, e.g. "1 % -> L <= 3.6 us (+0.6 us)". */
static void text_tolerance(FILE *f, const llamp_analysis_t *a, llamp_param_t w) {
  const llamp_tolerance_t *t = a->tolerance[w];
  if (!t || !a->num_tolerance) return;
  char b1[48], b2[48];
  double cur = llamp_params_get(&a->params, w);
  const char *title = w == LLAMP_PARAM_L   ? "latency tolerance  "
                      : w == LLAMP_PARAM_G ? "bandwidth tolerance"
                                           : "overhead tolerance ";
  fprintf(f, "%s ", title);
  for (size_t i = 0; i < a->num_tolerance; i++) {
    fprintf(f, "%s%g %%: ", i ? "; " : "", t[i].percent);
    if (t[i].unbounded) {
      fprintf(f, "unbounded");
    } else if (w == LLAMP_PARAM_G) {
      fprintf(f, ">= %.4g GB/s", t[i].value > 0 ? 1e-9 / t[i].value : INFINITY);
    } else {
      fprintf(f, "%s <= %s (+%s)", llamp_param_name(w),
              llamp_units_format_time(t[i].value, b1, sizeof b1),
              llamp_units_format_time(t[i].value - cur, b2, sizeof b2));
    }
  }
  fprintf(f, "\n");
}

/* The tolerances of an extra parameter (per-pair costs), e.g.
 * "d_switch tolerance 1 %: d_switch <= 108 ns (+108 ns)". */
static void text_tolerance_x(FILE *f, const llamp_analysis_t *a, uint32_t x) {
  const llamp_tolerance_t *t = a->tolerance_x[x];
  if (!t || !a->num_tolerance) return;
  char b1[48], b2[48];
  const char *name = a->params.pairs->name[x];
  double cur = a->params.x[x];
  fprintf(f, "%s tolerance %*s", name, (int)(9 - (strlen(name) < 9 ? strlen(name) : 9)), "");
  for (size_t i = 0; i < a->num_tolerance; i++) {
    fprintf(f, "%s%g %%: ", i ? "; " : "", t[i].percent);
    if (t[i].unbounded) fprintf(f, "unbounded");
    else
      fprintf(f, "%s <= %s (+%s)", name, llamp_units_format_time(t[i].value, b1, sizeof b1),
              llamp_units_format_time(t[i].value - cur, b2, sizeof b2));
  }
  fprintf(f, "\n");
}

/* What the per-pair costs' extra parameters do: value and slope of each. */
static void text_xparams(FILE *f, const llamp_analysis_t *a) {
  const llamp_pairs_t *q = a->params.pairs;
  if (!q) return;
  char b1[48];
  fprintf(f, "topology (per-pair costs, %u route kinds; docs/topology.md):\n", q->num_kinds);
  for (uint32_t x = 0; x < q->num_params; x++) {
    fprintf(f, "  %-12s = %-10s λ = %g", q->name[x],
            llamp_units_format_time(a->params.x[x], b1, sizeof b1), a->point.lambda_x[x]);
    if (a->point.lambda_x_left[x] != a->point.lambda_x[x]) fprintf(f, " (left %g)", a->point.lambda_x_left[x]);
    fprintf(f, "   (+1 ns adds %s)\n", llamp_units_format_time(a->point.lambda_x[x] * 1e-9, b1, sizeof b1));
  }
  for (uint32_t x = 0; x < q->num_params; x++) text_tolerance_x(f, a, x);
}

/* ---- per-pair sensitivities (docs/topology.md) ------------------------------------- */

/* The entries by decreasing lambda_L (then lambda_G, then pair): a copy. */
static int pair_desc(const void *x_, const void *y_) {
  const llamp_pair_lambda_t *x = x_, *y = y_;
  if (x->lambda_L != y->lambda_L) return x->lambda_L > y->lambda_L ? -1 : 1;
  if (x->lambda_G != y->lambda_G) return x->lambda_G > y->lambda_G ? -1 : 1;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  return x->dst < y->dst ? -1 : x->dst > y->dst;
}

static llamp_pair_lambda_t *pairs_order(const llamp_analysis_t *a) {
  size_t n = a->num_pair_lambda;
  llamp_pair_lambda_t *v = malloc((n ? n : 1) * sizeof *v);
  if (!v) return NULL;
  if (n) memcpy(v, a->pair_lambda, n * sizeof *v);
  qsort(v, n, sizeof *v, pair_desc);
  return v;
}

static void text_pairs(FILE *f, const llamp_analysis_t *a) {
  if (!a->pair_lambda || !a->pair_top) return;
  llamp_pair_lambda_t *ix = pairs_order(a);
  if (!ix) return;
  size_t n = a->num_pair_lambda < a->pair_top ? a->num_pair_lambda : a->pair_top;
  fprintf(f, "per-pair latency sensitivity λ_L^ij (critical path; %zu pair%s, the top %zu):\n",
          a->num_pair_lambda, a->num_pair_lambda == 1 ? "" : "s", n);
  for (size_t k = 0; k < n; k++) {
    const llamp_pair_lambda_t *e = &ix[k];
    fprintf(f, "  %u -> %u  λ_L = %g  λ_G = %.6g B\n", e->src, e->dst, e->lambda_L, e->lambda_G);
  }
  free(ix);
}

static void json_pairs(FILE *f, const llamp_analysis_t *a) {
  if (!a->pair_lambda) return;
  llamp_pair_lambda_t *ix = pairs_order(a);
  if (!ix) return;
  fprintf(f, "  \"pair_sensitivities\": {\"ranks\": %u, \"pairs\": [", a->ranks);
  for (size_t k = 0; k < a->num_pair_lambda; k++) {
    const llamp_pair_lambda_t *e = &ix[k];
    fprintf(f, "%s\n    {\"src\": %u, \"dst\": %u, \"lambda_L\": %.12g, \"lambda_G\": %.12g}",
            k ? "," : "", e->src, e->dst, e->lambda_L, e->lambda_G);
  }
  fprintf(f, "%s]},\n", a->num_pair_lambda ? "\n  " : "");
  free(ix);
}

void llamp_report_pairs_csv(FILE *f, uint32_t ranks, const llamp_pair_lambda_t *v, size_t n,
                            int bytes) {
  fprintf(f, "src\\dst");
  for (uint32_t j = 0; j < ranks; j++) fprintf(f, ",%u", j);
  fputc('\n', f);
  size_t k = 0; /* v is sorted by (src, dst) */
  for (uint32_t i = 0; i < ranks; i++) {
    fprintf(f, "%u", i);
    for (uint32_t j = 0; j < ranks; j++) {
      double x = 0;
      while (k < n && (v[k].src < i || (v[k].src == i && v[k].dst < j))) k++;
      if (k < n && v[k].src == i && v[k].dst == j) x = bytes ? v[k].lambda_G : v[k].lambda_L;
      fprintf(f, ",%.12g", x);
    }
    fputc('\n', f);
  }
}

void llamp_report_text(FILE *f, const llamp_analysis_t *a) {
  char b1[48], b2[48], b3[48], b4[48];
  const llamp_point_t *p = &a->point;
  const llamp_params_t *q = &a->params;
  fprintf(f, "%s: %u rank%s, %llu events, %llu message%s\n", a->graph_name, a->ranks,
          a->ranks == 1 ? "" : "s", (unsigned long long)a->vertices,
          (unsigned long long)a->messages, a->messages == 1 ? "" : "s");
  fprintf(f, "model: L=%s o=%s G=%.4g ns/B", llamp_units_format_time(q->L, b1, sizeof b1),
          llamp_units_format_time(q->o, b2, sizeof b2), q->G * 1e9);
  if (q->g > 0) fprintf(f, " g=%s", llamp_units_format_time(q->g, b3, sizeof b3));
  fprintf(f, " S=%s, %s%s\n", llamp_units_format_bytes(q->S, b4, sizeof b4),
          q->net ? "size-dependent" : q->size_g_full ? "s*G" : "(s-1)*G", q->nic ? ", NIC rule" : "");
  if (q->net)
    fprintf(f, "size-dependent costs: %s (L_ref=%s, G_ref=%.4g ns/B; L and o are offsets, G a scale)\n",
            q->net->source[0] ? q->net->source : "(unnamed)",
            llamp_units_format_time(q->net->L_ref, b1, sizeof b1), q->net->G_ref * 1e9);
  fprintf(f, "predicted runtime   T   = %s\n", llamp_units_format_time(p->T, b1, sizeof b1));
  fprintf(f, "latency sensitivity λ_L = %g", p->lambda[LLAMP_PARAM_L]);
  if (p->lambda_left[LLAMP_PARAM_L] != p->lambda[LLAMP_PARAM_L])
    fprintf(f, " (left %g: L is a critical latency)", p->lambda_left[LLAMP_PARAM_L]);
  fprintf(f, "   ρ_L = %.2f %%   (+1 us of L adds %s)\n", 100 * p->rho_L,
          llamp_units_format_time(p->lambda[LLAMP_PARAM_L] * 1e-6, b1, sizeof b1));
  fprintf(f, "bandwidth           λ_G = %.6g B   ρ_G = %.2f %%\n", p->lambda[LLAMP_PARAM_G],
          100 * p->rho_G);
  fprintf(f, "overhead            λ_o = %g\n", p->lambda[LLAMP_PARAM_O]);
  if (q->g > 0) fprintf(f, "gap                 λ_g = %g\n", p->lambda[LLAMP_PARAM_GAP]);
  if (a->out_of_core) {
    fprintf(f, "critical path: not traced (out of core: one pass over the graph file)\n");
  } else {
    fprintf(f,
            "critical path: %llu vertices, %llu message(s); compute %.1f %%, overhead %.1f %%, "
            "latency %.1f %%, bandwidth %.1f %%",
            (unsigned long long)p->path_vertices, (unsigned long long)p->path_messages,
            pct(p->t_compute, p->T), pct(p->t_overhead, p->T), pct(p->t_latency, p->T),
            pct(p->t_bandwidth, p->T));
    if (q->g > 0) fprintf(f, ", gap %.1f %%", pct(p->t_gap, p->T));
    fprintf(f, "\n");
  }
  for (int w = 0; w < LLAMP_NUM_PARAMS; w++) text_tolerance(f, a, (llamp_param_t)w);
  text_xparams(f, a);
  text_pairs(f, a);
  if (a->have_budget) {
    fprintf(f, "budget T <= %s: ", llamp_units_format_time(a->budget_T, b1, sizeof b1));
    if (a->budget_infeasible) fprintf(f, "infeasible even at L = 0\n");
    else if (a->budget_unbounded) fprintf(f, "any L (T does not grow with L)\n");
    else fprintf(f, "L <= %s\n", llamp_units_format_time(a->budget_L, b1, sizeof b1));
  }
  if (a->have_range) {
    /* --wrt: the parameter the range varies (l_wire, G, ...), and its slopes */
    const char *wn = llamp_params_name(&a->params, a->wrt);
    if (a->wrt == LLAMP_PARAM_L) fprintf(f, "critical latencies");
    else fprintf(f, "critical %s values", wn);
    fprintf(f, " in [%s, %s]: %zu", llamp_units_format_time(a->range_lo, b1, sizeof b1),
            llamp_units_format_time(a->range_hi, b2, sizeof b2), a->num_breakpoints);
    for (size_t i = 0; i < a->num_breakpoints && i < 8; i++)
      fprintf(f, "%s%s (λ_%s %g -> %g)", i ? ", " : ": ",
              llamp_units_format_time(a->breakpoints[i].x, b1, sizeof b1), wn,
              a->breakpoints[i].slope_before, a->breakpoints[i].slope_after);
    if (a->num_breakpoints > 8) fprintf(f, ", ... (see --format json)");
    fprintf(f, "\n");
  }
  if (a->num_sweep) {
    const char *n1 = llamp_params_name(&a->params, a->wrt);
    size_t n2 = a->num_sweep2 ? a->num_sweep2 : 1;
    fprintf(f, "sweep: %11s", n1);
    if (a->num_sweep2) fprintf(f, " %12s", llamp_params_name(&a->params, a->wrt2));
    fprintf(f, "          T    λ_%s\n", n1);
    for (size_t k = 0; k < a->num_sweep * n2; k++) {
      fprintf(f, "      %12s", llamp_units_format_time(a->sweep_x[k / n2], b1, sizeof b1));
      if (a->num_sweep2) fprintf(f, " %12s", llamp_units_format_time(a->sweep2_x[k % n2], b1, sizeof b1));
      fprintf(f, " %12s %6g\n", llamp_units_format_time(a->sweep_T[k], b2, sizeof b2), a->sweep_lambda[k]);
    }
  }
  if (a->path_by_rank && a->ranks > 1 && p->T > 0) { /* the three ranks it spends most time on */
    uint32_t top[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    for (uint32_t r = 0; r < a->ranks; r++)
      for (int j = 0; j < 3; j++)
        if (top[j] == UINT32_MAX || a->path_by_rank[r] > a->path_by_rank[top[j]]) {
          for (int m = 2; m > j; m--) top[m] = top[m - 1];
          top[j] = r;
          break;
        }
    fprintf(f, "critical path by rank:");
    for (int j = 0; j < 3 && top[j] != UINT32_MAX; j++)
      fprintf(f, "%s rank %u %.1f %%", j ? "," : "", top[j], 100 * a->path_by_rank[top[j]] / p->T);
    fprintf(f, "\n");
  }
  if (a->classification) llamp_classify_text(f, a->classification, "", 0);
  if (a->path_len) {
    fprintf(f, "critical path (first -> last):\n");
    for (size_t i = 0; i < a->path_len; i++)
      fprintf(f, "  %6zu  rank %u  %s  vertex %llu\n", i, a->path_ranks[i],
              kind_name(a->path_kinds[i]), (unsigned long long)a->path[i]);
  }
}

static void json_num(FILE *f, double x) {
  if (isfinite(x)) fprintf(f, "%.12g", x);
  else fprintf(f, "null");
}

static void json_tolerance(FILE *f, const llamp_analysis_t *a, const llamp_tolerance_t *t, double cur) {
  fprintf(f, ", \"tolerance\": [");
  for (size_t i = 0; t && i < a->num_tolerance; i++) {
    fprintf(f, "%s{\"percent\": %g, \"value\": ", i ? ", " : "", t[i].percent);
    if (t[i].unbounded) fprintf(f, "null, \"delta\": null");
    else {
      json_num(f, t[i].value);
      fprintf(f, ", \"delta\": ");
      json_num(f, t[i].value - cur);
    }
    fprintf(f, "}");
  }
  fprintf(f, "]");
}

/* "parameters": every parameter by name with its value, slopes, share of T
 * and tolerances (the base ones and the per-pair costs' extra ones). */
static void json_parameters(FILE *f, const llamp_analysis_t *a) {
  const llamp_point_t *p = &a->point;
  const llamp_params_t *q = &a->params;
  uint32_t n = llamp_params_count(q);
  fprintf(f, "  \"parameters\": {");
  int first = 1;
  for (uint32_t w = 0; w < n; w++) {
    if (w == LLAMP_PARAM_GAP && !(q->g > 0)) continue;
    int base = w < LLAMP_NUM_PARAMS;
    double v = llamp_params_get(q, (llamp_param_t)w);
    double lr = base ? p->lambda[w] : p->lambda_x[w - LLAMP_NUM_PARAMS];
    double ll = base ? p->lambda_left[w] : p->lambda_x_left[w - LLAMP_NUM_PARAMS];
    fprintf(f, "%s\n    \"%s\": {\"value\": ", first ? "" : ",", llamp_params_name(q, (llamp_param_t)w));
    first = 0;
    json_num(f, v);
    fprintf(f, ", \"lambda\": %.12g, \"lambda_left\": %.12g, \"rho\": ", lr, ll);
    json_num(f, p->T > 0 ? lr * v / p->T : 0);
    if (!base && q->pairs) fprintf(f, ", \"reference\": %.12g", q->pairs->ref[w - LLAMP_NUM_PARAMS]);
    const llamp_tolerance_t *t = base ? a->tolerance[w] : a->tolerance_x[w - LLAMP_NUM_PARAMS];
    if (t) json_tolerance(f, a, t, v);
    fprintf(f, "}");
  }
  fprintf(f, "\n  },\n");
}

void llamp_report_json(FILE *f, const llamp_analysis_t *a) {
  const llamp_point_t *p = &a->point;
  const llamp_params_t *q = &a->params;
  fprintf(f, "{\n  \"graph\": {\"name\": \"");
  for (const char *c = a->graph_name; *c; c++) {
    if (*c == '"' || *c == '\\') fputc('\\', f);
    if ((unsigned char)*c >= 0x20) fputc(*c, f);
  }
  fprintf(f, "\", \"ranks\": %u, \"events\": %llu, \"edges\": %llu, \"messages\": %llu},\n",
          a->ranks, (unsigned long long)a->vertices, (unsigned long long)a->edges,
          (unsigned long long)a->messages);
  fprintf(f, "  \"params\": {\"L\": ");
  json_num(f, q->L);
  fprintf(f, ", \"o\": ");
  json_num(f, q->o);
  fprintf(f, ", \"g\": ");
  json_num(f, q->g);
  fprintf(f, ", \"G\": ");
  json_num(f, q->G);
  fprintf(f, ", \"S\": ");
  json_num(f, q->S);
  fprintf(f, ", \"bandwidth_term\": \"%s\"", q->size_g_full ? "s*G" : "(s-1)*G");
  fprintf(f, ", \"nic\": %s", q->nic ? "true" : "false");
  if (q->net) {
    fprintf(f, ", \"size_dependent\": {\"source\": \"");
    for (const char *c = q->net->source; *c; c++) {
      if (*c == '"' || *c == '\\') fputc('\\', f);
      if ((unsigned char)*c >= 0x20) fputc(*c, f);
    }
    fprintf(f, "\", \"L_ref\": ");
    json_num(f, q->net->L_ref);
    fprintf(f, ", \"G_ref\": ");
    json_num(f, q->net->G_ref);
    fprintf(f, ", \"envelope\": ");
    json_num(f, q->net->envelope);
    fprintf(f, "}");
  }
  fprintf(f, "},\n");
  struct {
    const char *key;
    double v;
  } scalars[] = {{"runtime", p->T},
                 {"lambda_L", p->lambda[LLAMP_PARAM_L]},
                 {"lambda_L_left", p->lambda_left[LLAMP_PARAM_L]},
                 {"rho_L", p->rho_L},
                 {"lambda_G", p->lambda[LLAMP_PARAM_G]},
                 {"rho_G", p->rho_G},
                 {"lambda_o", p->lambda[LLAMP_PARAM_O]},
                 {"lambda_g", p->lambda[LLAMP_PARAM_GAP]}};
  for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++) {
    fprintf(f, "  \"%s\": ", scalars[i].key);
    json_num(f, scalars[i].v);
    fprintf(f, ",\n");
  }
  if (a->out_of_core) {
    fprintf(f, "  \"out_of_core\": true,\n  \"critical_path\": null,\n");
  } else {
    fprintf(f, "  \"critical_path\": {\"vertices\": %llu, \"messages\": %llu, \"compute\": ",
            (unsigned long long)p->path_vertices, (unsigned long long)p->path_messages);
    json_num(f, p->t_compute);
    fprintf(f, ", \"overhead\": ");
    json_num(f, p->t_overhead);
    fprintf(f, ", \"latency\": ");
    json_num(f, p->t_latency);
    fprintf(f, ", \"bandwidth\": ");
    json_num(f, p->t_bandwidth);
    fprintf(f, ", \"gap\": ");
    json_num(f, p->t_gap);
    if (a->path_len) {
      fprintf(f, ", \"path\": [");
      for (size_t i = 0; i < a->path_len; i++)
        fprintf(f, "%s{\"vertex\": %llu, \"rank\": %u, \"kind\": \"%s\"}", i ? ", " : "",
                (unsigned long long)a->path[i], a->path_ranks[i], kind_name(a->path_kinds[i]));
      fprintf(f, "]");
    }
    if (a->path_by_rank) {
      fprintf(f, ", \"by_rank\": [");
      for (uint32_t r = 0; r < a->ranks; r++) {
        if (r) fprintf(f, ", ");
        json_num(f, a->path_by_rank[r]);
      }
      fprintf(f, "]");
    }
    fprintf(f, "},\n");
  }
  if (a->have_range) {
    fprintf(f, "  \"range\": {\"L_min\": ");
    json_num(f, a->range_lo);
    fprintf(f, ", \"L_max\": ");
    json_num(f, a->range_hi);
    fprintf(f, ", \"evaluations\": %d},\n", a->breakpoint_evaluations);
    fprintf(f, "  \"critical_latencies\": [");
    for (size_t i = 0; i < a->num_breakpoints; i++) {
      fprintf(f, "%s\n    {\"%s\": ", i ? "," : "", llamp_params_name(q, a->wrt));
      json_num(f, a->breakpoints[i].x);
      fprintf(f, ", \"lambda_before\": %g, \"lambda_after\": %g, \"runtime\": ",
              a->breakpoints[i].slope_before, a->breakpoints[i].slope_after);
      json_num(f, a->breakpoints[i].T);
      fprintf(f, "}");
    }
    fprintf(f, "%s],\n", a->num_breakpoints ? "\n  " : "");
  }
  static const char *tol_keys[LLAMP_NUM_PARAMS] = {"tolerance", "tolerance_G", "tolerance_o", "tolerance_g"};
  for (int w = 0; w < LLAMP_NUM_PARAMS; w++) {
    const llamp_tolerance_t *t = a->tolerance[w];
    if (!t || !a->num_tolerance) continue;
    const char *name = llamp_param_name((llamp_param_t)w);
    double cur = llamp_params_get(q, (llamp_param_t)w);
    fprintf(f, "  \"%s\": [", tol_keys[w]);
    for (size_t i = 0; i < a->num_tolerance; i++) {
      fprintf(f, "%s{\"percent\": %g, \"%s\": ", i ? ", " : "", t[i].percent, name);
      if (t[i].unbounded) fprintf(f, "null, \"delta_%s\": null", name);
      else {
        json_num(f, t[i].value);
        fprintf(f, ", \"delta_%s\": ", name);
        json_num(f, t[i].value - cur);
      }
      fprintf(f, "}");
    }
    fprintf(f, "],\n");
  }
  json_parameters(f, a);
  json_pairs(f, a);
  if (a->have_budget) {
    fprintf(f, "  \"budget\": {\"T\": ");
    json_num(f, a->budget_T);
    fprintf(f, ", \"L\": ");
    if (a->budget_infeasible || a->budget_unbounded) fprintf(f, "null");
    else json_num(f, a->budget_L);
    fprintf(f, ", \"status\": \"%s\"},\n",
            a->budget_infeasible ? "infeasible" : a->budget_unbounded ? "unbounded" : "ok");
  }
  if (a->num_sweep) {
    fprintf(f, "  \"sweep\": [");
    size_t n2 = a->num_sweep2 ? a->num_sweep2 : 1;
    for (size_t k = 0; k < a->num_sweep * n2; k++) {
      fprintf(f, "%s\n    {\"%s\": ", k ? "," : "", llamp_params_name(q, a->wrt));
      json_num(f, a->sweep_x[k / n2]);
      if (a->num_sweep2) {
        fprintf(f, ", \"%s\": ", llamp_params_name(q, a->wrt2));
        json_num(f, a->sweep2_x[k % n2]);
      }
      fprintf(f, ", \"runtime\": ");
      json_num(f, a->sweep_T[k]);
      fprintf(f, ", \"lambda_%s\": %g}", llamp_params_name(q, a->wrt), a->sweep_lambda[k]);
    }
    fprintf(f, "\n  ],\n");
  }
  if (a->classification) {
    fprintf(f, "  \"classification\": {\n");
    llamp_classify_json(f, a->classification, "    ");
    fprintf(f, "  },\n");
  }
  fprintf(f, "  \"units\": \"SI (seconds, bytes, seconds per byte)\"\n}\n");
}

void llamp_report_csv(FILE *f, const llamp_analysis_t *a) {
  const llamp_point_t *p = &a->point;
  if (a->num_sweep) {
    const char *n1 = llamp_params_name(&a->params, a->wrt);
    size_t n2 = a->num_sweep2 ? a->num_sweep2 : 1;
    if (a->num_sweep2) fprintf(f, "%s,%s,runtime,lambda_%s\n", n1, llamp_params_name(&a->params, a->wrt2), n1);
    else fprintf(f, "%s,runtime,lambda_%s\n", n1, n1);
    for (size_t k = 0; k < a->num_sweep * n2; k++) {
      fprintf(f, "%.12g,", a->sweep_x[k / n2]);
      if (a->num_sweep2) fprintf(f, "%.12g,", a->sweep2_x[k % n2]);
      fprintf(f, "%.12g,%g\n", a->sweep_T[k], a->sweep_lambda[k]);
    }
  } else if (a->have_range) {
    fprintf(f, "L,lambda_before,lambda_after,runtime\n");
    for (size_t i = 0; i < a->num_breakpoints; i++)
      fprintf(f, "%.12g,%g,%g,%.12g\n", a->breakpoints[i].x, a->breakpoints[i].slope_before,
              a->breakpoints[i].slope_after, a->breakpoints[i].T);
  } else {
    fprintf(f, "L,o,G,S,runtime,lambda_L,lambda_L_left,rho_L,lambda_G,rho_G,lambda_o\n");
    fprintf(f, "%.12g,%.12g,%.12g,%.12g,%.12g,%g,%g,%.12g,%.12g,%.12g,%g\n", a->params.L,
            a->params.o, a->params.G, a->params.S, p->T, p->lambda[LLAMP_PARAM_L],
            p->lambda_left[LLAMP_PARAM_L], p->rho_L, p->lambda[LLAMP_PARAM_G], p->rho_G,
            p->lambda[LLAMP_PARAM_O]);
  }
}

/* PRK Random, 8 ranks: 765 in [0, 20 us], 290 under 0.1 us, where paths of
 * nearly equal compute and different message counts trade places every
 * tenth of a nanosecond; the search took 6-9 s. */
void llamp_report_slow_range(FILE *f, const char *who, const char *wrt, const llamp_breakpoint_t *bp, size_t nb,
                             double lo, double hi, double secs, const char *lever) {
  if (secs < 2 || nb < 2) return;
  int lat = !wrt || strcmp(wrt, "L") == 0;
  char a[32], b[32], c[32];
  fprintf(f, "%s: the search for critical %s%s took %.1f s: T bends at %zu of them in [%s, %s], half below %s; %s\n",
          who, lat ? "latencies" : wrt, lat ? "" : " values", secs, nb, llamp_units_format_time(lo, a, sizeof a),
          llamp_units_format_time(hi, b, sizeof b), llamp_units_format_time(bp[nb / 2].x, c, sizeof c), lever);
}
