/* Synthetic per-rank traces for the DAG-builder tests: one writer per rank
 * held in memory, a per-rank clock that compute advances, and one helper per
 * MPI call.  Every MPI call lasts `call_time` (time inside MPI is not
 * compute, so results must not depend on it). */
#ifndef SCHED_TRACE_H
#define SCHED_TRACE_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_sched.h"
#include "llamp_trace.h"

typedef struct {
  uint32_t n;
  llamp_trace_writer_t **w;
  double *t;
  double call_time;
} tb_t;

static inline void tb_open(tb_t *tb, uint32_t n) {
  char err[256];
  tb->n = n;
  tb->w = calloc(n, sizeof *tb->w);
  tb->t = calloc(n, sizeof *tb->t);
  tb->call_time = 0.37e-6;
  for (uint32_t r = 0; r < n; r++) {
    tb->w[r] = llamp_trace_writer_create(NULL, r, n, 0, err, sizeof err);
    if (!tb->w[r]) {
      fprintf(stderr, "%s\n", err);
      exit(2);
    }
    tb->t[r] = 1.0 + 0.25 * r; /* clocks need not agree between ranks */
  }
}

static inline void tb_close(tb_t *tb) {
  for (uint32_t r = 0; r < tb->n; r++) llamp_trace_writer_destroy(tb->w[r]);
  free(tb->w);
  free(tb->t);
}

static inline void tb_compute(tb_t *tb, uint32_t r, double secs) { tb->t[r] += secs; }

/* One record at rank r's clock. */
static inline void tb_call(tb_t *tb, uint32_t r, llamp_trace_op_t op, uint32_t comm, int32_t peer,
                    int32_t tag, uint64_t bytes, uint64_t req, const uint64_t *payload,
                    uint32_t nwords) {
  llamp_trace_rec_t rec;
  memset(&rec, 0, sizeof rec);
  rec.op = (uint16_t)op;
  rec.comm = comm;
  rec.peer = peer;
  rec.tag = tag;
  rec.bytes = bytes;
  rec.t_start = tb->t[r];
  rec.t_end = tb->t[r] + tb->call_time;
  rec.req = req;
  rec.status_source = -1;
  rec.status_tag = -1;
  rec.nwords = nwords;
  tb->t[r] = rec.t_end;
  if (llamp_trace_append(tb->w[r], &rec, payload)) {
    fprintf(stderr, "append: %s\n", llamp_trace_writer_error(tb->w[r]));
    exit(2);
  }
}

/* The same with the status fields and flags set. */
static inline void tb_call_st(tb_t *tb, uint32_t r, llamp_trace_op_t op, uint32_t comm, int32_t peer,
                       int32_t tag, uint64_t bytes, int32_t ssrc, int32_t stag, uint16_t flags,
                       const uint64_t *payload, uint32_t nwords) {
  llamp_trace_rec_t rec;
  memset(&rec, 0, sizeof rec);
  rec.op = (uint16_t)op;
  rec.flags = flags;
  rec.comm = comm;
  rec.peer = peer;
  rec.tag = tag;
  rec.bytes = bytes;
  rec.t_start = tb->t[r];
  rec.t_end = tb->t[r] + tb->call_time;
  rec.req = LLAMP_TRACE_NO_REQ;
  rec.status_source = ssrc;
  rec.status_tag = stag;
  rec.nwords = nwords;
  tb->t[r] = rec.t_end;
  if (llamp_trace_append(tb->w[r], &rec, payload)) {
    fprintf(stderr, "append: %s\n", llamp_trace_writer_error(tb->w[r]));
    exit(2);
  }
}

