/* Collective schedules: for every collective x algorithm x size (and a few
 * roots and count patterns), expand every rank into a graph builder (one
 * vertex per operation, each operation requiring every operation of the
 * rank's previous round), then check
 *   1. the builder matches every message and the graph passes the checker,
 *      and every receive has its send's size;
 *   2. data flow, by symbolic execution in the graph's topological order
 *      (llamp_graph_topo): each rank
 *      holds a bitset of the ranks whose input reached it, a send carries its
 *      rank's set as of the end of the previous round, a receive adds it at
 *      the end of its round; the final sets must satisfy the collective
 *      (allreduce: everyone has everyone, scan: rank i has 0..i, ...);
 *   3. messages, bytes, reduced bytes and message depth (latencies on the
 *      longest chain) against closed forms, and llamp_coll_count against the
 *      graph. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_coll.h"
#include "llamp_graph.h"
#include "llamp_test.h"

/* ---- the harness emitter: one rank into a builder --------------------------- */

typedef struct {
  llamp_builder_t *b;
  uint32_t rank;
  int p;
  int64_t *prev, *cur;
  size_t nprev, ncur, cap;
  int round;
  int *op_round; /* by builder id */
  size_t nround, capround;
  uint64_t rounds;
  int calc_in_round;                    /* a calc was emitted in the open round */
  uint64_t recv_bytes, prev_recv_bytes; /* received in the open / previous round */
  int calc_follows_recv; /* check: a calc reduces exactly the previous round's receives */
  int bad;
  char why[256];
} harness_t;

static void h_fail(harness_t *h, const char *fmt, int a, int b) {
  if (!h->bad) snprintf(h->why, sizeof h->why, fmt, a, b);
  h->bad = 1;
}

static int h_add(harness_t *h, llamp_vertex_kind_t kind, double value, int peer, int tag) {
  int64_t id = llamp_builder_add(h->b, h->rank, kind, value, peer, tag, 0);
  if (id < 0) {
    h_fail(h, "builder_add failed at rank %d (peer %d)", (int)h->rank, peer);
    return -1;
  }
  for (size_t i = 0; i < h->nprev; i++)
    if (llamp_builder_depend(h->b, id, h->prev[i], LLAMP_EDGE_REQUIRES, 0) != 0) {
      h_fail(h, "builder_depend failed at rank %d (%d)", (int)h->rank, (int)i);
      return -1;
    }
  if (h->ncur == h->cap) {
    h->cap = h->cap ? 2 * h->cap : 64;
    h->cur = realloc(h->cur, h->cap * sizeof *h->cur);
    h->prev = realloc(h->prev, h->cap * sizeof *h->prev);
  }
  h->cur[h->ncur++] = id;
  if ((size_t)id >= h->capround) {
    size_t nc = h->capround ? h->capround : 1024;
    while (nc <= (size_t)id) nc *= 2;
    h->op_round = realloc(h->op_round, nc * sizeof *h->op_round);
    h->capround = nc;
  }
  h->op_round[id] = h->round;
  if ((size_t)id + 1 > h->nround) h->nround = (size_t)id + 1;
  return 0;
}

static int h_msg(void *ctx, int peer, uint64_t bytes, int tag, llamp_vertex_kind_t kind) {
  harness_t *h = ctx;
  if (peer < 0 || peer >= h->p || peer == (int)h->rank)
    h_fail(h, "rank %d: bad peer %d", (int)h->rank, peer);
  if (tag < 0 || tag >= LLAMP_COLL_MAX_TAGS) h_fail(h, "rank %d: bad tag %d", (int)h->rank, tag);
  if (h->calc_in_round)
    h_fail(h, "rank %d: a calc shares round %d with a message", (int)h->rank, h->round);
  if (h->bad) return -1;
  if (kind == LLAMP_VERTEX_RECV) h->recv_bytes += bytes;
  return h_add(h, kind, (double)bytes, peer, 100 + tag);
}
static int h_send(void *ctx, int peer, uint64_t bytes, int tag) {
  return h_msg(ctx, peer, bytes, tag, LLAMP_VERTEX_SEND);
}
static int h_recv(void *ctx, int peer, uint64_t bytes, int tag) {
  return h_msg(ctx, peer, bytes, tag, LLAMP_VERTEX_RECV);
}
static int h_calc(void *ctx, uint64_t bytes) {
  harness_t *h = ctx;
  if (bytes == 0) h_fail(h, "rank %d: calc of 0 bytes (%d)", (int)h->rank, 0);
  if (h->ncur != 0)
    h_fail(h, "rank %d: a calc shares round %d with other operations", (int)h->rank, h->round);
  if (h->calc_follows_recv && bytes != h->prev_recv_bytes)
    h_fail(h, "rank %d: calc of %d bytes after receiving a different amount", (int)h->rank,
           (int)bytes);
  if (h->bad) return -1;
  h->calc_in_round = 1;
  return h_add(h, LLAMP_VERTEX_CALC, (double)bytes * 1e-9, -1, 0);
}
static int h_end(void *ctx) {
  harness_t *h = ctx;
  if (h->ncur == 0) h_fail(h, "rank %d: empty round %d", (int)h->rank, h->round);
  int64_t *t = h->prev;
  h->prev = h->cur;
  h->cur = t;
  h->nprev = h->ncur;
  h->ncur = 0;
  h->round++;
  h->rounds++;
  h->calc_in_round = 0;
  h->prev_recv_bytes = h->recv_bytes;
  h->recv_bytes = 0;
  return h->bad ? -1 : 0;
}

