/* llamp_capture.h - the capture layer's process-wide runtime: configuration,
 * the session shared by all ranks of one smpirun, and the analysis run at
 * the last MPI_Finalize (records -> DAG -> engine -> report files).
 *
 * The capture layer has two halves:
 *   per rank     the generated PMPI wrappers and the pointer to the rank's
 *                state (capture_copy.c), linked INTO the program so that
 *                SMPI's dlopen privatization gives each rank its own copy
 *                (libsmpi_llamp_capture.a, linked with --whole-archive);
 *   per process  this header (libsmpi_llamp_capture_rt.so): one copy shared
 *                by all ranks, which are coroutines of one OS thread; it
 *                holds the configuration, every rank's trace writer, the
 *                communicator-id registry, the wrappers' helpers
 *                (capture_rank.c, working on the current rank's state), and
 *                runs the analysis.
 * Nothing here takes locks: SMPI runs one rank at a time (the parallel
 * simulation of contexts/nthreads > 1 is not supported).
 *
 * Error rule: int functions return 0 / -1 with a one-line reason in the
 * caller's `err` buffer; llamp_capture_fatal prints one line and ends the
 * whole simulation (used for configuration errors found inside a run, where
 * no caller could handle them). */
#ifndef LLAMP_CAPTURE_H
#define LLAMP_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "llamp_engine.h"
#include "llamp_netmodel.h"
#include "llamp_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LLAMP_CAPTURE_MAX_TOL 16

/* What to analyse and where to write it.  Sources, later ones winning:
 * built-in defaults, the libconfig file (LLAMP_CONFIG, else the bundled
 * models/default.cfg), then the LLAMP_* environment variables that
 * smpi_llamp-run sets from its options (docs/capture.md lists them). */
typedef struct llamp_capture_colls llamp_capture_colls_t;
typedef struct llamp_capture_net llamp_capture_net_t;
struct llamp_topo;

typedef struct {
  char out_dir[2048];      /* LLAMP_OUT, default "llamp-out" */
  char config_path[2048];  /* the model file read ("" = none) */
  llamp_params_t params;   /* LogGPS parameters of the analysis */
  char collectives[1024];  /* "allreduce=ring,..." ("" = defaults) */
  int contention;          /* LLAMP_CONTENTION: 1 observed (default: each message costs the
                              transfer time SimGrid gave it, link sharing included, with L
                              and G as offsets), 0 rule (the NIC rule below) */
  int nic_mode;            /* LogGP's NIC rule (LLAMP_NIC): -1 auto (default: on when a
                              host's routes to two peers share a link), 0 off, 1 on */
  char classify[128];      /* C1-C5 anchor (llamp_classify.h): "auto" (default: "here" for
                              graphs up to 2 M events), "off", here, e1g, e10g, qdr, BW@L */
  double reduce_cost;      /* s per byte reduced in collectives (default 0) */
  int have_range;          /* 0: default range [0, 10 L] */
  double range_lo, range_hi;
  double tolerance[LLAMP_CAPTURE_MAX_TOL]; /* percents, default 1 2 5 */
  double deltas[LLAMP_CAPTURE_MAX_TOL];    /* LLAMP_DELTAS: report.json's T(L + dL) at these dL */
  size_t num_deltas;
  double delta_L;                          /* LLAMP_DELTA_L: SimGrid charges every message's
                                              latency this much more (what-if runs; 0: off) */
  size_t num_tolerance;
  unsigned sweep_points;   /* sweep.csv rows over the range, default 101 */
  uint32_t full_routes_hosts; /* up to this many hosts, routes.txt holds every host pair
                                 (default 1024; above: the pairs used, docs/topology.md) */
  int write_goal;          /* also write graph.goal (default 0) */
  int analyze;             /* 0: only write the traces (default 1) */
  size_t spill_bytes;      /* per-rank trace memory before spilling, default 64 MiB */
  int prefault;            /* fault in the analysis's memory during the simulation on the
                              idle core (llamp_mem_warm_start; default 1; with compute
                              measured, only when a second core is online) */
  int stream;              /* build the DAG during the simulation on the idle core
                              (stream.c; default 1; under the same condition and up
                              to LLAMP_CAPTURE_STREAM_MAX_RANKS ranks) */
  int quiet;               /* 1: no summary on stdout (files only) */
  int smpi_cpu_timer;      /* 1: keep SMPI's thread-CPU clock reads at every MPI call
                              (default 0: libsimgrid's reads of that clock are answered
                              from CLOCK_MONOTONIC; compute.c) */
  int compute;             /* llamp_compute_mode_t (LLAMP_COMPUTE, default auto) */
  double measured_host_speed; /* flop/s of this machine (LLAMP_MEASURED_HOST_SPEED; 0 = unknown) */
  /* What SimGrid runs for each collective, resolved at MPI_Init
   * (capture_internal.h); NULL: the DAG expands `collectives` (trace files
   * analysed outside a simulation). */
  const llamp_capture_colls_t *colls;
  /* The model file's smpi / network groups (docs/models.md), and what
   * SimGrid charges per message, resolved at MPI_Init (capture_internal.h):
   * NULL outside a simulation (then `netfile`'s model, if any, is used). */
  llamp_netmodel_file_t netfile;
  const llamp_capture_net_t *net;
  /* Topology (docs/topology.md): 0 auto = every message costs its route
   * (per-pair costs from the platform, which also gives L and G unless the
   * user did: L_given, G_given = set by LLAMP_L/LLAMP_G or a model file of
   * their own); 1 off = one L and G for every message. */
  int topology;
  int L_given, G_given;
  /* The routes between the ranks' hosts, read from SimGrid at the end of
   * the run (NULL: trace files analysed outside a simulation). */
  const struct llamp_topo *topo;
  /* Large runs (docs/topology.md, "Large runs"): with topo NULL and this
   * set, the analysis asks it for the routes of the rank pairs its graph's
   * messages use, once the graph is built (the full table is quadratic in
   * the hosts).  The callee writes routes.txt; the caller frees the table. */
  struct llamp_topo *(*topo_for_pairs)(const uint64_t *rank_pairs, size_t n, char *err, size_t errlen);
} llamp_capture_config_t;

