/* llamp_sched.h - the execution DAG from per-rank MPI call records
 * (trace -> graph), Schedgen's trace mode done in one pass per rank.
 *
 * Error rule: pointer functions return NULL with a one-line reason in the
 * caller's `err` buffer (naming the rank, the record and the MPI call, or
 * the trace file for read errors); nothing is printed.
 *
 * Semantics (docs/trace.md is the reference):
 *   calc       the gap between the end of a rank's previous MPI call and the
 *              start of the next (the first gap starts at MPI_Init's end);
 *              time inside MPI calls is not compute, except in calls that
 *              never wait (MPI_Test*, MPI_Iprobe: SMPI sleeps smpi/test or
 *              smpi/iprobe in them); consecutive gaps around
 *              calls that add nothing to the graph are summed into one calc
 *   blocking   send / recv vertex in program order (Ssend, Bsend, Rsend as
 *              Send); Sendrecv(_replace): a send and a receive, both after
 *              the previous op, the next op requires both
 *   I*         vertex at the call; the next op irequires an Isend (Schedgen),
 *              and inherits an Irecv's own predecessors; the Wait/Test that
 *              observed completion makes the next op require it
 *   persistent *_init makes a template, each Start a new vertex
 *   wildcards  resolved to the observed status (blocking: status_*, else the
 *              completing Wait/Test's payload)
 *   Probe      no vertex
 *   colls      expanded with llamp_coll for this rank's position in the
 *              communicator; rounds follow each other; nonblocking ones are
 *              completed by their Wait
 *   tags       user tags of MPI_COMM_WORLD below 2^29 unchanged; other
 *              (communicator, tag) pairs get ids in [2^29, 2^30); collective
 *              messages use [2^30, 2^31) (docs/trace.md) */
#ifndef LLAMP_SCHED_H
#define LLAMP_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "llamp_coll.h"
#include "llamp_graph.h"
#include "llamp_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  /* Collective algorithm selection ("allreduce=ring,bcast=binomial"; NULL or
   * "" = every collective's default), see llamp_coll_parse_selection. */
  const char *collectives;
  /* Local reduction cost in seconds per byte reduced (the coll `calc`
   * callback): a calc vertex of bytes x reduce_cost.  Default 0 (none). */
  double reduce_cost;
  /* Calc vertices shorter than this (seconds) are dropped (their time is
   * lost, counted in the stats).  Default 0: every positive gap is kept. */
  double min_calc;
  /* Name of the input in the graph builder's errors (default "trace"); the
   * builder's "line" is the 1-based record number in the rank's trace. */
  const char *source;
  /* Called after each rank's records are done (NULL = none), for a progress
   * line on a terminal; the library itself prints nothing. */
  void (*progress)(void *ctx, uint32_t ranks_done, uint32_t num_ranks, uint64_t records);
  void *progress_ctx;
  /* Seconds per byte with which back-to-back sends are found (0 = off): a
   * point-to-point send that starts before the rank's previous send to the
   * same peer has had (s_prev x burst_G) of transfer time.  Counted in the
   * stats, not modelled (docs/consistency.md, "Bursts"). */
  double burst_G;
  /* Threads that read the ranks' records (0 = two when two CPUs are online
   * and there are at least 65536 records, else one; 1 = one; more = two),
   * also given to the graph builder's finish (llamp_builder_set_threads).
   * The graph is byte for byte the same either way. */
  int threads;
  /* Called as each stage of the graph's construction ends (NULL = none),
   * with its name: llamp_sched_build's "records" (every rank's records
   * read) or a stream's "gather" (its ranks' builders joined), then the
   * builder's finish's (llamp_builder_set_stage_hook).  The caller times
   * them. */
  llamp_stage_hook_t stage;
  void *stage_ctx;
} llamp_sched_options_t;

void llamp_sched_options_default(llamp_sched_options_t *opt);

typedef struct {
  char *name; /* "MPI_Comm_rank" */
  uint64_t count;
} llamp_sched_unmodelled_t;

