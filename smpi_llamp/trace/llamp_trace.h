/* llamp_trace.h - per-rank records of MPI calls: what the capture layer
 * writes and the DAG builder reads (capture -> trace -> graph).
 *
 * Error rule: int functions return 0 / -1, pointer functions NULL; the
 * one-line reason is in the caller's `err` buffer; nothing is printed.
 *
 * One record per MPI call of interest, in the rank's call order, with the
 * simulated (or, natively, monotonic) start and end time of the call.  Calls
 * that carry arrays (request lists, v-collective counts, communicator
 * members, Sendrecv's second half) append `nwords` 64-bit payload words.
 * All ranks and peers are WORLD ranks; sizes are bytes (count x type size).
 *
 * Storage: records accumulate in memory per rank and spill to
 * <dir>/rank-<r>.llt once `spill_bytes` are buffered; the reader returns the
 * same sequence whether it came from memory, a file, or both.  Records are
 * stored encoded (exact, typically ~20 bytes each; docs/trace.md has the
 * encoding and the file format); `reserved` is not stored and reads as 0.
 * A writer is used by one thread (one writer per rank). */
#ifndef LLAMP_TRACE_H
#define LLAMP_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a record describes.  Names follow MPI; one code per modelled call. */
typedef enum {
  LLAMP_OP_INIT = 1, LLAMP_OP_FINALIZE,
  /* blocking point-to-point */
  LLAMP_OP_SEND, LLAMP_OP_SSEND, LLAMP_OP_BSEND, LLAMP_OP_RSEND, LLAMP_OP_RECV,
  LLAMP_OP_SENDRECV, LLAMP_OP_SENDRECV_REPLACE, LLAMP_OP_PROBE, LLAMP_OP_IPROBE,
  /* nonblocking point-to-point: `req` is the new request's id */
  LLAMP_OP_ISEND, LLAMP_OP_ISSEND, LLAMP_OP_IBSEND, LLAMP_OP_IRSEND, LLAMP_OP_IRECV,
  /* persistent: *_INIT create (req = id), START/STARTALL activate */
  LLAMP_OP_SEND_INIT, LLAMP_OP_RECV_INIT, LLAMP_OP_START, LLAMP_OP_STARTALL,
  /* completion: payload lists the requests (see llamp_trace_req_t) */
  LLAMP_OP_WAIT, LLAMP_OP_WAITALL, LLAMP_OP_WAITANY, LLAMP_OP_WAITSOME,
  LLAMP_OP_TEST, LLAMP_OP_TESTALL, LLAMP_OP_TESTANY, LLAMP_OP_TESTSOME, LLAMP_OP_REQUEST_FREE,
  /* collectives: peer = root (world rank) or -2, bytes as in llamp_coll.h */
  LLAMP_OP_BARRIER, LLAMP_OP_BCAST, LLAMP_OP_REDUCE, LLAMP_OP_ALLREDUCE, LLAMP_OP_GATHER,
  LLAMP_OP_GATHERV, LLAMP_OP_SCATTER, LLAMP_OP_SCATTERV, LLAMP_OP_ALLGATHER, LLAMP_OP_ALLGATHERV,
  LLAMP_OP_ALLTOALL, LLAMP_OP_ALLTOALLV, LLAMP_OP_REDUCE_SCATTER, LLAMP_OP_REDUCE_SCATTER_BLOCK,
  LLAMP_OP_SCAN, LLAMP_OP_EXSCAN,
  /* nonblocking collectives: req = id, completed by a WAIT* record */
  LLAMP_OP_IBARRIER, LLAMP_OP_IBCAST, LLAMP_OP_IREDUCE, LLAMP_OP_IALLREDUCE, LLAMP_OP_IGATHER,
  LLAMP_OP_IGATHERV, LLAMP_OP_ISCATTER, LLAMP_OP_ISCATTERV, LLAMP_OP_IALLGATHER,
  LLAMP_OP_IALLGATHERV, LLAMP_OP_IALLTOALL, LLAMP_OP_IALLTOALLV, LLAMP_OP_IREDUCE_SCATTER,
  LLAMP_OP_ISCAN, LLAMP_OP_IEXSCAN,
  /* communicators: comm = parent, payload = [new comm id, size, member world ranks...] */
  LLAMP_OP_COMM_SPLIT, LLAMP_OP_COMM_DUP, LLAMP_OP_COMM_CREATE, LLAMP_OP_COMM_FREE,
  /* any other MPI function: counted, not modelled (tag = index into the name table) */
  LLAMP_OP_UNMODELLED,
  /* one-sided communication (SMPI runs only; docs/trace.md "One-sided
   * communication"): comm = the window's communicator, tag = the window's
   * index among the windows made on it, peer = the target (world rank) */
  LLAMP_OP_WIN_CREATE, LLAMP_OP_WIN_FREE, LLAMP_OP_WIN_FENCE,
  LLAMP_OP_RMA_PUT, LLAMP_OP_RMA_GET, LLAMP_OP_RMA_ACC, LLAMP_OP_RMA_GET_ACC, LLAMP_OP_RMA_CAS,
  LLAMP_OP_WIN_LOCK, LLAMP_OP_WIN_UNLOCK, LLAMP_OP_WIN_LOCK_ALL, LLAMP_OP_WIN_UNLOCK_ALL,
  LLAMP_OP_WIN_FLUSH, LLAMP_OP_WIN_FLUSH_ALL, LLAMP_OP_WIN_FLUSH_LOCAL, LLAMP_OP_WIN_FLUSH_LOCAL_ALL,
  LLAMP_OP_WIN_POST, LLAMP_OP_WIN_START, LLAMP_OP_WIN_COMPLETE, LLAMP_OP_WIN_WAIT,
  LLAMP_OP_COUNT_
} llamp_trace_op_t;