/* ---- expected values ---------------------------------------------------------- */

typedef struct {
  int64_t msgs, depth; /* -1: not checked */
  uint64_t bytes;      /* UINT64_MAX: not checked */
  int64_t reduced; /* -1: not checked */
} expect_t;

static int pof2_floor(int p) {
  int q = 1;
  while (q * 2 <= p) q *= 2;
  return q;
}
static int log2i(int q) {
  int l = 0;
  while ((1 << l) < q) l++;
  return l;
}
static int popc(unsigned x) { return __builtin_popcount(x); }

typedef struct {
  llamp_coll_kind_t kind;
  const char *algo;
  int p, root;
  uint64_t n, elem;
  const uint64_t *counts, *rcounts; /* rank-independent counts; alltoallv: matrix row-major */
  const uint64_t *matrix;
} case_t;

static uint64_t cnt(const case_t *t, int i) { return t->counts ? t->counts[i] : t->n; }

static expect_t expected(const case_t *t) {
  const int p = t->p, q = pof2_floor(p), lg = log2i(q), rem = p - q, cl = log2i(p);
  /* Depth of the fold algorithms (recursive doubling/halving with extra
   * ranks): a chain can start in a fold-in and end in a fold-out while
   * crossing at every one of the log2 q steps only when some new rank
   * a < rem has a ^ (q-1) < rem, i.e. when 2*rem > q; otherwise one step is
   * spent without a message. */
  const int fold_depth = rem > 0 ? 1 + (2 * rem > q) : 0;
  const uint64_t n = t->n;
  const char *a = t->algo;
  expect_t e = {-1, -1, 0, -1};
  int mpc = 0;
  uint64_t sumpc = 0, N = 0, even_fold = 0;
  for (int u = 0; u < p; u++) {
    if (popc((unsigned)u) > mpc) mpc = popc((unsigned)u);
    sumpc += (uint64_t)popc((unsigned)u);
    N += cnt(t, u);
  }
  for (int i = 0; i < rem; i++) even_fold += cnt(t, 2 * i);
  if (p == 1) {
    e.msgs = 0, e.depth = 0, e.bytes = 0, e.reduced = 0;
    return e;
  }
  switch (llamp_coll_kind_blocking(t->kind)) {
  case LLAMP_COLL_BARRIER:
    if (!strcmp(a, "dissemination"))
      e.msgs = (int64_t)p * cl, e.depth = cl;
    else if (!strcmp(a, "linear") || !strcmp(a, "linear_nb"))
      e.msgs = 2LL * (p - 1), e.depth = !strcmp(a, "linear") ? 2 : 1;
    else
      e.msgs = (int64_t)q * lg + 2 * rem, e.depth = lg + fold_depth;
    e.bytes = 0;
    e.reduced = 0;
    break;
  case LLAMP_COLL_BCAST:
  case LLAMP_COLL_REDUCE:
    e.msgs = p - 1;
    e.bytes = (uint64_t)(p - 1) * n;
    e.depth = !strcmp(a, "binomial") ? mpc : 1;
    e.reduced = llamp_coll_kind_blocking(t->kind) == LLAMP_COLL_REDUCE ? (int64_t)((p - 1) * n) : 0;
    break;
  case LLAMP_COLL_ALLREDUCE:
    if (!strcmp(a, "ompi")) { /* Open MPI's decision: the closed form of the one it picks */
      static const char *const pick[] = {"", "reduce_bcast", "reduce_bcast", "recursive_doubling",
                                         "lr", "lr", "rabenseifner"};
      a = pick[llamp_coll_allreduce_ompi_choice(p, n, 0)];
    }
    if (!strcmp(a, "recursive_doubling")) {
      e.msgs = (int64_t)q * lg + 2 * rem;
      e.bytes = (uint64_t)e.msgs * n;
      e.depth = lg + fold_depth;
      e.reduced = (int64_t)(((uint64_t)rem + (uint64_t)q * lg) * n);
    } else if (!strcmp(a, "ring")) {
      e.msgs = 2LL * p * (p - 1);
      e.bytes = 2ull * (p - 1) * n;
      e.depth = 2 * (p - 1);
      e.reduced = (int64_t)((p - 1) * n);
    } else if (!strcmp(a, "linear_nb")) {
      e.msgs = (int64_t)p * (p - 1);
      e.bytes = (uint64_t)e.msgs * n;
      e.depth = 1;
      e.reduced = (int64_t)((uint64_t)e.msgs * n);
    } else if (!strcmp(a, "linear_reduce_bcast")) {
      e.msgs = 2LL * (p - 1);
      e.bytes = 2ull * (p - 1) * n;
      e.depth = 1 + mpc;
      e.reduced = (int64_t)((p - 1) * n);
    } else if (!strcmp(a, "lr") && n / t->elem >= (uint64_t)p) {
      /* p equal blocks in a ring, then redbcast (binomial parts) of the rest */
      uint64_t blk = n / t->elem / (uint64_t)p * t->elem, rest = n - blk * (uint64_t)p;
      e.msgs = 2LL * p * (p - 1) + (rest ? 2LL * (p - 1) : 0);
      e.bytes = 2ull * p * (p - 1) * blk + (rest ? 2ull * (p - 1) * rest : 0);
      e.depth = 2 * (p - 1) + (rest ? 2 * mpc : 0);
      e.reduced = (int64_t)((uint64_t)p * (p - 1) * blk + (rest ? (uint64_t)(p - 1) * rest : 0));
    } else if (!strcmp(a, "rabenseifner")) {
      e.msgs = 2LL * q * lg + 2 * rem;
      e.bytes = 2ull * (q - 1) * n + 2ull * rem * n;
      e.depth = 2 * lg + 2 * (rem > 0);
      e.reduced = (int64_t)((uint64_t)rem * n + (uint64_t)(q - 1) * n);
    } else {
      e.msgs = 2LL * (p - 1);
      e.bytes = 2ull * (p - 1) * n;
      e.depth = 2 * mpc;
      e.reduced = (int64_t)((p - 1) * n);
    }
    break;
  case LLAMP_COLL_GATHER:
  case LLAMP_COLL_GATHERV:
  case LLAMP_COLL_SCATTER:
  case LLAMP_COLL_SCATTERV:
    e.msgs = p - 1;
    e.reduced = 0;
    if (!strcmp(a, "binomial")) {
      e.bytes = 0;
      for (int u = 1; u < p; u++)
        e.bytes += cnt(t, (u + t->root) % p) * (uint64_t)popc((unsigned)u);
      e.depth = mpc;
    } else {
      e.bytes = N - cnt(t, t->root);
      e.depth = 1;
    }
    (void)sumpc;
    break;
  case LLAMP_COLL_ALLGATHER:
  case LLAMP_COLL_ALLGATHERV:
    e.reduced = 0;
    if (!strcmp(a, "ring") || !strcmp(a, "linear_nb")) {
      e.msgs = (int64_t)p * (p - 1);
      e.bytes = (uint64_t)(p - 1) * N;
      e.depth = !strcmp(a, "ring") ? p - 1 : 1;
    } else {
      e.msgs = (int64_t)q * lg + 2 * rem;
      e.bytes = even_fold + (uint64_t)(q - 1) * N + ((uint64_t)rem * N - even_fold);
      e.depth = lg + fold_depth;
    }
    break;
  case LLAMP_COLL_ALLTOALL:
  case LLAMP_COLL_ALLTOALLV: {
    uint64_t off = 0;
    for (int i = 0; i < p; i++)
      for (int j = 0; j < p; j++)
        if (i != j) off += t->matrix ? t->matrix[(size_t)i * p + j] : n;
    e.reduced = 0;
    /* Open MPI's choice for the sizes tested (n < 1024): Bruck from 64 ranks */
    if (!strcmp(a, "ompi")) a = p >= 64 && n < 1024 ? "bruck" : "linear";
    if (!strcmp(a, "bruck")) {
      e.msgs = (int64_t)p * cl;
      uint64_t blocks = 0;
      for (int bit = 1; bit < p; bit *= 2)
        for (int b = 1; b < p; b++) blocks += (b & bit) ? 1 : 0;
      e.bytes = (uint64_t)p * n * blocks;
      e.depth = cl;
    } else {
      e.msgs = (int64_t)p * (p - 1);
      e.bytes = off;
      e.depth = !strcmp(a, "linear") ? 1 : p - 1;
    }
    break;
  }
  case LLAMP_COLL_REDUCE_SCATTER:
  case LLAMP_COLL_REDUCE_SCATTER_BLOCK: {
    int regular = 1;
    for (int i = 1; i < p; i++) regular &= cnt(t, i) == cnt(t, 0);
    if (!strcmp(a, "reduce_scatterv") && !regular) a = "recursive_doubling"; /* small vectors */
    if (!strcmp(a, "reduce_scatterv")) {
      e.msgs = 2LL * (p - 1);
      e.bytes = (uint64_t)(p - 1) * N + N - cnt(t, 0);
      e.depth = 2;
      e.reduced = (int64_t)((uint64_t)(p - 1) * N);
    } else if (!strcmp(a, "recursive_doubling")) {
      /* checked by the data flow; closed forms for powers of two only */
      e.msgs = q == p ? (int64_t)p * lg : -1;
      e.depth = q == p ? lg : -1;
      e.bytes = UINT64_MAX;
    } else if (!strcmp(a, "pairwise") || !strcmp(a, "linear_nb")) {
      e.msgs = (int64_t)p * (p - 1);
      e.bytes = (uint64_t)(p - 1) * N;
      e.depth = !strcmp(a, "pairwise") ? p - 1 : 1;
      e.reduced = (int64_t)((uint64_t)(p - 1) * N);
    } else if (!strcmp(a, "ring")) {
      e.msgs = (int64_t)p * (p - 1);
      e.bytes = (uint64_t)(p - 1) * N;
      e.depth = p - 1;
      e.reduced = (int64_t)((uint64_t)(p - 1) * N);
    } else {
      e.msgs = (int64_t)q * lg + 2 * rem;
      e.bytes = (uint64_t)rem * N + (uint64_t)(q - 1) * N + even_fold;
      e.depth = lg + fold_depth;
      e.reduced = (int64_t)((uint64_t)rem * N + (uint64_t)(q - 1) * N);
    }
    break;
  }
  case LLAMP_COLL_SCAN:
  case LLAMP_COLL_EXSCAN: {
    int ex = llamp_coll_kind_blocking(t->kind) == LLAMP_COLL_EXSCAN;
    if (!strcmp(a, "linear")) {
      e.msgs = p - 1;
      e.depth = p - 1;
      e.reduced = (int64_t)((uint64_t)(ex ? p - 2 : p - 1) * n);
    } else if (!strcmp(a, "direct")) {
      e.msgs = (int64_t)p * (p - 1) / 2;
      e.depth = 1;
      e.reduced = (int64_t)((ex ? (uint64_t)(p - 1) * (p - 2) / 2 : (uint64_t)p * (p - 1) / 2) * n);
    } else {
      e.msgs = 0;
      for (int r = 0; r < p; r++)
        for (int m = 1; m < p; m *= 2) e.msgs += (r ^ m) < p;
      e.depth = cl;
      e.reduced = -1;
    }
    e.bytes = (uint64_t)e.msgs * n;
    break;
  }
  default:
    break;
  }
  return e;
}

