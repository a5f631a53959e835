/* llamp_coll.h - MPI collectives as per-rank point-to-point schedules.
 *
 * The capture layer records each collective call of each rank; when it builds
 * the execution DAG it asks this module for THE CALLING RANK'S part of the
 * schedule of a named algorithm (binomial tree, recursive doubling, ring,
 * Rabenseifner, pairwise exchange, Bruck, dissemination, ...).  The schedule
 * comes out through an emitter: one callback per send, receive and local
 * reduction, and one per end of round.  Expanding every rank of a
 * communicator with the same arguments (except `rank`, and the per-rank
 * counts of alltoallv) yields matching sends and receives.
 *
 * Rounds: the operations emitted between two end_round calls are concurrent
 * (nonblocking, posted in emission order) and all of them complete before any
 * operation of the next round starts.  A blocking send or receive is a round
 * of one operation, MPI_Sendrecv a round of two.  Every round is closed by an
 * end_round call, no round is empty, and a communicator of size 1 emits
 * nothing at all.  Messages of 0 bytes are emitted like any other (they cost
 * a latency in SimGrid and in the DAG); so are the 0-byte messages of
 * barriers.  Expansions are deterministic: the same arguments give the same
 * calls in the same order.
 *
 * Tags: every send and receive carries an algorithm-local tag in
 * [0, LLAMP_COLL_MAX_TAGS), one per phase of the algorithm (docs/collectives.md
 * lists them); the caller maps it into a tag space unique to the collective
 * instance.  Messages between two ranks with the same tag are matched in
 * posting order (MPI's non-overtaking rule), which is what the algorithms rely
 * on.
 *
 * Reductions are assumed commutative (the SMPI/MPICH/Open MPI algorithms
 * named here make the same assumption or fall back to other algorithms).
 *
 * Error rule: int functions return 0 on success and -1 on failure, pointer
 * functions NULL; the one-line reason goes into the caller's `err` buffer
 * (which may be NULL).  The library never prints except into a FILE* the
 * caller passes.  Every function is reentrant (no global state). */
#ifndef LLAMP_COLL_H
#define LLAMP_COLL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Algorithm-local tags are 0 .. LLAMP_COLL_MAX_TAGS-1. */
#define LLAMP_COLL_MAX_TAGS 4

/* Largest communicator size accepted (2^30: masks stay within int). */
#define LLAMP_COLL_MAX_SIZE (1 << 30)

/* ---- collectives ---------------------------------------------------------- */

/* What `bytes`, `counts` and `rcounts` of llamp_coll_args_t mean, per kind
 * (n = bytes; "count" = MPI element count times the datatype size):
 *
 *   barrier               nothing (all messages are 0 bytes)
 *   bcast                 n = the vector size; root = the root
 *   reduce                n = the vector size; root = the root
 *   allreduce             n = the vector size
 *   scan, exscan          n = the vector size
 *   gather, scatter       n = bytes per rank (each rank's block); root
 *   gatherv, scatterv     counts[i] = bytes of rank i's block (the root's
 *                         recvcounts / sendcounts: the capture layer knows
 *                         every call, so it passes the root's array to every
 *                         rank); counts == NULL: n bytes each; root
 *   allgather             n = bytes contributed per rank
 *   allgatherv            counts[i] = bytes contributed by rank i (NULL: n each)
 *   alltoall              n = bytes per destination (per pair)
 *   alltoallv             counts[i] = bytes THIS rank sends to rank i,
 *                         rcounts[i] = bytes it receives from rank i
 *                         (NULL: n each)
 *   reduce_scatter        counts[i] = bytes of the block rank i ends up with
 *                         (the recvcounts; NULL: n each); the vector is their
 *                         sum
 *   reduce_scatter_block  n = bytes of each rank's block (the vector is
 *                         size * n bytes)
 *
 * The nonblocking collectives (LLAMP_COLL_IBARRIER ...) are kinds of their
 * own, with the arguments of their blocking kind: SMPI runs other, fixed
 * algorithms for them.  Looking up a nonblocking kind's algorithm by a name
 * it does not have finds the blocking kind's algorithm of that name (a
 * what-if: "iallreduce=ring"). */