#define LLAMP_TRACE_NO_PEER (-2)
#define LLAMP_TRACE_ANY_SOURCE (-1)
#define LLAMP_TRACE_ANY_TAG (-1)
#define LLAMP_TRACE_COMM_WORLD 0u
#define LLAMP_TRACE_NO_REQ UINT64_MAX

/* One record: 64 bytes. */
typedef struct {
  uint16_t op;      /* llamp_trace_op_t */
  uint16_t flags;   /* LLAMP_TRACE_F_* */
  uint32_t comm;    /* communicator id; 0 = MPI_COMM_WORLD, others from COMM_* records */
  int32_t peer;     /* world rank: destination, source (or ANY_SOURCE), root; NO_PEER */
  int32_t tag;      /* tag or ANY_TAG */
  uint64_t bytes;   /* bytes of this rank's message / contribution */
  double t_start;   /* seconds */
  double t_end;
  uint64_t req;     /* request created (I*, *_INIT) or NO_REQ */
  int32_t status_source; /* completed blocking receive / probe: actual world source */
  int32_t status_tag;    /* and tag; -1 when not applicable */
  uint32_t nwords;  /* payload words following */
  uint32_t reserved;
} llamp_trace_rec_t;

#define LLAMP_TRACE_F_COMPLETED 0x1 /* TEST / IPROBE: flag was true */
/* PROBE of an SMPI run: SMPI 3.32 runs MPI_Probe as a loop of MPI_Iprobe,
 * each sleeping smpi/iprobe, and the loop ends when the message is posted,
 * not when it arrives: its time is polling.  Natively the flag is absent
 * and a probe's time is a wait on the message, as a receive's. */
#define LLAMP_TRACE_F_POLLED 0x2
/* COMM_* records of SMPI runs: what SMPI 3.32 communicates to make the
 * communicator (docs/trace.md, "Communicators").  Absent in native traces. */
#define LLAMP_TRACE_F_COMM_BCAST 0x2 /* the new communicator's rank 0 broadcast its id (4 B) */
#define LLAMP_TRACE_F_COMM_SPLIT 0x4 /* Comm::split: colors gathered on the parent's rank 0,
                                        which sent each member its group (8 B); on that
                                        rank the payload lists the groups (after the members) */

/* COMM_* payload: members as runs (set by the capture whenever the runs take
 * fewer words than the plain list).  Then the payload is [new comm id, size,
 * nruns, nruns x (first world rank, zigzagged stride, count)] instead of
 * [id, size, size world ranks]: a communicator of N ranks that are an
 * arithmetic progression (a world copy, a Cartesian row or column) costs 5
 * words on each member, not N (N^2 in all). */
#define LLAMP_TRACE_F_COMM_RUNS 0x20

/* Reduction records (REDUCE, ALLREDUCE, REDUCE_SCATTER(_BLOCK), SCAN, EXSCAN and
 * their nonblocking kinds): what makes SMPI's default reduce and allreduce
 * run other algorithms (llamp_coll.h, LLAMP_COLL_F_*). */
