/* capture_internal.h - what the runtime's files share and nobody else needs. */
#ifndef LLAMP_CAPTURE_INTERNAL_H
#define LLAMP_CAPTURE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "llamp_capture.h"
#include "llamp_coll.h"

#include <simgrid/forward.h>

/* Local-only MPI calls counted by all ranks so far (name, count), for
 * report.json; valid until the next call. */
size_t llamp_capture_session_locals(const char ***names, const uint64_t **counts);

/* `s` as a JSON string, quoted and escaped (collsel.c). */
void llamp_capture_json_str(FILE *f, const char *s);
/* LLAMP_TIMING set: "smpi_llamp: timing: NAME  SECONDS" on stderr for the
 * time since *since, which becomes now (analysis.c). */
void llamp_capture_stage_done(const char *name, double *since);
/* The same for a stage of the DAG's finish (a llamp_stage_hook_t; since is
 * a double *): "DAG: <stage>". */
void llamp_capture_dag_stage(void *since, const char *stage);

/* ---- the DAG built during the simulation (stream.c) ---------------------------- */

#include "llamp_sched.h"
#include "llamp_trace.h"

/* The sched options the analysis builds the DAG with (analysis.c). */
void llamp_capture_sched_options(const llamp_capture_config_t *cfg, llamp_sched_options_t *so);
/* The analysis on a graph built already (the stream's); g and *st become
 * its own.  t0: the wall clock (analysis.c's) when the DAG's work at the last
 * MPI_Finalize began. */
int llamp_capture_analyze_graph(const llamp_capture_config_t *cfg, llamp_graph_t *g, llamp_sched_stats_t *st,
                                uint32_t nranks, double t0, double simulated_time, FILE *summary,
                                llamp_capture_result_t *result, char *err, size_t errlen);

/* Beyond this many ranks each rank's stream state (its builder's per-rank
 * tables, the burst check's per-peer times: O(ranks) each) costs too much. */
#define LLAMP_CAPTURE_STREAM_MAX_RANKS 1024u
/* At the first rank's MPI_Init, after the configuration: the thread that
 * follows the ranks' writers.  0 / -1 (no stream: the files are read). */
int llamp_capture_stream_start(const llamp_capture_config_t *cfg, uint32_t world);
/* Vertices per record fed to the stream so far (0 before its first
 * sweep); any thread. */
double llamp_capture_stream_vertices_per_record(void);
/* Rank's writer, before its first record. */
void llamp_capture_stream_join(uint32_t rank, llamp_trace_writer_t *w);
/* Rank's last record is written (and flushed): the thread ends the rank and
 * destroys w.  0, or -1 when not streaming it (the caller keeps w). */
int llamp_capture_stream_leave(uint32_t rank, llamp_trace_writer_t *w);
/* The last rank has left: the thread drains what is left without pausing. */
void llamp_capture_stream_drain(void);
/* The graph, when every rank was streamed and the options are the ones cfg
 * gives now; else NULL with the reason in `why` (the caller reads the files). */
llamp_graph_t *llamp_capture_stream_finish(const llamp_capture_config_t *cfg, llamp_sched_stats_t *st,
                                           char *why, size_t whylen);
/* At exit without a last MPI_Finalize: stop the thread. */
void llamp_capture_stream_abandon(void);

/* Each rank's SimGrid host (index = world rank), valid until the session
 * ends; returns the number of ranks (0 before MPI_Init). */
size_t llamp_capture_session_hosts(sg_host_t const **hosts);

/* ---- the transfers SimGrid ran (observe.cpp) ------------------------------------ */

/* One network transfer as SimGrid ran it: its hosts (sg_host_t), bytes with
 * SMPI's envelope, start (after the match) and finish, simulated seconds. */
typedef struct {
  const void *src, *dst;
  double bytes, start, finish;
} llamp_capture_transfer_t;
/* Record every transfer from now on (at the first MPI_Init): 0, or -1 when
 * this SimGrid's version cannot say (its network action's layout). */
int llamp_capture_observe_start(void);
/* The transfers finished so far, in finishing order. */
size_t llamp_capture_observed(const llamp_capture_transfer_t **out);
void llamp_capture_observed_free(void);
/* SimGrid charges every message's latency dl more from now on (LLAMP_DELTA_L:
 * a latency-factor callback; m's lat_factor is SMPI's own).  0 / -1. */
int llamp_capture_add_latency(double dl, const llamp_netmodel_t *m, char *err, size_t errlen);
/* The transfers it could not raise so far: their route's latency is 0 (a
 * latency-free link; the loopback of ranks sharing a host, unless
 * network/loopback-lat is set), which a factor cannot scale. */
uint64_t llamp_capture_latency_unraised(void);
/* SMPI's MPI_Waitsome is a Waitany, then tests that poll (sleeps.cpp):
 * follow each rank's sleeps from now on (0, or -1 without smpi/test). */
int llamp_capture_sleeps_start(void);
/* The observed contention model (contention.c): observed[v] for each graph
 * vertex (n entries) = the duration of the transfer SimGrid ran for receive
 * v's message, NAN where none was found (calc and send vertices too); e is
 * an engine of g at p (the DAG's start times pick the transfers).  Counts
 * the messages and those matched.  0 / -1 with a message. */
