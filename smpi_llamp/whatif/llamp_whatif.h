/* llamp_whatif.h - what-if platform studies (docs/topology.md, "What-if
 * runner"): one program captured once on a base platform, then for every
 * platform variant SimGrid's simulated time beside the DAG's prediction for
 * that variant from the one capture, and where they disagree, why.
 *
 * This module holds what needs no process: the variant specifications
 * (platform files or tools/llamp-platform families), the reading of the
 * runs' report.json and of the predictions (`llamp analyze --format json`),
 * the route comparison, the diagnosis of disagreements and the outputs
 * (CSV, JSON, text table, SVG plot).  Running SimGrid, llamp-platform,
 * llamp-routes and llamp analyze is the smpi_llamp-whatif tool's job
 * (tools/whatif/).
 * Errors: -1 with a one-line reason in the caller's buffer; never prints. */
#ifndef LLAMP_WHATIF_H
#define LLAMP_WHATIF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One platform variant: a SimGrid platform file, or a llamp-platform family
 * ("fattree:4,2", "dragonfly:4,2,2", "torus:4,4", "flat:16",
 * "simgrid:KIND:PARAMS") with llamp-platform options ("--switch 300ns"). */
typedef struct {
  char *name;  /* shown in the outputs: NAME= of the spec, else spec + options */
  char *spec;  /* the file or the family */
  int is_file; /* a platform file (no options allowed) */
  char **opts; /* llamp-platform options, in order */
  int nopts;
  double wire, sw; /* --wire / --switch in seconds (llamp-platform's defaults 0.5 us, 0) */
} llamp_whatif_variant_t;

/* Parse "[NAME=]SPEC [OPTIONS...]" (words split at blanks).  `where` (e.g.
 * "--variant 2" or "FILE:LINE") prefixes errors.  A SPEC ending in .xml, or
 * naming an existing file, is a platform file; otherwise it must be a
 * family KIND:PARAMS with a known KIND. */
int llamp_whatif_variant_parse(const char *text, const char *where, llamp_whatif_variant_t *v,
                               char *err, size_t errlen);
void llamp_whatif_variant_free(llamp_whatif_variant_t *v);
/* Add an option pair to a family variant ("--switch", "300ns"), keeping
 * wire/sw and the name in step.  -1 for a platform file. */
int llamp_whatif_variant_add_opt(llamp_whatif_variant_t *v, const char *opt, const char *value,
                                 char *err, size_t errlen);
/* Read a variants file: one variant per line as above, '#' comments, blank
 * lines skipped.  Appends to *vs (realloc'd). */
int llamp_whatif_read_variants(const char *path, llamp_whatif_variant_t **vs, size_t *n, char *err,
                               size_t errlen);
/* 1 when v is the base family with only --wire and/or --switch changed
 * (then *dwire and *dswitch are the changes, s): its prediction is also a
 * parameter shift of the base capture along l_wire and d_switch. */
int llamp_whatif_is_shift(const llamp_whatif_variant_t *base, const llamp_whatif_variant_t *v,
                          double *dwire, double *dswitch);

/* What one variant gave. */
typedef struct {
  const llamp_whatif_variant_t *variant;
  int ran;            /* SimGrid ran on it and its report was read */
  char *error;        /* why not (NULL: no error) */
  double simulated;   /* SimGrid's simulated time, s */
  double own_T;       /* T(L0) of this run's own DAG (the capture of this variant's run) */
  uint64_t own_events, own_messages;
  uint64_t bursts;    /* back-to-back sends to one peer in this run (capture's counter) */
  double burst_time;
  char **causes;      /* known causes of this run's SimGrid vs DAG difference */
  size_t ncauses;
  int predicted_ok;
  double predicted;   /* T from the base capture and this variant's routes, s */
  double lambda_L, lambda_l_wire, lambda_d_switch; /* from that prediction */
  int is_shift;
  double dwire, dswitch;
  double predicted_shift; /* T of the base capture at l_wire0 + dwire, d_switch = dswitch */
  size_t pairs, routes_changed; /* rank pairs; those whose route latency differs from the base's */
  double route_delta_mean;      /* mean latency change over all pairs, s */
  int run_routes_differ;        /* the run's own routes.txt is not the one predicted on */
  char *why;                    /* set by llamp_whatif_explain when the two disagree */
} llamp_whatif_result_t;

/* Read a capture's report.json into r (simulated, own_T, counters, causes). */
int llamp_whatif_read_run(const char *report_json, llamp_whatif_result_t *r, char *err,
                          size_t errlen);
/* Read `llamp analyze --format json` output: T and the slopes. */
int llamp_whatif_read_prediction(const char *json, double *T, double *lambda_L,
                                 double *lambda_l_wire, double *lambda_d_switch, char *err,
                                 size_t errlen);
/* Compare two routes files rank pair by rank pair (same rank count). */
int llamp_whatif_compare_routes(const char *base, const char *other, size_t *pairs,
                                size_t *changed, double *mean_delta, char *err, size_t errlen);
void llamp_whatif_result_free(llamp_whatif_result_t *r);

/* The study: results[0] is the base variant (the capture). */
typedef struct {
  const char *command; /* the program and its arguments */
  const char *out_dir;
  uint64_t seed;
  double threshold; /* disagreement threshold, fraction (0.005 = 0.5 %) */
  llamp_whatif_result_t *results;
  size_t n;
  int base_check_ok;  /* re-analysing the capture gives the capture's own T */
  double base_check_T;
} llamp_whatif_t;

/* (predicted - simulated) / simulated; NaN when either is missing. */
double llamp_whatif_diff(const llamp_whatif_result_t *r);
/* Fill every result's `why` where |diff| > threshold: the DAG of that very
 * run already disagrees with SimGrid (contention, bursts: the run's known
 * causes) and/or the program ran differently there than in the base
 * capture (graph size, compute), and how its routes differ from the base. */
int llamp_whatif_explain(llamp_whatif_t *w);
void llamp_whatif_write_csv(FILE *f, const llamp_whatif_t *w);
void llamp_whatif_write_json(FILE *f, const llamp_whatif_t *w);
void llamp_whatif_write_text(FILE *f, const llamp_whatif_t *w);
/* Runtime per variant, SimGrid beside the prediction, as SVG. */
int llamp_whatif_write_svg(FILE *f, const llamp_whatif_t *w, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
