/* capture_rank.c - the per-rank half of the capture layer (see
 * capture_rank.h): the state of one rank and the helpers of the generated
 * PMPI wrappers.
 *
 * One copy of this code serves every rank: it lives in the shared runtime
 * (libsmpi_llamp_capture_rt.so; for real MPI in libllamp_capture_native.so,
 * one process a rank).  Under SMPI the helpers work on `S`, the state of the
 * rank running now (llamp_cap_self), which the program's copy sets before
 * each helper call (capture_copy.c); the helpers that let other ranks run
 * (compute bursts, MPI_Init, MPI_Finalize) set it back afterwards.  It never
 * uses __thread: SMPI ranks are coroutines of one OS thread.
 *
 * Timing (llamp_capture.h, "compute").  SMPI's own timing of the code
 * between MPI calls is off during a capture: it would also charge the
 * wrapper's last instructions, inside the PMPI call, where the DAG has no
 * vertex.  Instead the wrapper stops the rank's thread-CPU clock on entry,
 * executes the burst on the rank's host (dropping bursts below
 * smpi/cpu-threshold, as SMPI does), reads the simulated clock for the start
 * time, and restarts the clock only when it returns.  Every simulated second
 * of compute is then a gap between two records.  With compute off
 * (smpi/simulate-computation:no) the simulated time of a run is the same with
 * and without capture (tested by tests/capture). */
#define _GNU_SOURCE
#include "capture_rank.h"

#include <simgrid/engine.h>
#include <xbt/config.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif
#ifndef LLAMP_CAPTURE_NATIVE
#include <simgrid/host.h>
#include <sys/time.h> /* the hooks' types (capture_rank.h) */
#include <unistd.h>
#endif

#include "llamp_capture.h"
#include "llamp_cpuclock.h"
#include "llamp_dmap.h"

/* ---- a small open-addressing map: handle -> entry ---------------------------- */

typedef struct comm_ent comm_ent_t;

typedef struct {
  uintptr_t key; /* 0 = empty */
  uint64_t id;
  void *ptr;
  int kind;
  int32_t src; /* receive requests: posted source (world rank), -1 = any */
} pm_ent_t;

typedef struct {
  pm_ent_t *t;
  size_t mask, n;
} pmap_t;

static size_t pm_hash(uintptr_t k) {
  uint64_t h = (uint64_t)k;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (size_t)h;
}

static pm_ent_t *pm_find(const pmap_t *m, uintptr_t k) {
  if (!m->t || !k) return NULL;
  for (size_t i = pm_hash(k) & m->mask;; i = (i + 1) & m->mask) {
    if (m->t[i].key == k) return &m->t[i];
    if (!m->t[i].key) return NULL;
  }
}

static void oom(const char *what) { llamp_capture_fatal("out of memory (%s)", what); }

/* The entry for k, created zeroed (with its key) when missing. */
static pm_ent_t *pm_insert(pmap_t *m, uintptr_t k) {
  if (!m->t || (m->n + 1) * 2 > m->mask + 1) {
    size_t cap = m->t ? (m->mask + 1) * 2 : 64;
    pm_ent_t *t = calloc(cap, sizeof *t);
    if (!t) oom("handle map");
    for (size_t j = 0; m->t && j <= m->mask; j++) {
      if (!m->t[j].key) continue;
      size_t i = pm_hash(m->t[j].key) & (cap - 1);
      while (t[i].key) i = (i + 1) & (cap - 1);
      t[i] = m->t[j];
    }
    free(m->t);
    m->t = t;
    m->mask = cap - 1;
  }
  size_t i = pm_hash(k) & m->mask;
  for (; m->t[i].key; i = (i + 1) & m->mask)
    if (m->t[i].key == k) return &m->t[i];
  memset(&m->t[i], 0, sizeof m->t[i]); /* an erased slot keeps its old fields */
  m->t[i].key = k;
  m->n++;
  return &m->t[i];
}

/* Remove e (a pointer into the table), shifting the following cluster back. */
static void pm_erase(pmap_t *m, pm_ent_t *e) {
  size_t i = (size_t)(e - m->t);
  m->t[i].key = 0;
  m->n--;
  for (size_t j = (i + 1) & m->mask; m->t[j].key; j = (j + 1) & m->mask) {
    size_t home = pm_hash(m->t[j].key) & m->mask;
    /* move j to the hole at i if its home is not in (i, j] cyclically */
    if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
      m->t[i] = m->t[j];
      m->t[j].key = 0;
      i = j;
    }
  }
}

static void pm_free(pmap_t *m) {
  free(m->t);
  memset(m, 0, sizeof *m);
}

/* ---- the live requests: MPI_Request -> entry, dense (llamp_dmap.h) ----------- */

typedef struct {
  uint64_t id;
  void *ptr; /* receive requests: comm_ent_t * (status translation) */
  int32_t src; /* receive requests: posted source (world rank), -1 = any */
  unsigned kind : 4; /* LLAMP_CAP_REQ_* */
  signed tag : 28;   /* receive requests: posted tag, -1 = any (or too large to keep here) */
} rq_ent_t;
#define RQ_TAG_MAX ((1 << 27) - 1)

static rq_ent_t *rq_find(llamp_dmap_t *m, MPI_Request h) { return llamp_dmap_find(m, (uintptr_t)h); }

/* ---- per-rank state ----------------------------------------------------------- */

struct comm_ent {
  MPI_Comm h;
  uint32_t id;
  int size, me;
  llamp_trace_run_t *runs; /* members as world-rank runs; NULL = identity (O(1) for
                              a world copy or a Cartesian row: not N words per rank) */
  uint32_t nruns;
  uint64_t children; /* communicator-creating calls made on it (agreed sequence) */
  uint32_t wins;     /* windows made on it (their index: agreed, creation is collective) */
  int refs;          /* live handle + pending requests */
};

/* Ordered by use, in 64-byte lines: every recorded call reads lines 0 and
 * 1, a point-to-point call also 2 and 3 (the datatypes, the world), a
 * completion 3 and 4.  The ranks take turns, so each line a call touches is
 * a cache miss. */
typedef struct {
  /* line 0: the call's life cycle and compute bursts (llamp_capture_compute_t:
   * inject = this rank times its bursts and executes them at `rate` flop per
   * CPU second, dropping those below `threshold`; otherwise bursts are only
   * measured, wall clock, for the report's sanity check) */
  int on, depth, inject;
  unsigned tnext;
  double burst_t0;  /* clock at the end of the last wrapper */
  double measured;  /* compute total: measured bursts (ticks until MPI_Finalize when not injected) */
  double read_cost; /* CPU time of one thread-clock read, taken off every burst */
  double rate, threshold;
  llamp_trace_writer_t *w;
  /* line 1: the requests and what a call's end reads */
  llamp_dmap_t reqs; /* MPI_Request -> rq_ent_t */
  uint64_t next_req;
  uint64_t *pay;
  double last_end; /* simulated end of the last recorded call */
  /* lines 2-3: the gaps, the last datatypes' sizes, MPI_COMM_WORLD */
  double simulated; /* compute total: simulated gaps */
  size_t paycap;
  MPI_Datatype tkey[4];
  int tsize[4];
  comm_ent_t world;
  /* lines 3-4: a completion's copy of the handles and its statuses */
  MPI_Request *hs;
  size_t hscap;
  const MPI_Request *ureqs; /* the program's own array of the last completion call */
  int un;
  int *win; /* its completion windows (llamp_capture_sleeps_order), hscap entries */
  MPI_Status *st;
  size_t stcap;
  int named; /* every receive among the completion's requests has a named source and tag */
  /* the rest: communicators, windows, scratch, set-up */
  pmap_t comms; /* MPI_Comm -> comm_ent_t* (ptr) */
  pmap_t seen;  /* member-set hash -> occurrences (lazily found communicators) */
  pmap_t wins;  /* MPI_Win -> win_ent_t* (ptr) */
  int32_t *tmp_ranks;
  size_t tmp_cap;
  int32_t *name_ids; /* interned trace name of each unmodelled function */
  const llamp_cap_tables_t *tables; /* the program copy's (its counts are this rank's) */
  int done;
  double tick0, wall0; /* wall_ticks() and CLOCK_MONOTONIC at MPI_Init (bursts not injected) */
  /* bursts under the threshold between two reads of the clock: a loop that
   * waits for time to pass, whose CPU time follows the simulated clock */
  double clock_t0;        /* burst_t0 of a burst that began at a clock read */
  double clock_wait;      /* their CPU time, s */
  uint64_t clock_wait_n;  /* and their number */
  uint32_t rank, size;
  MPI_Group world_group;
} rank_state_t;
_Static_assert(offsetof(rank_state_t, reqs) == 64 && offsetof(rank_state_t, simulated) == 128,
               "a call's lines as laid out");

