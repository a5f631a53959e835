/* native_session.c - the process-wide half of the capture layer for real MPI
 * runs (MPICH, LD_PRELOAD; docs/native.md).  It implements what
 * capture_rank.c needs from llamp_capture.h, and the clock alignment.
 *
 * Natively every rank is its own process, so "per rank" and "per process"
 * coincide: the rank's state is capture_rank.c's globals, this file's
 * globals hold the rank's writer, and there is nothing to share between
 * ranks at run time:
 *   - communicator ids are a hash of the key all members compute alike
 *     (SMPI's runtime hands out sequential ids from one registry instead);
 *   - every rank flushes rank-<r>.llt and writes rank-<r>.clock at its own
 *     MPI_Finalize; `llamp build DIR` makes the DAG later.
 *
 * Clock.  Record times are CLOCK_MONOTONIC plus a per-rank offset to rank
 * 0's clock, estimated right after PMPI_Init by ping-pong with rank 0
 * (NTP-style: K rounds, the round with the smallest round trip wins; the
 * offset is then known to within half of that round trip).  capture_rank.c
 * is compiled with PMPI_Init, PMPI_Init_thread and PMPI_Finalize renamed to
 * the llamp_native_pmpi_* functions below (native/CMakeLists.txt), so the
 * estimation runs inside the MPI_Init record (it is neither compute nor a
 * message of the application) and a second estimate, for the drift, inside
 * the MPI_Finalize record. */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "llamp_capture.h"
#include "llamp_units.h"
#include "simgrid/engine.h"

double llamp_native_clock_offset = 0; /* seconds added to CLOCK_MONOTONIC */

/* Marker for llamp-trace's sanity check (the library is the right file). */
__attribute__((used)) const char llamp_native_capture_marker[] = "llamp-native-capture";

#define MAX_LOCALS 256
#define SYNC_TAG 32767

static struct {
  int joined, left;
  uint32_t rank, world;
  char dir[4096];
  llamp_trace_writer_t *w;
  /* clock alignment */
  int sync_on;
  int rounds;
  uint64_t run_id;
  double offset, uncertainty, rtt;             /* at MPI_Init (applied) */
  double offset_end, uncertainty_end, rtt_end; /* at MPI_Finalize (recorded only) */
  double t_init, t_final;                      /* CLOCK_MONOTONIC of the two estimates */
  double sync_seconds;                         /* what the estimate at MPI_Init took */
  double span_begin, span_end; /* record clock: MPI_Init returns, MPI_Finalize is called */
  int have_end;
  const char *local_names[MAX_LOCALS];
  uint64_t local_counts[MAX_LOCALS];
  size_t nlocals;
} N = {.rounds = 16};

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

void llamp_capture_fatal(const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  fprintf(stderr, "llamp-trace: rank %u: ", N.rank);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  int init = 0, fin = 0;
  PMPI_Initialized(&init);
  PMPI_Finalized(&fin);
  if (init && !fin) PMPI_Abort(MPI_COMM_WORLD, 1);
  _exit(1);
}

/* ---- clock alignment ------------------------------------------------------------ */

/* Offset of every rank's clock to rank 0's (rank 0 leads): for rank r, K+1
 * rounds of rank 0 sending at t1, r stamping receipt T2 and reply T3, rank 0
 * receiving at t4; round 0 warms up.  Per round
 *     delay = (t4 - t1) - (T3 - T2),  theta = ((T2 - t1) + (T3 - t4)) / 2
 * (theta = r's clock - 0's clock); the round of least delay gives the
 * estimate, exact to within delay / 2 whatever the asymmetry of the two
 * directions.  Rank 0 sends r (-theta, delay / 2, delay).  Ranks are served
 * one after the other on a private duplicate of MPI_COMM_WORLD. */
