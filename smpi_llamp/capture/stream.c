/* stream.c - the DAG built during the simulation, on the core SimGrid leaves
 * idle.
 *
 * SimGrid runs every rank on one core.  A thread here follows each rank's
 * trace writer (llamp_trace_follow) and feeds its records to a sched stream
 * (llamp_sched_stream_*) a few milliseconds behind the simulation; a rank
 * that has left is ended there, and its writer destroyed.  At the last
 * MPI_Finalize only the last records and the builder's finish remain
 * (bench_capture64: the DAG's share of that MPI_Finalize 0.045 -> ~0.02 s).
 * The graph is byte for byte the one the trace files give; whenever the
 * stream cannot give it (a record it rejects, ids it cannot renumber,
 * options that changed) the analysis reads the files instead, as without
 * the stream. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture_internal.h"
#include "llamp_sched.h"

/* The thread looks every POLL_NS, and reads the ranks' records once
 * BATCH_RECORDS more are there (or a rank has left): in batches, each
 * rank's state is cold once per batch, not once per record.
 * bench_capture64 (64 ranks, 582 k records), the thread's CPU: a sweep every
 * 2 ms 0.32 s, every 20 ms 0.20 s, every 32 k records ~0.07 s (all in
 * one batch at the end: 0.045 s). */
#define POLL_NS (20 * 1000 * 1000)
#define BATCH_RECORDS 32768u /* behind the simulation by about this */

static struct {
  int running; /* the thread is made */
  pthread_t thread;
  llamp_sched_stream_t *ss;
  llamp_sched_options_t so;
  char collectives[1024]; /* so.collectives points here */
  uint32_t world;
  llamp_trace_reader_t **follower; /* set by the rank (release), read by the thread */
  llamp_trace_writer_t **writer;   /* handed over at the rank's end */
  int *left;                       /* the rank's writer is handed over (release) */
  int failed;                      /* thread only: the stream failed */
  int finish, abandon;             /* drain and stop / stop now (under lock) */
  uint32_t nleft;                  /* ranks left (under lock) */
  int started;                     /* the thread has made its first allocation (under lock) */
  double stage_since;              /* the finish's stage clock (so.stage_ctx) */
  uint64_t fed_records, fed_vertices; /* so far (atomic: the prefault's thread reads them) */
  pthread_mutex_t lock;
  pthread_cond_t wake;
  char err[1024];
} S;

/* Wait until BATCH_RECORDS more records, a rank left since `*seen_left`,
 * or a stop.  0 = sweep, 1 = stop now; *last = 1: the last rank has left
 * (after this sweep, a rank not handed over never will be). */
static int wait_batch(uint64_t *mark, uint32_t *seen_left, int *last) {
  for (;;) {
    pthread_mutex_lock(&S.lock);
    int stop = S.abandon, drain = S.finish;
    uint32_t nleft = S.nleft;
    if (!stop && !drain && nleft == *seen_left) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += POLL_NS;
      if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
      pthread_cond_timedwait(&S.wake, &S.lock, &until);
      stop = S.abandon;
      drain = S.finish;
      nleft = S.nleft;
    }
    pthread_mutex_unlock(&S.lock);
    if (stop || *last) return 1;
    *last = drain;
    uint64_t now = llamp_trace_records_appended();
    if (drain || nleft != *seen_left || now - *mark >= BATCH_RECORDS) {
      *mark = now;
      *seen_left = nleft;
      return 0;
    }
  }
}

