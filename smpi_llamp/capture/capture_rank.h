/* capture_rank.h - the per-rank half of the capture layer: the helpers the
 * generated PMPI wrappers (capture_wrappers.c, from mpi_table.txt) call.
 * Internal.  Two parts:
 *   capture_rank.c   the helpers and the rank's state: one copy of the code
 *                    in libsmpi_llamp_capture_rt.so (libllamp_capture_native
 *                    for real MPI), shared by every rank
 *   capture_copy.c   compiled into the program (LLAMP_CAPTURE_COPY), so that
 *                    SMPI's privatization gives every rank its own copy: the
 *                    pointer to the rank's state, the SMPI hooks, the marker.
 * Why the split: SMPI copies the program once per rank, and code inside it
 * is 64 copies that take turns in the cache (bench/RESULTS.md, "What one
 * captured call costs").  Every helper call from the program first makes
 * its rank's state the current one (llamp_cap_enter, below): SMPI's ranks
 * are coroutines of one OS thread, so the current state stays right until
 * the rank yields, and the helpers that yield (executing a compute burst,
 * MPI_Init, MPI_Finalize) restore it.  The recording wrappers' bodies run
 * from the runtime too (llamp_rt_MPI_Xyz, generated): the program's stub
 * enters its rank once, and the body enters it again after PMPI_*.
 *
 * A recording wrapper runs
 *     llamp_cap_begin     0 = do not record (before MPI_Init, after
 *                         MPI_Finalize, nested call): call PMPI_* and return;
 *                         else execute the compute burst before the call on
 *                         the rank's host and take the start time
 *     <kind helpers>      fill the record from the arguments
 *     llamp_cap_pmpi      (nothing today: the place for work just before PMPI)
 *     PMPI_*
 *     llamp_cap_pmpi_done end time
 *     <kind helpers>      results: request ids, statuses, new communicators
 *     llamp_cap_end       append the record, restart the compute clock.
 * Helpers never fail the MPI call: a capture failure (out of memory, disk
 * full) stops the run with one line on stderr. */
#ifndef LLAMP_CAPTURE_RANK_H
#define LLAMP_CAPTURE_RANK_H

#include <mpi.h>
#include <stdint.h>

#include "llamp_trace.h"

typedef struct {
  llamp_trace_rec_t rec;
  uint32_t npay;    /* payload words in the rank's scratch buffer */
  int32_t recv_src; /* posted source of a receive (world rank), -1 = any */
  /* SMPI's MPI_Waitsome: when its Waitany ended and its tests began
   * (sleeps.cpp), and the index of the request the Waitany returned; the
   * call is recorded as those two calls (docs/trace.md).  split_t < 0: one
   * record. */
  double split_t;
  int32_t split_first;
  /* an MPI_Waitall whose completion order is watched (sleeps.cpp): its
   * pairs are recorded in that order (llamp_cap_end) */
  int order;
} llamp_cap_call_t;

/* request kinds (flags) */
#define LLAMP_CAP_REQ_SEND 0x1
#define LLAMP_CAP_REQ_RECV 0x2
#define LLAMP_CAP_REQ_COLL 0x4
#define LLAMP_CAP_REQ_PERSISTENT 0x8

/* completion patterns of llamp_cap_complete */
#define LLAMP_CAP_DONE_ALL 0  /* all requests completed when `n` (flag) != 0 */
#define LLAMP_CAP_DONE_ONE 1  /* the request at index `n` (MPI_UNDEFINED: none) */
#define LLAMP_CAP_DONE_SOME 2 /* `n` requests, at indices[0..n) */

int llamp_cap_init(int *argc, char ***argv, int required, int *provided);
int llamp_cap_finalize(void);

int llamp_cap_begin(llamp_cap_call_t *c, int op);
void llamp_cap_pmpi(llamp_cap_call_t *c);
void llamp_cap_pmpi_done(llamp_cap_call_t *c);
void llamp_cap_end(llamp_cap_call_t *c);

/* point-to-point */
void llamp_cap_p2p(llamp_cap_call_t *c, MPI_Comm comm, int peer, int tag, int count,
                   MPI_Datatype type);
void llamp_cap_sendrecv_recv(llamp_cap_call_t *c, MPI_Comm comm, int source, int tag, int count,
                             MPI_Datatype type);