#ifdef LLAMP_CAPTURE_NATIVE
/* one rank a process: the state and the tables are this library's own */
static const llamp_cap_tables_t native_tables = {&llamp_cap_num_unmodelled, llamp_cap_unmodelled_names,
                                                 llamp_cap_unmodelled_local, llamp_cap_unmodelled_counts};
static rank_state_t native_state __attribute__((aligned(64))) = {.reqs = {.vsize = sizeof(rq_ent_t)},
                                                                  .tables = &native_tables};
void *llamp_cap_self = &native_state;
#define S native_state
#else
void *llamp_cap_self;
#define S (*(rank_state_t *)llamp_cap_self)
#endif

/* A PMPI call inside a helper: when SMPI lets other ranks run during it
 * (MPI_Init, MPI_Finalize; not expected of the local queries, kept on them
 * anyway), this rank's state is the current one again afterwards. */
#ifdef LLAMP_CAPTURE_NATIVE
#define KEEP_RANK(call) (call)
#else
#define KEEP_RANK(call)                                                        \
  __extension__({                                                              \
    void *me_ = llamp_cap_self;                                                \
    int r_ = (call);                                                           \
    llamp_cap_self = me_;                                                      \
    r_;                                                                        \
  })
#endif

void *llamp_cap_state_new(const llamp_cap_tables_t *tables) {
  rank_state_t *st = aligned_alloc(64, (sizeof *st + 63) / 64 * 64); /* lines as laid out */
  if (!st) oom("rank state");
  memset(st, 0, sizeof *st);
  llamp_dmap_init(&st->reqs, sizeof(rq_ent_t));
  st->tables = tables;
  return st;
}

static uint64_t *pay_reserve(llamp_cap_call_t *c, size_t words) {
  size_t need = (size_t)c->npay + words;
  if (need > S.paycap) {
    size_t cap = S.paycap ? S.paycap : 256;
    while (cap < need) cap *= 2;
    uint64_t *p = realloc(S.pay, cap * sizeof *p);
    if (!p) oom("record payload");
    S.pay = p;
    S.paycap = cap;
  }
  uint64_t *p = S.pay + c->npay;
  c->npay = (uint32_t)need;
  return p;
}

static uint64_t type_size(MPI_Datatype t) {
  if (!t) return 0;
  for (int i = 0; i < 4; i++)
    if (S.tkey[i] == t) return (uint64_t)S.tsize[i];
  int sz = 0;
  if (KEEP_RANK(PMPI_Type_size(t, &sz)) != MPI_SUCCESS || sz < 0) sz = 0;
  unsigned i = S.tnext++ & 3u;
  S.tkey[i] = t;
  S.tsize[i] = sz;
  return (uint64_t)sz;
}

static uint64_t nbytes(int count, MPI_Datatype t) {
  return count > 0 ? (uint64_t)count * type_size(t) : 0;
}

/* World rank of communicator rank r; wildcards and MPI_PROC_NULL mapped. */
static int32_t world_of(const comm_ent_t *ce, int r) {
  if (r == MPI_ANY_SOURCE) return LLAMP_TRACE_ANY_SOURCE;
  if (!ce || r < 0 || r >= ce->size) return LLAMP_TRACE_NO_PEER;
  return ce->runs ? (int32_t)llamp_trace_runs_world(ce->runs, ce->nruns, (uint32_t)r) : r;
}

/* A status's source as a world rank (-1 when none). */
static int32_t status_source(const comm_ent_t *ce, int r) {
  int32_t w = world_of(ce, r);
  return w < 0 ? -1 : w;
}

/* The translation buffer of a world-sized group is N ints on each of N
 * ranks: give it back rather than keep N^2 in all. */
static void tmp_release(void) {
  if (S.tmp_cap > 4096) {
    free(S.tmp_ranks);
    S.tmp_ranks = NULL;
    S.tmp_cap = 0;
  }
}

static int32_t *tmp_ranks(size_t n) {
  if (n > S.tmp_cap) {
    int32_t *p = realloc(S.tmp_ranks, n * sizeof *p);
    if (!p) oom("rank translation");
    S.tmp_ranks = p;
    S.tmp_cap = n;
  }
  return S.tmp_ranks;
}

/* Members of c as runs of world ranks: a new array, or NULL (*nruns 0) for
 * the identity. */
static llamp_trace_run_t *members_of(MPI_Comm c, int size, uint32_t *nruns) {
  MPI_Group g;
  if (KEEP_RANK(PMPI_Comm_group(c, &g)) != MPI_SUCCESS) llamp_capture_fatal("MPI_Comm_group failed");
  int *in = (int *)tmp_ranks((size_t)size * 2);
  int *out = in + size;
  for (int i = 0; i < size; i++) in[i] = i;
  if (KEEP_RANK(PMPI_Group_translate_ranks(g, size, in, S.world_group, out)) != MPI_SUCCESS)
    llamp_capture_fatal("MPI_Group_translate_ranks failed");
  KEEP_RANK(PMPI_Group_free(&g));
  *nruns = 0;
  int identity = (uint32_t)size == S.size;
  for (int i = 0; i < size && identity; i++) identity = out[i] == i;
  if (identity) return NULL;
  llamp_trace_run_t *w = malloc(((size_t)size + 1) * sizeof *w);
  if (!w) oom("communicator members");
  for (int i = 0; i < size; i++) llamp_trace_runs_push(w, nruns, (uint32_t)out[i]);
  llamp_trace_run_t *fit = realloc(w, ((size_t)*nruns + 1) * sizeof *w);
  tmp_release();
  return fit ? fit : w;
}

/* The runs are canonical (greedy), so hashing them hashes the member list. */
static uint64_t members_hash(const comm_ent_t *ce) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)ce->size;
  for (uint32_t i = 0; i < ce->nruns; i++) {
    uint64_t w[3] = {ce->runs[i].first, (uint32_t)ce->runs[i].stride, ce->runs[i].count};
    for (int j = 0; j < 3; j++) {
      h ^= w[j] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    }
  }
  return h ? h : 1;
}

static void comm_release(comm_ent_t *ce) {
  if (!ce || ce == &S.world) return;
  if (--ce->refs == 0) {
    free(ce->runs);
    free(ce);
  }
}

static comm_ent_t *comm_new_entry(MPI_Comm h) {
  comm_ent_t *ce = calloc(1, sizeof *ce);
  if (!ce) oom("communicator");
  ce->h = h;
  KEEP_RANK(PMPI_Comm_size(h, &ce->size));
  KEEP_RANK(PMPI_Comm_rank(h, &ce->me));
  ce->runs = members_of(h, ce->size, &ce->nruns);
  ce->refs = 1;
  return ce;
}

static void comm_map(comm_ent_t *ce) {
  pm_ent_t *e = pm_insert(&S.comms, (uintptr_t)ce->h);
  if (e->ptr) comm_release(e->ptr); /* a stale handle SMPI reused */
  e->ptr = ce;
}

static void append(const llamp_trace_rec_t *rec, const uint64_t *payload) {
  if (llamp_trace_append(S.w, rec, payload))
    llamp_capture_fatal("rank %u: %s", S.rank, llamp_trace_writer_error(S.w));
}

/* The words of a COMM_* payload: [id, size, members] as runs when shorter
 * (LLAMP_TRACE_F_COMM_RUNS, returned) or as the plain list. */
static size_t comm_words(const comm_ent_t *ce) {
  size_t runs = ce->runs ? 3 + 3 * (size_t)ce->nruns : 3 + 3;
  return runs < 2 + (size_t)ce->size ? runs : 2 + (size_t)ce->size;
}
static uint16_t comm_payload(const comm_ent_t *ce, uint64_t *p) {
  p[0] = ce->id;
  p[1] = (uint64_t)ce->size;
  if (comm_words(ce) == 2 + (size_t)ce->size) {
    for (int i = 0; i < ce->size; i++) p[2 + i] = (uint64_t)(uint32_t)world_of(ce, i);
    return 0;
  }
  if (!ce->runs) { /* the identity: one run */
    p[2] = 1;
    p[3] = 0;
    p[4] = llamp_trace_zigzag(1);
    p[5] = (uint64_t)ce->size;
    return LLAMP_TRACE_F_COMM_RUNS;
  }
  p[2] = ce->nruns;
  for (uint32_t i = 0; i < ce->nruns; i++) {
    p[3 + 3 * i] = ce->runs[i].first;
    p[4 + 3 * i] = llamp_trace_zigzag(ce->runs[i].stride);
    p[5 + 3 * i] = ce->runs[i].count;
  }
  return LLAMP_TRACE_F_COMM_RUNS;
}

static void pay_comm(llamp_cap_call_t *c, const comm_ent_t *ce) {
  c->rec.flags |= comm_payload(ce, pay_reserve(c, comm_words(ce)));
}

/* A communicator used before we saw it created (MPI_COMM_SELF, or one made
 * by a call the table does not model): register it under a key all members
 * compute alike (member set, occurrence) and record its membership. */
