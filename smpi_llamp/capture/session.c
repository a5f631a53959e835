/* session.c - the state all ranks of one smpirun share (llamp_capture.h):
 * configuration, trace writers, communicator ids, counts of local calls, and
 * the hand-over to the analysis at the last MPI_Finalize.
 *
 * This file lives in libsmpi_llamp_capture_rt.so, which SMPI loads once per
 * process (it is not privatized): its statics are shared by the ranks, which
 * run one at a time as coroutines of one thread, so no locks. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <simgrid/host.h>
#include <smpi/smpi.h>

#include "capture_internal.h"
#include "llamp_topo_sg.h"
#include "llamp_capture.h"
#include "llamp_coll.h"
#include "llamp_mem.h"

typedef struct {
  uint64_t *key;
  size_t nkey;
  uint32_t id;
} comm_key_t;

typedef struct {
  const char *name;
  uint64_t count;
} local_count_t;

/* One MPI_Comm_split call's colors and keys, as its members register them. */
typedef struct {
  uint32_t parent, size, registered;
  uint64_t seq;
  int32_t *color, *key, *world;
} split_t;

/* One-sided data on its way to a target (llamp_capture_rma_announce). */
typedef struct {
  uint32_t comm, win, target, origin, epoch;
  uint64_t bytes;
} rma_msg_t;

static struct {
  int started;
  split_t *splits;
  size_t nsplits, capsplits;
  rma_msg_t *rma;
  size_t nrma, caprma;
  llamp_capture_config_t cfg;
  llamp_capture_colls_t colls; /* what SimGrid runs per collective */
  llamp_capture_net_t net;     /* what SimGrid charges per message */
  char trace_dir[2100];
  uint32_t world;
  llamp_trace_writer_t **writers;
  const void **states;
  sg_host_t *hosts; /* each rank's host */
  uint32_t joined, left, first; /* first: the first rank that joined */
  int analysed;
  /* communicator registry: open addressing on a key hash */
  comm_key_t *keys;
  size_t kmask, nkeys;
  uint32_t next_comm;
  local_count_t *locals;
  size_t nlocals, caplocals;
  double wall_start;
} G;

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *simgrid_lib;
static pthread_once_t simgrid_lib_once = PTHREAD_ONCE_INIT;

