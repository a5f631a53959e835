/* analysis.c - what the last MPI_Finalize runs: trace records -> DAG
 * (llamp_sched) -> engine -> report files and a short summary.  Only calls
 * the stages; nothing here evaluates the model itself. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "capture_internal.h"
#include "llamp_capture.h"
#include "llamp_cpuclock.h"
#include "llamp_classify.h"
#include "llamp_goal.h"
#include "llamp_graph.h"
#include "llamp_mem.h"
#include "llamp_report.h"
#include "llamp_sched.h"
#include "llamp_topo.h"
#include "llamp_units.h"

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* LLAMP_TIMING set: each stage of the analysis and its wall time on stderr
 * (what `llamp analyze --timing` shows for a graph file). */
void llamp_capture_stage_done(const char *name, double *since) {
  static int on = -1;
  if (on < 0) on = getenv("LLAMP_TIMING") && *getenv("LLAMP_TIMING");
  double now = wall();
  if (on) {
    /* the calling thread's page faults in the stage: on this VM a fresh
     * page costs 1-8 us, the largest cost of some stages */
    static __thread long faults_before = -1;
    struct rusage ru;
    long faults = getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt + ru.ru_majflt : 0;
    if (faults_before >= 0 && faults > faults_before)
      fprintf(stderr, "smpi_llamp: timing: %-22s %8.3f s (%ld page faults)\n", name, now - *since,
              faults - faults_before);
    else
      fprintf(stderr, "smpi_llamp: timing: %-22s %8.3f s\n", name, now - *since);
    faults_before = faults;
  }
  *since = now;
}

void llamp_capture_dag_stage(void *since, const char *stage) {
  char what[64];
  snprintf(what, sizeof what, "DAG: %s", stage);
  llamp_capture_stage_done(what, since);
}


/* The classification (19 configurations, 2 passes each: the largest stage
 * of the analysis) starts on a fork of the engine in a second thread, beside
 * the critical latencies, tolerances and sweep (the simulation is over and
 * left the second core idle); the main thread then takes what is left. */
typedef struct {
  llamp_classify_job_t *job;
  llamp_engine_t *engine; /* a fork, owned */
} classify_worker_t;

static void *classify_run(void *arg) {
  classify_worker_t *w = arg;
  llamp_classify_job_work(w->job, w->engine);
  return NULL;
}

/* graph.llg (and graph.goal) are written in a second thread beside the
 * engine's creation, which reads the graph too (neither changes it): the
 * 16 MB of bench_capture64 cost 0.04-0.06 s in line. */
typedef struct {
  const llamp_graph_t *g;
  const char *path, *goal_path; /* goal_path NULL: no graph.goal */
  int rc;
  char err[1024];
} files_job_t;

static void *files_run(void *arg) {
  files_job_t *j = arg;
  j->rc = llamp_graph_write_binary(j->g, j->path, j->err, sizeof j->err);
  if (j->rc == 0 && j->goal_path) {
    llamp_goal_options_t gopt;
    llamp_goal_options_default(&gopt);
    j->rc = llamp_goal_write(j->g, j->goal_path, &gopt, j->err, sizeof j->err);
  }
  return NULL;
}

/* Wait for the files; 0 when they are written (err set otherwise). */
static int files_join(pthread_t *t, int *running, files_job_t *j, char *err, size_t errlen) {
  if (*running) {
    pthread_join(*t, NULL);
    *running = 0;
  }
  if (j->rc) seterr(err, errlen, "%s", j->err);
  return j->rc;
}

/* What the run says about itself besides the graph: compute, and SimGrid's
 * time against the DAG's with the known causes of a difference. */
typedef struct {
  const llamp_capture_compute_t *compute; /* NULL: not decided (trace files only) */
  double measured, simulated;             /* compute totals over the ranks, s */
  double clock_wait;                      /* of measured: short bursts between clock reads, s */
  uint64_t clock_wait_n;                  /* their number */
  int suspicious;                         /* simulated compute < 1 % of measured */
  double T;                               /* the DAG's T at the analysis parameters */
  double difference;                      /* (T - simulated time) / simulated time; NAN unknown */
  llamp_capture_reasons_t reasons;
  /* contention: observed (each message's transfer as SimGrid ran it) or by the rule */
  int observed;
  uint64_t obs_matched, obs_messages;
  double T_other; /* T(L0) of the model that did not run (NAN: not evaluated) */
  double delta_T[LLAMP_CAPTURE_MAX_TOL]; /* T(L + cfg->deltas[i]) */
  double delta_T_other[LLAMP_CAPTURE_MAX_TOL]; /* the same, of the model that did not run */
} run_facts_t;

/* Compute is suspicious when the program spent real time computing (over
 * 1 ms in all) and the simulation kept less than 1 % of it: a host speed
 * that shrinks every burst, or compute switched off by mistake. */