typedef struct {
  uint64_t records;            /* trace records read, all ranks */
  uint64_t vertices, edges, messages; /* of the resulting graph */
  uint64_t calcs, sends, recvs; /* vertices by kind (calcs include join vertices) */
  uint64_t collectives;        /* collective calls expanded (one per rank and call) */
  uint64_t coll_calls[LLAMP_COLL_NUM_KINDS]; /* the same per collective kind */
  uint64_t dropped_calcs;      /* gaps below min_calc (or reductions) dropped */
  double dropped_calc_time;    /* their total duration, s */
  uint64_t unresolved_wildcards; /* wildcard receives whose status was never seen */
  uint64_t unknown_requests;   /* completions of requests no record created */
  uint64_t after_finalize;     /* records after MPI_Finalize (ignored) */
  uint64_t polls;              /* MPI_Test* / MPI_Iprobe / MPI_Probe calls (their time is calc) */
  double poll_time;            /* the time spent in them, s (SMPI: smpi/test, smpi/iprobe) */
  uint64_t bursts;             /* back-to-back sends to one peer (burst_G > 0) */
  double burst_time;           /* sum of min(s_prev G - gap, s G) over them: the transfer time
                                  two messages sharing one link would add, s */
  uint64_t rma_waits;          /* Put / Get / Win_lock calls that took simulated time: waits on
                                  SMPI's window mutexes, which the DAG has no edge for */
  double rma_wait_time;        /* their total duration, s (docs/trace.md, One-sided) */
  uint64_t special_reductions; /* blocking reductions with a non-commutative operation or a
                                  derived datatype (SMPI's defaults switch algorithms on them) */
  uint64_t approx_reductions;  /* those whose switch the expansion does not follow
                                  (llamp_coll_flags_followed): approximate */
  size_t num_unmodelled;       /* distinct unmodelled MPI functions */
  llamp_sched_unmodelled_t *unmodelled; /* by decreasing count, then name */
  int approximate;             /* 1 when any of the unmodelled / unresolved /
                                  unknown / rma_waits / approx_reductions counts
                                  is non-zero */
} llamp_sched_stats_t;

/* Build the DAG of `num_ranks` ranks; ranks[i] must read rank i's records
 * (world size num_ranks).  opt NULL = defaults; stats may be NULL, else it
 * is filled (also on failure, as far as the build got) and must be released
 * with llamp_sched_stats_free.  NULL on a read error, an invalid record, an
 * unknown collective algorithm, or a graph the builder rejects (unmatched
 * message, cycle). */
llamp_graph_t *llamp_sched_build(llamp_trace_reader_t **ranks, uint32_t num_ranks,
                                 const llamp_sched_options_t *opt, llamp_sched_stats_t *stats,
                                 char *err, size_t errlen);

void llamp_sched_stats_free(llamp_sched_stats_t *stats);

/* ---- streaming: the DAG while the traces are being written ---------------
 * The same graph and stats as llamp_sched_build, built rank by rank from the
 * records as they come (the capture feeds each rank's follower,
 * llamp_trace_follow, beside the simulation).  Calls on one stream must not
 * overlap (one thread at a time).  Each rank keeps its own state until it
 * has ended and every rank before it has: memory per rank grows with
 * num_ranks (the burst check's per-peer times, the builder's per-rank
 * tables).  A failed call fails the stream: later calls return -1 / NULL
 * with the first reason (an invalid record, or ids a rank-by-rank build
 * cannot represent: build the traces with llamp_sched_build then). */
typedef struct llamp_sched_stream llamp_sched_stream_t;

llamp_sched_stream_t *llamp_sched_stream_create(uint32_t num_ranks, const llamp_sched_options_t *opt, char *err,
                                                size_t errlen);
/* Rank's records from rd (a reader or follower of that rank's trace, the
 * same one each time) until it returns 0.  0 / -1. */
int llamp_sched_stream_feed(llamp_sched_stream_t *s, uint32_t rank, llamp_trace_reader_t *rd);
/* Rank has no more records (after its last feed).  0 / -1. */
int llamp_sched_stream_end_rank(llamp_sched_stream_t *s, uint32_t rank);
/* The records fed and the graph's vertices made of them so far, over all
 * ranks (by the feeding thread). */
void llamp_sched_stream_counts(const llamp_sched_stream_t *x, uint64_t *records, uint64_t *vertices);
/* Every rank ended: the graph (stats as llamp_sched_build fills them; free
 * with llamp_sched_stats_free), or NULL with the reason in err. */
llamp_graph_t *llamp_sched_stream_finish(llamp_sched_stream_t *s, llamp_sched_stats_t *stats, char *err,
                                         size_t errlen);
void llamp_sched_stream_destroy(llamp_sched_stream_t *s);

/* Print the counts, one "not modelled: MPI_Xyz x 12" line per unmodelled
 * function, and "approximate: ..." when the graph is approximate. */
void llamp_sched_stats_print(const llamp_sched_stats_t *stats, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
