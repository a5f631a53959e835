/* llamp_inject.h - a user-space network latency injector for MPICH.
 *
 * libllamp_inject.so is LD_PRELOADed into an unmodified MPICH program (what
 * `llamp-inject -dL 10us mpiexec ...` sets up; docs/validation.md).  Its
 * MPI_* wrappers are generated from the capture's table
 * (capture/mpi_table.txt) by gen_inject.py and call the functions below.
 *
 * Every point-to-point message carries a small header (the sender's
 * CLOCK_MONOTONIC send time, its nominal size, the sender's world rank and a
 * sequence number).  The receiver makes the message visible no earlier than
 *
 *     eager (s <= S):     t_send + dL + X
 *     rendezvous (s > S): m + k dL + X,  m = max(t_post, t_send + j dL)
 *                         (rdma: j = 1, k = 2; direct: j = 0, k = 1)
 *
 * (X: the real transfer once both sides were ready), the rules of
 * docs/model.md with L = L0 + dL.  The sender is never delayed by an eager
 * message; a rendezvous send completes when the receiver says the data was
 * read (m + dL + X).  Collectives run MPICH's own algorithm for the data,
 * preceded by the DAG's algorithm (coll/llamp_coll.h) as a schedule of
 * header-only messages, each of which gets dL.
 *
 * This header has two parts: the configuration (plain C, no MPI: unit
 * tested) and the runtime entry points the generated wrappers call (only
 * compiled into the library, under LLAMP_INJECT_RUNTIME).
 *
 * With LLAMP_INJECT_REPORT=FILE, rank 0 writes the run's figures there at
 * MPI_Finalize (`key value` lines): span_max / span_min (MPI_Init returned
 * .. MPI_Finalize called, over the ranks: what the DAG's T stands for),
 * compute_max / compute_min (the span minus the time blocked in MPI),
 * probe_max / probe_min (a fixed busy loop timed inside MPI_Init: the
 * machine's noise at that moment), delayed (messages, all ranks).
 *
 * Error rule: int functions return 0 on success and -1 on failure with a
 * one-line reason in the caller's `err` buffer; the library prints only
 * what the runtime reports on stderr (a bad configuration stops every rank
 * at MPI_Init, rank 0 printing one line naming the variable and what was
 * expected). */
#ifndef LLAMP_INJECT_H
#define LLAMP_INJECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- configuration -------------------------------------------------------- */

typedef enum {
  LLAMP_INJECT_RDV_RDMA = 0, /* the paper's RDMA-read rendezvous (the model's default) */
  LLAMP_INJECT_RDV_DIRECT    /* SimGrid's: no request latency */
} llamp_inject_rdv_t;

typedef struct {
  int size;             /* world size the configuration was resolved for */
  double dl;            /* seconds, for the affected messages */
  unsigned char *ranks; /* size entries, 1 = affected; NULL = every rank */
  int *pairs;           /* npairs (a, b) pairs, unordered; NULL = every pair */
  int npairs;
  double *matrix;       /* size x size, [src * size + dst] seconds; NULL = none */
  uint64_t S;           /* rendezvous above S bytes; UINT64_MAX = always eager */
  llamp_inject_rdv_t rdv;
  uint64_t small;       /* messages up to this many bytes go through a bounce buffer */
  int coll;             /* 1: collectives get the DAG algorithm's token schedule */
  char coll_spec[512];  /* llamp_coll_parse_selection spec ("" = defaults) */
  int verbose;          /* 1: rank 0 prints a summary at MPI_Finalize */
} llamp_inject_config_t;

/* Fill *c from the variables LLAMP_INJECT_DL, _RANKS, _PAIRS, _MATRIX, _S,
 * _RENDEZVOUS, _SMALL, _COLL, _COLLECTIVES, _VERBOSE, read through `get`
 * (getenv, or a table in tests), after the `key = value` lines of the file
 * named by LLAMP_INJECT_CONFIG (the same keys in lower case without the
 * prefix: dl, ranks, pairs, matrix, s, rendezvous, small, coll,
 * collectives, verbose); the variables win.  `size` is the world size
 * (rank lists and the matrix are checked against it).  -1 with "VAR: 'x'
 * (expected ...)" or "FILE:LINE: ..." in err. */
int llamp_inject_config_load(llamp_inject_config_t *c, int size, const char *(*get)(const char *),
                             char *err, size_t errlen);