void llamp_capture_config_default(llamp_capture_config_t *cfg);
/* Read a libconfig model file (models/NAME.cfg): groups `loggps`, `analysis`,
 * `capture`; numbers are SI, strings may carry units ("1us", "10GBps").
 * Fails naming the file, line and setting. */
int llamp_capture_config_load(llamp_capture_config_t *cfg, const char *path, char *err,
                              size_t errlen);
/* Defaults, then the model file, then the LLAMP_* variables of `getenv`. */
int llamp_capture_config_from_env(llamp_capture_config_t *cfg, char *err, size_t errlen);
/* Effective range: [range_lo, range_hi], or [0, 10 L] when not set. */
void llamp_capture_config_range(const llamp_capture_config_t *cfg, double *lo, double *hi);

/* ---- the session (one per smpirun) ------------------------------------------ */

/* Called by every rank at MPI_Init.  The first call reads the configuration,
 * creates <out>/ and <out>/trace/, and checks SMPI's privatization mode;
 * `rank_state` is the address of the rank's private state, which must differ
 * between ranks (else the program's globals are shared: wrong mode).  Returns
 * the rank's trace writer, or NULL with a message. */
llamp_trace_writer_t *llamp_capture_session_join(uint32_t rank, uint32_t world_size,
                                                 const void *rank_state, char *err,
                                                 size_t errlen);
const llamp_capture_config_t *llamp_capture_session_config(void);

/* Communicator ids agreed by all members without communication: the first
 * rank to present a key gets a new id, later ones the same id. */
uint32_t llamp_capture_comm_id(const uint64_t *key, size_t nkey);

/* MPI_Comm_split's colors (capture_rank.c): each member of the parent
 * registers its (color, key; -1 = MPI_UNDEFINED) for the parent's call `seq`
 * before calling PMPI; the parent's rank 0 takes the table afterwards (the
 * arrays become the caller's to free), -1 when some member is missing. */
int llamp_capture_split_register(uint32_t parent, uint64_t seq, uint32_t size, uint32_t pos,
                                 int32_t world, int32_t color, int32_t key);
int llamp_capture_split_take(uint32_t parent, uint64_t seq, uint32_t *size, int32_t **color,
                             int32_t **key, int32_t **world);

/* One-sided data (capture_rank.c): SMPI 3.32 pushes the receive of a Put or
 * Accumulate into the target's window, where the target's next
 * MPI_Win_fence, MPI_Win_wait or MPI_Win_free waits for it; the target makes
 * no call per message.  The origin announces each message (window = its
 * communicator id and index there; `epoch` = the fences the origin has
 * completed on it); the target takes those of its window with epoch <=
 * max_epoch, in the order sent: `out` gets (origin, bytes) pairs, at most
 * `max` (count them first with llamp_capture_rma_pending). */
int llamp_capture_rma_announce(uint32_t comm, uint32_t win, uint32_t origin, uint32_t target,
                               uint64_t bytes, uint32_t epoch);
