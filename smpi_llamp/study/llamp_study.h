/* llamp_study.h - variability studies: many emulations of one program, each
 * with its own seed, summarised (docs/studies.md).  This module reads the
 * samples' report.json files, computes the statistics (GSL; bootstrap
 * confidence intervals from a seeded RNG, so the same samples always give
 * the same numbers) and writes study.json / study.csv / the text summary.
 * Running the samples is the smpi_llamp-study tool's job (tools/study/).
 * Errors: -1 with "FILE:LINE: ..." in the caller's buffer; never prints. */
#ifndef LLAMP_STUDY_H
#define LLAMP_STUDY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LLAMP_STUDY_NTOL 3 /* latency tolerances at 1, 2 and 5 % */
extern const double llamp_study_tol_percent[LLAMP_STUDY_NTOL];

typedef struct {
  uint64_t seed;
  int done;               /* 1: the sample ran and its report was read */
  double simulated;       /* SimGrid's simulated time, s */
  double T;               /* T(L0), s */
  double L0;              /* the model's L, s */
  double lambda_L, rho_L;
  double tol_dL[LLAMP_STUDY_NTOL]; /* tolerated extra latency, s */
  int tol_unbounded[LLAMP_STUDY_NTOL];
  int measured_compute; /* the run timed this machine's CPU (compute mode not "none") */
  double *path_share; /* per rank: share of T the critical path spends there (NULL: not reported) */
  uint32_t ranks;
  /* kernel models (capture.kernels): the host of each rank, and every
   * platform host with its generated models' scale (1 = the "*" model) */
  char **rank_hosts;
  size_t nrank_hosts;
  char **hosts;
  double *host_scale;
  size_t nhosts;
} llamp_study_sample_t;

/* The node-eviction study (seed 004 §5.3): the sample's hosts with the
 * `k` slowest (largest scale) replaced by the fastest unused hosts of the
 * platform, in rank order (a hostfile for smpirun); the evicted names in
 * *evicted.  Both are arrays of the sample's strings (free the arrays only).
 * -1 with a message when the report has no host scales or the platform has
 * fewer than k spare hosts. */
int llamp_study_evict(const llamp_study_sample_t *s, unsigned k, const char ***hostlist,
                      const char ***evicted, char *err, size_t errlen);

/* Release what llamp_study_read_sample allocated. */
void llamp_study_sample_free(llamp_study_sample_t *s);

/* Read one sample's report.json (written by the capture at MPI_Finalize). */
int llamp_study_read_sample(const char *report_json, llamp_study_sample_t *s, char *err,
                            size_t errlen);

typedef struct {
  size_t n; /* values used (unbounded or missing ones are left out) */
  double mean, median, sd, min, max;
  double ci_lo, ci_hi; /* 95 % bootstrap percentile interval of the mean */
} llamp_study_stats_t;

/* Statistics of x[0..n) (not modified).  The bootstrap uses `reps`
 * resamples (0 = 2000) drawn from a GSL mt19937 seeded with `seed`. */
int llamp_study_stats(const double *x, size_t n, uint64_t seed, size_t reps,
                      llamp_study_stats_t *out);

/* The quantities summarised, in column order of study.csv. */
typedef enum {
  LLAMP_STUDY_SIMULATED,
  LLAMP_STUDY_T,
  LLAMP_STUDY_LAMBDA_L,
  LLAMP_STUDY_RHO_L,
  LLAMP_STUDY_TOL1,
  LLAMP_STUDY_TOL2,
  LLAMP_STUDY_TOL5,
  LLAMP_STUDY_NQ
} llamp_study_quantity_t;
const char *llamp_study_quantity_name(llamp_study_quantity_t q); /* CSV/JSON key */
/* The quantity of a sample; 0 when it has none (unbounded tolerance). */
int llamp_study_value(const llamp_study_sample_t *s, llamp_study_quantity_t q, double *out);

typedef struct {
  const char *command;       /* the program and its arguments, for the record */
  uint64_t base_seed;        /* sample k has seed base_seed + k */
  const char *variability;   /* what each seed varies: "spatial", "temporal", "both", ... */
  const llamp_study_sample_t *samples;
  size_t n;
  llamp_study_stats_t stats[LLAMP_STUDY_NQ];
  /* mean over samples of each rank's share of the critical path (NULL when
   * no sample reported it); filled by llamp_study_summarise, freed by
   * llamp_study_free */
  double *rank_share;
  uint32_t ranks;
  /* node eviction (optional): the same seeds rerun without the k slowest hosts */
  unsigned evict_k;
  const llamp_study_sample_t *evicted; /* n entries, or NULL */
  llamp_study_stats_t evict_T, evict_gain; /* gain = 1 - T_evicted / T */
} llamp_study_t;
void llamp_study_free(llamp_study_t *st);

/* Fill st->stats from the completed samples (bootstrap seeded by base_seed). */
int llamp_study_summarise(llamp_study_t *st);
void llamp_study_write_csv(FILE *f, const llamp_study_t *st);
void llamp_study_write_json(FILE *f, const llamp_study_t *st);
/* Readable in ten seconds: T and its spread, the tolerance and its spread. */
void llamp_study_write_text(FILE *f, const llamp_study_t *st);

#ifdef __cplusplus
}
#endif
#endif