/* The delay in seconds for a message from world rank src to world rank dst. */
double llamp_inject_config_delay(const llamp_inject_config_t *c, int src, int dst);
/* 1 if no message is ever delayed (every delay 0). */
int llamp_inject_config_zero(const llamp_inject_config_t *c);
void llamp_inject_config_free(llamp_inject_config_t *c);

/* ---- runtime (the generated wrappers' calls; the library only) --------------- */
#ifdef LLAMP_INJECT_RUNTIME
#include <mpi.h>

/* send modes, from the table's record op */
enum { LLAMP_INJECT_STD = 0, LLAMP_INJECT_SYNC, LLAMP_INJECT_BUFFERED, LLAMP_INJECT_READY };

int llamp_inject_init(int *argc, char ***argv, int required, int *provided);
int llamp_inject_finalize(void);

int llamp_inject_send(int mode, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm);
int llamp_inject_recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                      MPI_Status *status);
int llamp_inject_isend(int mode, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request);
int llamp_inject_irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                       MPI_Request *request);
int llamp_inject_send_init(int mode, const void *buf, int count, MPI_Datatype type, int dest,
                           int tag, MPI_Comm comm, MPI_Request *request);
int llamp_inject_recv_init(void *buf, int count, MPI_Datatype type, int source, int tag,
                           MPI_Comm comm, MPI_Request *request);
int llamp_inject_sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                          void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                          MPI_Comm comm, MPI_Status *status);
int llamp_inject_sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag,
                                  int source, int rtag, MPI_Comm comm, MPI_Status *status);
int llamp_inject_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int llamp_inject_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int llamp_inject_start(MPI_Request *request);
int llamp_inject_startall(int count, MPI_Request *requests);
int llamp_inject_wait(MPI_Request *request, MPI_Status *status);
int llamp_inject_waitall(int count, MPI_Request *requests, MPI_Status *statuses);
int llamp_inject_waitany(int count, MPI_Request *requests, int *index, MPI_Status *status);
int llamp_inject_waitsome(int count, MPI_Request *requests, int *outcount, int *indices,
                          MPI_Status *statuses);
int llamp_inject_test(MPI_Request *request, int *flag, MPI_Status *status);
int llamp_inject_testall(int count, MPI_Request *requests, int *flag, MPI_Status *statuses);
int llamp_inject_testany(int count, MPI_Request *requests, int *index, int *flag,
                         MPI_Status *status);
int llamp_inject_testsome(int count, MPI_Request *requests, int *outcount, int *indices,
                          MPI_Status *statuses);
int llamp_inject_request_free(MPI_Request *request);

/* Blocking collectives (docs/validation.md).  llamp_inject_coll_begin
 * says whether the token schedule of the DAG's algorithm for `kind`
 * (llamp_coll_kind_t) runs on `comm` (1) and prepares it; `count` x `type`
 * is this rank's nominal size (llamp_coll_args_t.bytes), counts/rcounts,
 * when not NULL, per-rank element counts (v-variants).  On 1 the wrapper
 * starts MPICH's nonblocking counterpart into *llamp_inject_coll_data()
 * (not for a barrier: the tokens are one) and returns
 * llamp_inject_coll_run(its return code): the tokens, with the data
 * progressing meanwhile, then the data's wait.  On 0 it calls MPICH's
 * blocking collective, then llamp_inject_coll_end(). */
int llamp_inject_coll_begin(int kind, MPI_Comm comm, int root, int count, MPI_Datatype type,
                            const int *counts, const int *rcounts);
MPI_Request *llamp_inject_coll_data(void);
int llamp_inject_coll_run(int rc);
void llamp_inject_coll_end(void);
/* A nonblocking collective, a communicating function the injector does not
 * delay: counted, reported at MPI_Finalize. */
void llamp_inject_not_injected(unsigned index);
/* A function whose messages would carry the header unseen (matched
 * probes, MPI-4 large-count point-to-point ...): aborts with its name. */
void llamp_inject_unsupported(const char *name);
/* Communicators: drop the shadow of a freed one. */
void llamp_inject_comm_free(MPI_Comm comm);

extern uint64_t llamp_inject_counts[];
extern const char *const llamp_inject_names[];
extern const unsigned llamp_inject_num_names;
#endif

#ifdef __cplusplus
}
#endif
#endif