size_t llamp_capture_rma_pending(uint32_t comm, uint32_t win, uint32_t target, uint32_t max_epoch);
size_t llamp_capture_rma_take(uint32_t comm, uint32_t win, uint32_t target, uint32_t max_epoch,
                              uint64_t *out, size_t max);

/* Local-only MPI functions (MPI_Comm_rank ...) are not traced; their counts
 * go to report.json.  `name` must stay valid (a string literal). */
void llamp_capture_count_local(const char *name, uint64_t count);

/* Called by every rank after PMPI_Finalize: flushes its trace; the last rank
 * runs the analysis (see llamp_capture_analyze) with the simulated time.
 * Returns 1 when this was the last rank, 0 before, -1 on failure. */
int llamp_capture_session_leave(uint32_t rank, double simulated_time, char *err, size_t errlen);

/* libsimgrid's own definition of `sym` (dlsym on libsimgrid and what it
 * loaded: the program's copies may bind the same name elsewhere), NULL when
 * absent.  libsimgrid is found once per process: dladdr on it scans its
 * ~100 k symbols, 0.2 ms, which every rank's copy used to pay again. */
void *llamp_capture_simgrid_sym(const char *sym);

/* Print "smpi_llamp: <message>" on stderr and end the simulation (exit 1). */
void llamp_capture_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* ---- the analysis (also usable on trace files) ------------------------------- */

typedef struct {
  uint64_t records, vertices, edges, messages;
  double T;            /* predicted runtime at cfg->params */
  double lambda_L, rho_L;
  double build_seconds, analysis_seconds; /* wall clock */
} llamp_capture_result_t;

/* Build the DAG from `nranks` trace readers, analyse it under cfg and write
 * cfg->out_dir/{graph.llg, graph.goal (on request), report.json, sweep.csv};
 * print the short report on `summary` (NULL: none).  `simulated_time` < 0
 * means unknown. */
int llamp_capture_analyze(const llamp_capture_config_t *cfg, llamp_trace_reader_t **readers,
                          uint32_t nranks, double simulated_time, FILE *summary,
                          llamp_capture_result_t *result, char *err, size_t errlen);

/* ---- why SimGrid and the DAG may differ (diagnose.c) ------------------------ */
#define LLAMP_CAPTURE_MAX_REASONS 8
typedef struct {
  size_t n;
  char reason[LLAMP_CAPTURE_MAX_REASONS][480];
} llamp_capture_reasons_t;
/* The causes of a difference between the simulated time and T(L0) that the
 * capture can see at the end of the run, one sentence each with its numbers:
 * `not_modelled` (a summary of the calls the DAG does not model, "" none),
 * SMPI network settings the LogGPS model does not share (factors, overheads,
 * eager thresholds), route latencies and bandwidths unlike L and G, ranks
 * sharing hosts, links shared between routes (contention).  Call it from the
 * last rank's MPI_Finalize (it asks SimGrid for the routes). */
/* 1 when one of the ranks' hosts reaches two other hosts through a common
 * link (its link to a cluster, say): the NIC rule's case.  Names the link. */
int llamp_capture_host_links_shared(char *link, size_t len);
void llamp_capture_diagnose(const llamp_capture_config_t *cfg, const char *not_modelled,
                            llamp_capture_reasons_t *out);

/* SimGrid's smpi/privatization setting ("dlopen", "mmap", "no", "1" ...), or
 * "" when it cannot be read (sg_config.cpp). */
const char *llamp_capture_sg_privatization(void);
/* Any string setting of SimGrid ("smpi/coll-selector", "smpi/allreduce"):
 * its value ("" when unset), or NULL when SimGrid has no such setting; valid
 * for the next 7 calls.  Whether a setting still has its default value (1, 0,
 * -1 unknown), and setting a boolean one (0 / -1).  (sg_config.cpp) */
const char *llamp_capture_sg_string(const char *name);
/* Any setting's value as text, whatever its type (numbers, booleans); NULL
 * when SimGrid has no such setting; valid until the next call. */
const char *llamp_capture_sg_value(const char *name);
int llamp_capture_sg_is_default(const char *name);
int llamp_capture_sg_set_bool(const char *name, int value);
int llamp_capture_sg_set_string(const char *name, const char *value);

/* ---- compute: how the program's CPU bursts become simulated time ------------- *
 * SMPI times the code between two MPI calls itself when smpi/simulate-computation
 * is on, but it also times the few microseconds between the capture's wrapper
 * and the PMPI call, and charges them inside the call where the DAG cannot see
 * them.  So the capture takes the timing over: it turns SMPI's timing off, times
 * each burst between two MPI calls with the thread CPU clock (as SMPI does),
 * drops those below smpi/cpu-threshold (as SMPI does) and executes the rest on
 * the rank's host.  Every second of compute SimGrid simulates is then a gap
 * between two records: the DAG's calc vertices.  docs/capture.md, "Compute". */