void llamp_cap_status(llamp_cap_call_t *c, int ret, MPI_Comm comm, const MPI_Status *st);
void llamp_cap_probe(llamp_cap_call_t *c, int ret, MPI_Comm comm, int flag, const MPI_Status *st);

/* requests */
void llamp_cap_new_request(llamp_cap_call_t *c, int ret, const MPI_Request *req, int kind,
                           MPI_Comm comm);
void llamp_cap_start(llamp_cap_call_t *c, const MPI_Request *req);
/* Put (id, not-completed) of each request into the payload; returns a copy
 * of the handles (valid until the call's end). */
MPI_Request *llamp_cap_requests(llamp_cap_call_t *c, int n, const MPI_Request *reqs);
/* `st` unless it is MPI_STATUS(ES)_IGNORE, else `one` (n == 1) or scratch. */
MPI_Status *llamp_cap_statuses(llamp_cap_call_t *c, int n, MPI_Status *st, MPI_Status *one);
void llamp_cap_complete(llamp_cap_call_t *c, int ret, int n, const MPI_Request *handles,
                        const MPI_Status *st, int pattern, int count, const int *indices);
/* MPI_Testall: every request when flag, else those that SMPI completed all
 * the same (it tests each request and frees the completed ones: `after`,
 * the array after the call, holds MPI_REQUEST_NULL where `handles` did
 * not; natively nothing changes when flag is 0). */
void llamp_cap_complete_testall(llamp_cap_call_t *c, int ret, int n, const MPI_Request *handles,
                                const MPI_Request *after, const MPI_Status *st, int flag);
void llamp_cap_request_free(llamp_cap_call_t *c, int ret, MPI_Request handle);

/* collectives */
void llamp_cap_coll(llamp_cap_call_t *c, MPI_Comm comm, int root, int count, MPI_Datatype type);
void llamp_cap_coll_block(llamp_cap_call_t *c, int in_place, int count, MPI_Datatype type,
                          int alt_count, MPI_Datatype alt_type);
void llamp_cap_coll_rootv(llamp_cap_call_t *c, MPI_Comm comm, int root, int in_place, int count,
                          MPI_Datatype type, const int *root_counts, MPI_Datatype root_type);
void llamp_cap_coll_allv(llamp_cap_call_t *c, MPI_Comm comm, int in_place, int count,
                         MPI_Datatype type, const int *counts, MPI_Datatype ctype);
/* MPI_(I)Alltoallv: per-peer bytes; in place, the receive side sends (as
 * SMPI does); same_buf: the send buffer is the receive buffer */
void llamp_cap_coll_alltoallv(llamp_cap_call_t *c, MPI_Comm comm, int in_place, int same_buf, const int *scounts,
                              MPI_Datatype stype, const int *rcounts, MPI_Datatype rtype);
/* MPI_(I)Alltoallw: per-peer bytes of each peer's own datatype; in place,
 * the receive side sends (as SMPI does) */
void llamp_cap_coll_alltoallw(llamp_cap_call_t *c, MPI_Comm comm, int in_place, const int *scounts,
                              const MPI_Datatype *stypes, const int *rcounts, const MPI_Datatype *rtypes);
void llamp_cap_coll_counts(llamp_cap_call_t *c, MPI_Comm comm, const int *counts, int unused,
                           MPI_Datatype type);

/* a reduction's operation and datatype (non-commutative or derived: counted) */
void llamp_cap_reduction(llamp_cap_call_t *c, MPI_Op op, MPI_Datatype type);

/* communicators */
void llamp_cap_comm_parent(llamp_cap_call_t *c, MPI_Comm parent);
/* Before PMPI_Comm_split / PMPI_Cart_sub: returns the record's
 * LLAMP_TRACE_F_COMM_* flags for llamp_cap_comm_new. */
int llamp_cap_comm_split_pre(llamp_cap_call_t *c, MPI_Comm parent, int color, int key);
int llamp_cap_cart_sub_pre(llamp_cap_call_t *c, MPI_Comm cart, const int *remain);
/* `flags`: LLAMP_TRACE_F_COMM_* (what SMPI communicated to make it). */
void llamp_cap_comm_new(llamp_cap_call_t *c, int ret, MPI_Comm parent, MPI_Comm newcomm,
                        MPI_Group group, int flags);
void llamp_cap_comm_free(llamp_cap_call_t *c, int ret, MPI_Comm handle);