static comm_ent_t *comm_lazy(MPI_Comm h, double t) {
  comm_ent_t *ce = comm_new_entry(h);
  uint64_t mh = members_hash(ce);
  pm_ent_t *e = pm_insert(&S.seen, (uintptr_t)mh);
  uint64_t key[4] = {3, mh, (uint64_t)ce->size, e->id++};
  ce->id = llamp_capture_comm_id(key, 4);
  comm_map(ce);
  llamp_trace_rec_t r;
  memset(&r, 0, sizeof r);
  r.op = LLAMP_OP_COMM_CREATE;
  r.comm = LLAMP_TRACE_COMM_WORLD;
  r.peer = LLAMP_TRACE_NO_PEER;
  r.tag = -1;
  r.req = LLAMP_TRACE_NO_REQ;
  r.status_source = r.status_tag = -1;
  r.t_start = r.t_end = t;
  r.nwords = (uint32_t)comm_words(ce);
  /* its own buffer: the current call may already hold payload words */
  uint64_t *p = malloc(r.nwords * sizeof *p);
  if (!p) oom("communicator record");
  r.flags = comm_payload(ce, p);
  append(&r, p);
  free(p);
  return ce;
}

static comm_ent_t *comm_lookup(MPI_Comm h, double t) {
  if (h == MPI_COMM_WORLD) return &S.world;
  if (h == MPI_COMM_NULL) return NULL;
  pm_ent_t *e = pm_find(&S.comms, (uintptr_t)h);
  return e ? e->ptr : comm_lazy(h, t);
}

/* ---- call life cycle ------------------------------------------------------------ */

