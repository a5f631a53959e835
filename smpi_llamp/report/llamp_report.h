/* llamp_report.h - present engine results: text for people, JSON and CSV
 * for scripts.  The report only formats; it never evaluates anything. */
#ifndef LLAMP_REPORT_H
#define LLAMP_REPORT_H

#include <stdio.h>

#include "llamp_classify.h"
#include "llamp_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x % tolerance of one parameter: the largest value with T <= (1+x/100) T0. */
typedef struct {
  double percent;
  double value;  /* largest parameter value; ignored when unbounded */
  int unbounded; /* T never exceeds the threshold */
} llamp_tolerance_t;

typedef struct {
  /* what was analysed */
  const char *graph_name;
  uint32_t ranks;
  uint64_t vertices, edges, messages;
  llamp_params_t params;
  /* at the given parameters */
  llamp_point_t point;
  int out_of_core; /* T and lambdas by llamp_engine_stream_point: no critical path was traced */
  /* optional parts: counts of 0 mean "not asked" */
  int have_range;
  double range_lo, range_hi;
  const llamp_breakpoint_t *breakpoints;
  size_t num_breakpoints;
  int breakpoint_evaluations;
  const llamp_tolerance_t *tolerance[LLAMP_NUM_PARAMS]; /* per parameter, may be NULL */
  const llamp_tolerance_t *tolerance_x[LLAMP_MAX_XPARAMS]; /* per extra parameter (params.pairs) */
  size_t num_tolerance;
  int have_budget, budget_unbounded, budget_infeasible;
  double budget_T, budget_L;
  const double *sweep_x, *sweep_T, *sweep_lambda;
  size_t num_sweep;
  llamp_param_t wrt; /* what the range and the sweep vary (default L) */
  /* a 2-D sweep: sweep_T and sweep_lambda (along wrt) hold num_sweep x
   * num_sweep2 points, row i * num_sweep2 + j at (sweep_x[i], sweep2_x[j]) */
  const double *sweep2_x;
  size_t num_sweep2;
  llamp_param_t wrt2;
  const uint64_t *path; /* critical path vertices (graph ids), optional */
  size_t path_len;
  const uint32_t *path_ranks;
  const int *path_kinds;
  const double *path_by_rank; /* time of the critical path on each rank (ranks entries), optional */
  const llamp_classification_t *classification; /* C1-C5 (llamp_classify.h), optional */
  /* per-pair sensitivities (llamp_engine_pair_lambda; docs/topology.md), optional:
   * JSON "pair_sensitivities" (all of them), text: the pair_top largest */
  const llamp_pair_lambda_t *pair_lambda;
  size_t num_pair_lambda, pair_top;
} llamp_analysis_t;

void llamp_report_text(FILE *f, const llamp_analysis_t *a);
void llamp_report_json(FILE *f, const llamp_analysis_t *a);
void llamp_report_csv(FILE *f, const llamp_analysis_t *a);
/* The per-pair sensitivities as a dense ranks x ranks CSV matrix of
 * lambda_L (row: sender, column: receiver) or, with `bytes`, lambda_G. */
void llamp_report_pairs_csv(FILE *f, uint32_t ranks, const llamp_pair_lambda_t *v, size_t n,
                            int bytes);

/* A search for critical values of `wrt` (NULL: L) that took `secs` >= 2 s
 * says why on f, one line from `who`: how many values T bends at in
 * [lo, hi] (bp sorted) and below which half of them lie (irregular codes
 * gather them at small L); `lever` names the option that narrows the
 * range.  Values print as times, as the text report's do. */
void llamp_report_slow_range(FILE *f, const char *who, const char *wrt, const llamp_breakpoint_t *bp, size_t nb,
                             double lo, double hi, double secs, const char *lever);

#ifdef __cplusplus
}
#endif
#endif