/* one-sided communication (SMPI runs; docs/trace.md "One-sided communication") */
void llamp_cap_win(llamp_cap_call_t *c, MPI_Win win);
void llamp_cap_win_new(llamp_cap_call_t *c, int ret, MPI_Comm comm, MPI_Win win, int flags);
void llamp_cap_win_free(llamp_cap_call_t *c, int ret, MPI_Win win);
void llamp_cap_win_fence(llamp_cap_call_t *c, int ret, MPI_Win win, int assert);
void llamp_cap_win_incoming(llamp_cap_call_t *c, int ret, MPI_Win win, uint32_t max_epoch);
void llamp_cap_win_group(llamp_cap_call_t *c, MPI_Group group);
void llamp_cap_rma(llamp_cap_call_t *c, MPI_Win win, int target, int count, MPI_Datatype type);
void llamp_cap_rma_sent(llamp_cap_call_t *c, int ret, MPI_Win win, uint64_t bytes);
uint64_t llamp_cap_rma_getacc(llamp_cap_call_t *c, int count, MPI_Datatype type, MPI_Op op);
void llamp_cap_rma_cas(llamp_cap_call_t *c, int ret, MPI_Win win, const void *compare,
                       const void *result);

/* A call of unmodelled function `fn` that communicates: counted, and an
 * UNMODELLED record (no duration: the call's time stays in the next gap,
 * where the DAG sees it as computation). */
void llamp_cap_unmodelled(unsigned fn);
/* After the PMPI call of an unmodelled function that communicates. */
void llamp_cap_unmodelled_done(void);
/* A point at which SMPI charges the compute so far: execute the burst now
 * (a kernel region's start).  llamp_cap_clock_read is the same at a read of
 * the clock (MPI_Wtime), so the time the program reads includes the burst;
 * a short burst between two clock reads is counted as a wait on the clock. */
void llamp_cap_sync_compute(void);
void llamp_cap_clock_read(void);

/* A failed call's code (ret != MPI_SUCCESS) to the error handler SMPI's
 * MPI_Xyz would give it to (gen_wrappers.py, errhandler_call): the handler
 * of comm, win or file (MPI_COMM_WORLD's for a null comm when null_world),
 * MPI_ERRORS_ARE_FATAL aborting the run with SMPI's message, MPI_ERRORS_RETURN
 * warning, the program's own handler called.  Returns ret. */
int llamp_cap_error_comm(int ret, const char *fn, MPI_Comm comm, int null_world);
int llamp_cap_error_win(int ret, const char *fn, MPI_Win win);
int llamp_cap_error_file(int ret, const char *fn, MPI_File file);

/* Kernel models (kernels_rank.c): the rank's world rank while the capture
 * records (-1 before MPI_Init, after MPI_Finalize, inside a wrapper), and
 * the restart of its compute clock that drops the CPU time of a region
 * whose time a model replaces. */
int llamp_cap_rank(void);

#ifndef LLAMP_CAPTURE_NATIVE
/* The calling rank's sleeps (sleeps.cpp, SMPI runs): watch them from now
 * on; then stop and get the start of the first that lasted a whole multiple
 * of smpi/test (an MPI_Test's), NAN when none did. */
void llamp_capture_sleeps_watch(void);
double llamp_capture_sleeps_first_test(void);
/* MPI_Waitall's completion order from SMPI's smpi/or sleeps (sleeps.cpp):
 * from now until _end, window[i] = how many of this rank's sleeps began
 * before reqs[i] (the program's array, which SMPI nulls as it completes)
 * became null_req. */
void llamp_capture_sleeps_order(void *const *reqs, const void *null_req, int n, int *window);
void llamp_capture_sleeps_order_end(void);
#endif
void llamp_cap_compute_restart(void);

/* SMPI's functions the program calls outside MPI that end SMPI's compute
 * timer (kernel models, sleeps, the clock) and may let other ranks run.
 * Each copy of the program defines them (capture_copy.c: the program binds
 * to its own, smpi_llamp-cc links with -Bsymbolic) as one call of
 * llamp_rt_hook_NAME here, which executes the compute so far before
 * SimGrid's NAME and restarts the rank's clock after it, so no other rank's
 * CPU time enters this rank's burst.  (The copy made two calls, each through
 * its own cold code, PLT and GOT lines: ~7 last-level misses a call.)
 * X(ret, name, params, args), V(name, params, args) for void. */