int llamp_capture_observed_times(const llamp_graph_t *g, llamp_engine_t *e, const llamp_params_t *p,
                                 double *observed, uint64_t *matched, uint64_t *messages, char *err,
                                 size_t errlen);

/* ---- collectives: the DAG expands what SimGrid runs (collsel.c) ---------------- */

/* Per collective kind: the algorithm the DAG expands and where it comes
 * from.  The DAG always follows SimGrid: a -llamp-coll request that SimGrid
 * does not run is reported (warning, `requested`), never silently used. */
typedef struct {
  const llamp_coll_algo_t *algo; /* what the DAG expands */
  char simgrid[64];              /* SimGrid's algorithm ("default", "rdb", "(built-in)") */
  char source[192];              /* "simgrid default selector", "--cfg=smpi/allreduce:rdb", ... */
  const char *note;              /* "" or how the DAG differs from what SimGrid ran */
  int modelled;                  /* 1: the DAG expands exactly what SimGrid runs */
  char requested[64];            /* the -llamp-coll (LLAMP_COLL) request, "" = none */
} llamp_capture_coll_t;

struct llamp_capture_colls {
  llamp_capture_coll_t kind[LLAMP_COLL_NUM_KINDS];
  char selector[64];   /* smpi/coll-selector ("default") */
  char spec[4096];     /* the selection, as llamp_coll_parse_selection reads it */
  int unmodelled;      /* kinds whose SimGrid algorithm the DAG does not reproduce
                          (used or not: see llamp_capture_colls_warn) */
  int conflicts;       /* -llamp-coll requests SimGrid did not run */
};

/* Resolve the DAG's algorithm for every collective.  `get` reads a SimGrid
 * string setting as llamp_capture_sg_string does; `requested` is the
 * -llamp-coll / LLAMP_COLL spec ("" = none); `added` is what smpi_llamp-run
 * put on smpirun's command line (LLAMP_SMPI_COLL: "key:algo:why ..." with why
 * "coll" for -llamp-coll, "selector" for a replaced smpi/coll-selector), so
 * the sources can say so.  Every difference (an SMPI algorithm not modelled,
 * a request SimGrid did not run) is counted; the requests SimGrid did not
 * run are described in one line each on `warn` (may be NULL).  -1 with a
 * message for an invalid `requested` spec. */
int llamp_capture_colls_resolve(llamp_capture_colls_t *out, const char *(*get)(const char *name),
                                const char *requested, const char *added, FILE *warn, char *err,
                                size_t errlen);
/* One warning line on `warn` (may be NULL) per kind the run used (calls[k]
 * > 0; calls NULL: every kind) whose SimGrid algorithm the DAG does not
 * reproduce; returns their number (non-zero: the report is approximate). */
int llamp_capture_colls_warn(const llamp_capture_colls_t *c, const uint64_t *calls, FILE *warn);
/* Write the "collectives" object of report.json (no trailing newline): the
 * selector, the spec, and per kind used (or requested) its algorithm,
 * SimGrid's, the source and whether it is modelled. */
void llamp_capture_colls_json(FILE *f, const llamp_capture_colls_t *c, const uint64_t *calls,
                              const char *indent);

/* ---- message costs: the DAG charges what SimGrid charges (netsel.c) ------------ */

#define LLAMP_CAPTURE_NET_SETTINGS 8
typedef struct {
  char key[40], value[1024], source[200]; /* "smpi/os", its value, who set it */
} llamp_capture_net_setting_t;
/* SimGrid's effective per-message settings at MPI_Init and the DAG's model of
 * them: size-dependent costs (llamp_netmodel_t) unless they are trivial
 * (factors 1, overheads 0: the scalar LogGPS model, as without them). */
struct llamp_capture_net {
  int active;                 /* 1: the DAG charges `model` */
  llamp_netmodel_t model;
  double S;                   /* the eager limit SimGrid applies (detached thresh - 1) */
  int have_A;                 /* 1: SMPI's smpi/async-small-thresh is known: */
  double A;                   /* a message of s >= A bytes starts when its receive is matched */
  char network_model[32];     /* SimGrid's network/model ("SMPI") */
  unsigned n;
  llamp_capture_net_setting_t setting[LLAMP_CAPTURE_NET_SETTINGS];
  char note[1600];            /* "" or how the DAG may still differ ("; "-separated) */
};

/* Read SimGrid's settings through `get` (any setting as text, NULL when
 * unknown) and `is_default` (1 when nobody set it); `added` is what
 * smpi_llamp-run passed from the model file's smpi group (LLAMP_SMPI_NET:
 * space-separated keys).  L_ref and G_ref: the model file's smpi reference
 * values, else cfg->params L and G.  -1 with a message when a setting does
 * not parse (SimGrid would have stopped already). */
int llamp_capture_net_resolve(llamp_capture_net_t *out, const llamp_capture_config_t *cfg,
                              const char *(*get)(const char *name),
                              int (*is_default)(const char *name), const char *added, char *err,
                              size_t errlen);
/* The "network_model" object of report.json (no trailing newline). */
void llamp_capture_net_json(FILE *f, const llamp_capture_net_t *n, const char *indent);

#endif