typedef enum {
  LLAMP_COLL_BARRIER = 0,
  LLAMP_COLL_BCAST,
  LLAMP_COLL_REDUCE,
  LLAMP_COLL_ALLREDUCE,
  LLAMP_COLL_GATHER,
  LLAMP_COLL_GATHERV,
  LLAMP_COLL_SCATTER,
  LLAMP_COLL_SCATTERV,
  LLAMP_COLL_ALLGATHER,
  LLAMP_COLL_ALLGATHERV,
  LLAMP_COLL_ALLTOALL,
  LLAMP_COLL_ALLTOALLV,
  LLAMP_COLL_REDUCE_SCATTER,
  LLAMP_COLL_REDUCE_SCATTER_BLOCK,
  LLAMP_COLL_SCAN,
  LLAMP_COLL_EXSCAN,
  LLAMP_COLL_IBARRIER, /* the nonblocking kinds, in the order of the blocking ones */
  LLAMP_COLL_IBCAST,
  LLAMP_COLL_IREDUCE,
  LLAMP_COLL_IALLREDUCE,
  LLAMP_COLL_IGATHER,
  LLAMP_COLL_IGATHERV,
  LLAMP_COLL_ISCATTER,
  LLAMP_COLL_ISCATTERV,
  LLAMP_COLL_IALLGATHER,
  LLAMP_COLL_IALLGATHERV,
  LLAMP_COLL_IALLTOALL,
  LLAMP_COLL_IALLTOALLV,
  LLAMP_COLL_IREDUCE_SCATTER,
  LLAMP_COLL_IREDUCE_SCATTER_BLOCK,
  LLAMP_COLL_ISCAN,
  LLAMP_COLL_IEXSCAN,
  LLAMP_COLL_NUM_KINDS
} llamp_coll_kind_t;

/* Number of blocking kinds (barrier .. exscan); kind + this is its
 * nonblocking variant. */
#define LLAMP_COLL_NUM_BLOCKING LLAMP_COLL_IBARRIER

/* "allreduce", "reduce_scatter_block", ...; NULL for an invalid kind. */
const char *llamp_coll_kind_name(llamp_coll_kind_t kind);
/* Parse a collective name: case-insensitive, an "MPI_" prefix is accepted
 * ("MPI_Allreduce", "allreduce").  -1 (and the list of valid names in err)
 * when unknown. */
int llamp_coll_kind_parse(const char *name, llamp_coll_kind_t *kind, char *err, size_t errlen);
/* 1 if the kind has a root (bcast, reduce, gather(v), scatter(v) and their
 * nonblocking variants). */
int llamp_coll_kind_rooted(llamp_coll_kind_t kind);
/* 1 for the nonblocking kinds. */
int llamp_coll_kind_nonblocking(llamp_coll_kind_t kind);
/* The blocking kind of a nonblocking one (LLAMP_COLL_IALLREDUCE ->
 * LLAMP_COLL_ALLREDUCE); a blocking kind is returned as is. */
llamp_coll_kind_t llamp_coll_kind_blocking(llamp_coll_kind_t kind);
/* The nonblocking variant of a blocking kind; a nonblocking kind as is. */
llamp_coll_kind_t llamp_coll_kind_to_nonblocking(llamp_coll_kind_t kind);

/* ---- the emitter ---------------------------------------------------------- */

/* Where a rank's schedule goes.  send, recv and end_round are required; calc
 * may be NULL (reductions are then not reported).  A callback returning
 * non-zero stops the expansion, which then fails with a message naming the
 * operation.  peer is a rank of the communicator (0..size-1, never the
 * calling rank); tag is algorithm-local (see above); bytes may be 0.
 * calc reports local reduction work on `bytes_reduced` bytes (the caller
 * turns bytes into time); it is never called with 0 bytes and always sits in
 * a round of its own, between the receive it consumes and the send that
 * forwards the result.
 * send_blocking (may be NULL: send) receives the sends that SimGrid's
 * algorithm makes with a blocking Request::send, which SMPI charges smpi/os
 * when detached; the others it makes with Request::isend, isend_init or
 * sendrecv, which SMPI charges smpi/ois (docs/collectives.md). */
typedef struct {
  void *ctx;
  int (*send)(void *ctx, int peer, uint64_t bytes, int tag);
  int (*recv)(void *ctx, int peer, uint64_t bytes, int tag);
  int (*calc)(void *ctx, uint64_t bytes_reduced);
  int (*end_round)(void *ctx);
  int (*send_blocking)(void *ctx, int peer, uint64_t bytes, int tag);
} llamp_coll_emit_t;

/* One rank's view of one collective call.  `elem` is the datatype size in
 * bytes: algorithms that cut a vector into blocks (ring and Rabenseifner
 * allreduce) cut at element boundaries as the MPI libraries do; 0, or a
 * value that does not divide `bytes`, means 1.  Unused fields are ignored
 * (root for unrooted kinds, counts for non-v kinds). */