static double clock_now(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The wall clock of bursts that are only measured, in ticks: the TSC where
 * it is invariant (x86: CPUID 0x80000007, EDX bit 8), else CLOCK_MONOTONIC
 * in ns.  Two reads per recorded call: rdtsc takes 11 ns on this VM against
 * 30 ns for clock_gettime (and no vDSO page or code to bring back after the
 * other ranks ran).  A rank converts its total at MPI_Finalize with the rate
 * seen between its MPI_Init and then (seconds apart: exact enough for the
 * report's sanity check). */
static int tsc_ok = -1; /* one process: decided at the first MPI_Init */

static void ticks_decide(void) {
  if (tsc_ok >= 0) return;
  tsc_ok = 0;
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (__get_cpuid(0x80000007u, &a, &b, &c, &d)) tsc_ok = (d >> 8) & 1u;
#endif
}

static inline double wall_ticks(void) {
#if defined(__x86_64__)
  if (tsc_ok > 0) return (double)__rdtsc();
#endif
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

/* Seconds per tick since (tick0, wall0). */
static double tick_seconds(double tick0, double wall0) {
  double dt = wall_ticks() - tick0, ds = clock_now(CLOCK_MONOTONIC) - wall0;
  if (tsc_ok <= 0 || !(dt > 0) || !(ds > 0)) return 1e-9;
  return ds / dt;
}

#ifndef LLAMP_CAPTURE_NATIVE
/* SimGrid's own smpi_execute_flops (the program's copies bind the name to
 * their hook).  Executing lets other ranks run: their helpers change the
 * current state, so this rank's is set back after. */
static void real_execute_flops(double flops) {
  static void (*fn)(double);
  if (!fn && !(fn = (void (*)(double))llamp_capture_simgrid_sym("smpi_execute_flops")))
    llamp_capture_fatal("cannot find SimGrid's smpi_execute_flops");
  void *me = llamp_cap_self;
  fn(flops);
  llamp_cap_self = me;
}
#endif

/* The program's compute since the last wrapper returned: measured, and
 * executed on the rank's host when the capture injects compute.  at_clock:
 * the burst ends at a read of the clock. */
static void burst_end_at(int at_clock) {
  if (!S.inject) {
    S.measured += wall_ticks() - S.burst_t0; /* ticks until MPI_Finalize */
    return;
  }
  /* a burst holds the capture's two clock reads (the end of the one that
   * started it, the start of this one): one read's CPU time, 0.1-2 us, not
   * the program's (1.4 us x 6 bursts per iteration was 15 % of a test's
   * compute on a VM) */
  double e = llamp_cpuclock_now() - S.burst_t0 - S.read_cost;
  if (e < 0) e = 0;
  S.measured += e;
#ifndef LLAMP_CAPTURE_NATIVE
  if (e >= S.threshold) {
    real_execute_flops(e * S.rate);
    return;
  }
#endif
  /* dropped, and from one clock read to the next: a wait such as
   * `while (now() - t0 < dt)`.  Its iterations end only when the simulated
   * clock has moved, so their CPU time is not compute the threshold lost
   * (a 1 ms pause loop of PRK spun 28 ms of CPU with the threshold, 1 ms
   * without it) */
  if (at_clock && S.burst_t0 == S.clock_t0) {
    S.clock_wait += e;
    S.clock_wait_n++;
  }
}
static void burst_end(void) { burst_end_at(0); }

static void burst_begin(void) {
  /* the thread's CPU time, as SMPI times compute; a system call only after
   * the OS switched the thread out (llamp_cpuclock.h: 28 ns a read against
   * 1.5 us on our VM) */
  S.burst_t0 = S.inject ? llamp_cpuclock_now() : wall_ticks();
}


int llamp_cap_begin(llamp_cap_call_t *c, int op) {
  if (!S.on || S.depth) return 0;
  S.depth = 1;
  burst_end();
  memset(&c->rec, 0, sizeof c->rec);
  c->rec.op = (uint16_t)op;
  c->rec.peer = LLAMP_TRACE_NO_PEER;
  c->rec.tag = -1;
  c->rec.req = LLAMP_TRACE_NO_REQ;
  c->rec.status_source = c->rec.status_tag = -1;
  c->rec.t_start = simgrid_get_clock();
  if (c->rec.t_start > S.last_end) S.simulated += c->rec.t_start - S.last_end;
  c->npay = 0;
  c->recv_src = -1;
  c->split_t = -1;
  c->split_first = -1;
  c->order = 0;
  return 1;
}

void llamp_cap_pmpi(llamp_cap_call_t *c) {
#ifndef LLAMP_CAPTURE_NATIVE
  if (c->rec.op == LLAMP_OP_WAITSOME) llamp_capture_sleeps_watch();
  if (c->rec.op == LLAMP_OP_WAITALL && S.un > 1 && S.ureqs && c->npay == 2 * (uint32_t)S.un) {
    llamp_capture_sleeps_order((void *const *)S.ureqs, (const void *)MPI_REQUEST_NULL, S.un, S.win);
    c->order = 1;
  }
#else
  (void)c;
#endif
}

void llamp_cap_pmpi_done(llamp_cap_call_t *c) {
  c->rec.t_end = simgrid_get_clock();
#ifndef LLAMP_CAPTURE_NATIVE
  if (c->order) llamp_capture_sleeps_order_end();
  if (c->rec.op == LLAMP_OP_WAITSOME) {
    double w = llamp_capture_sleeps_first_test();
    if (w >= c->rec.t_start && w <= c->rec.t_end) c->split_t = w;
  }
#endif
}

/* An MPI_Waitall's (request, status) pairs in the order SMPI completed
 * them (stable by window: the array's order within one), so that the DAG
 * chains its receives' or as SMPI slept them (sched.c cpu_after). */
static void order_pairs(uint32_t n) {
  uint64_t *p = S.pay, *tmp = malloc(2 * (size_t)n * sizeof *tmp);
  if (!tmp) return; /* the array's order: still a valid record */
  int wmax = 0;
  for (uint32_t i = 0; i < n; i++) wmax = S.win[i] > wmax ? S.win[i] : wmax;
  uint32_t k = 0;
  for (int w = 0; w <= wmax && k < n; w++)
    for (uint32_t i = 0; i < n; i++)
      if (S.win[i] == w) tmp[2 * k] = p[2 * i], tmp[2 * k + 1] = p[2 * i + 1], k++;
  if (k == n) memcpy(p, tmp, 2 * (size_t)n * sizeof *tmp);
  free(tmp);
}

void llamp_cap_end(llamp_cap_call_t *c) {
  if (c->order) order_pairs((uint32_t)S.un);
  c->rec.nwords = c->npay;
  if (c->split_first >= 0 && 2 * (uint32_t)c->split_first + 1 < c->npay) {
    /* SMPI's MPI_Waitsome as it ran: the Waitany of the request it returned
     * first, then the MPI_Test of every other request (polling) */
    llamp_trace_rec_t w = c->rec;
    uint32_t f = 2 * (uint32_t)c->split_first;
    w.op = LLAMP_OP_WAITANY;
    w.t_end = c->split_t;
    w.nwords = 2;
    append(&w, S.pay + f);
    S.pay[f + 1] = llamp_trace_pack_status(0, -1, -1);
    c->rec.op = LLAMP_OP_TESTSOME;
    c->rec.t_start = c->split_t;
  }
  append(&c->rec, S.pay);
  S.depth = 0;
  if (c->rec.t_end > S.last_end) S.last_end = c->rec.t_end;
  burst_begin();
}

void llamp_cap_sync_compute(void) {
  if (!S.on || S.depth) return;
  burst_end();
  burst_begin();
}

void llamp_cap_clock_read(void) {
  if (!S.on || S.depth) return;
  burst_end_at(1);
  burst_begin();
  S.clock_t0 = S.burst_t0;
}

int llamp_cap_rank(void) { return S.on && !S.depth ? (int)S.rank : -1; }

void llamp_cap_compute_restart(void) {
  if (S.on && !S.depth) burst_begin();
}

/* Around an SMPI function the program calls outside MPI (capture_rank.h's
 * hooks): the compute so far is executed first, as SMPI would, and the clock
 * restarts after it, so no other rank's CPU time enters this rank's burst.
 * hook_enter is 1 when it ended the burst (0 outside a capture or inside a
 * wrapper). */
#ifndef LLAMP_CAPTURE_NATIVE
static int hook_enter(int at_clock) {
  if (!S.on || S.depth) return 0;
  S.depth = 1;
  burst_end_at(at_clock);
  return 1;
}
static void hook_leave(int synced, int at_clock) {
  if (!synced) return;
  S.depth = 0;
  burst_begin();
  if (at_clock) S.clock_t0 = S.burst_t0;
}
/* the hooks that read the clock (a constant once inlined) */
static inline int hook_reads_clock(const char *name) {
  return !strcmp(name, "smpi_gettimeofday") || !strcmp(name, "smpi_clock_gettime");
}

/* SimGrid's own `name` (the program's copies define the name: their hook). */
static void *simgrid_fn(const char *name, void **slot) {
  if (!*slot && !(*slot = llamp_capture_simgrid_sym(name))) llamp_capture_fatal("cannot find SimGrid's %s", name);
  return *slot;
}
/* SimGrid's function lets other ranks run: this rank is made current again */
#define LLAMP_RT_HOOK(ret, name, params, args)                                   \
  ret llamp_rt_hook_##name params {                                              \
    static void *fn;                                                             \
    void *me = llamp_cap_self;                                                   \
    int synced = hook_enter(hook_reads_clock(#name));                            \
    ret r = ((ret(*) params)simgrid_fn(#name, &fn)) args;                        \
    llamp_cap_self = me;                                                         \
    hook_leave(synced, hook_reads_clock(#name));                                 \
    return r;                                                                    \
  }
#define LLAMP_RT_HOOK_VOID(name, params, args)                                   \
  void llamp_rt_hook_##name params {                                             \
    static void *fn;                                                             \
    void *me = llamp_cap_self;                                                   \
    int synced = hook_enter(hook_reads_clock(#name));                            \
    ((void(*) params)simgrid_fn(#name, &fn)) args;                               \
    llamp_cap_self = me;                                                         \
    hook_leave(synced, hook_reads_clock(#name));                                 \
  }
LLAMP_CAP_HOOKS(LLAMP_CAP_HOOK_DECL, LLAMP_CAP_HOOK_DECL_VOID)
LLAMP_CAP_HOOKS(LLAMP_RT_HOOK, LLAMP_RT_HOOK_VOID)
#endif

/* ---- errors, handed on as SMPI's MPI_Xyz hands them --------------------------------- *
 * SMPI gives a failed call's code to an error handler in its MPI_Xyz layer,
 * above the PMPI_Xyz the wrappers call.  Without this, a call that fails
 * returned its code where plain smpirun stops the run (MPI_ERRORS_ARE_FATAL,
 * the default): PRK's RMA kernels then called MPI_Abort on their own, and
 * SMPI ended that run with exit code 0. */
#ifndef LLAMP_CAPTURE_NATIVE
static int error_to_handler(int ret, const char *fn, MPI_Errhandler eh, int (*call)(const void *, int),
                            const void *obj) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (PMPI_Error_string(ret, text, &len) != MPI_SUCCESS || len <= 0 || len > MPI_MAX_ERROR_STRING)
    len = snprintf(text, sizeof text, "error code %d", ret);
  if (eh == MPI_ERRHANDLER_NULL || eh == MPI_ERRORS_RETURN) {
    fprintf(stderr, "smpi_llamp: %s - returned %.*s instead of MPI_SUCCESS\n", fn, len, text);
  } else if (eh == MPI_ERRORS_ARE_FATAL) {
    fprintf(stderr,
            "smpi_llamp: %s - returned %.*s instead of MPI_SUCCESS; the error handler is "
            "MPI_ERRORS_ARE_FATAL: the run stops, as it does under plain smpirun\n",
            fn, len, text);
    fflush(NULL);
    abort();
  } else {
    call(obj, ret);
    PMPI_Errhandler_free(&eh); /* the reference the get took */
  }
  return ret;
}
static int call_comm(const void *obj, int code) { return PMPI_Comm_call_errhandler(*(const MPI_Comm *)obj, code); }
static int call_win(const void *obj, int code) { return PMPI_Win_call_errhandler(*(const MPI_Win *)obj, code); }
static int call_file(const void *obj, int code) { return PMPI_File_call_errhandler(*(const MPI_File *)obj, code); }

int llamp_cap_error_comm(int ret, const char *fn, MPI_Comm comm, int null_world) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (comm == MPI_COMM_NULL && null_world) comm = MPI_COMM_WORLD;
  if (comm != MPI_COMM_NULL && PMPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS) eh = MPI_ERRHANDLER_NULL;
  return error_to_handler(ret, fn, eh, call_comm, &comm);
}
/* a null window or file has no handler (SMPI warns) */
int llamp_cap_error_win(int ret, const char *fn, MPI_Win win) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (win != MPI_WIN_NULL && PMPI_Win_get_errhandler(win, &eh) != MPI_SUCCESS) eh = MPI_ERRHANDLER_NULL;
  return error_to_handler(ret, fn, eh, call_win, &win);
}
int llamp_cap_error_file(int ret, const char *fn, MPI_File file) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (file != MPI_FILE_NULL && PMPI_File_get_errhandler(file, &eh) != MPI_SUCCESS) eh = MPI_ERRHANDLER_NULL;
  return error_to_handler(ret, fn, eh, call_file, &file);
}
#endif

/* ---- point-to-point ---------------------------------------------------------------- */

void llamp_cap_p2p(llamp_cap_call_t *c, MPI_Comm comm, int peer, int tag, int count,
                   MPI_Datatype type) {
  comm_ent_t *ce = comm_lookup(comm, c->rec.t_start);
  c->rec.comm = ce ? ce->id : UINT32_MAX;
  c->rec.peer = world_of(ce, peer);
  c->rec.tag = tag == MPI_ANY_TAG ? LLAMP_TRACE_ANY_TAG : tag;
  c->rec.bytes = nbytes(count, type);
  c->recv_src = c->rec.peer >= 0 ? c->rec.peer : -1;
}

void llamp_cap_sendrecv_recv(llamp_cap_call_t *c, MPI_Comm comm, int source, int tag, int count,
                             MPI_Datatype type) {
  comm_ent_t *ce = comm_lookup(comm, c->rec.t_start);
  uint64_t *p = pay_reserve(c, 3);
  p[0] = (uint64_t)(uint32_t)world_of(ce, source);
  c->recv_src = world_of(ce, source) >= 0 ? world_of(ce, source) : -1;
  p[1] = (uint64_t)(uint32_t)(tag == MPI_ANY_TAG ? LLAMP_TRACE_ANY_TAG : tag);
  p[2] = nbytes(count, type);
}

void llamp_cap_status(llamp_cap_call_t *c, int ret, MPI_Comm comm, const MPI_Status *st) {
  if (ret != MPI_SUCCESS || !st) return;
  /* A named source is the status's source.  (SMPI 3.32 reports the actor
   * id, rank + 1, as MPI_SOURCE of a message to oneself; only wildcard
   * receives need the status.) */
  if (c->recv_src >= 0) c->rec.status_source = c->recv_src;
  else c->rec.status_source = status_source(comm_lookup(comm, c->rec.t_start), st->MPI_SOURCE);
  c->rec.status_tag = st->MPI_TAG < 0 ? -1 : st->MPI_TAG;
}

void llamp_cap_probe(llamp_cap_call_t *c, int ret, MPI_Comm comm, int flag, const MPI_Status *st) {
#ifndef LLAMP_CAPTURE_NATIVE
  if (c->rec.op == LLAMP_OP_PROBE) c->rec.flags |= LLAMP_TRACE_F_POLLED;
#endif
  if (ret != MPI_SUCCESS || !flag) return;
  c->rec.flags |= LLAMP_TRACE_F_COMPLETED;
  llamp_cap_status(c, ret, comm, st);
  int n = 0;
  if (KEEP_RANK(PMPI_Get_count(st, MPI_BYTE, &n)) == MPI_SUCCESS && n > 0) c->rec.bytes = (uint64_t)n;
}

/* ---- requests ------------------------------------------------------------------------ */

void llamp_cap_new_request(llamp_cap_call_t *c, int ret, const MPI_Request *req, int kind,
                           MPI_Comm comm) {
  if (ret != MPI_SUCCESS || !req || *req == MPI_REQUEST_NULL) return;
  rq_ent_t *e = llamp_dmap_insert(&S.reqs, (uintptr_t)*req);
  if (!e) oom("request map");
  if (e->ptr) comm_release(e->ptr); /* a stale handle SMPI reused */
  e->id = S.next_req++;
  e->kind = kind;
  e->ptr = NULL;
  e->src = c->recv_src;
  e->tag = (kind & LLAMP_CAP_REQ_RECV) && c->rec.tag >= 0 && c->rec.tag <= RQ_TAG_MAX ? c->rec.tag : -1;
  if (kind & LLAMP_CAP_REQ_RECV) {
    comm_ent_t *ce = comm_lookup(comm, c->rec.t_start);
    if (ce && ce != &S.world) ce->refs++;
    e->ptr = ce;
  }
  c->rec.req = e->id;
}

void llamp_cap_start(llamp_cap_call_t *c, const MPI_Request *req) {
  rq_ent_t *e = req ? rq_find(&S.reqs, *req) : NULL;
  c->rec.req = e ? e->id : LLAMP_TRACE_NO_REQ;
}

MPI_Request *llamp_cap_requests(llamp_cap_call_t *c, int n, const MPI_Request *reqs) {
  if (n < 0 || !reqs) n = 0;
  if ((size_t)n > S.hscap) {
    size_t cap = S.hscap ? S.hscap : 64;
    while (cap < (size_t)n) cap *= 2;
    MPI_Request *h = realloc(S.hs, cap * sizeof *h);
    if (!h) oom("request list");
    S.hs = h;
    int *w = realloc(S.win, cap * sizeof *w);
    if (!w) oom("request list");
    S.win = w;
    S.hscap = cap;
  }
  S.ureqs = reqs;
  S.un = n;
  uint64_t *p = pay_reserve(c, 2 * (size_t)n);
  int named = 1;
  for (int i = 0; i < n; i++) {
    S.hs[i] = reqs[i];
    uint64_t id = LLAMP_TRACE_NO_REQ;
    if (reqs[i] != MPI_REQUEST_NULL) {
      rq_ent_t *e = rq_find(&S.reqs, reqs[i]);
      id = e ? e->id : S.next_req++; /* a request no modelled call created */
      if (e && (e->kind & LLAMP_CAP_REQ_RECV)) named &= e->src >= 0 && e->tag >= 0;
    }
    p[2 * i] = id;
    p[2 * i + 1] = llamp_trace_pack_status(0, -1, -1);
  }
  S.named = named;
  return S.hs;
}

MPI_Status *llamp_cap_statuses(llamp_cap_call_t *c, int n, MPI_Status *st, MPI_Status *one) {
  (void)c;
  if (st != MPI_STATUSES_IGNORE) return st;
  if (n <= 1) return one;
  /* the program ignores them and so can the record, when the requests
   * (llamp_cap_requests, just before) name their sources and tags: SimGrid
   * then writes no status (a cold line each, every call) */
  if (S.named) return MPI_STATUSES_IGNORE;
  if ((size_t)n > S.stcap) {
    MPI_Status *p = realloc(S.st, (size_t)n * sizeof *p);
    if (!p) oom("statuses");
    S.st = p;
    S.stcap = (size_t)n;
  }
  return S.st;
}

/* Request i of the call completed with status st; 0 for a null request. */
static int completed(llamp_cap_call_t *c, uint32_t base, int i, const MPI_Request *h,
                     const MPI_Status *st) {
  (void)c;
  if (h[i] == MPI_REQUEST_NULL) return 0;
  int32_t src = -1, tag = -1;
  rq_ent_t *e = rq_find(&S.reqs, h[i]);
  if (e && (e->kind & LLAMP_CAP_REQ_RECV)) {
    if (st) {
      src = e->src >= 0 ? e->src : status_source(e->ptr, st->MPI_SOURCE);
      tag = st->MPI_TAG < 0 ? -1 : st->MPI_TAG;
    } else { /* statuses ignored: named (llamp_cap_statuses), and a message matches its tag */
      src = e->src;
      tag = e->tag;
    }
  }
  S.pay[base + 2 * (uint32_t)i + 1] = llamp_trace_pack_status(1, src, tag);
  if (e && !(e->kind & LLAMP_CAP_REQ_PERSISTENT)) {
    comm_release(e->ptr);
    llamp_dmap_erase(&S.reqs, e);
  }
  return 1;
}

void llamp_cap_complete(llamp_cap_call_t *c, int ret, int n, const MPI_Request *h,
                        const MPI_Status *st, int pattern, int count, const int *indices) {
  (void)ret;
  if (st == MPI_STATUSES_IGNORE) st = NULL; /* (MPI_Status *)1 in MPICH */
  uint32_t base = c->npay - 2 * (uint32_t)(n > 0 ? n : 0);
  int any = 0;
  if (pattern == LLAMP_CAP_DONE_ALL) {
    if (count)
      for (int i = 0; i < n; i++) any |= completed(c, base, i, h, st ? st + (n > 1 ? i : 0) : NULL);
  } else if (pattern == LLAMP_CAP_DONE_ONE) {
    if (count != MPI_UNDEFINED && count >= 0 && count < n) any |= completed(c, base, count, h, st);
  } else if (count != MPI_UNDEFINED) {
    for (int k = 0; k < count; k++)
      if (indices[k] >= 0 && indices[k] < n) any |= completed(c, base, indices[k], h, st ? st + k : NULL);
    /* the Waitany that SMPI's Waitsome starts with returned indices[0] */
    if (c->split_t >= 0 && base == 0 && count >= 1 && indices[0] >= 0 && indices[0] < n)
      c->split_first = indices[0];
  }
  if (any) c->rec.flags |= LLAMP_TRACE_F_COMPLETED;
}

void llamp_cap_complete_testall(llamp_cap_call_t *c, int ret, int n, const MPI_Request *h,
                                const MPI_Request *after, const MPI_Status *st, int flag) {
  if (flag || !after || n <= 0) {
    llamp_cap_complete(c, ret, n, h, st, LLAMP_CAP_DONE_ALL, flag, NULL);
    return;
  }
  if (st == MPI_STATUSES_IGNORE) st = NULL;
  /* (no LLAMP_TRACE_F_COMPLETED: that would complete them all) */
  uint32_t base = c->npay - 2 * (uint32_t)n;
  for (int i = 0; i < n; i++)
    if (h[i] != MPI_REQUEST_NULL && after[i] == MPI_REQUEST_NULL)
      completed(c, base, i, h, st ? st + (n > 1 ? i : 0) : NULL);
}

void llamp_cap_request_free(llamp_cap_call_t *c, int ret, MPI_Request handle) {
  (void)c;
  if (ret != MPI_SUCCESS || handle == MPI_REQUEST_NULL) return;
  rq_ent_t *e = rq_find(&S.reqs, handle);
  if (e) {
    comm_release(e->ptr);
    llamp_dmap_erase(&S.reqs, e);
  }
}

/* ---- collectives -------------------------------------------------------------------- */

/* Common part: communicator, root (world rank), bytes; `tag` holds the
 * datatype size (the element size for block splits), 0 when unknown. */
void llamp_cap_coll(llamp_cap_call_t *c, MPI_Comm comm, int root, int count, MPI_Datatype type) {
  comm_ent_t *ce = comm_lookup(comm, c->rec.t_start);
  c->rec.comm = ce ? ce->id : UINT32_MAX;
  c->rec.peer = root >= 0 ? world_of(ce, root) : LLAMP_TRACE_NO_PEER;
  c->rec.bytes = nbytes(count, type);
  c->rec.tag = (int32_t)type_size(type);
}

void llamp_cap_coll_block(llamp_cap_call_t *c, int in_place, int count, MPI_Datatype type,
                          int alt_count, MPI_Datatype alt_type) {
  if (in_place) {
    count = alt_count;
    type = alt_type;
  }
  c->rec.bytes = nbytes(count, type);
  c->rec.tag = (int32_t)type_size(type);
}

static comm_ent_t *coll_comm(llamp_cap_call_t *c, MPI_Comm comm) {
  comm_ent_t *ce = comm_lookup(comm, c->rec.t_start);
  if (!ce) llamp_capture_fatal("rank %u: collective on MPI_COMM_NULL", S.rank);
  return ce;
}

void llamp_cap_coll_rootv(llamp_cap_call_t *c, MPI_Comm comm, int root, int in_place, int count,
                          MPI_Datatype type, const int *root_counts, MPI_Datatype root_type) {
  comm_ent_t *ce = coll_comm(c, comm);
  c->rec.bytes = nbytes(count, type);
  c->rec.tag = (int32_t)type_size(in_place ? root_type : type);
  if (ce->me != root || !root_counts) return;
  uint64_t sz = type_size(root_type);
  uint64_t *p = pay_reserve(c, (size_t)ce->size);
  for (int i = 0; i < ce->size; i++) p[i] = root_counts[i] > 0 ? (uint64_t)root_counts[i] * sz : 0;
  if (in_place) c->rec.bytes = p[ce->me];
}

void llamp_cap_coll_allv(llamp_cap_call_t *c, MPI_Comm comm, int in_place, int count,
                         MPI_Datatype type, const int *counts, MPI_Datatype ctype) {
  comm_ent_t *ce = coll_comm(c, comm);
  uint64_t sz = type_size(ctype);
  uint64_t *p = pay_reserve(c, (size_t)ce->size);
  for (int i = 0; i < ce->size; i++) p[i] = counts && counts[i] > 0 ? (uint64_t)counts[i] * sz : 0;
  c->rec.bytes = in_place ? p[ce->me] : nbytes(count, type);
  c->rec.tag = (int32_t)sz;
}

void llamp_cap_coll_alltoallv(llamp_cap_call_t *c, MPI_Comm comm, int in_place, int same_buf, const int *scounts,
                              MPI_Datatype stype, const int *rcounts, MPI_Datatype rtype) {
  comm_ent_t *ce = coll_comm(c, comm);
  if (in_place) scounts = rcounts, stype = rtype, same_buf = 0; /* SMPI sends from a copy */
#ifndef LLAMP_CAPTURE_NATIVE
  /* SMPI's ialltoallv (its default alltoallv too) first copies this rank's
   * own block with Datatype::copy, which compares element counts when the
   * receive count is 0 (or the buffers are one): a positive send count then
   * "truncates" and no message is sent at all (MPICH's alltoallw_zeros) */
  if (scounts && rcounts && ce->me < ce->size && (rcounts[ce->me] <= 0 || same_buf) &&
      scounts[ce->me] > rcounts[ce->me])
    c->rec.flags |= LLAMP_TRACE_F_COLL_EMPTY;
#else
  (void)same_buf;
#endif
  uint64_t ss = type_size(stype), rs = type_size(rtype), total = 0;
  uint64_t *p = pay_reserve(c, 2 * (size_t)ce->size);
  for (int i = 0; i < ce->size; i++) {
    p[i] = scounts && scounts[i] > 0 ? (uint64_t)scounts[i] * ss : 0;
    p[ce->size + i] = rcounts && rcounts[i] > 0 ? (uint64_t)rcounts[i] * rs : 0;
    total += p[i];
  }
  c->rec.bytes = total;
  c->rec.tag = (int32_t)ss;
}

void llamp_cap_coll_alltoallw(llamp_cap_call_t *c, MPI_Comm comm, int in_place, const int *scounts,
                              const MPI_Datatype *stypes, const int *rcounts, const MPI_Datatype *rtypes) {
  comm_ent_t *ce = coll_comm(c, comm);
  if (in_place) scounts = rcounts, stypes = rtypes;
  uint64_t total = 0, *p = pay_reserve(c, 2 * (size_t)ce->size);
  for (int i = 0; i < ce->size; i++) {
    p[i] = scounts && stypes && scounts[i] > 0 && stypes[i] != MPI_DATATYPE_NULL
               ? (uint64_t)scounts[i] * type_size(stypes[i]) : 0;
    p[ce->size + i] = rcounts && rtypes && rcounts[i] > 0 && rtypes[i] != MPI_DATATYPE_NULL
                          ? (uint64_t)rcounts[i] * type_size(rtypes[i]) : 0;
    total += p[i];
  }
  c->rec.bytes = total;
  c->rec.tag = 1; /* counts in bytes */
  c->rec.flags |= LLAMP_TRACE_F_ALLTOALLW;
}

void llamp_cap_coll_counts(llamp_cap_call_t *c, MPI_Comm comm, const int *counts, int each,
                           MPI_Datatype type) {
  comm_ent_t *ce = coll_comm(c, comm);
  uint64_t sz = type_size(type);
  uint64_t *p = pay_reserve(c, (size_t)ce->size);
  for (int i = 0; i < ce->size; i++) {
    int n = counts ? counts[i] : each;
    p[i] = n > 0 ? (uint64_t)n * sz : 0;
  }
  c->rec.bytes = p[ce->me];
  c->rec.tag = (int32_t)sz;
}

/* SimGrid's default reduce (and so its default allreduce and reduce_scatter)
 * runs another algorithm for a non-commutative operation or a derived
 * datatype, and its default allreduce Open MPI's decision for a derived
 * datatype: the record says which (sched/ follows the switch).  Native
 * traces carry neither. */
void llamp_cap_reduction(llamp_cap_call_t *c, MPI_Op op, MPI_Datatype type) {
#ifdef LLAMP_CAPTURE_NATIVE
  (void)c, (void)op, (void)type; /* MPICH's algorithms are not SMPI's: nothing to follow */
#else
  int commute = 1, ni = 0, na = 0, nd = 0, combiner = MPI_COMBINER_NAMED;
  if (op != MPI_OP_NULL && KEEP_RANK(PMPI_Op_commutative(op, &commute)) != MPI_SUCCESS) commute = 1;
  if (type != MPI_DATATYPE_NULL && KEEP_RANK(PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner)) != MPI_SUCCESS)
    combiner = MPI_COMBINER_NAMED;
  if (!commute) c->rec.flags |= LLAMP_TRACE_F_RED_NONCOMMUTATIVE;
  if (combiner != MPI_COMBINER_NAMED) c->rec.flags |= LLAMP_TRACE_F_RED_DERIVED;
#endif
}

/* ---- communicators ----------------------------------------------------------------- */

void llamp_cap_comm_parent(llamp_cap_call_t *c, MPI_Comm parent) {
  comm_ent_t *ce = comm_lookup(parent, c->rec.t_start);
  c->rec.comm = ce ? ce->id : UINT32_MAX;
}

/* SMPI's Comm::split gathers every member's (color, key) on the parent's
 * rank 0, which then sends each new group's members their group, group by
 * group.  Each member registers its pair in the shared runtime before the
 * call; rank 0's call returns only once all of them sent theirs, so it finds
 * the whole table there afterwards (llamp_cap_comm_new).  Returns the
 * record's flags. */
int llamp_cap_comm_split_pre(llamp_cap_call_t *c, MPI_Comm parent, int color, int key) {
  (void)c;
#ifdef LLAMP_CAPTURE_NATIVE
  (void)parent, (void)color, (void)key;
  return 0;
#else
  comm_ent_t *pe = comm_lookup(parent, c->rec.t_start);
  if (!pe) return 0;
  if (llamp_capture_split_register(pe->id, pe->children, (uint32_t)pe->size, (uint32_t)pe->me,
                                   world_of(pe, pe->me), color == MPI_UNDEFINED ? -1 : color, key))
    llamp_capture_fatal("out of memory (MPI_Comm_split table)");
  return LLAMP_TRACE_F_COMM_SPLIT | LLAMP_TRACE_F_COMM_BCAST;
#endif
}

/* MPI_Cart_sub is SMPI's Comm::split with color = the coordinates along the
 * dropped dimensions and key = the rank; dropping every dimension makes a
 * communicator of one rank without a split. */
int llamp_cap_cart_sub_pre(llamp_cap_call_t *c, MPI_Comm cart, const int *remain) {
  int nd = 0;
  if (!remain || KEEP_RANK(PMPI_Cartdim_get(cart, &nd)) != MPI_SUCCESS || nd <= 0 || nd > 64) return 0;
  int dims[64], periods[64], coords[64], color = 0, kept = 0, rank = 0;
  if (KEEP_RANK(PMPI_Cart_get(cart, nd, dims, periods, coords)) != MPI_SUCCESS) return 0;
  for (int i = 0; i < nd; i++) {
    if (remain[i]) kept++;
    else color = color * dims[i] + coords[i];
  }
  if (!kept) {
#ifdef LLAMP_CAPTURE_NATIVE
    return 0;
#else
    return LLAMP_TRACE_F_COMM_BCAST;
#endif
  }
  KEEP_RANK(PMPI_Comm_rank(cart, &rank));
  return llamp_cap_comm_split_pre(c, cart, color, rank);
}

#ifndef LLAMP_CAPTURE_NATIVE
static int cmp_member(const void *a, const void *b) {
  const int64_t *x = a, *y = b; /* (key, parent rank) */
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* On the parent's rank 0: the groups in the order SMPI sends them (by their
 * lowest parent rank), each as its count and the world ranks it sends to
 * (members by (key, parent rank), the parent's rank 0 itself left out). */
static void split_groups(llamp_cap_call_t *c, const comm_ent_t *pe, uint64_t seq) {
  uint32_t n = 0;
  int32_t *color = NULL, *key = NULL, *world = NULL;
  if (llamp_capture_split_take(pe->id, seq, &n, &color, &key, &world))
    llamp_capture_fatal("rank %u: MPI_Comm_split: the members' colors are incomplete", S.rank);
  int64_t *m = malloc((size_t)n * 2 * sizeof *m);
  if (!m) oom("MPI_Comm_split groups");
  uint64_t *ng = pay_reserve(c, 1);
  size_t ngi = (size_t)(ng - S.pay);
  uint64_t groups = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (color[i] < 0) continue;
    uint32_t cnt = 0;
    for (uint32_t j = i; j < n; j++)
      if (color[j] == color[i] && (j == i || color[j] >= 0)) {
        m[2 * cnt] = key[j];
        m[2 * cnt + 1] = j;
        cnt++;
        if (j != i) color[j] = -1;
      }
    color[i] = -1;
    qsort(m, cnt, 2 * sizeof *m, cmp_member);
    uint64_t *p = pay_reserve(c, 1 + cnt);
    uint32_t k = 0;
    for (uint32_t x = 0; x < cnt; x++)
      if (m[2 * x + 1] != 0) p[1 + k++] = (uint64_t)(uint32_t)world[m[2 * x + 1]];
    p[0] = k;
    c->npay -= cnt - k; /* the parent's rank 0 is not sent to */
    groups++;
  }
  S.pay[ngi] = groups;
  free(m);
  free(color);
  free(key);
  free(world);
}
#endif

void llamp_cap_comm_new(llamp_cap_call_t *c, int ret, MPI_Comm parent, MPI_Comm newcomm,
                        MPI_Group group, int flags) {
  comm_ent_t *pe = comm_lookup(parent, c->rec.t_start);
  /* every member of the parent makes the same sequence of these calls, so
   * (parent, sequence number) names the call alike on all of them; not
   * MPI_Comm_create_group, which only the group's members call */
  uint64_t seq = pe && group == (MPI_Group)0 ? pe->children++ : 0;
#ifdef LLAMP_CAPTURE_NATIVE
  flags = 0; /* what SMPI communicates: MPICH communicates otherwise */
#endif
  if (ret != MPI_SUCCESS) flags = 0;
  c->rec.flags |= (uint16_t)flags;
  if (ret != MPI_SUCCESS || newcomm == MPI_COMM_NULL) {
    uint64_t *p = pay_reserve(c, 2);
    p[0] = UINT32_MAX; /* this rank got MPI_COMM_NULL */
    p[1] = 0;
#ifndef LLAMP_CAPTURE_NATIVE
    if ((flags & LLAMP_TRACE_F_COMM_SPLIT) && pe && pe->me == 0) split_groups(c, pe, seq);
#endif
    return;
  }
  comm_ent_t *ce = comm_new_entry(newcomm);
  if (group == (MPI_Group)0) {
    /* collective over the parent: the new communicators of one call are
     * disjoint, so their first member tells them apart */
    uint64_t key[4] = {1, pe ? pe->id : UINT32_MAX, seq, (uint64_t)(uint32_t)world_of(ce, 0)};
    ce->id = llamp_capture_comm_id(key, 4);
  } else {
    /* collective over the group only (MPI_Comm_create_group): members in
     * the same order create the same groups */
    uint64_t mh = members_hash(ce);
    pm_ent_t *e = pm_insert(&S.seen, (uintptr_t)(mh ^ 0x5bd1e995u));
    uint64_t key[5] = {2, pe ? pe->id : UINT32_MAX, mh, (uint64_t)ce->size, e->id++};
    ce->id = llamp_capture_comm_id(key, 5);
  }
  comm_map(ce);
  pay_comm(c, ce);
#ifndef LLAMP_CAPTURE_NATIVE
  if ((flags & LLAMP_TRACE_F_COMM_SPLIT) && pe && pe->me == 0) split_groups(c, pe, seq);
#endif
}

void llamp_cap_comm_free(llamp_cap_call_t *c, int ret, MPI_Comm handle) {
  (void)c;
  if (ret != MPI_SUCCESS || handle == MPI_COMM_WORLD) return;
  pm_ent_t *e = pm_find(&S.comms, (uintptr_t)handle);
  if (!e) return;
  comm_ent_t *ce = e->ptr;
  pm_erase(&S.comms, e);
  comm_release(ce);
}

/* ---- one-sided communication --------------------------------------------------------- */

/* A window: its communicator, its index among the windows made on it (the
 * records name a window by both) and the fences this rank completed on it
 * (the epoch of the messages it sends, llamp_capture_rma_announce). */
typedef struct {
  comm_ent_t *ce;
  uint32_t index, fences;
} win_ent_t;

static win_ent_t *win_lookup(MPI_Win w) {
  pm_ent_t *e = pm_find(&S.wins, (uintptr_t)w);
  return e ? e->ptr : NULL;
}

void llamp_cap_win_new(llamp_cap_call_t *c, int ret, MPI_Comm comm, MPI_Win win, int flags) {
  comm_ent_t *ce = comm_lookup(comm, c->rec.t_start);
  if (ret != MPI_SUCCESS || !ce) return;
  win_ent_t *we = calloc(1, sizeof *we);
  if (!we) oom("window");
  we->ce = ce;
  if (ce != &S.world) ce->refs++;
  we->index = ce->wins++;
  pm_ent_t *e = pm_insert(&S.wins, (uintptr_t)win);
  if (e->ptr) { /* a stale handle SMPI reused */
    comm_release(((win_ent_t *)e->ptr)->ce);
    free(e->ptr);
  }
  e->ptr = we;
  c->rec.tag = (int32_t)we->index;
  c->rec.flags |= (uint16_t)flags;
}

static win_ent_t *win_use(llamp_cap_call_t *c, MPI_Win win) {
  win_ent_t *we = win_lookup(win);
  if (!we) return NULL;
  c->rec.comm = we->ce->id;
  c->rec.tag = (int32_t)we->index;
  return we;
}

void llamp_cap_win(llamp_cap_call_t *c, MPI_Win win) { win_use(c, win); }

/* The messages to this rank that SMPI's call waited for, as a target (Put and
 * Accumulate data whose receive the origin pushed into this window): those
 * announced with an epoch up to `max_epoch`, into the payload as (count,
 * then origin and bytes of each). */
void llamp_cap_win_incoming(llamp_cap_call_t *c, int ret, MPI_Win win, uint32_t max_epoch) {
  win_ent_t *we = win_lookup(win);
  if (ret != MPI_SUCCESS || !we) return;
#ifndef LLAMP_CAPTURE_NATIVE
  size_t n = llamp_capture_rma_pending(we->ce->id, we->index, S.rank, max_epoch);
  uint64_t *p = pay_reserve(c, 1 + 2 * n);
  p[0] = llamp_capture_rma_take(we->ce->id, we->index, S.rank, max_epoch, p + 1, n);
#else
  (void)c;
#endif
}

void llamp_cap_win_fence(llamp_cap_call_t *c, int ret, MPI_Win win, int assert) {
  win_ent_t *we = win_lookup(win);
  if (ret != MPI_SUCCESS || !we) return;
  if (assert & MPI_MODE_NOPRECEDE) c->rec.flags |= LLAMP_TRACE_F_WIN_NOPRECEDE;
  else llamp_cap_win_incoming(c, ret, win, we->fences);
  we->fences++;
}

void llamp_cap_win_free(llamp_cap_call_t *c, int ret, MPI_Win win) {
  llamp_cap_win_incoming(c, ret, win, UINT32_MAX);
  pm_ent_t *e = pm_find(&S.wins, (uintptr_t)win);
  if (ret != MPI_SUCCESS || !e) return;
  win_ent_t *we = e->ptr;
  pm_erase(&S.wins, e);
  comm_release(we->ce);
  free(we);
}

void llamp_cap_rma(llamp_cap_call_t *c, MPI_Win win, int target, int count, MPI_Datatype type) {
  win_ent_t *we = win_use(c, win);
  if (!we) return;
  c->rec.peer = world_of(we->ce, target);
  c->rec.bytes = type ? nbytes(count, type) : 0;
}

/* After a Put or Accumulate of `bytes` (Get_accumulate: its accumulate):
 * announce the message to its target (not to oneself: SMPI copies a Put to
 * oneself, and an Accumulate to oneself is waited for at once). */
void llamp_cap_rma_sent(llamp_cap_call_t *c, int ret, MPI_Win win, uint64_t bytes) {
  win_ent_t *we = win_lookup(win);
  if (ret != MPI_SUCCESS || !we || c->rec.peer < 0 || (uint32_t)c->rec.peer == S.rank) return;
  if (c->rec.op == LLAMP_OP_RMA_GET_ACC && (c->rec.flags & LLAMP_TRACE_F_RMA_NO_OP)) return;
  if (c->rec.op == LLAMP_OP_RMA_CAS && !(c->rec.flags & LLAMP_TRACE_F_RMA_SWAPPED)) return;
#ifndef LLAMP_CAPTURE_NATIVE
  if (llamp_capture_rma_announce(we->ce->id, we->index, S.rank, (uint32_t)c->rec.peer, bytes, we->fences))
    oom("one-sided message table");
#else
  (void)bytes;
#endif
}

/* Get_accumulate / Fetch_and_op: the accumulate's bytes go into the payload
 * (none with MPI_NO_OP: SMPI then only Gets). */
uint64_t llamp_cap_rma_getacc(llamp_cap_call_t *c, int count, MPI_Datatype type, MPI_Op op) {
  uint64_t b = nbytes(count, type);
  if (op == MPI_NO_OP) c->rec.flags |= LLAMP_TRACE_F_RMA_NO_OP;
  *pay_reserve(c, 1) = b;
  return b;
}

/* Compare_and_swap: SMPI Gets the target's value into `result`, and Puts
 * the origin's value when it equalled `compare`. */
void llamp_cap_rma_cas(llamp_cap_call_t *c, int ret, MPI_Win win, const void *compare,
                       const void *result) {
  if (ret == MPI_SUCCESS && compare && result && c->rec.bytes &&
      memcmp(compare, result, (size_t)c->rec.bytes) == 0)
    c->rec.flags |= LLAMP_TRACE_F_RMA_SWAPPED;
  llamp_cap_rma_sent(c, ret, win, c->rec.bytes);
}

/* Post / Start: the group as world ranks. */
void llamp_cap_win_group(llamp_cap_call_t *c, MPI_Group group) {
  int n = 0;
  if (group == MPI_GROUP_NULL || KEEP_RANK(PMPI_Group_size(group, &n)) != MPI_SUCCESS || n < 0) n = 0;
  int *in = (int *)tmp_ranks((size_t)n * 2 + 2);
  int *out = in + n;
  for (int i = 0; i < n; i++) in[i] = i;
  if (n && KEEP_RANK(PMPI_Group_translate_ranks(group, n, in, S.world_group, out)) != MPI_SUCCESS)
    llamp_capture_fatal("MPI_Group_translate_ranks failed");
  uint64_t *p = pay_reserve(c, 1 + (size_t)n);
  p[0] = (uint64_t)n;
  for (int i = 0; i < n; i++) p[1 + i] = (uint64_t)(uint32_t)out[i];
  tmp_release();
}

/* ---- unmodelled functions ------------------------------------------------------------ */

void llamp_cap_unmodelled(unsigned fn) {
  S.tables->unmodelled_counts[fn]++;
  if (!S.on || S.depth) return;
  burst_end();
  if (!S.name_ids) {
    S.name_ids = malloc(*S.tables->num_unmodelled * sizeof *S.name_ids);
    if (!S.name_ids) oom("name table");
    for (unsigned i = 0; i < *S.tables->num_unmodelled; i++) S.name_ids[i] = -1;
  }
  if (S.name_ids[fn] < 0) {
    S.name_ids[fn] = llamp_trace_intern_name(S.w, S.tables->unmodelled_names[fn]);
    if (S.name_ids[fn] < 0) llamp_capture_fatal("rank %u: %s", S.rank, llamp_trace_writer_error(S.w));
  }
  llamp_trace_rec_t r;
  memset(&r, 0, sizeof r);
  r.op = LLAMP_OP_UNMODELLED;
  r.peer = LLAMP_TRACE_NO_PEER;
  r.tag = S.name_ids[fn];
  r.bytes = 1; /* one call */
  r.req = LLAMP_TRACE_NO_REQ;
  r.status_source = r.status_tag = -1;
  r.t_start = r.t_end = simgrid_get_clock();
  append(&r, NULL);
  S.depth = 1; /* until llamp_cap_unmodelled_done: the call's time is not compute */
}

void llamp_cap_unmodelled_done(void) {
  if (!S.on || !S.depth) return;
  S.depth = 0;
  burst_begin();
}

/* ---- MPI_Init and MPI_Finalize ------------------------------------------------------ */

static void simple_record(int op, double t0, double t1) {
  llamp_trace_rec_t r;
  memset(&r, 0, sizeof r);
  r.op = (uint16_t)op;
  r.comm = LLAMP_TRACE_COMM_WORLD;
  r.peer = LLAMP_TRACE_NO_PEER;
  r.tag = -1;
  r.req = LLAMP_TRACE_NO_REQ;
  r.status_source = r.status_tag = -1;
  r.t_start = t0;
  r.t_end = t1;
  append(&r, NULL);
}

int llamp_cap_init(int *argc, char ***argv, int required, int *provided) {
  double t0 = simgrid_get_clock();
  int ret = KEEP_RANK(required < 0 ? PMPI_Init(argc, argv) : PMPI_Init_thread(argc, argv, required, provided));
  if (ret != MPI_SUCCESS || S.on || S.done) return ret;
  double t1 = simgrid_get_clock();
  int rank = 0, size = 0;
  KEEP_RANK(PMPI_Comm_rank(MPI_COMM_WORLD, &rank));
  KEEP_RANK(PMPI_Comm_size(MPI_COMM_WORLD, &size));
  KEEP_RANK(PMPI_Comm_group(MPI_COMM_WORLD, &S.world_group));
  char err[1024];
  S.rank = (uint32_t)rank;
  S.size = (uint32_t)size;
  S.w = llamp_capture_session_join(S.rank, S.size, &S, err, sizeof err);
  if (!S.w) llamp_capture_fatal("%s", err);
  S.world.h = MPI_COMM_WORLD;
  S.world.id = LLAMP_TRACE_COMM_WORLD;
  S.world.size = size;
  S.world.me = rank;
  S.world.refs = 1;
  const llamp_capture_compute_t *cm = llamp_capture_compute_get();
  S.inject = cm && cm->inject;
  if (S.inject) {
    S.threshold = cm->threshold;
    S.rate = cm->rate;
#ifndef LLAMP_CAPTURE_NATIVE
    if (!(S.rate > 0)) S.rate = sg_host_get_speed(sg_host_self()); /* 1:1 on this host */
#endif
    S.read_cost = llamp_cpuclock_read_cost(llamp_cpuclock_now);
  } else {
    ticks_decide();
    S.tick0 = wall_ticks();
    S.wall0 = clock_now(CLOCK_MONOTONIC);
  }
  S.on = 1;
  simple_record(LLAMP_OP_INIT, t0, t1);
  S.last_end = t1;
  burst_begin(); /* our set-up is not the application's computation */
  return ret;
}

int llamp_cap_finalize(void) {
  if (!S.on || S.depth) return PMPI_Finalize();
  burst_end();
  double t0 = simgrid_get_clock();
  if (t0 > S.last_end) S.simulated += t0 - S.last_end;
  if (!S.inject) S.measured *= tick_seconds(S.tick0, S.wall0);
  llamp_capture_compute_add(S.measured, S.simulated, S.clock_wait, S.clock_wait_n);
  /* local-only calls (MPI_Comm_rank ...) are counted for report.json */
  const llamp_cap_tables_t *tb = S.tables;
  for (unsigned i = 0; i < *tb->num_unmodelled; i++)
    if (tb->unmodelled_counts[i] && tb->unmodelled_local[i])
      llamp_capture_count_local(tb->unmodelled_names[i], tb->unmodelled_counts[i]);
  S.on = 0;
  S.done = 1;
  int ret = KEEP_RANK(PMPI_Finalize());
  double t1 = simgrid_get_clock();
  simple_record(LLAMP_OP_FINALIZE, t0, t1);
  char err[1024];
  if (llamp_capture_session_leave(S.rank, t1, err, sizeof err) < 0) llamp_capture_fatal("%s", err);
  S.w = NULL; /* the session owns and destroyed it */
  /* release the rank's tables */
  for (size_t i = 0; S.comms.t && i <= S.comms.mask; i++)
    if (S.comms.t[i].key) comm_release(S.comms.t[i].ptr);
  for (uint32_t i = 0; i < S.reqs.n; i++) comm_release(((rq_ent_t *)llamp_dmap_at(&S.reqs, i))->ptr);
  pm_free(&S.comms);
  llamp_dmap_free(&S.reqs);
  pm_free(&S.seen);
  for (size_t i = 0; S.wins.t && i <= S.wins.mask; i++)
    if (S.wins.t[i].key) {
      comm_release(((win_ent_t *)S.wins.t[i].ptr)->ce);
      free(S.wins.t[i].ptr);
    }
  pm_free(&S.wins);
  free(S.pay);
  free(S.st);
  free(S.hs);
  free(S.win);
  free(S.tmp_ranks);
  free(S.name_ids);
  S.name_ids = NULL;
  S.pay = NULL;
  S.st = NULL;
  S.hs = NULL;
  S.tmp_ranks = NULL;
  S.paycap = S.stcap = S.hscap = S.tmp_cap = 0;
  return ret;
}