static void clock_sync(int final, double *offset, double *unc, double *rtt) {
  MPI_Comm c;
  (void)final;
  PMPI_Comm_dup(MPI_COMM_WORLD, &c);
  *offset = 0;
  *unc = 0;
  *rtt = 0;
  if (N.rank == 0) {
    for (uint32_t r = 1; r < N.world; r++) {
      double best = -1, theta = 0;
      for (int k = 0; k <= N.rounds; k++) {
        double t1 = llamp_native_monotonic(), stamp[2];
        PMPI_Send(&t1, 1, MPI_DOUBLE, (int)r, SYNC_TAG, c);
        PMPI_Recv(stamp, 2, MPI_DOUBLE, (int)r, SYNC_TAG, c, MPI_STATUS_IGNORE);
        double t4 = llamp_native_monotonic();
        double delay = (t4 - t1) - (stamp[1] - stamp[0]);
        if (k > 0 && (best < 0 || delay < best)) {
          best = delay;
          theta = ((stamp[0] - t1) + (stamp[1] - t4)) / 2;
        }
      }
      double res[3] = {-theta, best / 2, best};
      PMPI_Send(res, 3, MPI_DOUBLE, (int)r, SYNC_TAG, c);
    }
  } else {
    for (int k = 0; k <= N.rounds; k++) {
      double t1, stamp[2];
      PMPI_Recv(&t1, 1, MPI_DOUBLE, 0, SYNC_TAG, c, MPI_STATUS_IGNORE);
      stamp[0] = llamp_native_monotonic();
      stamp[1] = llamp_native_monotonic();
      PMPI_Send(stamp, 2, MPI_DOUBLE, 0, SYNC_TAG, c);
    }
    double res[3];
    PMPI_Recv(res, 3, MPI_DOUBLE, 0, SYNC_TAG, c, MPI_STATUS_IGNORE);
    *offset = res[0];
    *unc = res[1];
    *rtt = res[2];
  }
  PMPI_Comm_free(&c);
}

static void after_init(void) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  N.rank = (uint32_t)rank;
  N.world = (uint32_t)size;
  const char *s = getenv("LLAMP_CLOCK_SYNC");
  N.sync_on = !(s && (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "off")));
  const char *k = getenv("LLAMP_CLOCK_ROUNDS");
  if (k && *k) {
    char *end;
    long v = strtol(k, &end, 10);
    if (*end || v < 1 || v > 10000)
      llamp_capture_fatal("LLAMP_CLOCK_ROUNDS: '%s' (expected 1 .. 10000)", k);
    N.rounds = (int)v;
  }
  /* an id of the run, so that `llamp build` can refuse traces of two runs */
  uint64_t id = 0;
  if (N.rank == 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    id = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^ ((uint64_t)getpid() << 40);
  }
  PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  N.run_id = id;
  if (N.sync_on) {
    double t0 = llamp_native_monotonic();
    clock_sync(0, &N.offset, &N.uncertainty, &N.rtt);
    N.t_init = llamp_native_monotonic();
    N.sync_seconds = N.t_init - t0;
    llamp_native_clock_offset = N.offset;
  } else {
    N.uncertainty = N.rtt = -1; /* unknown */
    N.t_init = llamp_native_monotonic();
  }
  N.span_begin = simgrid_get_clock();
}

int llamp_native_pmpi_init(int *argc, char ***argv) {
  int ret = PMPI_Init(argc, argv);
  if (ret == MPI_SUCCESS) after_init();
  return ret;
}

int llamp_native_pmpi_init_thread(int *argc, char ***argv, int required, int *provided) {
  int ret = PMPI_Init_thread(argc, argv, required, provided);
  if (ret != MPI_SUCCESS) return ret;
  after_init();
  if (provided && *provided == MPI_THREAD_MULTIPLE && N.rank == 0)
    fprintf(stderr, "llamp-trace: MPI_THREAD_MULTIPLE: the capture assumes that one thread at a "
                    "time calls MPI (its per-rank state takes no locks)\n");
  return ret;
}

int llamp_native_pmpi_finalize(void) {
  N.span_end = simgrid_get_clock();
  if (N.joined && N.sync_on) {
    clock_sync(1, &N.offset_end, &N.uncertainty_end, &N.rtt_end);
    N.t_final = llamp_native_monotonic();
    N.have_end = 1;
  }
  return PMPI_Finalize();
}