#define LLAMP_TRACE_F_RED_NONCOMMUTATIVE 0x8 /* a user operation declared non-commutative */
#define LLAMP_TRACE_F_RED_DERIVED 0x10       /* a derived datatype */
/* (I)ALLTOALLV of an MPI_(I)Alltoallw (per-peer bytes, tag 1): SMPI runs its
 * ialltoallw, the linear exchange, whatever smpi/alltoallv selects */
#define LLAMP_TRACE_F_ALLTOALLW 0x40
/* (I)ALLTOALLV for which SMPI's ialltoallv sent nothing: its copy of this
 * rank's own block failed (a positive send count against a receive count
 * of 0, compared as element counts); only under that algorithm */
#define LLAMP_TRACE_F_COLL_EMPTY 0x80

/* One-sided records (SMPI 3.32's semantics, docs/trace.md). */
#define LLAMP_TRACE_F_WIN_SHARED 0x2    /* WIN_CREATE of MPI_Win_allocate_shared */
#define LLAMP_TRACE_F_WIN_NOPRECEDE 0x2 /* WIN_FENCE with MPI_MODE_NOPRECEDE (one barrier) */
#define LLAMP_TRACE_F_RMA_NO_OP 0x2     /* RMA_GET_ACC with MPI_NO_OP (no accumulate) */
#define LLAMP_TRACE_F_RMA_SWAPPED 0x2   /* RMA_CAS that wrote (SMPI then Puts) */
/* Payload of the one-sided records:
 *   RMA_GET_ACC        [bytes of the accumulate]; `bytes` = the Get's
 *   WIN_POST/START     the group: n, then n world ranks
 *   WIN_FENCE/WAIT/FREE  the messages this rank waits for as a target (Put,
 *                      Accumulate data from other ranks): n, then n pairs
 *                      (origin world rank, bytes), in the order sent
 * RMA_PUT / GET / ACC carry `req` for Rput / Rget / Raccumulate. */

/* Payload of WAIT / WAITALL / WAITANY / WAITSOME / TEST* / STARTALL /
 * REQUEST_FREE: for each request handed to the call, two words: the request
 * id, then (completed << 63) | ((uint32_t)source << 32) | (uint32_t)tag with
 * source/tag the status of a completed receive (-1 otherwise). */
static inline uint64_t llamp_trace_pack_status(int completed, int32_t source, int32_t tag) {
  return ((uint64_t)(completed ? 1 : 0) << 63) | ((uint64_t)(uint32_t)source & 0x7fffffffu) << 32 |
         (uint32_t)tag;
}
static inline int llamp_trace_status_completed(uint64_t w) { return (int)(w >> 63); }
static inline int32_t llamp_trace_status_source(uint64_t w) {
  uint32_t s = (uint32_t)(w >> 32) & 0x7fffffffu;
  return s == 0x7fffffffu ? -1 : (int32_t)s;
}
static inline int32_t llamp_trace_status_tag(uint64_t w) { return (int32_t)(uint32_t)w; }

/* Payload of SENDRECV / SENDRECV_REPLACE: the record describes the send half
 * (peer, tag, bytes); 3 words describe the receive half: source (int32 in the
 * low bits, ANY_SOURCE allowed), tag, bytes; the status is in status_*.
 * V-collectives: one word per communicator rank (send counts in bytes), for
 * ALLTOALLV followed by one word per rank of receive counts. */

/* ---- communicator members as runs ------------------------------------------ */

/* Members index .. index + count - 1 of a communicator are the world ranks
 * first, first + stride, ... (a run of one member has stride 0). */
typedef struct {
  uint32_t index, first;
  int32_t stride;
  uint32_t count;
} llamp_trace_run_t;

/* Append world rank w as the next member: extends the last run when it
 * continues it, else starts a run (runs[] has room for one more).  Greedy,
 * so equal member lists give equal runs on every rank. */