#define LLAMP_CAP_HOOKS(X, V)                                                            \
  V(smpi_execute_benched, (double d), (d))                                               \
  V(smpi_execute_flops_benched, (double f), (f))                                         \
  V(smpi_execute, (double d), (d))                                                       \
  V(smpi_execute_flops, (double f), (f))                                                 \
  X(unsigned int, smpi_sleep, (unsigned int s), (s))                                     \
  X(int, smpi_usleep, (useconds_t u), (u))                                               \
  X(int, smpi_nanosleep, (const struct timespec *tp, struct timespec *t), (tp, t))       \
  X(int, smpi_gettimeofday, (struct timeval *tv, struct timezone *tz), (tv, tz))         \
  X(int, smpi_clock_gettime, (clockid_t id, struct timespec *tp), (id, tp))
/* their declarations, where <sys/time.h>, <time.h> and <unistd.h> are in */
#define LLAMP_CAP_HOOK_DECL(ret, name, params, args) ret llamp_rt_hook_##name params;
#define LLAMP_CAP_HOOK_DECL_VOID(name, params, args) void llamp_rt_hook_##name params;

/* The generated file's tables of one program copy (the counts are per rank). */
typedef struct {
  const unsigned *num_unmodelled;
  const char *const *unmodelled_names;
  const unsigned char *unmodelled_local;
  uint64_t *unmodelled_counts;
} llamp_cap_tables_t;

/* A rank's state, zeroed, for the program copy with these tables. */
void *llamp_cap_state_new(const llamp_cap_tables_t *tables);
/* The state of the rank running now (what the helpers work on). */
extern void *llamp_cap_self;

#ifdef LLAMP_CAPTURE_COPY
/* this copy's rank (capture_copy.c); created at its first helper call */
extern void *llamp_cap_mine __attribute__((visibility("hidden")));
void *llamp_cap_first(void) __attribute__((visibility("hidden")));
static inline void llamp_cap_enter(void) {
  llamp_cap_self = llamp_cap_mine ? llamp_cap_mine : llamp_cap_first();
}
/* Every helper called from the program enters its rank first (a macro
 * naming itself calls the function). */