typedef struct {
  int size, rank, root;
  uint64_t bytes;
  const uint64_t *counts;  /* per-rank bytes for v-variants (see the kinds), or NULL */
  const uint64_t *rcounts; /* alltoallv: bytes this rank receives from each rank, or NULL */
  uint64_t elem;           /* datatype size for block splits (0 = 1) */
  unsigned flags;          /* LLAMP_COLL_F_*: what SMPI's default reductions look at */
} llamp_coll_args_t;

/* Reductions (llamp_coll_args_t.flags).  SMPI 3.32's default reduce runs
 * Open MPI's basic linear reduce instead of its nonblocking linear one for
 * either flag, and its default allreduce runs Open MPI's decision
 * (allreduce__ompi) for a derived datatype; the algorithms that are SMPI's
 * defaults here (reduce linear_nb, allreduce linear_reduce_bcast and
 * reduce_scatter reduce_scatterv) follow the same switches. */
#define LLAMP_COLL_F_NONCOMMUTATIVE 0x1u /* a user operation declared non-commutative */
#define LLAMP_COLL_F_DERIVED 0x2u        /* a derived (not a named) datatype */

/* Open MPI's fixed allreduce decision as SMPI 3.32 implements it
 * (allreduce__ompi): 1 or 2 redbcast, 3 rdb, 4 lr, 5 ompi_ring_segmented
 * (lr below 1 MiB, which is every case the decision gives it), 6 rab_rdb;
 * by communicator size, vector bytes and commutativity. */
int llamp_coll_allreduce_ompi_choice(int p, uint64_t bytes, int noncommutative);

/* ---- the registry ----------------------------------------------------------- */

typedef struct llamp_coll_ctx llamp_coll_ctx_t; /* internal expansion state */

typedef struct {
  llamp_coll_kind_t kind;
  const char *name; /* "recursive_doubling" */
  const char *help; /* one line: rounds and message sizes */
  int is_default;   /* 1 for exactly one algorithm per kind */
  /* The SimGrid 3.32 SMPI algorithm with the same message structure:
   * "smpi/<key>:<name>" for --cfg=, "(built-in)" when SMPI has no setting for
   * this collective and always runs this structure, NULL when SMPI has no
   * equivalent.  smpi_note says where the structures differ ("" = none).
   * Composite algorithms (allreduce reduce_bcast and lr, reduce_scatter
   * reduce_scatterv) expand parts named by the selection they run under:
   * see llamp_coll_run_selected. */
  const char *smpi;
  const char *smpi_note;
  /* 1 when SMPI's algorithm sends exactly these messages for every size,
   * root and count (commutative operations): the capture then models what
   * SimGrid ran without approximation. */
  int smpi_exact;
  int (*expand)(llamp_coll_ctx_t *c); /* internal; call llamp_coll_run */
} llamp_coll_algo_t;

/* The registry: *count entries (count may be NULL), grouped by kind in enum
 * order. */
const llamp_coll_algo_t *llamp_coll_algos(size_t *count);
/* Look an algorithm up; name NULL, "" or "default" gives the kind's default.
 * NULL when unknown. */
const llamp_coll_algo_t *llamp_coll_find(llamp_coll_kind_t kind, const char *name);
/* Same, failing with "unknown allreduce algorithm 'x' (valid: ...)". */
int llamp_coll_lookup(llamp_coll_kind_t kind, const char *name, const llamp_coll_algo_t **algo,
                      char *err, size_t errlen);
/* Print every collective with its algorithms, help lines and SMPI names. */
void llamp_coll_print_list(FILE *out);

/* ---- expansion ---------------------------------------------------------------- */

/* Emit the calling rank's part of `algorithm` (NULL = the default) for the
 * collective `kind`.  Fails on an unknown algorithm (with the list of valid
 * ones), invalid arguments (size outside [1, LLAMP_COLL_MAX_SIZE], rank or
 * root out of range, byte totals overflowing 64 bits, a missing required
 * callback) or a failing callback. */
int llamp_coll_expand(llamp_coll_kind_t kind, const char *algorithm, const llamp_coll_args_t *a,
                      const llamp_coll_emit_t *emit, char *err, size_t errlen);
/* Same with an algorithm from the registry (no name lookup); composite
 * algorithms expand the default parts (llamp_coll_selection_default). */
int llamp_coll_run(const llamp_coll_algo_t *algo, const llamp_coll_args_t *a,
                   const llamp_coll_emit_t *emit, char *err, size_t errlen);

/* What one rank's expansion emits (for preallocation and tests). */
typedef struct {
  uint64_t rounds, sends, recvs, calcs;
  uint64_t bytes_sent, bytes_recv, bytes_reduced;
} llamp_coll_stats_t;
int llamp_coll_count(const llamp_coll_algo_t *algo, const llamp_coll_args_t *a,
                     llamp_coll_stats_t *stats, char *err, size_t errlen);

