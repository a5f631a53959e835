/* llamp_classify.h - classify an application as computation-, load-imbalance-,
 * bandwidth-, latency- or communication-bound (classes C1-C5 of Tong et
 * al., "Fast classification of MPI applications using Lamport's logical
 * clocks", seed 001 §III-G and §IV-C) from the DAG, by the trend of its
 * predicted time over three sets of network configurations around an
 * anchor (BW, L):
 *   latency set        (BW, k L)
 *   bandwidth set      (k BW, L)
 *   communication set  (k BW, L / k)        k = 1/8, 1/4, 1/2, 1, 2, 4, 8
 * (BW = 1/G).  docs/classify.md has the rules and their thresholds.
 *
 * The time split follows Tong's counters, averaged over the ranks:
 *   compute        a rank's time outside MPI (its calc vertices), the mean
 *                  over the ranks; it does not depend on L or G
 *   communication  T - compute, split into what the critical path spends
 *                  as far as it is exposed (compute overlaps latency first,
 *                  then bandwidth, as in Tong et al. §III-E):
 *     bandwidth    min(lambda_G G, communication)
 *     latency      min(lambda_L L, what is left)
 *     overhead     min(the path's overheads o, what is left)
 *     wait         the rest: ranks waiting for each other beyond the
 *                  messages' cost (load imbalance)
 * Rules, in order: C1; C3, C4, C5 (communication that follows BW or L);
 * C2 (waiting that follows neither). */
#ifndef LLAMP_CLASSIFY_H
#define LLAMP_CLASSIFY_H

#include <stdio.h>

#include "llamp_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LLAMP_CLASSIFY_K 7 /* configurations per set; index 3 is the anchor */

typedef enum {
  LLAMP_CLASS_NONE = 0,         /* no rule matched: mixed (the numbers say why) */
  LLAMP_CLASS_COMPUTATION = 1,  /* C1 */
  LLAMP_CLASS_IMBALANCE = 2,    /* C2 */
  LLAMP_CLASS_BANDWIDTH = 3,    /* C3 */
  LLAMP_CLASS_LATENCY = 4,      /* C4 */
  LLAMP_CLASS_COMMUNICATION = 5 /* C5 */
} llamp_class_t;

typedef struct {
  double compute_share;   /* C1: compute >= this share of T (0.90) */
  double insensitive;     /* "insensitive": relative change below this (0.05) */
  double bound_share;     /* C2-C5 "-bound": wait / communication >= this share (0.25) */
  double sensitive_share; /* C2-C5 "-sensitive": >= this share (0.10) */
  double factor;          /* C3-C5: communication shrinks by this factor (2) */
} llamp_classify_rules_t;

void llamp_classify_rules_default(llamp_classify_rules_t *r);

typedef struct {
  double L, G; /* the configuration (G = 1/BW) */
  double T, compute, comm, latency, bandwidth, overhead, wait;
} llamp_class_point_t;

typedef struct {
  llamp_class_point_t lat[LLAMP_CLASSIFY_K], bw[LLAMP_CLASSIFY_K], both[LLAMP_CLASSIFY_K];
  int evaluations; /* engine passes */
  llamp_class_t cls;
  int sensitive;      /* 1: "-sensitive" (share between sensitive_share and bound_share) */
  /* the trend numbers the rules read (anchor = index 3 of every set) */
  double compute_share, comm_share, wait_share, latency_share, bandwidth_share, overhead_share;
  double T_change;         /* max |T / T_anchor - 1| over all configurations */
  double wait_change;      /* max |wait / wait_anchor - 1| (0 when wait_anchor is 0 and stays) */
  double comm_change_lat;  /* max |comm / comm_anchor - 1| over the latency set */
  double comm_change_bw;   /* ... over the bandwidth set */
  double comm_ratio_lat;   /* comm(2L) / comm(L/2) */
  double comm_ratio_bw;    /* comm(BW/2) / comm(2BW) */
  double comm_ratio_both;  /* comm(BW/2, 2L) / comm(2BW, L/2) */
  char reason[512];        /* the rule that decided, with its numbers */
} llamp_classification_t;

/* Classify at the anchor p (its L and G; o, g, S, model as given).  The
 * engine must have been created for g / p (same S and model).  Evaluates
 * the 19 distinct configurations (llamp_engine_points_lg, 10 a pass).  0, or -1 with
 * a message in err. */
int llamp_classify(llamp_engine_t *e, const llamp_graph_t *g, const llamp_params_t *p,
                   const llamp_classify_rules_t *rules, llamp_classification_t *out, char *err,
                   size_t errlen);

/* The same in parts, for evaluating the configurations on several engines
 * (llamp_engine_fork) in several threads: create the job (checks the
 * anchor), call llamp_classify_job_work from each thread with its own engine
 * (each takes the next configuration not yet taken, until none is left),
 * and once every worker returned, finish (the rules; fails when a
 * configuration failed) and free. */
typedef struct llamp_classify_job llamp_classify_job_t;
llamp_classify_job_t *llamp_classify_job_create(const llamp_graph_t *g, const llamp_params_t *p, char *err,
                                                size_t errlen);
void llamp_classify_job_work(llamp_classify_job_t *j, llamp_engine_t *e);
int llamp_classify_job_finish(llamp_classify_job_t *j, const llamp_classify_rules_t *rules,
                              llamp_classification_t *out, char *err, size_t errlen);
void llamp_classify_job_free(llamp_classify_job_t *j);

/* "computation-bound", "latency-sensitive", "mixed", ... and "C1".."C5" ("-"). */
const char *llamp_class_name(llamp_class_t c, int sensitive);
const char *llamp_class_code(llamp_class_t c);

/* Anchors of Tong et al.'s Table I: "e1g" (1 Gb/s, 50 us), "e10g" (10 Gb/s,
 * 5 us), "qdr" (32 Gb/s, 1.3 us).  Sets *L and *G; -1 for an unknown name. */
int llamp_classify_preset(const char *name, double *L, double *G);
/* An anchor as users write it: "here" (p unchanged), a preset, or BW@L
 * ("10Gbps@5us"; a bare bandwidth number is ns per byte, a bare latency
 * us).  Sets p->L and p->G; -1 with a message naming what was expected. */
int llamp_classify_anchor(const char *text, llamp_params_t *p, char *err, size_t errlen);

/* The classification as text (three lines, then with `table` the three
 * sets) and as a JSON object's members (the caller writes the braces). */
void llamp_classify_text(FILE *f, const llamp_classification_t *c, const char *indent, int table);
void llamp_classify_json(FILE *f, const llamp_classification_t *c, const char *indent);

#ifdef __cplusplus
}
#endif
#endif
