/* coll_internal.h - what the algorithm files share: the expansion state,
 * emission helpers (which keep rounds non-empty and turn callback failures
 * into messages), block-size helpers and the algorithm entry points.
 * Not installed; only the smpi_llamp/coll sources include it. */
#ifndef LLAMP_COLL_INTERNAL_H
#define LLAMP_COLL_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "llamp_coll.h"

/* The expansion state handed to every algorithm. */
struct llamp_coll_ctx {
  const llamp_coll_algo_t *algo;
  const llamp_coll_args_t *a;
  const llamp_coll_emit_t *e;
  const llamp_coll_selection_t *sel; /* parts of composites; NULL = defaults */
  llamp_coll_kind_t kind;            /* the blocking kind being expanded */
  int tag_add;                       /* added to the tags of a composite's part */
  int p, r;              /* size, rank */
  uint64_t round_ops;    /* operations emitted in the open round */
  uint64_t ops;          /* operations emitted so far */
  const char *failed_op; /* name of the callback that failed, NULL if none */
  int failed_peer;
};

/* Leave the algorithm when an emission fails. */
#define COLL_TRY(expr)                                                                             \
  do {                                                                                             \
    if ((expr) != 0) return -1;                                                                    \
  } while (0)

static inline int coll_fail(llamp_coll_ctx_t *c, const char *op, int peer) {
  c->failed_op = op;
  c->failed_peer = peer;
  return -1;
}

static inline int coll_tag(const llamp_coll_ctx_t *c, int tag) {
  return (tag + c->tag_add) % LLAMP_COLL_MAX_TAGS;
}

static inline int coll_send(llamp_coll_ctx_t *c, int peer, uint64_t bytes, int tag) {
  if (c->e->send(c->e->ctx, peer, bytes, coll_tag(c, tag)) != 0) return coll_fail(c, "send", peer);
  c->round_ops++;
  c->ops++;
  return 0;
}

static inline int coll_recv(llamp_coll_ctx_t *c, int peer, uint64_t bytes, int tag) {
  if (c->e->recv(c->e->ctx, peer, bytes, coll_tag(c, tag)) != 0) return coll_fail(c, "recv", peer);
  c->round_ops++;
  c->ops++;
  return 0;
}

/* A reduction in a round of its own (the rounds around it are closed here);
 * nothing when bytes is 0 or the emitter has no calc. */
static inline int coll_end_round(llamp_coll_ctx_t *c) {
  if (c->round_ops == 0) return 0;
  if (c->e->end_round(c->e->ctx) != 0) return coll_fail(c, "end_round", -1);
  c->round_ops = 0;
  return 0;
}

static inline int coll_calc(llamp_coll_ctx_t *c, uint64_t bytes) {
  if (bytes == 0 || !c->e->calc) return 0;
  if (coll_end_round(c) != 0) return -1;
  if (c->e->calc(c->e->ctx, bytes) != 0) return coll_fail(c, "calc", -1);
  c->round_ops++;
  c->ops++;
  return coll_end_round(c);
}

/* A send SimGrid's algorithm makes with a blocking Request::send (SMPI
 * charges it os, not ois), within the open round. */
static inline int coll_send_b(llamp_coll_ctx_t *c, int peer, uint64_t bytes, int tag) {
  int (*fn)(void *, int, uint64_t, int) = c->e->send_blocking ? c->e->send_blocking : c->e->send;
  if (fn(c->e->ctx, peer, bytes, coll_tag(c, tag)) != 0) return coll_fail(c, "send", peer);
  c->round_ops++;
  c->ops++;
  return 0;
}

/* A blocking send (Request::send) / receive / sendrecv: one round. */
static inline int coll_send_r(llamp_coll_ctx_t *c, int peer, uint64_t bytes, int tag) {
  if (coll_send_b(c, peer, bytes, tag) != 0) return -1;
  return coll_end_round(c);
}
/* A send SimGrid makes with Request::isend (or isend_init) and waits for at
 * once: one round. */