static void facts_of_run(const llamp_capture_config_t *cfg, const llamp_sched_stats_t *st,
                         double simulated_time, double T, run_facts_t *f) {
  memset(f, 0, sizeof *f);
  f->T_other = NAN;
  f->compute = llamp_capture_compute_get();
  llamp_capture_compute_totals(&f->measured, &f->simulated);
  llamp_capture_compute_clock_wait(&f->clock_wait, &f->clock_wait_n);
  f->suspicious = f->compute && f->measured > 1e-3 && f->simulated < 0.01 * f->measured;
  f->T = T;
  f->difference = simulated_time > 0 ? (T - simulated_time) / simulated_time : NAN;
  char nm[400] = "";
  size_t len = 0;
  for (size_t i = 0; i < st->num_unmodelled && len < sizeof nm - 64; i++)
    len += (size_t)snprintf(nm + len, sizeof nm - len, "%s%s x %llu", i ? ", " : "",
                            st->unmodelled[i].name, (unsigned long long)st->unmodelled[i].count);
  if (st->unresolved_wildcards && len < sizeof nm - 64)
    len += (size_t)snprintf(nm + len, sizeof nm - len, "%s%llu unresolved wildcard receives",
                            len ? ", " : "", (unsigned long long)st->unresolved_wildcards);
  if (st->unknown_requests && len < sizeof nm - 64)
    snprintf(nm + len, sizeof nm - len, "%s%llu unknown requests", len ? ", " : "",
             (unsigned long long)st->unknown_requests);
  if (f->compute) llamp_capture_diagnose(cfg, nm, &f->reasons);
  int ncoll = cfg->colls ? llamp_capture_colls_warn(cfg->colls, st->coll_calls, NULL) : 0;
  if (ncoll > 0 && f->reasons.n < LLAMP_CAPTURE_MAX_REASONS)
    snprintf(f->reasons.reason[f->reasons.n++], sizeof f->reasons.reason[0],
             "%d kind(s) of collective ran in SimGrid with an algorithm the DAG does not reproduce "
             "(report.json: capture.collectives)", ncoll);
  if (st->approx_reductions && f->reasons.n < LLAMP_CAPTURE_MAX_REASONS)
    snprintf(f->reasons.reason[f->reasons.n++], sizeof f->reasons.reason[0],
             "%llu reduction calls with a non-commutative operation ran in SimGrid with an algorithm "
             "that treats it apart, which the DAG does not reproduce (docs/collectives.md)",
             (unsigned long long)st->approx_reductions);
  if (st->poll_time > 0.01 * T && f->reasons.n < LLAMP_CAPTURE_MAX_REASONS) {
    char b[64];
    snprintf(f->reasons.reason[f->reasons.n++], sizeof f->reasons.reason[0],
             "%llu MPI_Test/MPI_Iprobe/MPI_Probe calls took %s (SMPI sleeps smpi/test or smpi/iprobe in each, 100 us "
             "by default, growing with smpi/grow-injected-times): the DAG keeps that time as compute, "
             "but a polling loop polls more or less often at another latency",
             (unsigned long long)st->polls, llamp_units_format_time(st->poll_time, b, sizeof b));
  }
  if (st->bursts && f->reasons.n < LLAMP_CAPTURE_MAX_REASONS) {
    char b[64];
    snprintf(f->reasons.reason[f->reasons.n++], sizeof f->reasons.reason[0],
             "%llu sends left while the rank's previous message to the same peer was still being "
             "transferred (back-to-back, %s of transfer they could share in all): SimGrid shares the "
             "pair's link between the two, which delays the earlier one too; the DAG charges each as if "
             "alone (docs/consistency.md, Bursts)",
             (unsigned long long)st->bursts, llamp_units_format_time(st->burst_time, b, sizeof b));
  }
  if (st->rma_waits && f->reasons.n < LLAMP_CAPTURE_MAX_REASONS) {
    char b[64];
    snprintf(f->reasons.reason[f->reasons.n++], sizeof f->reasons.reason[0],
             "%llu MPI_Put/MPI_Get/MPI_Win_lock calls waited %s in all on SMPI's window mutexes (held by "
             "another rank's flush until its message arrived, or by a lock holder): a wait between ranks "
             "without a message, which the DAG has no edge for (docs/trace.md, One-sided communication)",
             (unsigned long long)st->rma_waits, llamp_units_format_time(st->rma_wait_time, b, sizeof b));
  }
}

static void facts_json(FILE *f, const run_facts_t *r, double simulated_time) {
  fprintf(f, "    \"compute\": {");
  if (r->compute) {
    fprintf(f, "\"mode\": ");
    llamp_capture_json_str(f, r->compute->kind);
    fprintf(f, ", \"description\": ");
    llamp_capture_json_str(f, r->compute->description);
    if (r->compute->inject && r->compute->rate > 0) fprintf(f, ", \"flops_per_measured_second\": %.6g", r->compute->rate);
    fprintf(f, ", \"host_speed\": [%.6g, %.6g]", r->compute->host_speed_min, r->compute->host_speed_max);
    if (r->compute->inject && isfinite(r->compute->threshold))
      fprintf(f, ", \"cpu_threshold\": %.6g", r->compute->threshold);
    if (r->compute->smpi_timer) {
      fprintf(f, ", \"smpi_timer\": ");
      llamp_capture_json_str(f, r->compute->smpi_timer);
    }
    if (r->compute->inject && r->compute->cpu_clock) {
      fprintf(f, ", \"cpu_clock\": ");
      llamp_capture_json_str(f, r->compute->cpu_clock);
      /* SimGrid runs every rank on this thread: its reads are theirs */
      fprintf(f, ", \"cpu_clock_syscalls\": %llu", llamp_cpuclock_syscalls());
    }
    fprintf(f, ",\n      ");
  }
  fprintf(f,
          "\"measured_seconds\": %.9g, \"simulated_seconds\": %.9g, \"clock_wait_seconds\": %.9g, "
          "\"clock_wait_bursts\": %llu, \"suspicious\": %s},\n",
          r->measured, r->simulated, r->clock_wait, (unsigned long long)r->clock_wait_n,
          r->suspicious ? "true" : "false");
  fprintf(f, "    \"simulated_vs_predicted\": {");
  if (simulated_time > 0) fprintf(f, "\"simulated_time\": %.12g, ", simulated_time);
  else fprintf(f, "\"simulated_time\": null, ");
  fprintf(f, "\"predicted_time\": %.12g, ", r->T);
  if (isfinite(r->difference)) fprintf(f, "\"difference\": %.6g,\n      ", r->difference);
  else fprintf(f, "\"difference\": null,\n      ");
  fprintf(f, "\"contention\": {\"model\": \"%s\"", r->observed ? "observed" : "rule");
  if (r->observed)
    fprintf(f, ", \"messages\": %llu, \"observed_messages\": %llu", (unsigned long long)r->obs_messages,
            (unsigned long long)r->obs_matched);
  if (isfinite(r->T_other))
    fprintf(f, ", \"other_model\": \"%s\", \"other_predicted_time\": %.12g", r->observed ? "rule" : "observed",
            r->T_other);
  fprintf(f, "},\n      ");
  fprintf(f, "\"known_causes\": [");
  for (size_t i = 0; i < r->reasons.n; i++) {
    fprintf(f, "%s", i ? ",\n        " : "\n        ");
    llamp_capture_json_str(f, r->reasons.reason[i]);
  }
  fprintf(f, "]},\n");
}