static void *stream_run(void *arg) {
  (void)arg;
  /* the first allocation gives the thread its own malloc arena (glibc: a
   * thread's first allocation makes one while the limit allows, and no
   * limit is set yet; the prefault's thread, made after, sets it to one
   * and shares the main arena, llamp_mem.h).  Sharing the main arena, its
   * reallocs held the lock the simulation's allocations wait for: ~450
   * futex waits of SimGrid's thread per bench_capture64 run, and a run
   * 0.2-2.8 s slower whenever the VM's host preempted the holder. */
  uint8_t *ended = calloc(S.world, 1);
  pthread_mutex_lock(&S.lock);
  S.started = 1;
  pthread_cond_signal(&S.wake);
  pthread_mutex_unlock(&S.lock);
  uint32_t nended = 0, seen_left = 0;
  uint64_t mark = 0;
  int last = 0;
  if (!ended) S.failed = 1;
  while (ended && nended < S.world && !wait_batch(&mark, &seen_left, &last)) {
    for (uint32_t r = 0; r < S.world; r++) {
      llamp_trace_reader_t *f = __atomic_load_n(&S.follower[r], __ATOMIC_ACQUIRE);
      if (ended[r] || !f) continue;
      int left = __atomic_load_n(&S.left[r], __ATOMIC_ACQUIRE); /* before the feed: it then reads all */
      if (!S.failed && llamp_sched_stream_feed(S.ss, r, f)) S.failed = 1;
      if (!left) continue;
      if (!S.failed && llamp_sched_stream_end_rank(S.ss, r)) S.failed = 1;
      llamp_trace_reader_destroy(f);
      llamp_trace_writer_destroy(S.writer[r]);
      S.follower[r] = NULL;
      S.writer[r] = NULL;
      ended[r] = 1;
      nended++;
    }
    uint64_t rec, ver;
    llamp_sched_stream_counts(S.ss, &rec, &ver);
    __atomic_store_n(&S.fed_vertices, ver, __ATOMIC_RELAXED);
    __atomic_store_n(&S.fed_records, rec, __ATOMIC_RELAXED);
  }
  free(ended);
  struct timespec cpu;
  if (getenv("LLAMP_TIMING") && clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
    fprintf(stderr, "smpi_llamp: timing: the stream's thread used %.3f s of CPU during the run\n",
            (double)cpu.tv_sec + 1e-9 * (double)cpu.tv_nsec);
  return NULL;
}

int llamp_capture_stream_start(const llamp_capture_config_t *cfg, uint32_t world) {
  if (S.running || world == 0 || world > LLAMP_CAPTURE_STREAM_MAX_RANKS) return -1;
  llamp_capture_sched_options(cfg, &S.so);
  S.so.stage = llamp_capture_dag_stage;
  S.so.stage_ctx = &S.stage_since;
  if (S.so.collectives) {
    if (strlen(S.so.collectives) >= sizeof S.collectives) return -1;
    strcpy(S.collectives, S.so.collectives);
    S.so.collectives = S.collectives;
  }
  S.world = world;
  S.failed = S.finish = S.abandon = 0;
  S.nleft = 0;
  S.started = 0;
  S.fed_records = S.fed_vertices = 0;
  pthread_mutex_init(&S.lock, NULL);
  pthread_cond_init(&S.wake, NULL);
  S.follower = calloc(world, sizeof *S.follower);
  S.writer = calloc(world, sizeof *S.writer);
  S.left = calloc(world, sizeof *S.left);
  S.ss = llamp_sched_stream_create(world, &S.so, S.err, sizeof S.err);
  if (!S.follower || !S.writer || !S.left || !S.ss || pthread_create(&S.thread, NULL, stream_run, NULL)) {
    llamp_sched_stream_destroy(S.ss);
    free(S.follower);
    free(S.writer);
    free(S.left);
    memset(&S, 0, sizeof S);
    return -1;
  }
  S.running = 1;
  pthread_mutex_lock(&S.lock); /* until its arena is made (above) */
  while (!S.started) pthread_cond_wait(&S.wake, &S.lock);
  pthread_mutex_unlock(&S.lock);
  return 0;
}

double llamp_capture_stream_vertices_per_record(void) {
  uint64_t rec = __atomic_load_n(&S.fed_records, __ATOMIC_RELAXED);
  uint64_t ver = __atomic_load_n(&S.fed_vertices, __ATOMIC_RELAXED);
  return rec ? (double)ver / (double)rec : 0;
}

void llamp_capture_stream_join(uint32_t rank, llamp_trace_writer_t *w) {
  if (!S.running || rank >= S.world) return;
  /* no follower: the thread never ends this rank, and finish gives NULL */
  llamp_trace_reader_t *f = llamp_trace_follow(w, NULL, 0);
  __atomic_store_n(&S.follower[rank], f, __ATOMIC_RELEASE);
}

int llamp_capture_stream_leave(uint32_t rank, llamp_trace_writer_t *w) {
  if (!S.running || rank >= S.world || !__atomic_load_n(&S.follower[rank], __ATOMIC_ACQUIRE)) return -1;
  S.writer[rank] = w;
  __atomic_store_n(&S.left[rank], 1, __ATOMIC_RELEASE);
  pthread_mutex_lock(&S.lock);
  S.nleft++;
  pthread_cond_signal(&S.wake);
  pthread_mutex_unlock(&S.lock);
  return 0;
}

static int same_options(const llamp_sched_options_t *a, const llamp_sched_options_t *b) {
  const char *ca = a->collectives ? a->collectives : "", *cb = b->collectives ? b->collectives : "";
  return !strcmp(ca, cb) && a->reduce_cost == b->reduce_cost && a->min_calc == b->min_calc &&
         a->burst_G == b->burst_G && a->threads == b->threads && !strcmp(a->source, b->source);
}

static void stream_signal(int *flag) {
  pthread_mutex_lock(&S.lock);
  *flag = 1;
  pthread_cond_signal(&S.wake);
  pthread_mutex_unlock(&S.lock);
}

void llamp_capture_stream_drain(void) {
  if (S.running) stream_signal(&S.finish);
}

/* Stop the thread; 1 when every rank was followed and has ended. */
static int stream_stop(int now) {
  if (!S.running) return 0;
  stream_signal(now ? &S.abandon : &S.finish);
  pthread_join(S.thread, NULL);
  S.running = 0;
  int all = 1;
  for (uint32_t r = 0; r < S.world; r++) {
    all &= S.left[r] && !S.follower[r];
    llamp_trace_reader_destroy(S.follower[r]); /* a rank that never left (abandon) */
    if (S.left[r]) llamp_trace_writer_destroy(S.writer[r]);
  }
  free(S.follower);
  free(S.writer);
  free(S.left);
  S.follower = NULL;
  S.writer = NULL;
  S.left = NULL;
  return all;
}

llamp_graph_t *llamp_capture_stream_finish(const llamp_capture_config_t *cfg, llamp_sched_stats_t *st,
                                           char *why, size_t whylen) {
  if (!S.running) {
    snprintf(why, whylen, "not streamed");
    return NULL;
  }
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  double t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec; /* LLAMP_TIMING's stages */
  int all = stream_stop(0);
  llamp_capture_stage_done("DAG: last records", &t);
  llamp_sched_options_t want;
  llamp_capture_sched_options(cfg, &want);
  llamp_graph_t *g = NULL;
  if (!all)
    snprintf(why, whylen, "a rank was not followed");
  else if (!same_options(&S.so, &want))
    snprintf(why, whylen, "the options changed during the run");
  else { /* NULL with the stream's first error when it failed */
    S.stage_since = t; /* the finish's stages (LLAMP_TIMING) */
    g = llamp_sched_stream_finish(S.ss, st, why, whylen);
    t = S.stage_since;
  }
  if (g) llamp_capture_stage_done("DAG: finish (rest)", &t);
  llamp_sched_stream_destroy(S.ss);
  S.ss = NULL;
  return g;
}

void llamp_capture_stream_abandon(void) {
  (void)stream_stop(1);
  llamp_sched_stream_destroy(S.ss);
  S.ss = NULL;
}