/* ---- the session ------------------------------------------------------------------ */

static int mkdirs(const char *path) {
  char buf[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof buf) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(buf, path, n + 1);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
  struct stat st;
  if (stat(buf, &st) != 0) return -1;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

llamp_trace_writer_t *llamp_capture_session_join(uint32_t rank, uint32_t world_size,
                                                 const void *rank_state, char *err,
                                                 size_t errlen) {
  (void)rank_state;
  if (N.joined) {
    seterr(err, errlen, "MPI_Init called twice");
    return NULL;
  }
  const char *out = getenv("LLAMP_OUT");
  if (!out || !*out) out = "llamp-out";
  if (strlen(out) >= sizeof N.dir - 32) {
    seterr(err, errlen, "LLAMP_OUT: directory name too long");
    return NULL;
  }
  snprintf(N.dir, sizeof N.dir, "%s", out);
  double spill = 64.0 * 1024 * 1024;
  const char *sp = getenv("LLAMP_SPILL");
  if (sp && *sp) {
    char e2[256];
    if (llamp_units_parse(sp, LLAMP_UNIT_BYTES, "B", &spill, e2, sizeof e2) || !(spill >= 0)) {
      seterr(err, errlen, "LLAMP_SPILL: '%s': %s", sp, e2);
      return NULL;
    }
  }
  if (mkdirs(N.dir) != 0) {
    seterr(err, errlen, "cannot create the output directory '%s': %s (llamp-trace -o DIR or LLAMP_OUT)",
           N.dir, strerror(errno));
    return NULL;
  }
  /* this rank's files of an earlier run must not survive a failure of this one */
  char path[4200];
  snprintf(path, sizeof path, "%s/rank-%u.llt", N.dir, rank);
  unlink(path);
  snprintf(path, sizeof path, "%s/rank-%u.clock", N.dir, rank);
  unlink(path);
  if (rank == 0) /* traces of an earlier run with more ranks would confuse `llamp build` */
    for (uint32_t r = world_size;; r++) {
      snprintf(path, sizeof path, "%s/rank-%u.llt", N.dir, r);
      int gone = unlink(path) == 0;
      snprintf(path, sizeof path, "%s/rank-%u.clock", N.dir, r);
      gone |= unlink(path) == 0;
      if (!gone) break;
    }
  llamp_trace_writer_t *w =
      llamp_trace_writer_create(N.dir, rank, world_size, (size_t)spill, err, errlen);
  if (!w) return NULL;
  N.w = w;
  N.rank = rank;
  N.world = world_size;
  N.joined = 1;
  return w;
}

const llamp_capture_config_t *llamp_capture_session_config(void) { return NULL; }

/* Natively the program's compute takes its own real time: nothing to inject. */
const llamp_capture_compute_t *llamp_capture_compute_get(void) { return NULL; }
void llamp_capture_compute_add(double measured_s, double simulated_s, double clock_wait_s,
                               uint64_t clock_wait_bursts) {
  (void)measured_s;
  (void)simulated_s;
  (void)clock_wait_s;
  (void)clock_wait_bursts;
}

/* The same key on every member gives the same id: FNV-1a over the key words,
 * folded to 32 bits, never 0 (MPI_COMM_WORLD) or UINT32_MAX (no communicator).
 * Two different keys collide with probability 2^-32 per pair. */
uint32_t llamp_capture_comm_id(const uint64_t *key, size_t nkey) {
  uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)nkey;
  for (size_t i = 0; i < nkey; i++)
    for (int b = 0; b < 8; b++) {
      h ^= (key[i] >> (8 * b)) & 0xffu;
      h *= 0x100000001b3ull;
    }
  uint32_t id = (uint32_t)(h ^ (h >> 32));
  if (id == LLAMP_TRACE_COMM_WORLD) id = 1;
  if (id == UINT32_MAX) id = UINT32_MAX - 1;
  return id;
}