static inline int coll_isend_r(llamp_coll_ctx_t *c, int peer, uint64_t bytes, int tag) {
  if (coll_send(c, peer, bytes, tag) != 0) return -1;
  return coll_end_round(c);
}
static inline int coll_recv_r(llamp_coll_ctx_t *c, int peer, uint64_t bytes, int tag) {
  if (coll_recv(c, peer, bytes, tag) != 0) return -1;
  return coll_end_round(c);
}
static inline int coll_sendrecv(llamp_coll_ctx_t *c, int dst, uint64_t sbytes, int src,
                                uint64_t rbytes, int tag) {
  if (coll_send(c, dst, sbytes, tag) != 0) return -1;
  if (coll_recv(c, src, rbytes, tag) != 0) return -1;
  return coll_end_round(c);
}

/* ---- numbers --------------------------------------------------------------- */

/* Largest power of two <= p (p >= 1). */
static inline int coll_pof2_floor(int p) {
  int q = 1;
  while (q <= p / 2) q *= 2;
  return q;
}
static inline int coll_is_pof2(int p) { return p > 0 && (p & (p - 1)) == 0; }
static inline int coll_mod(int x, int p) { return ((x % p) + p) % p; }
static inline int coll_lowbit(int x) { return x & -x; }

/* Bytes of rank i's block for v-variants: counts[i], or bytes. */
static inline uint64_t coll_count(const llamp_coll_ctx_t *c, int i) {
  return c->a->counts ? c->a->counts[i] : c->a->bytes;
}
static inline uint64_t coll_rcount(const llamp_coll_ctx_t *c, int i) {
  return c->a->rcounts ? c->a->rcounts[i] : c->a->bytes;
}
/* Sum of coll_count over [lo, hi) (no wrap). */
static inline uint64_t coll_count_sum(const llamp_coll_ctx_t *c, int lo, int hi) {
  if (!c->a->counts) return (uint64_t)(hi - lo) * c->a->bytes;
  uint64_t s = 0;
  for (int i = lo; i < hi; i++) s += c->a->counts[i];
  return s;
}

/* The datatype size used to cut vectors into blocks. */
static inline uint64_t coll_elem(const llamp_coll_args_t *a) {
  return (a->elem == 0 || a->bytes % a->elem != 0) ? 1 : a->elem;
}

/* ---- internal building blocks (used by several collectives) ----------------- */

/* A composite's part: expand `algo` (of any kind) on the same ranks and
 * emitter with its own root and vector (counts: per-rank blocks of a
 * v-kind, or NULL), its tags shifted by tag_add (sequential parts may share
 * tags: every rank emits them in the same order, and messages between two
 * ranks with one tag match in posting order). */
int llamp_coll_part(llamp_coll_ctx_t *c, const llamp_coll_algo_t *algo, int root, uint64_t bytes,
                    const uint64_t *counts, int tag_add);
/* The algorithm the running selection names for `kind` (the default when
 * the expansion runs without one). */
const llamp_coll_algo_t *llamp_coll_part_algo(const llamp_coll_ctx_t *c, llamp_coll_kind_t kind);
int llamp_coll_reduce_linear_nb_root(llamp_coll_ctx_t *c, int root, int tag);
int llamp_coll_reduce_linear_root(llamp_coll_ctx_t *c, int root, int tag);
/* SMPI's default reduce: linear_nb, or linear for the flags (llamp_coll.h). */
int llamp_coll_reduce_default_root(llamp_coll_ctx_t *c, int root, int tag);

int llamp_coll_bcast_binomial_root(llamp_coll_ctx_t *c, int root, int tag);
int llamp_coll_reduce_binomial_root(llamp_coll_ctx_t *c, int root, int tag);
/* Bytes of the blocks of the virtual ranks [v, v + ext) clipped to p, where
 * virtual rank u is rank (u + root) mod p (binomial gather and scatter). */
uint64_t llamp_coll_subtree_bytes(const llamp_coll_ctx_t *c, int v, int ext);

/* ---- the algorithms (one file each; v-variants share the file) --------------- */