#define LLAMP_CAP_ENTERING(call) (llamp_cap_enter(), call)
#define llamp_cap_init(...) LLAMP_CAP_ENTERING(llamp_cap_init(__VA_ARGS__))
#define llamp_cap_finalize(...) LLAMP_CAP_ENTERING(llamp_cap_finalize(__VA_ARGS__))
#define llamp_cap_begin(...) LLAMP_CAP_ENTERING(llamp_cap_begin(__VA_ARGS__))
#define llamp_cap_pmpi(...) LLAMP_CAP_ENTERING(llamp_cap_pmpi(__VA_ARGS__))
#define llamp_cap_pmpi_done(...) LLAMP_CAP_ENTERING(llamp_cap_pmpi_done(__VA_ARGS__))
#define llamp_cap_end(...) LLAMP_CAP_ENTERING(llamp_cap_end(__VA_ARGS__))
#define llamp_cap_p2p(...) LLAMP_CAP_ENTERING(llamp_cap_p2p(__VA_ARGS__))
#define llamp_cap_sendrecv_recv(...) LLAMP_CAP_ENTERING(llamp_cap_sendrecv_recv(__VA_ARGS__))
#define llamp_cap_status(...) LLAMP_CAP_ENTERING(llamp_cap_status(__VA_ARGS__))
#define llamp_cap_probe(...) LLAMP_CAP_ENTERING(llamp_cap_probe(__VA_ARGS__))
#define llamp_cap_new_request(...) LLAMP_CAP_ENTERING(llamp_cap_new_request(__VA_ARGS__))
#define llamp_cap_start(...) LLAMP_CAP_ENTERING(llamp_cap_start(__VA_ARGS__))
#define llamp_cap_requests(...) LLAMP_CAP_ENTERING(llamp_cap_requests(__VA_ARGS__))
#define llamp_cap_statuses(...) LLAMP_CAP_ENTERING(llamp_cap_statuses(__VA_ARGS__))
#define llamp_cap_complete(...) LLAMP_CAP_ENTERING(llamp_cap_complete(__VA_ARGS__))
#define llamp_cap_complete_testall(...) LLAMP_CAP_ENTERING(llamp_cap_complete_testall(__VA_ARGS__))
#define llamp_cap_request_free(...) LLAMP_CAP_ENTERING(llamp_cap_request_free(__VA_ARGS__))
#define llamp_cap_coll(...) LLAMP_CAP_ENTERING(llamp_cap_coll(__VA_ARGS__))
#define llamp_cap_coll_block(...) LLAMP_CAP_ENTERING(llamp_cap_coll_block(__VA_ARGS__))
#define llamp_cap_coll_rootv(...) LLAMP_CAP_ENTERING(llamp_cap_coll_rootv(__VA_ARGS__))
#define llamp_cap_coll_allv(...) LLAMP_CAP_ENTERING(llamp_cap_coll_allv(__VA_ARGS__))
#define llamp_cap_coll_alltoallv(...) LLAMP_CAP_ENTERING(llamp_cap_coll_alltoallv(__VA_ARGS__))
#define llamp_cap_coll_alltoallw(...) LLAMP_CAP_ENTERING(llamp_cap_coll_alltoallw(__VA_ARGS__))
#define llamp_cap_coll_counts(...) LLAMP_CAP_ENTERING(llamp_cap_coll_counts(__VA_ARGS__))
#define llamp_cap_reduction(...) LLAMP_CAP_ENTERING(llamp_cap_reduction(__VA_ARGS__))
#define llamp_cap_comm_parent(...) LLAMP_CAP_ENTERING(llamp_cap_comm_parent(__VA_ARGS__))
#define llamp_cap_comm_split_pre(...) LLAMP_CAP_ENTERING(llamp_cap_comm_split_pre(__VA_ARGS__))
#define llamp_cap_cart_sub_pre(...) LLAMP_CAP_ENTERING(llamp_cap_cart_sub_pre(__VA_ARGS__))
#define llamp_cap_comm_new(...) LLAMP_CAP_ENTERING(llamp_cap_comm_new(__VA_ARGS__))
#define llamp_cap_comm_free(...) LLAMP_CAP_ENTERING(llamp_cap_comm_free(__VA_ARGS__))
#define llamp_cap_win(...) LLAMP_CAP_ENTERING(llamp_cap_win(__VA_ARGS__))
#define llamp_cap_win_new(...) LLAMP_CAP_ENTERING(llamp_cap_win_new(__VA_ARGS__))
#define llamp_cap_win_free(...) LLAMP_CAP_ENTERING(llamp_cap_win_free(__VA_ARGS__))
#define llamp_cap_win_fence(...) LLAMP_CAP_ENTERING(llamp_cap_win_fence(__VA_ARGS__))
#define llamp_cap_win_incoming(...) LLAMP_CAP_ENTERING(llamp_cap_win_incoming(__VA_ARGS__))
#define llamp_cap_win_group(...) LLAMP_CAP_ENTERING(llamp_cap_win_group(__VA_ARGS__))
#define llamp_cap_rma(...) LLAMP_CAP_ENTERING(llamp_cap_rma(__VA_ARGS__))
#define llamp_cap_rma_sent(...) LLAMP_CAP_ENTERING(llamp_cap_rma_sent(__VA_ARGS__))
#define llamp_cap_rma_getacc(...) LLAMP_CAP_ENTERING(llamp_cap_rma_getacc(__VA_ARGS__))
#define llamp_cap_rma_cas(...) LLAMP_CAP_ENTERING(llamp_cap_rma_cas(__VA_ARGS__))
#define llamp_cap_unmodelled(...) LLAMP_CAP_ENTERING(llamp_cap_unmodelled(__VA_ARGS__))
#define llamp_cap_unmodelled_done() LLAMP_CAP_ENTERING(llamp_cap_unmodelled_done())
#define llamp_cap_sync_compute() LLAMP_CAP_ENTERING(llamp_cap_sync_compute())
#define llamp_cap_clock_read() LLAMP_CAP_ENTERING(llamp_cap_clock_read())
#define llamp_cap_rank() LLAMP_CAP_ENTERING(llamp_cap_rank())
#define llamp_cap_compute_restart() LLAMP_CAP_ENTERING(llamp_cap_compute_restart())
#endif

/* from the generated file: every wrapped but unmodelled function */
extern const unsigned llamp_cap_num_unmodelled;
extern const char *const llamp_cap_unmodelled_names[];
extern const unsigned char llamp_cap_unmodelled_local[];
extern const unsigned llamp_cap_num_modelled;
extern uint64_t llamp_cap_unmodelled_counts[]; /* per rank: calls of each */

#endif