/* ---- one case ------------------------------------------------------------------- */

typedef uint64_t word_t;
#define WBITS 64

static int g_cases = 0;

/* Expand, build, check.  Returns 0 when every check passed. */
static int run_case(const case_t *t) {
  const int p = t->p;
  const llamp_coll_algo_t *algo = llamp_coll_find(t->kind, t->algo);
  const char *kn = llamp_coll_kind_name(t->kind);
  int before = llamp_test_failures;
  char err[512];
  g_cases++;
  if (!algo) {
    fprintf(stderr, "no algorithm %s/%s\n", kn, t->algo);
    llamp_test_failures++;
    return -1;
  }
  llamp_builder_t *b = llamp_builder_create((uint32_t)p, "coll-test");
  harness_t h;
  memset(&h, 0, sizeof h);
  h.b = b;
  h.p = p;
  /* Algorithms whose every reduction consumes exactly what the previous
   * round received (not the linear reduce, whose root also folds in its own
   * vector, nor the scans, which reduce into two buffers). */
  const llamp_coll_kind_t bk = llamp_coll_kind_blocking(t->kind);
  const int rs = bk == LLAMP_COLL_REDUCE_SCATTER || bk == LLAMP_COLL_REDUCE_SCATTER_BLOCK;
  h.calc_follows_recv =
      (bk == LLAMP_COLL_ALLREDUCE && !strstr(t->algo, "reduce_bcast") && strcmp(t->algo, "lr")) ||
      (rs && strcmp(t->algo, "reduce_scatterv") && strcmp(t->algo, "recursive_doubling")) ||
      (bk == LLAMP_COLL_REDUCE && !strcmp(t->algo, "binomial")) ||
      ((bk == LLAMP_COLL_SCAN || bk == LLAMP_COLL_EXSCAN) && !strcmp(t->algo, "linear"));
  int64_t *first = calloc((size_t)p + 1, sizeof *first);
  uint64_t *rowc = NULL, *colc = NULL;
  if (t->matrix) {
    rowc = malloc((size_t)p * sizeof *rowc);
    colc = malloc((size_t)p * sizeof *colc);
  }
  llamp_coll_stats_t tot;
  memset(&tot, 0, sizeof tot);
  uint64_t harness_rounds = 0;
  for (int r = 0; r < p; r++) {
    llamp_coll_args_t a = {p, r, t->root, t->n, t->counts, NULL, t->elem, 0};
    if (t->matrix) {
      for (int j = 0; j < p; j++) {
        rowc[j] = t->matrix[(size_t)r * p + j];
        colc[j] = t->matrix[(size_t)j * p + r];
      }
      a.counts = rowc;
      a.rcounts = colc;
    }
    h.rank = (uint32_t)r;
    h.round = 0;
    h.nprev = h.ncur = 0;
    h.rounds = 0;
    h.calc_in_round = 0;
    h.recv_bytes = h.prev_recv_bytes = 0;
    first[r] = (int64_t)h.nround;
    llamp_coll_emit_t e = {&h, h_send, h_recv, h_calc, h_end, NULL};
    int rc = llamp_coll_run(algo, &a, &e, err, sizeof err);
    if (rc != 0 || h.bad) {
      fprintf(stderr, "%s/%s p=%d rank %d: %s\n", kn, t->algo, p, r, h.bad ? h.why : err);
      llamp_test_failures++;
      break;
    }
    if (h.ncur != 0) {
      fprintf(stderr, "%s/%s p=%d rank %d: operations after the last end_round\n", kn, t->algo, p,
              r);
      llamp_test_failures++;
    }
    harness_rounds += h.rounds;
    llamp_coll_stats_t st;
    CHECK(llamp_coll_count(algo, &a, &st, err, sizeof err) == 0);
    tot.rounds += st.rounds, tot.sends += st.sends, tot.recvs += st.recvs;
    tot.bytes_sent += st.bytes_sent, tot.bytes_recv += st.bytes_recv;
    tot.bytes_reduced += st.bytes_reduced;
  }
  first[p] = (int64_t)h.nround;
  free(rowc);
  free(colc);
  if (llamp_test_failures != before) {
    llamp_builder_destroy(b);
    goto out;
  }
  CHECK(tot.rounds == harness_rounds);
  CHECK(tot.sends == tot.recvs);
  CHECK(tot.bytes_sent == tot.bytes_recv);

  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  if (!g) {
    fprintf(stderr, "%s/%s p=%d root=%d: finish: %s\n", kn, t->algo, p, t->root, err);
    llamp_test_failures++;
    goto out;
  }
  if (llamp_graph_check(g, err, sizeof err) != 0) {
    fprintf(stderr, "%s/%s p=%d: check: %s\n", kn, t->algo, p, err);
    llamp_test_failures++;
  }

  /* Symbolic execution. */
  const uint64_t nv = llamp_graph_num_vertices(g);
  const size_t words = ((size_t)p + WBITS - 1) / WBITS;
  word_t *K = calloc((size_t)p * words, sizeof *K), *P = calloc((size_t)p * words, sizeof *P);
  int *cr = calloc((size_t)p, sizeof *cr);
  uint32_t *slot_of = malloc(nv * sizeof *slot_of);
  word_t *snap = malloc((tot.sends + 1) * words * sizeof *snap);
  int64_t *depth = calloc(nv, sizeof *depth);
  uint64_t *pos = malloc(nv * sizeof *pos); /* position in the topological order */
  for (uint64_t i = 0; i < nv; i++) pos[llamp_graph_topo(g, i)] = i;
  uint64_t nslots = 0, msgs = 0, bytes = 0, reduced_bytes = 0;
  int64_t maxdepth = 0;
  int rooted_src = bk == LLAMP_COLL_BCAST || bk == LLAMP_COLL_SCATTER || bk == LLAMP_COLL_SCATTERV;
  for (int r = 0; r < p; r++)
    if (!rooted_src || r == t->root) K[(size_t)r * words + r / WBITS] |= (word_t)1 << (r % WBITS);
  for (uint64_t i = 0; i < nv; i++) {
    uint64_t v = llamp_graph_topo(g, i);
    uint32_t r = llamp_graph_rank(g, v);
    int64_t id = first[r] + (int64_t)llamp_graph_local_index(g, v);
    int rd = h.op_round[id];
    word_t *Kr = K + (size_t)r * words, *Pr = P + (size_t)r * words;
    if (rd > cr[r]) {
      for (size_t w = 0; w < words; w++) Kr[w] |= Pr[w], Pr[w] = 0;
      cr[r] = rd;
    }
    uint64_t e0, e1;
    llamp_graph_in_edges(g, v, &e0, &e1);
    int64_t d = 0;
    for (uint64_t e = e0; e < e1; e++) {
      uint64_t u = llamp_graph_edge_source(g, e);
      if (pos[u] >= i) {
        fprintf(stderr, "%s/%s p=%d: the topological order puts an edge backwards\n", kn, t->algo,
                p);
        llamp_test_failures++;
      }
      int64_t du = depth[u] + (llamp_graph_edge_kind(g, e) == LLAMP_EDGE_MESSAGE);
      if (du > d) d = du;
    }
    depth[v] = d;
    if (d > maxdepth) maxdepth = d;
    llamp_vertex_kind_t k = llamp_graph_kind(g, v);
    if (k == LLAMP_VERTEX_SEND) {
      slot_of[v] = (uint32_t)nslots;
      memcpy(snap + nslots * words, Kr, words * sizeof *Kr);
      nslots++;
      msgs++;
      bytes += (uint64_t)llamp_graph_value(g, v);
    } else if (k == LLAMP_VERTEX_RECV) {
      uint64_t s = llamp_graph_partner(g, v);
      if (s >= nv || pos[s] >= i || llamp_graph_kind(g, s) != LLAMP_VERTEX_SEND) {
        fprintf(stderr, "%s/%s p=%d: receive %" PRIu64 " has no earlier send\n", kn, t->algo, p, v);
        llamp_test_failures++;
        break;
      }
      if (llamp_graph_value(g, s) != llamp_graph_value(g, v) ||
          llamp_graph_peer(g, v) != (int32_t)llamp_graph_rank(g, s)) {
        fprintf(stderr,
                "%s/%s p=%d: receive of %.0f bytes from %d matched a send of %.0f from %u\n", kn,
                t->algo, p, llamp_graph_value(g, v), llamp_graph_peer(g, v),
                llamp_graph_value(g, s), llamp_graph_rank(g, s));
        llamp_test_failures++;
      }
      const word_t *m = snap + (size_t)slot_of[s] * words;
      for (size_t w = 0; w < words; w++) Pr[w] |= m[w];
    } else {
      reduced_bytes += (uint64_t)(llamp_graph_value(g, v) * 1e9 + 0.5);
    }
  }
  for (size_t i = 0; i < (size_t)p * words; i++) K[i] |= P[i];

  /* Final state. */
  int bad_flow = 0;
  for (int r = 0; r < p && !bad_flow; r++) {
    const word_t *Kr = K + (size_t)r * words;
    for (int o = 0; o < p; o++) {
      int need;
      switch (bk) {
      case LLAMP_COLL_BCAST:
      case LLAMP_COLL_SCATTER:
      case LLAMP_COLL_SCATTERV:
        need = o == t->root;
        break;
      case LLAMP_COLL_REDUCE:
      case LLAMP_COLL_GATHER:
      case LLAMP_COLL_GATHERV:
        need = r == t->root;
        break;
      case LLAMP_COLL_SCAN:
        need = o <= r;
        break;
      case LLAMP_COLL_EXSCAN:
        need = o < r;
        break;
      default:
        /* SMPI's MPI_Ibarrier: rank 0 releases the others without waiting */
        need = t->kind == LLAMP_COLL_IBARRIER ? r == 0 || o == 0 : 1;
        break;
      }
      if (need && !((Kr[o / WBITS] >> (o % WBITS)) & 1)) {
        fprintf(stderr, "%s/%s p=%d root=%d: rank %d never hears from rank %d\n", kn, t->algo, p,
                t->root, r, o);
        llamp_test_failures++;
        bad_flow = 1;
        break;
      }
    }
  }

  /* Closed forms and the counting emitter. */
  expect_t ex = expected(t);
  CHECK(msgs == tot.sends);
  CHECK(bytes == tot.bytes_sent);
  CHECK(reduced_bytes == tot.bytes_reduced);
  if (ex.msgs >= 0 && (int64_t)msgs != ex.msgs) {
    fprintf(stderr, "%s/%s p=%d: %" PRIu64 " messages, expected %" PRId64 "\n", kn, t->algo, p,
            msgs, ex.msgs);
    llamp_test_failures++;
  }
  if (ex.bytes != UINT64_MAX && bytes != ex.bytes) {
    fprintf(stderr, "%s/%s p=%d root=%d: %" PRIu64 " bytes, expected %" PRIu64 "\n", kn, t->algo, p,
            t->root, bytes, ex.bytes);
    llamp_test_failures++;
  }
  if (ex.reduced >= 0 && (int64_t)reduced_bytes != ex.reduced) {
    fprintf(stderr, "%s/%s p=%d: %" PRIu64 " bytes reduced, expected %" PRId64 "\n", kn, t->algo, p,
            reduced_bytes, ex.reduced);
    llamp_test_failures++;
  }
  if (ex.depth >= 0 && maxdepth != ex.depth) {
    fprintf(stderr, "%s/%s p=%d: message depth %" PRId64 ", expected %" PRId64 "\n", kn, t->algo, p,
            maxdepth, ex.depth);
    llamp_test_failures++;
  }
  CHECK(llamp_graph_num_messages(g) == msgs);

  free(K), free(P), free(cr), free(slot_of), free(snap), free(depth), free(pos);
  llamp_graph_destroy(g);
out:
  free(first);
  free(h.prev), free(h.cur), free(h.op_round);
  return llamp_test_failures != before ? -1 : 0;
}