void llamp_trace_runs_push(llamp_trace_run_t *runs, uint32_t *nruns, uint32_t w);
/* World rank of member i (< the members' count), by binary search. */
uint32_t llamp_trace_runs_world(const llamp_trace_run_t *runs, uint32_t nruns, uint32_t i);
/* Index of the first member that is world rank w, or -1. */
int64_t llamp_trace_runs_index(const llamp_trace_run_t *runs, uint32_t nruns, uint32_t w);
/* Zigzag coding of a stride as a payload word. */
static inline uint64_t llamp_trace_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t llamp_trace_unzigzag(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

/* ---- writing ------------------------------------------------------------- */

typedef struct llamp_trace_writer llamp_trace_writer_t;

/* A writer for `rank` of `world_size` ranks; spills to <dir>/rank-<rank>.llt
 * when more than `spill_bytes` are buffered (0 = never spill). */
llamp_trace_writer_t *llamp_trace_writer_create(const char *dir, uint32_t rank,
                                                uint32_t world_size, size_t spill_bytes,
                                                char *err, size_t errlen);
/* Records appended by every writer of this process so far: a count another
 * thread may read while ranks append (the capture's memory prefault sizes
 * itself by it); approximate if writers run on several threads. */
uint64_t llamp_trace_records_appended(void);

int llamp_trace_append(llamp_trace_writer_t *w, const llamp_trace_rec_t *rec,
                       const uint64_t *payload);
/* Names of unmodelled functions are interned per writer: the id goes in
 * `tag` of an UNMODELLED record. */
int32_t llamp_trace_intern_name(llamp_trace_writer_t *w, const char *name);
uint64_t llamp_trace_records(const llamp_trace_writer_t *w);
/* Flush everything to the file (for a later `llamp build DIR`); the writer
 * stays readable in memory until destroyed.  It also publishes (below). */
int llamp_trace_writer_flush(llamp_trace_writer_t *w, char *err, size_t errlen);
/* Make every record appended so far visible to w's follower.  Appends
 * publish every 64 records and at each new chunk only (the chunk's header
 * line is a cache miss per record otherwise, in the capture). */
void llamp_trace_writer_publish(llamp_trace_writer_t *w);
void llamp_trace_writer_destroy(llamp_trace_writer_t *w);
/* Additions (trace.c): the reason for the last failed append / intern /
 * flush, and the bytes of memory the writer holds (record chunks, names). */
const char *llamp_trace_writer_error(const llamp_trace_writer_t *w);
size_t llamp_trace_writer_memory(const llamp_trace_writer_t *w);

/* ---- reading ------------------------------------------------------------- */

typedef struct llamp_trace_reader llamp_trace_reader_t;

/* Read back what a writer holds (memory and its spill file), or a file.
 * A reader from a writer borrows it: keep the writer alive and do not append
 * while reading.  A file must have been flushed (its header then holds the
 * record count); a file cut short fails at the record where it ends. */
llamp_trace_reader_t *llamp_trace_reader_from_writer(llamp_trace_writer_t *w, char *err,
                                                     size_t errlen);
llamp_trace_reader_t *llamp_trace_reader_open(const char *path, char *err, size_t errlen);
uint32_t llamp_trace_reader_rank(const llamp_trace_reader_t *r);
uint32_t llamp_trace_reader_world_size(const llamp_trace_reader_t *r);
/* Next record: 1 with *rec and *payload (valid until the next call) set, 0 at
 * the end, -1 on a truncated or corrupt file (message names file and record). */
int llamp_trace_next(llamp_trace_reader_t *r, llamp_trace_rec_t *rec, const uint64_t **payload,
                     char *err, size_t errlen);
const char *llamp_trace_name(const llamp_trace_reader_t *r, int32_t id); /* interned names */
/* Addition: the number of records the reader returns in all. */
uint64_t llamp_trace_reader_records(const llamp_trace_reader_t *r);
/* Back to the first record: the next llamp_trace_next returns it again.
 * 0 / -1 (a file that cannot be seeked; err says so). */
int llamp_trace_reader_rewind(llamp_trace_reader_t *r, char *err, size_t errlen);
void llamp_trace_reader_destroy(llamp_trace_reader_t *r);

/* ---- following a writer from another thread ------------------------------ */

/* A reader of what w's records are so far, on another thread while w's one
 * thread goes on appending (the capture builds the DAG beside the
 * simulation).  llamp_trace_next returns 0 when it has caught up: call it
 * again later for the records appended since.  Make it before w's first
 * record (one per writer); spills are safe (w keeps the chunks it releases
 * until the follower has read them).  It sees the records the writer has
 * published (llamp_trace_writer_publish): publish after the last append
 * before telling it to read the rest.  llamp_trace_name returns a copy that
 * lasts until the next call; rewind fails; reader_records counts the
 * records read so far.  Destroy it after w's last append, before w. */
llamp_trace_reader_t *llamp_trace_follow(llamp_trace_writer_t *w, char *err, size_t errlen);

const char *llamp_trace_op_name(llamp_trace_op_t op); /* "MPI_Send", ... */

#ifdef __cplusplus
}
#endif
#endif