/* The capture's own part of report.json. */
static void capture_json(FILE *f, const llamp_capture_config_t *cfg, uint32_t nranks,
                         double simulated_time, const llamp_sched_stats_t *st, double build_s,
                         double analysis_s, const run_facts_t *facts) {
  /* T at the latency offsets asked for (LLAMP_DELTAS): what a what-if run
   * with LLAMP_DELTA_L compares with */
  fprintf(f, "  \"latency_offsets\": [");
  for (size_t i = 0; i < cfg->num_deltas; i++)
  {
    fprintf(f, "%s{\"dL\": %.12g", i ? ", " : "", cfg->deltas[i]);
    if (isfinite(facts->delta_T[i])) fprintf(f, ", \"runtime\": %.12g", facts->delta_T[i]);
    else fprintf(f, ", \"runtime\": null");
    if (isfinite(facts->delta_T_other[i])) fprintf(f, ", \"runtime_other_model\": %.12g", facts->delta_T_other[i]);
    fputc('}', f);
  }
  fprintf(f, "],\n");
  const int approximate = st->approximate ||
                          (cfg->colls && llamp_capture_colls_warn(cfg->colls, st->coll_calls, NULL));
  double lo, hi;
  llamp_capture_config_range(cfg, &lo, &hi);
  fprintf(f, "  \"capture\": {\n    \"ranks\": %u, \"records\": %llu, ", nranks,
          (unsigned long long)st->records);
  if (simulated_time >= 0) fprintf(f, "\"simulated_time\": %.12g, ", simulated_time);
  else fprintf(f, "\"simulated_time\": null, ");
  fprintf(f, "\"build_seconds\": %.3f, \"analysis_seconds\": %.3f,\n    \"config\": ", build_s,
          analysis_s);
  llamp_capture_json_str(f, cfg->config_path);
  fprintf(f, ", \"sweep_range\": [%.12g, %.12g],\n", lo, hi);
  facts_json(f, facts, simulated_time);
  /* which algorithm each collective was expanded with, and why */
  fprintf(f, "    \"collectives\": ");
  if (cfg->colls) {
    llamp_capture_colls_json(f, cfg->colls, st->coll_calls, "    ");
  } else {
    fputs("{\"spec\": ", f);
    llamp_capture_json_str(f, cfg->collectives[0] ? cfg->collectives : "default");
    fputs("}", f);
  }
  fprintf(f, ",\n    \"network_model\": ");
  if (cfg->net) {
    llamp_capture_net_json(f, cfg->net, "    ");
  } else {
    fputs("{\"kind\": ", f);
    llamp_capture_json_str(f, cfg->netfile.have_model ? "size-dependent" : "scalar");
    if (cfg->netfile.have_model) {
      fputs(", \"source\": ", f);
      llamp_capture_json_str(f, cfg->netfile.model.source);
    }
    fputs("}", f);
  }
  fprintf(f, ",\n");
  fprintf(f,
          "    \"collective_calls\": %llu, \"unresolved_wildcards\": %llu, \"unknown_requests\": %llu, "
          "\"dropped_calcs\": %llu, \"dropped_calc_time\": %.12g, \"back_to_back_sends\": %llu, "
          "\"back_to_back_time\": %.12g, \"rma_mutex_waits\": %llu, \"rma_mutex_wait_time\": %.12g, "
          "\"special_reductions\": %llu, \"unfollowed_reductions\": %llu, \"approximate\": %s,\n",
          (unsigned long long)st->collectives, (unsigned long long)st->unresolved_wildcards,
          (unsigned long long)st->unknown_requests, (unsigned long long)st->dropped_calcs,
          st->dropped_calc_time, (unsigned long long)st->bursts, st->burst_time,
          (unsigned long long)st->rma_waits, st->rma_wait_time,
          (unsigned long long)st->special_reductions, (unsigned long long)st->approx_reductions,
          approximate ? "true" : "false");
  fprintf(f, "    \"not_modelled\": [");
  for (size_t i = 0; i < st->num_unmodelled; i++) {
    fprintf(f, "%s{\"name\": ", i ? ", " : "");
    llamp_capture_json_str(f, st->unmodelled[i].name);
    fprintf(f, ", \"count\": %llu}", (unsigned long long)st->unmodelled[i].count);
  }
  fprintf(f, "],\n    \"kernels\": ");
  llamp_capture_kernels_json(f, "    ");
  fprintf(f, ",\n    \"local_calls\": [");
  const char **names = NULL;
  const uint64_t *counts = NULL;
  size_t nl = llamp_capture_session_locals(&names, &counts);
  for (size_t i = 0; i < nl; i++) {
    fprintf(f, "%s{\"name\": ", i ? ", " : "");
    llamp_capture_json_str(f, names[i]);
    fprintf(f, ", \"count\": %llu}", (unsigned long long)counts[i]);
  }
  fprintf(f, "]\n  }");
}