/* ---- the sweep ------------------------------------------------------------------- */

static int is_v(llamp_coll_kind_t k) {
  k = llamp_coll_kind_blocking(k);
  return k == LLAMP_COLL_GATHERV || k == LLAMP_COLL_SCATTERV || k == LLAMP_COLL_ALLGATHERV ||
         k == LLAMP_COLL_ALLTOALLV || k == LLAMP_COLL_REDUCE_SCATTER;
}

static void sweep(int p) {
  size_t na;
  const llamp_coll_algo_t *algos = llamp_coll_algos(&na);
  uint64_t *counts = malloc((size_t)p * sizeof *counts);
  uint64_t *matrix = malloc((size_t)p * p * sizeof *matrix);
  for (int i = 0; i < p; i++) counts[i] = (uint64_t)((i * 37 + 11) % 50); /* zero at i = 47 */
  for (int i = 0; i < p; i++)
    for (int j = 0; j < p; j++) matrix[(size_t)i * p + j] = (uint64_t)((i * 31 + j * 17 + 5) % 23);
  for (size_t i = 0; i < na; i++) {
    const llamp_coll_algo_t *al = &algos[i];
    int roots[3] = {0, p - 1, p / 2}, nroots = llamp_coll_kind_rooted(al->kind) ? 3 : 1;
    for (int ri = 0; ri < nroots; ri++) {
      if (ri > 0 && (roots[ri] == roots[0] || roots[ri] == roots[ri - 1])) continue;
      case_t t = {al->kind, al->name, p, roots[ri], 1000, 8, NULL, NULL, NULL};
      if (is_v(al->kind)) {
        if (llamp_coll_kind_blocking(al->kind) == LLAMP_COLL_ALLTOALLV)
          t.matrix = matrix;
        else
          t.counts = counts;
      }
      run_case(&t);
      /* The v-variants with equal blocks (counts == NULL), and a vector
       * smaller than the number of blocks for the cutting algorithms. */
      if (is_v(al->kind) && ri == 0) {
        case_t u = t;
        u.counts = NULL, u.matrix = NULL, u.n = 24;
        run_case(&u);
      }
      if (llamp_coll_kind_blocking(al->kind) == LLAMP_COLL_ALLREDUCE && ri == 0) {
        case_t u = t;
        u.n = 7, u.elem = 1;
        run_case(&u);
        u.n = 0;
        run_case(&u);
      }
    }
  }
  free(counts);
  free(matrix);
}