typedef enum {
  LLAMP_COMPUTE_AUTO,     /* replay 1:1, or measured when host speeds differ */
  LLAMP_COMPUTE_REPLAY,   /* a measured second is a simulated second on every host */
  LLAMP_COMPUTE_MEASURED, /* seconds x this machine's flop rate, run at each host's speed */
  LLAMP_COMPUTE_NONE      /* not timed: only smpi_execute* calls of the program */
} llamp_compute_mode_t;

typedef struct {
  int inject;           /* 1: the capture times and executes bursts */
  double rate;          /* flop per measured second; 0 = the rank's own host speed */
  double threshold;     /* bursts below this (s) are dropped (smpi/cpu-threshold) */
  const char *kind;     /* "replay", "measured", "host-speed", "none" */
  double host_speed_min, host_speed_max; /* the platform's hosts, flop/s */
  const char *smpi_timer; /* what answers SMPI's per-call thread-CPU reads: "monotonic"
                             (the capture's default) or "cpu" (SMPI's own) */
  const char *cpu_clock;  /* how the capture reads the thread's CPU time (inject only):
                             "anchored" (a system call only after a context switch,
                             llamp_cpuclock.h) or "syscall" (every read) */
  char description[700];  /* one line for people: what was done, and why */
} llamp_capture_compute_t;

/* Decide once per run (the first rank's MPI_Init): reads cfg->compute, the
 * SimGrid settings and the platform's host speeds, turns SMPI's own timing
 * off when the capture injects, prints the decision on stderr (unless quiet).
 * NULL with a reason on a setting it cannot read. */
const llamp_capture_compute_t *llamp_capture_compute_setup(const llamp_capture_config_t *cfg,
                                                           char *err, size_t errlen);
const llamp_capture_compute_t *llamp_capture_compute_get(void);
/* "6.8e9", "6.8Gf", "20000f", "1.5 Gflops" (SimGrid's speed units) -> flop/s. */
int llamp_capture_parse_flops(const char *text, double *flops);
/* Each rank's totals at MPI_Finalize: CPU seconds measured in its bursts (wall
 * seconds when not injecting), the compute seconds simulated (the gaps), and
 * of the measured seconds those of bursts under the threshold between two
 * reads of the clock (a loop waiting for time to pass; how many it spins
 * follows the simulated clock), with their number. */
void llamp_capture_compute_add(double measured_s, double simulated_s, double clock_wait_s,
                               uint64_t clock_wait_bursts);
void llamp_capture_compute_totals(double *measured_s, double *simulated_s);
void llamp_capture_compute_clock_wait(double *seconds, uint64_t *bursts);

/* ---- kernel models: annotated regions and BLAS calls (kernels.c) -------------- *
 * Stochastic kernel models (smpi_llamp/kmodel, docs/models.md "Kernel
 * models") from LLAMP_KERNELS (-llamp-kernels FILE) or the `kernels` group
 * of the model file.  Each rank draws from its own GSL stream, seeded from
 * the run's seed (LLAMP_SEED, -llamp-seed; printed) and its rank, so a draw
 * never depends on the order SimGrid runs the ranks in. */
/* Read once at the first MPI_Init (after the compute decision); prints the
 * models' source and the seed unless quiet.  -1 with a message. */
int llamp_capture_kernels_setup(const llamp_capture_config_t *cfg, char *err, size_t errlen);
/* 1 when some kernel model is loaded; *blas: what happens to BLAS calls with
 * a model (LLAMP_KERNEL_BLAS): 0 off (they run, timed), 1 skip (default:
 * skipped, the draw charged; ddot still runs), 2 time (they run, their time
 * replaced by the draw). */
int llamp_capture_kernels_active(int *blas);
/* The model of kernel `name` on world rank `rank`'s host: a handle >= 0, or
 * -1 when none covers it (the code then runs and is timed as compute). */
int llamp_capture_kernel_find(uint32_t rank, const char *name);
/* One call's duration (s) drawn from rank `rank`'s stream; *flops > 0 when
 * the model is relative to the host speed (inject flops, not seconds). */
double llamp_capture_kernel_draw(uint32_t rank, int handle, double d1, double d2, double d3,
                                 double *flops);
/* The run's seed (0 before setup). */
uint64_t llamp_capture_seed(void);
/* report.json's "kernels" object (no trailing newline); the summary line. */
void llamp_capture_kernels_json(FILE *f, const char *indent);
void llamp_capture_kernels_summary(FILE *f);

#ifdef __cplusplus
}
#endif
#endif