void llamp_capture_count_local(const char *name, uint64_t count) {
  for (size_t i = 0; i < N.nlocals; i++)
    if (strcmp(N.local_names[i], name) == 0) {
      N.local_counts[i] += count;
      return;
    }
  if (N.nlocals < MAX_LOCALS) {
    N.local_names[N.nlocals] = name;
    N.local_counts[N.nlocals++] = count;
  }
}

static int write_clock_file(uint64_t records, char *err, size_t errlen) {
  char path[4200], host[256] = "";
  snprintf(path, sizeof path, "%s/rank-%u.clock", N.dir, N.rank);
  gethostname(host, sizeof host - 1);
  FILE *f = fopen(path, "w");
  if (!f) {
    seterr(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    return -1;
  }
  fprintf(f, "# llamp-trace: clock alignment of rank %u (docs/native.md); times in seconds\n", N.rank);
  fprintf(f, "rank %u\nworld_size %u\nrun_id %016llx\nhost %s\npid %ld\nclock CLOCK_MONOTONIC\n",
          N.rank, N.world, (unsigned long long)N.run_id, host, (long)getpid());
  fprintf(f, "sync %s\nsync_rounds %d\n", N.sync_on ? "yes" : "no", N.rounds);
  fprintf(f, "# added to this rank's CLOCK_MONOTONIC in every record (-> rank 0's clock)\n");
  fprintf(f, "offset %.9e\n", N.offset);
  fprintf(f, "# |true offset - offset| <= uncertainty (half the best round trip; -1 = unknown)\n");
  fprintf(f, "uncertainty %.9e\nrtt %.9e\n", N.uncertainty, N.rtt);
  fprintf(f, "sync_time %.9f\nsync_seconds %.9e\n", N.t_init, N.sync_seconds);
  if (N.have_end) {
    double dt = N.t_final - N.t_init;
    fprintf(f, "# the same estimate at MPI_Finalize: NOT applied (drift is not corrected)\n");
    fprintf(f, "offset_end %.9e\nuncertainty_end %.9e\nsync_time_end %.9f\n", N.offset_end,
            N.uncertainty_end, N.t_final);
    fprintf(f, "# drift = (offset_end - offset) / time between; known to +-drift_uncertainty\n");
    fprintf(f, "drift %.9e\ndrift_uncertainty %.9e\n", dt > 0 ? (N.offset_end - N.offset) / dt : 0.0,
            dt > 0 ? (N.uncertainty + N.uncertainty_end) / dt : 0.0);
  }
  fprintf(f, "# on the record clock: MPI_Init returned, MPI_Finalize was called, and the difference\n");
  fprintf(f, "span_begin %.9f\nspan_end %.9f\nspan %.9e\n", N.span_begin, N.span_end,
          N.span_end - N.span_begin);
  fprintf(f, "records %llu\n", (unsigned long long)records);
  for (size_t i = 0; i < N.nlocals; i++)
    fprintf(f, "local %s %llu\n", N.local_names[i], (unsigned long long)N.local_counts[i]);
  if (fclose(f) != 0) {
    seterr(err, errlen, "%s: write failed: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

int llamp_capture_session_leave(uint32_t rank, double simulated_time, char *err, size_t errlen) {
  (void)simulated_time;
  if (!N.joined || N.left || rank != N.rank) {
    seterr(err, errlen, "rank %u finalizes without having joined the capture", rank);
    return -1;
  }
  N.left = 1;
  uint64_t records = llamp_trace_records(N.w);
  if (llamp_trace_writer_flush(N.w, err, errlen)) return -1;
  llamp_trace_writer_destroy(N.w);
  N.w = NULL;
  if (write_clock_file(records, err, errlen)) return -1;
  return 1;
}

/* At exit: a rank that joined but never reached MPI_Finalize wrote no
 * complete trace; say so (the run probably failed anyway). */
__attribute__((destructor)) static void native_at_exit(void) {
  if (N.joined && !N.left)
    fprintf(stderr, "llamp-trace: rank %u exits without MPI_Finalize: its trace in %s is incomplete\n",
            N.rank, N.dir);
}