/* The design's literal examples, per message. */
static uint64_t lit_msgs, lit_min, lit_max;
static int lit_send(void *ctx, int peer, uint64_t bytes, int tag) {
  (void)ctx, (void)peer, (void)tag;
  lit_msgs++;
  if (bytes < lit_min) lit_min = bytes;
  if (bytes > lit_max) lit_max = bytes;
  return 0;
}
static int lit_recv(void *ctx, int peer, uint64_t bytes, int tag) {
  (void)ctx, (void)peer, (void)bytes, (void)tag;
  return 0;
}
static int lit_end(void *ctx) {
  (void)ctx;
  return 0;
}
static void literal(llamp_coll_kind_t k, const char *algo, int p, uint64_t n, uint64_t msgs,
                    uint64_t min, uint64_t max) {
  llamp_coll_emit_t e = {NULL, lit_send, lit_recv, NULL, lit_end, NULL};
  char err[256];
  lit_msgs = 0, lit_min = UINT64_MAX, lit_max = 0;
  for (int r = 0; r < p; r++) {
    llamp_coll_args_t a = {p, r, 0, n, NULL, NULL, 1, 0};
    CHECK(llamp_coll_expand(k, algo, &a, &e, err, sizeof err) == 0);
  }
  if (lit_msgs != msgs || lit_min != min || lit_max != max) {
    fprintf(stderr, "%s/%s p=%d: %llu messages of %llu..%llu bytes, expected %llu of %llu..%llu\n",
            llamp_coll_kind_name(k), algo, p, (unsigned long long)lit_msgs,
            (unsigned long long)lit_min, (unsigned long long)lit_max, (unsigned long long)msgs,
            (unsigned long long)min, (unsigned long long)max);
    llamp_test_failures++;
  }
}