static inline void tb_init(tb_t *tb, uint32_t r) {
  tb_call(tb, r, LLAMP_OP_INIT, 0, LLAMP_TRACE_NO_PEER, -1, 0, LLAMP_TRACE_NO_REQ, NULL, 0);
}
static inline void tb_finalize(tb_t *tb, uint32_t r) {
  tb_call(tb, r, LLAMP_OP_FINALIZE, 0, LLAMP_TRACE_NO_PEER, -1, 0, LLAMP_TRACE_NO_REQ, NULL, 0);
}
static inline void tb_send(tb_t *tb, uint32_t r, int32_t to, int32_t tag, uint64_t bytes) {
  tb_call(tb, r, LLAMP_OP_SEND, 0, to, tag, bytes, LLAMP_TRACE_NO_REQ, NULL, 0);
}
static inline void tb_recv(tb_t *tb, uint32_t r, int32_t from, int32_t tag, uint64_t bytes,
                    int32_t ssrc, int32_t stag) {
  tb_call_st(tb, r, LLAMP_OP_RECV, 0, from, tag, bytes, ssrc, stag, 0, NULL, 0);
}
static inline void tb_isend(tb_t *tb, uint32_t r, int32_t to, int32_t tag, uint64_t bytes, uint64_t req) {
  tb_call(tb, r, LLAMP_OP_ISEND, 0, to, tag, bytes, req, NULL, 0);
}
static inline void tb_irecv(tb_t *tb, uint32_t r, int32_t from, int32_t tag, uint64_t bytes, uint64_t req) {
  tb_call(tb, r, LLAMP_OP_IRECV, 0, from, tag, bytes, req, NULL, 0);
}
/* Waitall on n requests, statuses given for receives (src/tag -1 for sends). */
static inline void tb_waitall(tb_t *tb, uint32_t r, const uint64_t *reqs, uint32_t n, const int32_t *src,
                       const int32_t *tag) {
  uint64_t pl[64];
  for (uint32_t i = 0; i < n; i++) {
    pl[2 * i] = reqs[i];
    pl[2 * i + 1] = llamp_trace_pack_status(1, src ? src[i] : -1, tag ? tag[i] : -1);
  }
  tb_call(tb, r, LLAMP_OP_WAITALL, 0, LLAMP_TRACE_NO_PEER, -1, 0, LLAMP_TRACE_NO_REQ, pl, 2 * n);
}
static inline void tb_wait(tb_t *tb, uint32_t r, uint64_t req) { tb_waitall(tb, r, &req, 1, NULL, NULL); }

/* A collective call; root is a world rank (or NO_PEER); elem in `tag`. */
static inline void tb_coll(tb_t *tb, uint32_t r, llamp_trace_op_t op, uint32_t comm, int32_t root,
                    uint64_t bytes, const uint64_t *counts, uint32_t ncounts, uint64_t req) {
  tb_call(tb, r, op, comm, root, 0, bytes, req, counts, ncounts);
}

/* MPI_Comm_split of world into `newid` with the given members (world ranks). */
static inline void tb_split(tb_t *tb, uint32_t r, uint32_t parent, uint32_t newid, const uint32_t *members,
                     uint32_t size) {
  uint64_t pl[66];
  pl[0] = newid;
  pl[1] = size;
  for (uint32_t i = 0; i < size; i++) pl[2 + i] = members[i];
  tb_call(tb, r, LLAMP_OP_COMM_SPLIT, parent, LLAMP_TRACE_NO_PEER, -1, 0, LLAMP_TRACE_NO_REQ, pl,
          2 + size);
}

/* Build the graph from the writers (in memory). */
static inline llamp_graph_t *tb_build(tb_t *tb, const llamp_sched_options_t *opt, llamp_sched_stats_t *st,
                               char *err, size_t errlen) {
  llamp_trace_reader_t **rd = calloc(tb->n, sizeof *rd);
  for (uint32_t r = 0; r < tb->n; r++) {
    rd[r] = llamp_trace_reader_from_writer(tb->w[r], err, errlen);
    if (!rd[r]) {
      fprintf(stderr, "%s\n", err);
      exit(2);
    }
  }
  llamp_graph_t *g = llamp_sched_build(rd, tb->n, opt, st, err, errlen);
  for (uint32_t r = 0; r < tb->n; r++) llamp_trace_reader_destroy(rd[r]);
  free(rd);
  return g;
}

/* The vertex of `rank` at posting index `local` (UINT64_MAX if none). */
static inline uint64_t tb_vertex(const llamp_graph_t *g, uint32_t rank, uint64_t local) {
  uint64_t n = llamp_graph_num_vertices(g);
  for (uint64_t v = 0; v < n; v++)
    if (llamp_graph_rank(g, v) == rank && llamp_graph_local_index(g, v) == local) return v;
  return UINT64_MAX;
}

/* Count vertices of a rank by kind. */
static inline uint64_t tb_count(const llamp_graph_t *g, uint32_t rank, llamp_vertex_kind_t kind) {
  uint64_t n = llamp_graph_num_vertices(g), c = 0;
  for (uint64_t v = 0; v < n; v++)
    if (llamp_graph_rank(g, v) == rank && llamp_graph_kind(g, v) == kind) c++;
  return c;
}
#endif