/* Write the engine's JSON with the capture section added as its last key. */
static int write_json(const char *path, const llamp_analysis_t *a, const llamp_capture_config_t *cfg,
                      uint32_t nranks, double simulated_time, const llamp_sched_stats_t *st,
                      double build_s, double analysis_s, const run_facts_t *facts, char *err,
                      size_t errlen) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m) {
    seterr(err, errlen, "out of memory for the report");
    return -1;
  }
  llamp_report_json(m, a);
  fclose(m);
  char *close = buf ? strrchr(buf, '}') : NULL;
  FILE *f = fopen(path, "w");
  if (!f || !close) {
    seterr(err, errlen, "%s: cannot write: %s", path, f ? "empty report" : strerror(errno));
    if (f) fclose(f);
    free(buf);
    return -1;
  }
  /* the body ends with "\n}\n": insert ",\n  \"capture\": {...}\n" before the brace */
  char *end = close;
  while (end > buf && (end[-1] == '\n' || end[-1] == ' ')) end--;
  fwrite(buf, 1, (size_t)(end - buf), f);
  fputs(",\n", f);
  capture_json(f, cfg, nranks, simulated_time, st, build_s, analysis_s, facts);
  fputs("\n}\n", f);
  free(buf);
  if (fclose(f) != 0) {
    seterr(err, errlen, "%s: write failed", path);
    return -1;
  }
  return 0;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Ranks sharing a host send transfers that only their start times tell
 * apart, and the first pairing takes those from the rule's DAG.  Paired
 * again from the observed DAG's starts (SimGrid's own once the pairing is
 * right) until the pairing no longer changes, at most 3 times: two ranks of
 * one host sending alike to another host's ranks had their durations
 * swapped.  *e and *obs are replaced.  0 / -1 with a message. */
static int observed_refine(const llamp_graph_t *g, llamp_engine_t **e, llamp_params_t *p, double **obs,
                           uint64_t *matched, uint64_t *messages, char *err, size_t errlen) {
  const sg_host_t *hosts;
  size_t nh = llamp_capture_session_hosts(&hosts);
  int shared = 0;
  for (size_t i = 0; i < nh && !shared; i++)
    for (size_t j = 0; j < i && !shared; j++) shared = hosts[i] == hosts[j];
  if (!shared) return 0;
  uint64_t n = llamp_graph_num_vertices(g);
  double *next = malloc((n ? n : 1) * sizeof *next);
  if (!next) {
    seterr(err, errlen, "out of memory for the observed transfer times");
    return -1;
  }
  int rc = 0;
  for (int round = 0; round < 3; round++) {
    if (llamp_capture_observed_times(g, *e, p, next, matched, messages, err, errlen)) {
      rc = -1;
      break;
    }
    if (!memcmp(next, *obs, n * sizeof *next)) break; /* the same pairing (NaNs alike: the same bits) */
    double *t = *obs;
    *obs = next;
    next = t;
    p->observed = *obs;
    llamp_engine_destroy(*e);
    if (!(*e = llamp_engine_create(g, p, err, errlen))) {
      rc = -1;
      break;
    }
  }
  free(next);
  return rc;
}

/* The distinct (sender << 32 | receiver) rank pairs of g's messages. */
static uint64_t *graph_rank_pairs(const llamp_graph_t *g, size_t *n) {
  uint64_t nv = llamp_graph_num_vertices(g), k = 0, sends = 0;
  for (uint64_t v = 0; v < nv; v++) sends += llamp_graph_kind(g, v) == LLAMP_VERTEX_SEND;
  uint64_t *rp = malloc((sends + 1) * sizeof *rp);
  if (!rp) return NULL;
  for (uint64_t v = 0; v < nv; v++)
    if (llamp_graph_kind(g, v) == LLAMP_VERTEX_SEND)
      rp[k++] = (uint64_t)llamp_graph_rank(g, v) << 32 | llamp_graph_rank(g, llamp_graph_partner(g, v));
  qsort(rp, k, sizeof *rp, cmp_u64);
  size_t u = 0;
  for (uint64_t i = 0; i < k; i++)
    if (!u || rp[i] != rp[u - 1]) rp[u++] = rp[i];
  *n = u;
  return rp;
}

void llamp_capture_sched_options(const llamp_capture_config_t *cfg, llamp_sched_options_t *so) {
  llamp_sched_options_default(so);
  so->collectives = cfg->colls ? cfg->colls->spec : cfg->collectives[0] ? cfg->collectives : NULL;
  so->reduce_cost = cfg->reduce_cost;
  so->source = "capture";
  so->burst_G = cfg->params.G;
}

int llamp_capture_analyze(const llamp_capture_config_t *cfg, llamp_trace_reader_t **readers,
                          uint32_t nranks, double simulated_time, FILE *summary,
                          llamp_capture_result_t *result, char *err, size_t errlen) {
  double t0 = wall();
  llamp_sched_options_t so;
  llamp_capture_sched_options(cfg, &so);
  double since = t0; /* the construction's stages (LLAMP_TIMING) */
  so.stage = llamp_capture_dag_stage;
  so.stage_ctx = &since;
  /* the builder's arrays (reserved up front, so they do not grow and leave
   * holes) and then the engine's, freed and allocated pass after pass: all
   * from the heap, whose pages are reused instead of faulted in again
   * (llamp_mem.h), until the analysis ends */
  llamp_mem_keep_freed();
  llamp_sched_stats_t st;
  memset(&st, 0, sizeof st);
  llamp_graph_t *g = llamp_sched_build(readers, nranks, &so, &st, err, errlen);
  if (!g) {
    llamp_sched_stats_free(&st);
    llamp_mem_return_freed();
    return -1;
  }
  return llamp_capture_analyze_graph(cfg, g, &st, nranks, t0, simulated_time, summary, result, err, errlen);
}