static void simgrid_lib_find(void) {
  Dl_info info;
  /* NOLOAD: a handle on the loaded libsimgrid, kept for the process */
  if (dladdr((void *)(uintptr_t)&PMPI_Send, &info) && info.dli_fname)
    simgrid_lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

void *llamp_capture_simgrid_sym(const char *sym) {
  pthread_once(&simgrid_lib_once, simgrid_lib_find);
  return simgrid_lib ? dlsym(simgrid_lib, sym) : NULL;
}

void llamp_capture_fatal(const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  fputs("smpi_llamp: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  /* _exit: SimGrid's exit handlers would complain about the actors we cut */
  _exit(1);
}

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* mkdir -p; 0 or -1 with errno. */
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

/* Make the output directory and prove it writable by creating a file. */
static int check_out_dir(const char *dir, char *trace_dir, size_t len, char *err, size_t errlen) {
  if (mkdirs(dir) != 0) {
    seterr(err, errlen, "cannot create the output directory '%s': %s (set it with -llamp-out DIR or LLAMP_OUT)",
           dir, strerror(errno));
    return -1;
  }
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/.llamp-write-test", dir);
  FILE *f = fopen(probe, "w");
  if (!f || fclose(f) != 0) {
    seterr(err, errlen, "cannot write to the output directory '%s': %s (set it with -llamp-out DIR or LLAMP_OUT)",
           dir, strerror(errno));
    return -1;
  }
  unlink(probe);
  /* one run per directory: smpi_llamp-run holds this lock already (it says
   * so in LLAMP_OUT_LOCKED); a plain smpirun takes it here, until exit */
  const char *locked = getenv("LLAMP_OUT_LOCKED");
  if (!locked || strcmp(locked, dir) != 0) {
    snprintf(probe, sizeof probe, "%s/.llamp-lock", dir);
    int fd = open(probe, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
      char pid[32] = "";
      ssize_t k = read(fd, pid, sizeof pid - 1);
      pid[k > 0 ? k : 0] = 0;
      pid[strcspn(pid, "\n")] = 0;
      seterr(err, errlen, "'%s' is in use by another run (pid %s): wait for it to end, or choose another -llamp-out DIR",
             dir, pid);
      close(fd);
      return -1;
    }
    if (fd >= 0 && ftruncate(fd, 0) == 0) dprintf(fd, "%ld\n", (long)getpid());
  }
  snprintf(trace_dir, len, "%s/trace", dir);
  if (mkdirs(trace_dir) != 0) {
    seterr(err, errlen, "cannot create '%s': %s", trace_dir, strerror(errno));
    return -1;
  }
  /* traces of an earlier run with more ranks would confuse `llamp build` */
  for (uint32_t r = G.world;; r++) {
    char old[4300];
    snprintf(old, sizeof old, "%s/rank-%u.llt", trace_dir, r);
    if (unlink(old) != 0) break;
  }
  return 0;
}

/* The program's globals must be per rank: SMPI's dlopen privatization (the
 * default) or mmap.  "no" would mix all ranks' state silently. */
static int check_privatization(char *err, size_t errlen) {
  const char *mode = llamp_capture_sg_privatization();
  if (strcmp(mode, "no") == 0 || strcmp(mode, "0") == 0) {
    seterr(err, errlen,
           "SMPI privatization is '%s': the capture keeps per-rank state in the program's globals, "
           "which then all ranks share; run with --cfg=smpi/privatization:dlopen (the default; "
           "do not pass -no-privatize)",
           mode);
    return -1;
  }
  return 0;
}

/* Heap faulted in per trace record for the analysis at the last
 * MPI_Finalize.  bench_capture64's halo (582 k records), that MPI_Finalize
 * and the process's peak RSS: none 0.95 s, 206 MB; 250 B 0.54 s, 242 MB;
 * 300 B 0.49-0.52 s, 245 MB; 350 B 0.49-0.51 s, 265 MB.  The prefault
 * follows the records as the simulation appends them, up to a quarter of
 * the memory free at MPI_Init.  With the DAG built during the run
 * (stream.c) its builders take their memory then, outside this reserve,
 * and the reserve follows the graph's vertices instead: 225 B a vertex
 * (the halo has 1.03 a record: 230 B a record there gave the stages their
 * best, engine 0.05-0.08 s; with 180 B the critical latencies faulted pages
 * in).  A CG (apps/cg, 8 ranks, 1.62 vertices a record, its collectives
 * expanded) at 230 B a record: engine 0.69 s, point 0.39 s; at 400 B
 * (about 225 a vertex) 0.31 and 0.20 s. */
#define PREFAULT_BYTES_PER_RECORD 300
#define PREFAULT_BYTES_PER_VERTEX 225
static size_t prefault_cap;
static int prefault_streamed;

static size_t prefault_want(void *arg) {
  (void)arg;
  double per = PREFAULT_BYTES_PER_RECORD;
  if (prefault_streamed) {
    double vpr = llamp_capture_stream_vertices_per_record();
    per = PREFAULT_BYTES_PER_VERTEX * (vpr > 1 ? vpr : 1);
  }
  double b = (double)llamp_trace_records_appended() * per;
  return b < (double)prefault_cap ? (size_t)b : prefault_cap;
}

llamp_trace_writer_t *llamp_capture_session_join(uint32_t rank, uint32_t world_size,
                                                 const void *rank_state, char *err,
                                                 size_t errlen) {
  if (!G.started) {
    G.wall_start = wall();
    if (llamp_capture_config_from_env(&G.cfg, err, errlen)) return NULL;
    if (check_privatization(err, errlen)) return NULL;
    /* the DAG expands what SimGrid runs; an unknown -llamp-coll algorithm
     * stops the run now, not at the end */
    fflush(stdout);
    if (llamp_capture_colls_resolve(&G.colls, llamp_capture_sg_string, G.cfg.collectives,
                                    getenv("LLAMP_SMPI_COLL"), stderr, err, errlen))
      return NULL;
    /* the DAG charges each message what SimGrid charges */
    if (llamp_capture_net_resolve(&G.net, &G.cfg, llamp_capture_sg_value, llamp_capture_sg_is_default,
                                  getenv("LLAMP_SMPI_NET"), err, errlen))
      return NULL;
    G.cfg.net = &G.net;
    /* a what-if run of a latency offset: every message's latency + delta_L */
    if (G.cfg.delta_L > 0) {
      if (llamp_capture_add_latency(G.cfg.delta_L, &G.net.model, err, errlen)) return NULL;
      if (!G.cfg.quiet)
        fprintf(stderr, "smpi_llamp: SimGrid charges every message's latency %.6g us more (-llamp-delta-L)\n",
                G.cfg.delta_L * 1e6);
    }
    /* where SMPI's MPI_Waitsome starts polling (sleeps.cpp) */
    llamp_capture_sleeps_start();
    /* every transfer as SimGrid runs it, for the observed contention model */
    if (G.cfg.analyze && G.cfg.contention && llamp_capture_observe_start() && !G.cfg.quiet)
      fprintf(stderr, "smpi_llamp: warning: this SimGrid cannot report its transfers: contention by the rule\n");
    if (G.net.active && !G.cfg.quiet)
      fprintf(stderr,
              "smpi_llamp: SimGrid charges size-dependent message costs (smpi/os, or, ois, lat-factor, "
              "bw-factor): the DAG charges the same, the latency factors on each route's own latency "
              "(report.json: capture.network_model)\n");
    if (G.net.active && G.net.note[0])
      fprintf(stderr, "smpi_llamp: warning: %s\n", G.net.note);
    const llamp_capture_compute_t *cm = llamp_capture_compute_setup(&G.cfg, err, errlen);
    if (!cm) return NULL;
    if (!G.cfg.quiet) fprintf(stderr, "smpi_llamp: %s\n", cm->description);
    if (llamp_capture_kernels_setup(&G.cfg, err, errlen)) return NULL;
    G.cfg.colls = &G.colls;
    G.world = world_size;
    if (check_out_dir(G.cfg.out_dir, G.trace_dir, sizeof G.trace_dir, err, errlen)) return NULL;
    G.writers = calloc(world_size, sizeof *G.writers);
    G.states = calloc(world_size, sizeof *G.states);
    G.hosts = calloc(world_size, sizeof *G.hosts);
    if (!G.writers || !G.states || !G.hosts) {
      seterr(err, errlen, "out of memory for %u ranks", world_size);
      return NULL;
    }
    G.next_comm = 1;
    G.started = 1;
    /* The DAG on the core SimGrid leaves idle (stream.c), and the analysis's
     * memory faulted in there (below).  With the program's compute measured
     * (SimGrid's defaults), only where a second core is online: on one, the
     * threads would run between the program's bursts and cool its caches.
     * Measured beside them (tests/capture/compute.c, 4 ranks, 15 interleaved
     * pairs): kernels 26.87 ms without, 27.07 ms with (medians), set-up 1.34
     * and 1.31 ms (docs/capture.md, "The DAG is built during the simulation") */
    int helpers = !cm->inject || sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    if (G.cfg.analyze && G.cfg.stream && helpers && llamp_capture_stream_start(&G.cfg, world_size) == 0)
      prefault_streamed = 1;
    if (G.cfg.analyze && G.cfg.prefault && helpers) {
      long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
      prefault_cap = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 4 : 0;
      if (prefault_cap) (void)llamp_mem_warm_start(prefault_want, NULL); /* else without */
    }
  }
  if (world_size != G.world || rank >= G.world) {
    seterr(err, errlen, "rank %u of %u joins a run of %u ranks", rank, world_size, G.world);
    return NULL;
  }
  if (G.writers[rank]) {
    seterr(err, errlen, "rank %u called MPI_Init twice", rank);
    return NULL;
  }
  /* Under a privatization that shares the program's data, every rank sees
   * its state at the same address: comparing with the first rank that
   * joined is enough (O(1) per rank, not O(ranks)).  mmap privatization also
   * maps each rank's copy at one address, but switches the contents: accept
   * it by name. */
  const char *mode = llamp_capture_sg_privatization();
  if (strcmp(mode, "mmap") != 0 && G.joined && G.states[G.first] == rank_state) {
    seterr(err, errlen,
           "ranks %u and %u share the program's globals (SMPI privatization '%s'); run with "
           "--cfg=smpi/privatization:dlopen (the default)",
           G.first, rank, mode[0] ? mode : "unknown");
    return NULL;
  }
  if (!G.joined) G.first = rank;
  G.states[rank] = rank_state;
  G.hosts[rank] = sg_host_self(); /* the rank's own actor runs this */
  llamp_trace_writer_t *w =
      llamp_trace_writer_create(G.trace_dir, rank, world_size, G.cfg.spill_bytes, err, errlen);
  if (!w) return NULL;
  llamp_capture_stream_join(rank, w);
  G.writers[rank] = w;
  G.joined++;
  return w;
}

const llamp_capture_config_t *llamp_capture_session_config(void) { return &G.cfg; }

static uint64_t key_hash(const uint64_t *key, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull ^ n;
  for (size_t i = 0; i < n; i++) {
    h ^= key[i];
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h;
}

uint32_t llamp_capture_comm_id(const uint64_t *key, size_t nkey) {
  if (!G.keys || (G.nkeys + 1) * 2 > G.kmask + 1) {
    size_t cap = G.keys ? (G.kmask + 1) * 2 : 256;
    comm_key_t *t = calloc(cap, sizeof *t);
    if (!t) llamp_capture_fatal("out of memory (communicator registry)");
    for (size_t j = 0; G.keys && j <= G.kmask; j++) {
      if (!G.keys[j].key) continue;
      size_t i = key_hash(G.keys[j].key, G.keys[j].nkey) & (cap - 1);
      while (t[i].key) i = (i + 1) & (cap - 1);
      t[i] = G.keys[j];
    }
    free(G.keys);
    G.keys = t;
    G.kmask = cap - 1;
  }
  size_t i = key_hash(key, nkey) & G.kmask;
  for (; G.keys[i].key; i = (i + 1) & G.kmask)
    if (G.keys[i].nkey == nkey && memcmp(G.keys[i].key, key, nkey * sizeof *key) == 0)
      return G.keys[i].id;
  uint64_t *k = malloc(nkey * sizeof *k);
  if (!k) llamp_capture_fatal("out of memory (communicator registry)");
  memcpy(k, key, nkey * sizeof *k);
  G.keys[i].key = k;
  G.keys[i].nkey = nkey;
  G.keys[i].id = G.next_comm++;
  G.nkeys++;
  return G.keys[i].id;
}

int llamp_capture_split_register(uint32_t parent, uint64_t seq, uint32_t size, uint32_t pos,
                                 int32_t world, int32_t color, int32_t key) {
  split_t *sp = NULL;
  for (size_t i = 0; i < G.nsplits && !sp; i++)
    if (G.splits[i].parent == parent && G.splits[i].seq == seq) sp = &G.splits[i];
  if (!sp) {
    if (G.nsplits == G.capsplits) {
      size_t cap = G.capsplits ? 2 * G.capsplits : 4;
      split_t *t = realloc(G.splits, cap * sizeof *t);
      if (!t) return -1;
      G.splits = t;
      G.capsplits = cap;
    }
    sp = &G.splits[G.nsplits];
    memset(sp, 0, sizeof *sp);
    sp->color = malloc(size * sizeof *sp->color);
    sp->key = malloc(size * sizeof *sp->key);
    sp->world = malloc(size * sizeof *sp->world);
    if (!sp->color || !sp->key || !sp->world) {
      free(sp->color);
      free(sp->key);
      free(sp->world);
      return -1;
    }
    sp->parent = parent;
    sp->seq = seq;
    sp->size = size;
    G.nsplits++;
  }
  if (pos >= sp->size) return -1;
  sp->color[pos] = color;
  sp->key[pos] = key;
  sp->world[pos] = world;
  sp->registered++;
  return 0;
}

int llamp_capture_split_take(uint32_t parent, uint64_t seq, uint32_t *size, int32_t **color,
                             int32_t **key, int32_t **world) {
  for (size_t i = 0; i < G.nsplits; i++) {
    split_t *sp = &G.splits[i];
    if (sp->parent != parent || sp->seq != seq) continue;
    if (sp->registered != sp->size) return -1;
    *size = sp->size;
    *color = sp->color;
    *key = sp->key;
    *world = sp->world;
    G.splits[i] = G.splits[--G.nsplits];
    return 0;
  }
  return -1;
}

int llamp_capture_rma_announce(uint32_t comm, uint32_t win, uint32_t origin, uint32_t target,
                               uint64_t bytes, uint32_t epoch) {
  if (G.nrma == G.caprma) {
    size_t cap = G.caprma ? 2 * G.caprma : 64;
    rma_msg_t *t = realloc(G.rma, cap * sizeof *t);
    if (!t) return -1;
    G.rma = t;
    G.caprma = cap;
  }
  G.rma[G.nrma++] = (rma_msg_t){comm, win, target, origin, epoch, bytes};
  return 0;
}

/* The table stays in announcement order (a stable compaction), which is each
 * origin's sending order. */
size_t llamp_capture_rma_take(uint32_t comm, uint32_t win, uint32_t target, uint32_t max_epoch,
                              uint64_t *out, size_t max) {
  size_t n = 0, keep = 0;
  for (size_t i = 0; i < G.nrma; i++) {
    rma_msg_t *m = &G.rma[i];
    if (m->comm == comm && m->win == win && m->target == target && m->epoch <= max_epoch && n < max) {
      out[2 * n] = m->origin;
      out[2 * n + 1] = m->bytes;
      n++;
    } else {
      G.rma[keep++] = *m;
    }
  }
  G.nrma = keep;
  return n;
}

size_t llamp_capture_rma_pending(uint32_t comm, uint32_t win, uint32_t target, uint32_t max_epoch) {
  size_t n = 0;
  for (size_t i = 0; i < G.nrma; i++)
    n += G.rma[i].comm == comm && G.rma[i].win == win && G.rma[i].target == target &&
         G.rma[i].epoch <= max_epoch;
  return n;
}

void llamp_capture_count_local(const char *name, uint64_t count) {
  for (size_t i = 0; i < G.nlocals; i++)
    if (strcmp(G.locals[i].name, name) == 0) {
      G.locals[i].count += count;
      return;
    }
  if (G.nlocals == G.caplocals) {
    size_t cap = G.caplocals ? 2 * G.caplocals : 32;
    local_count_t *p = realloc(G.locals, cap * sizeof *p);
    if (!p) return;
    G.locals = p;
    G.caplocals = cap;
  }
  G.locals[G.nlocals].name = name;
  G.locals[G.nlocals].count = count;
  G.nlocals++;
}

size_t llamp_capture_session_hosts(sg_host_t const **hosts) {
  *hosts = G.hosts;
  return G.hosts ? G.world : 0;
}

/* report.json gets the local calls too (llamp_capture_analyze reads them). */
static const char **local_names;
static uint64_t *local_counts;
size_t llamp_capture_session_locals(const char ***names, const uint64_t **counts) {
  free(local_names);
  free(local_counts);
  local_names = malloc((G.nlocals + 1) * sizeof *local_names);
  local_counts = malloc((G.nlocals + 1) * sizeof *local_counts);
  if (!local_names || !local_counts) return 0;
  for (size_t i = 0; i < G.nlocals; i++) {
    local_names[i] = G.locals[i].name;
    local_counts[i] = G.locals[i].count;
  }
  *names = local_names;
  *counts = local_counts;
  return G.nlocals;
}

static void session_free(void) {
  for (size_t i = 0; i < G.nsplits; i++) {
    free(G.splits[i].color);
    free(G.splits[i].key);
    free(G.splits[i].world);
  }
  free(G.splits);
  G.splits = NULL;
  G.nsplits = G.capsplits = 0;
  for (size_t i = 0; G.keys && i <= G.kmask; i++) free(G.keys[i].key);
  free(G.keys);
  G.keys = NULL;
  free(G.writers);
  free(G.states);
  free(G.hosts);
  G.writers = NULL;
  G.states = NULL;
  G.hosts = NULL;
  free(G.locals);
  G.locals = NULL;
  free(local_names);
  free(local_counts);
  local_names = NULL;
  local_counts = NULL;
}

/* The last rank out: the graph the stream built, or every rank's trace
 * file read back; then the analysis. */
static int run_analysis(double simulated_time, char *err, size_t errlen) {
  double t0 = wall();
  uint64_t unraised = G.cfg.delta_L > 0 ? llamp_capture_latency_unraised() : 0;
  if (unraised) /* not quiet: smpi_llamp-latency reads it in the run's log */
    fprintf(stderr,
            "smpi_llamp: warning: -llamp-delta-L: %llu transfers crossed routes of zero latency, which SimGrid's "
            "latency factor cannot raise: they took no offset (a latency-free link; ranks sharing a host, unless "
            "network/loopback-lat is set)\n",
            (unsigned long long)unraised);
  llamp_mem_keep_freed(); /* the builder's freed arrays stay for the engine (analysis.c) */
  llamp_sched_stats_t st;
  memset(&st, 0, sizeof st);
  char why[1024] = "";
  llamp_graph_t *g = llamp_capture_stream_finish(&G.cfg, &st, why, sizeof why);
  if (g) {
    llamp_capture_result_t res;
    int rc = llamp_capture_analyze_graph(&G.cfg, g, &st, G.world, t0, simulated_time,
                                         G.cfg.quiet ? NULL : stdout, &res, err, errlen);
    fflush(stdout);
    return rc;
  }
  llamp_sched_stats_free(&st);
  if (getenv("LLAMP_TIMING")) fprintf(stderr, "smpi_llamp: timing: the DAG from the files: %s\n", why);
  llamp_trace_reader_t **readers = calloc(G.world, sizeof *readers);
  if (!readers) {
    seterr(err, errlen, "out of memory for %u trace readers", G.world);
    return -1;
  }
  int rc = 0;
  for (uint32_t r = 0; r < G.world && rc == 0; r++) {
    char path[4300];
    snprintf(path, sizeof path, "%s/rank-%u.llt", G.trace_dir, r);
    readers[r] = llamp_trace_reader_open(path, err, errlen);
    if (!readers[r]) rc = -1;
  }
  if (rc == 0) {
    llamp_capture_result_t res;
    rc = llamp_capture_analyze(&G.cfg, readers, G.world, simulated_time,
                               G.cfg.quiet ? NULL : stdout, &res, err, errlen);
  }
  for (uint32_t r = 0; r < G.world; r++)
    if (readers[r]) llamp_trace_reader_destroy(readers[r]);
  free(readers);
  fflush(stdout);
  return rc;
}

static int cmp_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
  return (x > y) - (x < y);
}

/* The ranks' distinct hosts. */
static uint32_t distinct_hosts(void) {
  uint32_t n = 0;
  sg_host_t *seen = malloc((G.world + 1) * sizeof *seen);
  if (!seen) return G.world;
  for (uint32_t r = 0; r < G.world; r++) seen[n++] = G.hosts[r];
  qsort(seen, n, sizeof *seen, cmp_ptr);
  uint32_t u = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!u || seen[i] != seen[u - 1]) seen[u++] = seen[i];
  free(seen);
  return u;
}

/* Large runs: the routes of the rank pairs the graph uses (a subset table),
 * written to routes.txt like the full one. */
static llamp_topo_t *routes_for_pairs(const uint64_t *rank_pairs, size_t n, char *err, size_t errlen) {
  llamp_topo_t *t = llamp_topo_from_simgrid_pairs(G.hosts, G.world, rank_pairs, n, err, errlen);
  char rpath[2300];
  snprintf(rpath, sizeof rpath, "%s/routes.txt", G.cfg.out_dir);
  if (!t || llamp_topo_write(t, rpath, err, errlen)) {
    llamp_topo_destroy(t);
    return NULL;
  }
  return t;
}

int llamp_capture_session_leave(uint32_t rank, double simulated_time, char *err, size_t errlen) {
  if (!G.started || rank >= G.world || !G.writers[rank]) {
    seterr(err, errlen, "rank %u finalizes without having joined the capture", rank);
    return -1;
  }
  llamp_trace_writer_t *w = G.writers[rank];
  if (llamp_trace_writer_flush(w, err, errlen)) return -1;
  /* bounded memory: the stream's thread takes the rest of the records and
   * the writer, or the analysis reads the files */
  if (llamp_capture_stream_leave(rank, w)) llamp_trace_writer_destroy(w);
  G.writers[rank] = NULL;
  G.left++;
  if (G.left < G.world) return 0;
  /* smpi_llamp-run's temporary directory is empty by now (SMPI deleted the
   * program's copies once loaded): removed here, the wrapper starts no
   * command after the run (a rm -rf costs ~6 ms on a VM) */
  const char *run_tmp = getenv("LLAMP_RUN_TMPDIR");
  if (run_tmp && *run_tmp) rmdir(run_tmp);
  llamp_capture_stream_drain(); /* while the routes are read */
  int rc = 0;
  double t_start = wall(), t_stage = t_start; /* LLAMP_TIMING: what the last MPI_Finalize costs */
  char what[64];
  snprintf(what, sizeof what, "prefault (%zu MiB)", llamp_mem_warm_stop() >> 20);
  llamp_capture_stage_done(what, &t_stage);
  /* the routes between the ranks' hosts, while SimGrid still has the
   * platform: all of them, or on many hosts those the messages use */
  char rpath[2300];
  snprintf(rpath, sizeof rpath, "%s/routes.txt", G.cfg.out_dir);
  llamp_topo_t *topo = NULL;
  uint32_t nhosts = distinct_hosts();
  /* up to cfg.full_routes_hosts hosts every host pair's route (what `llamp
   * place` and the what-if comparisons need); above, only the routes the
   * graph's messages take (docs/topology.md, "Large runs") */
  if (nhosts <= G.cfg.full_routes_hosts) {
    topo = llamp_topo_from_simgrid(G.hosts, G.world, err, errlen);
    if (!topo || llamp_topo_write(topo, rpath, err, errlen)) {
      llamp_topo_destroy(topo);
      session_free();
      return -1;
    }
  } else {
    G.cfg.topo_for_pairs = routes_for_pairs;
  }
  G.cfg.topo = topo;
  llamp_capture_stage_done("routes", &t_stage);
  if (G.cfg.analyze && !G.analysed) {
    G.analysed = 1;
    rc = run_analysis(simulated_time, err, errlen);
  } else if (!G.cfg.quiet) {
    if (topo)
      printf("smpi_llamp: traces of %u ranks written to %s, their hosts' routes to %s (analysis off)\n",
             G.world, G.trace_dir, rpath);
    else
      printf("smpi_llamp: traces of %u ranks written to %s (analysis off); no routes.txt: %u hosts have "
             "%llu routes, written only for the pairs a graph uses (llamp-routes writes all of them)\n",
             G.world, G.trace_dir, nhosts, (unsigned long long)nhosts * nhosts);
    fflush(stdout);
  }
  G.cfg.topo_for_pairs = NULL;
  G.cfg.topo = NULL;
  llamp_topo_destroy(topo);
  session_free();
  llamp_capture_stage_done("last MPI_Finalize", &t_start);
  return rc < 0 ? -1 : 1;
}

/* At process exit: say so when some ranks never reached MPI_Finalize (an
 * abort, a crash, or a missing call), since no analysis ran then. */
__attribute__((destructor)) static void session_at_exit(void) {
  llamp_capture_stream_abandon(); /* its thread, when no last MPI_Finalize stopped it */
  if (G.started && G.joined && G.left < G.joined)
    fprintf(stderr,
            "smpi_llamp: %u of %u ranks did not reach MPI_Finalize: no analysis (traces of the "
            "others are in %s)\n",
            G.joined - G.left, G.world, G.trace_dir);
}