/* ---- selections ------------------------------------------------------------------ */

/* One algorithm per collective. */
typedef struct {
  const llamp_coll_algo_t *algo[LLAMP_COLL_NUM_KINDS];
} llamp_coll_selection_t;

/* Every collective at its default algorithm. */
void llamp_coll_selection_default(llamp_coll_selection_t *sel);
/* Run the algorithm `sel` selects for `kind` (sel NULL = the defaults).
 * Composite algorithms expand the parts `sel` selects: allreduce
 * reduce_bcast and lr (below p elements) the selected reduce and bcast, as
 * SMPI's redbcast and lr call SMPI's selected reduce and bcast. */
int llamp_coll_run_selected(const llamp_coll_selection_t *sel, llamp_coll_kind_t kind,
                            const llamp_coll_args_t *a, const llamp_coll_emit_t *emit, char *err,
                            size_t errlen);
/* Reset *sel to the defaults, then apply `spec`: items "collective=algorithm"
 * separated by commas, semicolons or blanks ("allreduce=ring,bcast=binomial";
 * NULL or "" = defaults only; "default" as an algorithm name is allowed).
 * An unknown collective or algorithm fails with the list of valid names; *sel
 * is then left unchanged. */
int llamp_coll_parse_selection(const char *spec, llamp_coll_selection_t *sel, char *err,
                               size_t errlen);
/* Same without the reset (to layer a command line over a configuration). */
int llamp_coll_update_selection(const char *spec, llamp_coll_selection_t *sel, char *err,
                                size_t errlen);
/* 1 when the expansion of `kind` under `sel` (NULL = the defaults) sends
 * the messages SimGrid 3.32 sends for a call with a->flags, 0 when SimGrid
 * changes its algorithm for those flags in a way not modelled here (a
 * non-commutative operation through binomial trees, ring or Rabenseifner
 * algorithms, or a reduce_scatter of unequal blocks).  Derived datatypes
 * only change SMPI's defaults, which follow them; nonblocking collectives
 * never switch. */
int llamp_coll_flags_followed(const llamp_coll_selection_t *sel, llamp_coll_kind_t kind,
                              const llamp_coll_args_t *a);

/* Write the selection as a spec that llamp_coll_parse_selection reads back
 * ("barrier=dissemination,bcast=binomial,..."); returns the length snprintf
 * would have written. */
int llamp_coll_selection_format(const llamp_coll_selection_t *sel, char *buf, size_t len);
/* Write the smpirun options that make SimGrid run the same message
 * structures ("--cfg=smpi/allreduce:rdb --cfg=smpi/bcast:binomial_tree ...");
 * returns the number of selected algorithms SimGrid cannot be told to run
 * (no SMPI equivalent; two kinds wanting different algorithms under one SMPI
 * key; a nonblocking kind at anything but SMPI's fixed algorithm) and, when
 * `missing` is not NULL, names them there ("scan=linear ...").  With
 * `only` not NULL, only the kinds whose only[kind] is non-zero are written
 * and checked. */
int llamp_coll_selection_smpi_cfg(const llamp_coll_selection_t *sel, char *buf, size_t len,
                                  char *missing, size_t missinglen);
int llamp_coll_selection_smpi_cfg_only(const llamp_coll_selection_t *sel, const int *only,
                                       char *buf, size_t len, char *missing, size_t missinglen);

/* ---- what SimGrid runs ------------------------------------------------------------- */

/* The SimGrid setting that selects `kind`'s algorithm: "allreduce" for
 * smpi/allreduce (reduce_scatter_block: "reduce_scatter", which SMPI runs it
 * through); NULL for the kinds SMPI 3.32 runs with a fixed algorithm
 * (gatherv, scatterv, scan, exscan and every nonblocking collective). */
const char *llamp_coll_smpi_key(llamp_coll_kind_t kind);
/* The algorithm with the message structure SimGrid 3.32 runs for `kind`
 * when its setting (or smpi/coll-selector) says `name` ("default", "rdb",
 * ...; ignored for the kinds without a setting, which get their fixed
 * algorithm).  NULL when we do not model that SMPI algorithm (e.g. the
 * per-call choices of the ompi/mpich/mvapich2/impi selectors, which only
 * alltoall's "ompi" reproduces).  *note (when note is not NULL): "" when the
 * structures are the same, else what differs. */
const llamp_coll_algo_t *llamp_coll_smpi_find(llamp_coll_kind_t kind, const char *name,
                                              const char **note);

#ifdef __cplusplus
}
#endif
#endif