int llamp_capture_analyze_graph(const llamp_capture_config_t *cfg, llamp_graph_t *g, llamp_sched_stats_t *stp,
                                uint32_t nranks, double t0, double simulated_time, FILE *summary,
                                llamp_capture_result_t *result, char *err, size_t errlen) {
  llamp_capture_result_t res;
  memset(&res, 0, sizeof res);
  llamp_mem_keep_freed(); /* (again: a no-op when the caller kept it already) */
  llamp_sched_stats_t st = *stp; /* ours now, its names too */
  memset(stp, 0, sizeof *stp);
  /* large runs: the routes of the pairs the messages use (a subset table) */
  llamp_capture_config_t cfg_routes;
  llamp_topo_t *own_topo = NULL;
  double ts_pairs = wall();
  if (!cfg->topo && cfg->topo_for_pairs) {
    size_t n = 0;
    uint64_t *rp = graph_rank_pairs(g, &n);
    if (!rp || !(own_topo = cfg->topo_for_pairs(rp, n, err, errlen))) {
      if (!rp) seterr(err, errlen, "out of memory");
      free(rp);
      llamp_graph_destroy(g);
      llamp_sched_stats_free(&st);
      llamp_mem_return_freed();
      return -1;
    }
    free(rp);
    cfg_routes = *cfg;
    cfg_routes.topo = own_topo;
    cfg = &cfg_routes;
    llamp_capture_stage_done("DAG: the pairs' routes", &ts_pairs);
  }
  double t1 = wall();
  /* collectives used whose SimGrid algorithm the DAG does not reproduce */
  if (cfg->colls) {
    fflush(stdout);
    llamp_capture_colls_warn(cfg->colls, st.coll_calls, stderr);
  }
  res.records = st.records;
  res.vertices = llamp_graph_num_vertices(g);
  res.edges = llamp_graph_num_edges(g);
  res.messages = llamp_graph_num_messages(g);
  res.build_seconds = t1 - t0;

  int rc = -1;
  char path[2300], goal_path[2300], json_path[2300], csv_path[2300];
  snprintf(path, sizeof path, "%s/graph.llg", cfg->out_dir);
  snprintf(goal_path, sizeof goal_path, "%s/graph.goal", cfg->out_dir);
  snprintf(json_path, sizeof json_path, "%s/report.json", cfg->out_dir);
  snprintf(csv_path, sizeof csv_path, "%s/sweep.csv", cfg->out_dir);
  llamp_engine_t *e = NULL;
  classify_worker_t cw = {NULL, NULL};
  pthread_t cthread;
  int cls_thread = 0;
  llamp_classification_t cls;
  llamp_pairs_t *pairs = NULL;
  double *observed = NULL, T_rule = NAN, T_rule_dl[LLAMP_CAPTURE_MAX_TOL];
  for (size_t i = 0; i < LLAMP_CAPTURE_MAX_TOL; i++) T_rule_dl[i] = NAN;
  uint64_t obs_matched = 0, obs_messages = 0;
  llamp_capture_config_t *cfg_eff = NULL;
  llamp_breakpoint_t *bps = NULL;
  double *sx = NULL, *sT = NULL, *sl = NULL, *by_rank = NULL;
  llamp_pair_lambda_t *pair_lam = NULL;
  llamp_tolerance_t tol[LLAMP_CAPTURE_MAX_TOL];
  FILE *csv = NULL;
  files_job_t files = {g, path, cfg->write_goal ? goal_path : NULL, 0, ""};
  pthread_t fthread;
  int files_thread = 0;
  if (pthread_create(&fthread, NULL, files_run, &files) == 0) files_thread = 1;
  else files_run(&files); /* no thread: in line */
  llamp_params_t p = cfg->params;
  /* the NIC rule where a host's messages share its link (docs/model.md) */
  char nic_link[256] = "";
  const sg_host_t *nic_hosts;
  p.nic = cfg->nic_mode > 0 ||
          (cfg->nic_mode < 0 && llamp_capture_session_hosts(&nic_hosts) > 1 &&
           llamp_capture_host_links_shared(nic_link, sizeof nic_link));
  if (cfg->net && (cfg->net->active || (!cfg->L_given && !cfg->G_given))) {
    /* SimGrid's per-message costs and eager limit; with trivial factors too
     * unless the user chose L or G (their LogGPS model then): SMPI puts 16
     * bytes of envelope on the wire with every message, which only shows
     * where many messages queue on one link (a 4096-rank linear barrier:
     * 2 x 4095 x 16 B at 10 GB/s = 13 us) */
    p.net = &cfg->net->model;
    p.S = cfg->net->S;
  } else if (!cfg->net && cfg->netfile.have_model) { /* traces analysed outside a simulation */
    p.net = &cfg->netfile.model;
  }
  /* SMPI's protocol by size (smpi_request.cpp): from smpi/async-small-thresh
   * up (SMPI's default 0: every message) a transfer starts when its receive
   * is matched, below send-is-detached-thresh its sender goes on */
  if (cfg->net && cfg->net->have_A) {
    /* SMPI's transfers start once both sides are posted and cost one
     * latency: the direct rendezvous, whatever a model file asked for (an
     * RDMA read charged two more L per message above S: +11.6 % on a
     * 20 kB ping-pong under the calibrated model) */
    if (!p.rndv_direct && !cfg->quiet)
      fprintf(stderr, "smpi_llamp: the DAG follows SMPI's direct rendezvous (the model file's rdma-read is for "
                      "llamp analyze --rendezvous rdma-read)\n");
    p.rndv_direct = 1;
    p.async_small = 1;
    p.A = cfg->net->A;
    p.S = cfg->net->S;
  }
  llamp_topo_ref_t ref;
  int have_ref = 0;
  if (cfg->topo && cfg->topology == 0) {
    /* every message costs its route: per-pair costs around the platform's
     * reference point, which also gives L and G unless the user did */
    if (llamp_topo_reference(cfg->topo, NULL, 0, &ref, err, errlen)) goto out;
    have_ref = 1;
    if (!cfg->L_given) p.L = ref.L0;
    if (!cfg->G_given && ref.G0 > 0) p.G = ref.G0;
    if (!(pairs = llamp_topo_pairs(cfg->topo, NULL, 0, &ref, err, errlen))) goto out;
    p.pairs = pairs;
    for (uint32_t x = 0; x < pairs->num_params; x++) p.x[x] = pairs->ref[x];
  }
  /* what the rest of the report calls the model: the parameters analysed */
  llamp_capture_config_t *ecfg = malloc(sizeof *ecfg);
  if (!ecfg) {
    seterr(err, errlen, "out of memory");
    goto out;
  }
  *ecfg = *cfg;
  ecfg->params.L = p.L;
  ecfg->params.G = p.G;
  cfg_eff = ecfg;
  (void)have_ref;
  double ts = t1;
  e = llamp_engine_create(g, &p, err, errlen);
  if (!e) goto out;
  /* the observed contention model (docs/model.md, "Contention"): each
   * message's transfer as SimGrid ran it; the rule's T(L0) stays for the
   * report */
  const llamp_capture_transfer_t *transfers;
  if (cfg->contention && cfg->net && p.net && llamp_capture_observed(&transfers) > 0) {
    uint64_t nv = llamp_graph_num_vertices(g);
    llamp_eval_t rule;
    if (!(observed = malloc((nv ? nv : 1) * sizeof *observed))) {
      seterr(err, errlen, "out of memory for the observed transfer times");
      goto out;
    }
    if (llamp_capture_observed_times(g, e, &p, observed, &obs_matched, &obs_messages, err, errlen) ||
        llamp_engine_eval(e, &p, LLAMP_PARAM_L, &rule))
      goto out;
    T_rule = rule.T;
    for (size_t i = 0; i < cfg->num_deltas; i++) {
      llamp_params_t at = p;
      at.L = p.L + cfg->deltas[i];
      T_rule_dl[i] = llamp_engine_eval(e, &at, LLAMP_PARAM_L, &rule) == 0 ? rule.T : NAN;
    }
    llamp_engine_destroy(e);
    p.observed = observed;
    p.nic = 0; /* the transfers' times hold their sharing already */
    if (!(e = llamp_engine_create(g, &p, err, errlen))) goto out;
    if (observed_refine(g, &e, &p, &observed, &obs_matched, &obs_messages, err, errlen)) goto out;
    llamp_capture_stage_done("engine: observed transfers", &ts);
  }
  llamp_capture_observed_free();
  llamp_capture_stage_done("engine", &ts);
  /* C1-C5 (docs/classify.md): 19 more evaluations, so by default only up to
   * 2 M events; any other setting is the user's.  The thread starts now,
   * beside the point, the path and the critical latencies. */
  int auto_cls = strcmp(cfg->classify, "auto") == 0;
  int cls_skipped = auto_cls && res.vertices > 2000000; /* said in the summary */
  if (strcmp(cfg->classify, "off") && !cls_skipped) {
    llamp_params_t at = p;
    if ((auto_cls || llamp_classify_anchor(cfg->classify, &at, err, errlen) == 0) &&
        (cw.job = llamp_classify_job_create(g, &at, err, errlen)) && (cw.engine = llamp_engine_fork(e)) &&
        pthread_create(&cthread, NULL, classify_run, &cw) == 0)
      cls_thread = 1;
    else if (!cw.job)
      fprintf(stderr, "smpi_llamp: no classification: %s\n", err);
    /* without a thread the main one evaluates every configuration below */
  }

  llamp_analysis_t a;
  memset(&a, 0, sizeof a);
  a.graph_name = path;
  a.ranks = llamp_graph_num_ranks(g);
  a.vertices = res.vertices;
  a.edges = res.edges;
  a.messages = res.messages;
  a.params = p;
  if (llamp_engine_point(e, &p, &a.point)) {
    seterr(err, errlen, "out of memory evaluating the graph");
    goto out;
  }
  llamp_capture_stage_done("point (T, lambdas)", &ts);
  /* which ranks the critical path runs on: a study's "hosts that matter" */
  by_rank = calloc(a.ranks ? a.ranks : 1, sizeof *by_rank);
  if (by_rank && llamp_engine_path_by_rank(e, &p, by_rank) == 0) a.path_by_rank = by_rank;
  llamp_capture_stage_done("path by rank", &ts);
  /* per-pair latency sensitivities: report.json's "pair_sensitivities" (docs/topology.md) */
  if (llamp_engine_pair_lambda(e, &p, &pair_lam, &a.num_pair_lambda) == 0) a.pair_lambda = pair_lam;
  llamp_capture_stage_done("pair lambdas", &ts);
  double lo, hi;
  llamp_capture_config_range(cfg_eff, &lo, &hi);
  /* one parametric pass gives T(L) on [lo, hi]: the critical latencies, the
   * sweep and (when inside the range) the tolerances come from its lines */
  size_t nb = 0, nl = 0;
  llamp_line_t *lines = NULL;
  /* seconds to a minute on a graph of millions of vertices where T bends at
   * hundreds of latencies: a person watching learns what runs */
  if (isatty(2) && lo < hi && a.vertices >= 1000000) {
    char a_lo[32], a_hi[32];
    fprintf(stderr, "smpi_llamp: finding the critical latencies in [%s, %s] (-llamp-range narrows it) ...\n",
            llamp_units_format_time(lo, a_lo, sizeof a_lo), llamp_units_format_time(hi, a_hi, sizeof a_hi));
  }
  int have_env = llamp_engine_envelope(e, &p, LLAMP_PARAM_L, lo, hi, 0, &lines, &nl) == 0;
  if (have_env ? llamp_engine_envelope_breakpoints(lines, nl, &bps, &nb)
               : llamp_engine_breakpoints_es(e, &p, LLAMP_PARAM_L, lo, hi, &bps, &nb,
                                             &a.breakpoint_evaluations)) { /* not the envelope again */
    free(lines);
    seterr(err, errlen, "critical latency search failed (out of memory)");
    goto out;
  }
  if (have_env) a.breakpoint_evaluations = 1;
  else { /* the pieces between the breakpoints give the sweep and the tolerances (no lane pass) */
    llamp_params_t q = p;
    llamp_eval_t r0;
    q.L = lo;
    have_env = llamp_engine_eval(e, &q, LLAMP_PARAM_L, &r0) == 0 &&
               llamp_engine_breakpoint_lines(bps, nb, lo, r0.T, r0.slope_right, &lines, &nl) == 0;
  }
  llamp_report_slow_range(stderr, "smpi_llamp", NULL, bps, nb, lo, hi, wall() - ts, /* since the last stage */
                          "-llamp-range LMIN:LMAX narrows it (docs/capture.md)");
  llamp_capture_stage_done(have_env && a.breakpoint_evaluations == 1 ? "critical latencies" : "critical latencies (ES)", &ts);
  a.have_range = 1;
  a.range_lo = lo;
  a.range_hi = hi;
  a.breakpoints = bps;
  a.num_breakpoints = nb;
  for (size_t i = 0; i < cfg->num_tolerance; i++) {
    double x = 0, tmax = (1 + cfg->tolerance[i] / 100) * a.point.T;
    int unb = 0;
    if (!(have_env && llamp_engine_envelope_solve(lines, nl, lo, hi, tmax, &x)) &&
        llamp_engine_budget(e, &p, LLAMP_PARAM_L, tmax, &x, &unb, NULL)) {
      x = 0;
      unb = 0;
    }
    tol[i] = (llamp_tolerance_t){cfg->tolerance[i], x, unb};
  }
  llamp_capture_stage_done("tolerances", &ts);
  a.tolerance[LLAMP_PARAM_L] = tol;
  a.num_tolerance = cfg->num_tolerance;
  size_t k = cfg->sweep_points < 2 ? 2 : cfg->sweep_points;
  sx = malloc(k * sizeof *sx);
  sT = malloc(k * sizeof *sT);
  sl = malloc(k * sizeof *sl);
  if (!sx || !sT || !sl) {
    free(lines);
    seterr(err, errlen, "out of memory for %zu sweep points", k);
    goto out;
  }
  for (size_t i = 0; i < k; i++) sx[i] = lo + (hi - lo) * (double)i / (double)(k - 1);
  if (have_env) {
    for (size_t i = 0; i < k; i++) llamp_engine_envelope_eval(lines, nl, sx[i], &sT[i], &sl[i]);
  } else if (llamp_engine_sweep(e, &p, LLAMP_PARAM_L, sx, k, sT, sl)) {
    seterr(err, errlen, "out of memory during the sweep");
    goto out;
  }
  free(lines);
  llamp_capture_stage_done("sweep", &ts);
  if (cw.job) {
    double t_cls = ts;
    llamp_classify_job_work(cw.job, e);
    if (cls_thread) pthread_join(cthread, NULL);
    cls_thread = 0;
    if (llamp_classify_job_finish(cw.job, NULL, &cls, err, errlen) == 0) a.classification = &cls;
    else fprintf(stderr, "smpi_llamp: no classification: %s\n", err);
    llamp_capture_stage_done("classification (rest)", &t_cls);
    ts = t_cls;
  }
  if (files_join(&fthread, &files_thread, &files, err, errlen)) goto out;
  llamp_capture_stage_done("graph files (rest)", &ts);
  double t2 = wall();
  res.analysis_seconds = t2 - t1;
  res.T = a.point.T;
  res.lambda_L = a.point.lambda[LLAMP_PARAM_L];
  res.rho_L = a.point.rho_L;

  /* sweep.csv: the sweep alone */
  llamp_analysis_t s = a;
  s.have_range = 0;
  s.num_breakpoints = 0;
  s.sweep_x = sx;
  s.sweep_T = sT;
  s.sweep_lambda = sl;
  s.num_sweep = k;
  if (!(csv = fopen(csv_path, "w"))) {
    seterr(err, errlen, "%s: cannot write: %s", csv_path, strerror(errno));
    goto out;
  }
  llamp_report_csv(csv, &s);
  if (fclose(csv) != 0) {
    csv = NULL;
    seterr(err, errlen, "%s: write failed", csv_path);
    goto out;
  }
  csv = NULL;
  /* report.json: everything, plus what the capture saw */
  a.sweep_x = sx;
  a.sweep_T = sT;
  a.sweep_lambda = sl;
  a.num_sweep = k;
  run_facts_t facts;
  cfg_eff->contention = observed != NULL; /* the model that ran, for the known causes */
  facts_of_run(cfg_eff, &st, simulated_time, a.point.T, &facts);
  facts.observed = observed != NULL;
  facts.obs_matched = obs_matched, facts.obs_messages = obs_messages;
  facts.T_other = T_rule;
  for (size_t i = 0; i < cfg->num_deltas; i++) {
    llamp_params_t at = p;
    llamp_eval_t r;
    at.L = p.L + cfg->deltas[i];
    facts.delta_T[i] = llamp_engine_eval(e, &at, LLAMP_PARAM_L, &r) == 0 ? r.T : NAN;
    facts.delta_T_other[i] = T_rule_dl[i];
  }
  if (write_json(json_path, &a, cfg_eff, nranks, simulated_time, &st, res.build_seconds,
                 res.analysis_seconds, &facts, err, errlen))
    goto out;

  if (st.approx_reductions)
    fprintf(stderr,
            "smpi_llamp: warning: %llu reduction calls with a non-commutative operation: SimGrid's "
            "algorithm for them differs from the DAG's (approximate; docs/collectives.md)\n",
            (unsigned long long)st.approx_reductions);
  if (facts.suspicious) {
    char b1[64], b2[64];
    fprintf(stderr,
            "smpi_llamp: warning: the simulation kept %s of compute for %s the program spent computing "
            "(under 1 %%): %s; check smpi/host-speed and smpi/simulate-computation (docs/capture.md, "
            "\"Compute\")\n",
            llamp_units_format_time(facts.simulated, b1, sizeof b1),
            llamp_units_format_time(facts.measured, b2, sizeof b2), facts.compute->description);
  }
  /* replayed 1:1, what is missing is the bursts below smpi/cpu-threshold,
   * which SMPI drops (a fine-grained pipeline: a third of PRK's p2p).  Short
   * bursts between two reads of the clock are a loop waiting for time to
   * pass: it spins until the simulated clock has moved, so their CPU time is
   * not compute lost, and it is said apart. */
  if (!facts.suspicious && facts.compute && facts.compute->inject && !strcmp(facts.compute->kind, "replay")) {
    double work = facts.measured - facts.clock_wait, lost = work - facts.simulated;
    char b1[64], b2[64], b3[64];
    llamp_units_format_time(facts.compute->threshold, b3, sizeof b3);
    if (work > 1e-3 && lost > 0.1 * work)
      fprintf(stderr,
              "smpi_llamp: warning: %s of the %s the program spent computing (%.0f %%) was in bursts "
              "between MPI calls shorter than smpi/cpu-threshold (%s): SimGrid drops them, and so does "
              "the DAG; --cfg=smpi/cpu-threshold:0 keeps them (docs/capture.md, \"Compute\")\n",
              llamp_units_format_time(lost, b1, sizeof b1), llamp_units_format_time(work, b2, sizeof b2),
              100 * lost / work, b3);
    if (facts.measured > 1e-3 && facts.clock_wait > 0.1 * facts.measured)
      fprintf(stderr,
              "smpi_llamp: note: %s of CPU time (%.0f %% of the measured) went to %llu bursts shorter than "
              "smpi/cpu-threshold (%s) between two reads of the clock: a loop waiting for time to pass, "
              "which spins until the simulated clock moves, not compute the DAG lacks "
              "(docs/capture.md, \"Compute\")\n",
              llamp_units_format_time(facts.clock_wait, b1, sizeof b1), 100 * facts.clock_wait / facts.measured,
              (unsigned long long)facts.clock_wait_n, b3);
  }
  if (summary) {
    char b1[64];
    fprintf(summary, "smpi_llamp: %u ranks, %llu records -> %llu vertices, %llu messages (%.2f s)\n",
            nranks, (unsigned long long)st.records, (unsigned long long)res.vertices,
            (unsigned long long)res.messages, res.build_seconds + res.analysis_seconds);
    for (size_t i = 0; i < st.num_unmodelled; i++)
      fprintf(summary, "smpi_llamp: not modelled: %s x %llu\n", st.unmodelled[i].name,
              (unsigned long long)st.unmodelled[i].count);
    if (cfg->colls) {
      /* one line: the algorithms of the collectives used, and every doubt */
      int n = 0;
      fprintf(summary, "smpi_llamp: collectives as SimGrid ran them (selector %s):",
              cfg->colls->selector);
      for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++)
        if (st.coll_calls[k])
          fprintf(summary, "%s %s=%s%s", n++ ? "," : "", llamp_coll_kind_name((llamp_coll_kind_t)k),
                  cfg->colls->kind[k].algo->name, cfg->colls->kind[k].modelled ? "" : " (NOT SimGrid's)");
      fprintf(summary, "%s\n", n ? "" : " none used");
    }
    if (st.unresolved_wildcards || st.unknown_requests)
      fprintf(summary, "smpi_llamp: approximate: %llu unresolved wildcard receives, %llu unknown requests\n",
              (unsigned long long)st.unresolved_wildcards, (unsigned long long)st.unknown_requests);
    if (observed)
      fprintf(summary, "smpi_llamp: contention as SimGrid ran it: %llu of %llu messages cost their transfer's "
                       "observed time, L and G as offsets (-llamp-contention rule: T(L0) %+.2f %% from this)\n",
              (unsigned long long)obs_matched, (unsigned long long)obs_messages, 100 * (T_rule / a.point.T - 1));
    if (p.nic && nic_link[0])
      fprintf(summary, "smpi_llamp: NIC rule on: link %s carries one host's messages to two peers, as a "
                       "host link does (-llamp-nic no to turn it off; docs/model.md)\n", nic_link);
    else if (p.nic)
      fprintf(summary, "smpi_llamp: NIC rule on (-llamp-nic yes)\n");
    a.num_sweep = 0; /* the sweep is in sweep.csv */
    a.graph_name = path;
    llamp_report_text(summary, &a);
    if (cls_skipped)
      fprintf(summary, "class: not computed by default above 2 M events (19 more evaluations); "
                       "-llamp-classify here computes it (docs/classify.md)\n");
    if (facts.compute)
      fprintf(summary, "smpi_llamp: %s; %s of compute simulated", facts.compute->description,
              llamp_units_format_time(facts.simulated, b1, sizeof b1));
    if (facts.compute && facts.measured > 0) {
      char b2[64];
      fprintf(summary, " for %s measured", llamp_units_format_time(facts.measured, b2, sizeof b2));
      if (facts.clock_wait >= 0.01 * facts.measured) /* a timing loop's few bursts: not worth a word */
        fprintf(summary, " (%s of it waiting on the clock)",
                llamp_units_format_time(facts.clock_wait, b2, sizeof b2));
      fputc('\n', summary);
    } else if (facts.compute) {
      fputc('\n', summary);
    }
    llamp_capture_kernels_summary(summary);
    if (simulated_time >= 0) {
      char b2[64];
      fprintf(summary, "smpi_llamp: SimGrid simulated %s, the DAG predicts T = %s at the model's parameters: %+.2f %%\n",
              llamp_units_format_time(simulated_time, b1, sizeof b1),
              llamp_units_format_time(a.point.T, b2, sizeof b2), 100 * facts.difference);
      if (fabs(facts.difference) > 0.01) {
        if (facts.reasons.n == 0)
          fprintf(summary, "smpi_llamp:   the capture knows no cause for this difference of over 1 %%\n");
        for (size_t i = 0; i < facts.reasons.n; i++)
          fprintf(summary, "smpi_llamp:   known cause: %s\n", facts.reasons.reason[i]);
      }
    }
    fprintf(summary, "smpi_llamp: wrote %s, %s%s%s, %s\n", path, cfg->write_goal ? goal_path : "",
            cfg->write_goal ? ", " : "", json_path, csv_path);
  }
  rc = 0;
out:
  if (csv) fclose(csv);
  free(sx);
  free(sT);
  free(sl);
  free(by_rank);
  free(pair_lam);
  free(bps);
  if (cls_thread) pthread_join(cthread, NULL); /* an error left the classification running */
  if (files_thread) pthread_join(fthread, NULL); /* likewise the graph files */
  llamp_engine_destroy(cw.engine);
  llamp_classify_job_free(cw.job);
  if (e) llamp_engine_destroy(e);
  free(observed);
  llamp_pairs_free(pairs);
  free(cfg_eff);
  llamp_topo_destroy(own_topo);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);
  llamp_mem_return_freed();
  if (result) *result = res;
  return rc;
}