int llamp_coll_barrier_dissemination(llamp_coll_ctx_t *c);
int llamp_coll_barrier_recursive_doubling(llamp_coll_ctx_t *c);
int llamp_coll_barrier_linear(llamp_coll_ctx_t *c);
int llamp_coll_barrier_linear_nb(llamp_coll_ctx_t *c); /* SMPI's MPI_Ibarrier */
int llamp_coll_bcast_binomial(llamp_coll_ctx_t *c);
int llamp_coll_bcast_linear(llamp_coll_ctx_t *c);
int llamp_coll_reduce_binomial(llamp_coll_ctx_t *c);
int llamp_coll_reduce_linear(llamp_coll_ctx_t *c);
int llamp_coll_reduce_linear_nb(llamp_coll_ctx_t *c);
int llamp_coll_reduce_default(llamp_coll_ctx_t *c); /* linear_nb as SMPI's default reduce */
int llamp_coll_allreduce_recursive_doubling(llamp_coll_ctx_t *c);
int llamp_coll_allreduce_ring(llamp_coll_ctx_t *c);
int llamp_coll_allreduce_rabenseifner(llamp_coll_ctx_t *c);
int llamp_coll_allreduce_reduce_bcast(llamp_coll_ctx_t *c);
int llamp_coll_allreduce_linear_reduce_bcast(llamp_coll_ctx_t *c);
int llamp_coll_allreduce_lr(llamp_coll_ctx_t *c);
int llamp_coll_allreduce_linear_nb(llamp_coll_ctx_t *c);
int llamp_coll_allreduce_ompi(llamp_coll_ctx_t *c);
int llamp_coll_gather_linear(llamp_coll_ctx_t *c);
int llamp_coll_gatherv_linear(llamp_coll_ctx_t *c);
int llamp_coll_gather_binomial(llamp_coll_ctx_t *c); /* gather and gatherv */
int llamp_coll_scatter_linear(llamp_coll_ctx_t *c);
int llamp_coll_scatterv_linear(llamp_coll_ctx_t *c);
int llamp_coll_scatter_binomial(llamp_coll_ctx_t *c); /* scatter and scatterv */
int llamp_coll_allgather_ring(llamp_coll_ctx_t *c);   /* allgather and allgatherv */
int llamp_coll_allgather_recursive_doubling(llamp_coll_ctx_t *c);
int llamp_coll_allgather_linear_nb(llamp_coll_ctx_t *c); /* allgather and allgatherv */
int llamp_coll_alltoall_linear(llamp_coll_ctx_t *c); /* alltoall and alltoallv */
int llamp_coll_alltoall_pairwise(llamp_coll_ctx_t *c);
int llamp_coll_alltoall_bruck(llamp_coll_ctx_t *c);
int llamp_coll_alltoall_ring(llamp_coll_ctx_t *c);
int llamp_coll_alltoall_ompi(llamp_coll_ctx_t *c);
int llamp_coll_reduce_scatter_ring(llamp_coll_ctx_t *c); /* reduce_scatter and _block */
int llamp_coll_reduce_scatter_recursive_halving(llamp_coll_ctx_t *c);
int llamp_coll_reduce_scatter_pairwise(llamp_coll_ctx_t *c);
int llamp_coll_reduce_scatter_recursive_doubling(llamp_coll_ctx_t *c);
int llamp_coll_reduce_scatter_reduce_scatterv(llamp_coll_ctx_t *c);
int llamp_coll_reduce_scatter_linear_nb(llamp_coll_ctx_t *c);
int llamp_coll_scan_linear(llamp_coll_ctx_t *c); /* scan and exscan */
int llamp_coll_scan_recursive_doubling(llamp_coll_ctx_t *c);
int llamp_coll_scan_direct(llamp_coll_ctx_t *c);

/* 1 when the expansion is for the exclusive variant (exscan). */
static inline int coll_exclusive(const llamp_coll_ctx_t *c) {
  return c->kind == LLAMP_COLL_EXSCAN;
}

#endif