static void literals(void) {
  literal(LLAMP_COLL_ALLREDUCE, "recursive_doubling", 8, 4096, 24, 4096, 4096);
  literal(LLAMP_COLL_ALLREDUCE, "ring", 8, 4096, 2 * 8 * 7, 512, 512); /* bytes/p each */
  literal(LLAMP_COLL_ALLREDUCE, "ring", 3, 10, 12, 3, 4);              /* 4+3+3 elements */
  literal(LLAMP_COLL_ALLREDUCE, "rabenseifner", 8, 4096, 48, 512,
          2048); /* halves: 2048, 1024, 512 */
  literal(LLAMP_COLL_BCAST, "binomial", 13, 100, 12, 100, 100);
  literal(LLAMP_COLL_BARRIER, "dissemination", 5, 0, 15, 0, 0);
  literal(LLAMP_COLL_ALLTOALL, "bruck", 8, 10, 24, 40, 40); /* 4 of 8 blocks per step */
  literal(LLAMP_COLL_ALLTOALL, "pairwise", 6, 10, 30, 10, 10);
  literal(LLAMP_COLL_ALLGATHER, "ring", 5, 7, 20, 7, 7);
  literal(LLAMP_COLL_GATHER, "binomial", 8, 10, 7, 10, 40); /* 4 blocks from vrank 4 */
  literal(LLAMP_COLL_SCAN, "recursive_doubling", 8, 8, 24, 8, 8);
}

int main(void) {
  literals();
  static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 33, 64, 100, 256};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) sweep(sizes[i]);
  printf("%d cases\n", g_cases);
  TEST_DONE();
}
