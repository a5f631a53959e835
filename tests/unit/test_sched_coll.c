/* DAG builder from traces: collectives.  Every algorithm of the registry on
 * 1, 2, 3 and 7 ranks (blocking, and nonblocking completed by a Wait) gives a
 * graph that passes the checker with the message count llamp_coll_count
 * predicts; a communicator split into two halves, each running an
 * allreduce, keeps every message inside its half; hand-checked timings. */
#include "llamp_coll.h"
#include "llamp_engine.h"
#include "llamp_test.h"
#include "sched_trace.h"

static const double us = 1e-6;

static const llamp_trace_op_t blocking_op[LLAMP_COLL_NUM_KINDS] = {
    [LLAMP_COLL_BARRIER] = LLAMP_OP_BARRIER,
    [LLAMP_COLL_BCAST] = LLAMP_OP_BCAST,
    [LLAMP_COLL_REDUCE] = LLAMP_OP_REDUCE,
    [LLAMP_COLL_ALLREDUCE] = LLAMP_OP_ALLREDUCE,
    [LLAMP_COLL_GATHER] = LLAMP_OP_GATHER,
    [LLAMP_COLL_GATHERV] = LLAMP_OP_GATHERV,
    [LLAMP_COLL_SCATTER] = LLAMP_OP_SCATTER,
    [LLAMP_COLL_SCATTERV] = LLAMP_OP_SCATTERV,
    [LLAMP_COLL_ALLGATHER] = LLAMP_OP_ALLGATHER,
    [LLAMP_COLL_ALLGATHERV] = LLAMP_OP_ALLGATHERV,
    [LLAMP_COLL_ALLTOALL] = LLAMP_OP_ALLTOALL,
    [LLAMP_COLL_ALLTOALLV] = LLAMP_OP_ALLTOALLV,
    [LLAMP_COLL_REDUCE_SCATTER] = LLAMP_OP_REDUCE_SCATTER,
    [LLAMP_COLL_REDUCE_SCATTER_BLOCK] = LLAMP_OP_REDUCE_SCATTER_BLOCK,
    [LLAMP_COLL_SCAN] = LLAMP_OP_SCAN,
    [LLAMP_COLL_EXSCAN] = LLAMP_OP_EXSCAN,
};

static const llamp_trace_op_t nonblocking_op[LLAMP_COLL_NUM_KINDS] = {
    [LLAMP_COLL_BARRIER] = LLAMP_OP_IBARRIER,
    [LLAMP_COLL_BCAST] = LLAMP_OP_IBCAST,
    [LLAMP_COLL_REDUCE] = LLAMP_OP_IREDUCE,
    [LLAMP_COLL_ALLREDUCE] = LLAMP_OP_IALLREDUCE,
    [LLAMP_COLL_GATHER] = LLAMP_OP_IGATHER,
    [LLAMP_COLL_GATHERV] = LLAMP_OP_IGATHERV,
    [LLAMP_COLL_SCATTER] = LLAMP_OP_ISCATTER,
    [LLAMP_COLL_SCATTERV] = LLAMP_OP_ISCATTERV,
    [LLAMP_COLL_ALLGATHER] = LLAMP_OP_IALLGATHER,
    [LLAMP_COLL_ALLGATHERV] = LLAMP_OP_IALLGATHERV,
    [LLAMP_COLL_ALLTOALL] = LLAMP_OP_IALLTOALL,
    [LLAMP_COLL_ALLTOALLV] = LLAMP_OP_IALLTOALLV,
    [LLAMP_COLL_REDUCE_SCATTER] = LLAMP_OP_IREDUCE_SCATTER,
    [LLAMP_COLL_REDUCE_SCATTER_BLOCK] = (llamp_trace_op_t)0, /* no MPI_Ireduce_scatter_block record */
    [LLAMP_COLL_SCAN] = LLAMP_OP_ISCAN,
    [LLAMP_COLL_EXSCAN] = LLAMP_OP_IEXSCAN,
};

static int is_v(llamp_coll_kind_t k) {
  return k == LLAMP_COLL_GATHERV || k == LLAMP_COLL_SCATTERV || k == LLAMP_COLL_ALLGATHERV ||
         k == LLAMP_COLL_ALLTOALLV || k == LLAMP_COLL_REDUCE_SCATTER;
}

/* v-collective payload for `rank` of p: counts (and receive counts). */
static uint32_t vcounts(llamp_coll_kind_t k, int p, int rank, uint64_t *pl) {
  for (int i = 0; i < p; i++) pl[i] = 8 * (uint64_t)(i + 1);
  if (k != LLAMP_COLL_ALLTOALLV) return (uint32_t)p;
  for (int i = 0; i < p; i++) {
    pl[i] = 8 * (uint64_t)(rank + 2 * i + 1);     /* sent to i */
    pl[p + i] = 8 * (uint64_t)(i + 2 * rank + 1); /* received from i: what i sends to rank */
  }
  return 2 * (uint32_t)p;
}

/* Every algorithm, every size, blocking and nonblocking. */
static void registry(void) {
  size_t na = 0;
  const llamp_coll_algo_t *algos = llamp_coll_algos(&na);
  CHECK(na > 0);
  const int sizes[] = {1, 2, 3, 7};
  int cases = 0;
  for (size_t ai = 0; ai < na; ai++) {
    const llamp_coll_algo_t *al = &algos[ai];
    /* a blocking kind's algorithm runs for its call and (as a what-if) for
     * the nonblocking variant; a nonblocking kind's for its call only */
    const llamp_coll_kind_t bk = llamp_coll_kind_blocking(al->kind);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
      for (int nb = 0; nb < 2; nb++) {
        int p = sizes[si];
        llamp_trace_op_t op = nb ? nonblocking_op[bk] : blocking_op[bk];
        if (!op || (!nb && llamp_coll_kind_nonblocking(al->kind))) continue;
        char spec[128];
        snprintf(spec, sizeof spec, "%s=%s",
                 llamp_coll_kind_name(nb ? llamp_coll_kind_to_nonblocking(bk) : bk), al->name);
        char err[512];
        tb_t tb;
        tb_open(&tb, (uint32_t)p);
        int root = p - 1;
        uint64_t want_msgs = 0;
        for (int r = 0; r < p; r++) {
          uint64_t pl[64];
          uint32_t nw = is_v(bk) ? vcounts(bk, p, r, pl) : 0;
          llamp_coll_args_t a;
          memset(&a, 0, sizeof a);
          a.size = p;
          a.rank = r;
          a.root = root;
          a.bytes = 4096;
          a.elem = 8;
          if (nw) {
            a.counts = pl;
            if (bk == LLAMP_COLL_ALLTOALLV) a.rcounts = pl + p;
          }
          llamp_coll_stats_t cs;
          CHECK(llamp_coll_count(al, &a, &cs, err, sizeof err) == 0);
          want_msgs += cs.sends;
          tb_init(&tb, (uint32_t)r);
          tb_compute(&tb, (uint32_t)r, 0.1 * us * (r + 1));
          tb_call(&tb, (uint32_t)r, op, 0,
                  llamp_coll_kind_rooted(al->kind) ? root : LLAMP_TRACE_NO_PEER, 8, 4096,
                  nb ? 77 : LLAMP_TRACE_NO_REQ, nw ? pl : NULL, nw);
          tb_compute(&tb, (uint32_t)r, 1 * us);
          if (nb) tb_wait(&tb, (uint32_t)r, 77);
          tb_compute(&tb, (uint32_t)r, 0.5 * us);
          tb_finalize(&tb, (uint32_t)r);
        }
        llamp_sched_options_t opt;
        llamp_sched_options_default(&opt);
        opt.collectives = spec;
        opt.reduce_cost = 1e-9;
        llamp_sched_stats_t st;
        llamp_graph_t *g = tb_build(&tb, &opt, &st, err, sizeof err);
        CHECK(g != NULL);
        if (!g) {
          fprintf(stderr, "%s p=%d %s: %s\n", spec, p, nb ? "nonblocking" : "blocking", err);
        } else {
          if (llamp_graph_check(g, err, sizeof err) != 0) {
            fprintf(stderr, "%s p=%d: %s\n", spec, p, err);
            CHECK(0);
          }
          CHECK(st.collectives == (uint64_t)p);
          CHECK(st.messages == want_msgs);
          if (st.messages != want_msgs)
            fprintf(stderr, "%s p=%d: %llu messages, expected %llu\n", spec, p,
                    (unsigned long long)st.messages, (unsigned long long)want_msgs);
          /* the graph's answer exists and grows with L when messages exist */
          llamp_params_t pr;
          llamp_params_default(&pr);
          pr.o = 0;
          pr.G = 0;
          pr.S = 1e12;
          pr.L = 1 * us;
          llamp_engine_t *e = llamp_engine_create(g, &pr, err, sizeof err);
          CHECK(e != NULL);
          llamp_eval_t ev;
          CHECK(e && llamp_engine_eval(e, &pr, LLAMP_PARAM_L, &ev) == 0);
          if (e) {
            if (want_msgs && !nb && ev.slope_right < 1) {
              fprintf(stderr, "%s p=%d: slope %g\n", spec, p, ev.slope_right);
              CHECK(0);
            }
            /* the last rank's compute alone: 0.1p + 1 + 0.5 us */
            CHECK(ev.T >= (0.1 * p + 1.5) * us - 1e-15);
            if (p == 1) CHECK_CLOSE(ev.T, 1.6 * us, 1e-15);
          }
          llamp_engine_destroy(e);
          llamp_graph_destroy(g);
        }
        llamp_sched_stats_free(&st);
        tb_close(&tb);
        cases++;
      }
    }
  }
  CHECK(cases >= 100);
}

/* A hand-checked allreduce: 2 ranks, recursive doubling = one exchange.
 * Rank r computes 0.1(r+1) us, allreduce, 1 us.  Exchange: each receive
 * at max(own start, other's start + L); then the reduction (1 KiB x 1 ns).
 * T = max(0.2, 0.1 + L, 0.2 + L) + 1.024 + 1 = 2.224 + L (L > 0). */
static void allreduce_2(void) {
  char err[512];
  tb_t tb;
  tb_open(&tb, 2);
  for (uint32_t r = 0; r < 2; r++) {
    tb_init(&tb, r);
    tb_compute(&tb, r, 0.1 * us * (r + 1));
    tb_coll(&tb, r, LLAMP_OP_ALLREDUCE, 0, LLAMP_TRACE_NO_PEER, 1024, NULL, 0, LLAMP_TRACE_NO_REQ);
    tb_compute(&tb, r, 1 * us);
    tb_finalize(&tb, r);
  }
  llamp_sched_options_t opt;
  llamp_sched_options_default(&opt);
  opt.collectives = "allreduce=recursive_doubling";
  opt.reduce_cost = 1e-9;
  llamp_sched_stats_t st;
  llamp_graph_t *g = tb_build(&tb, &opt, &st, err, sizeof err);
  CHECK(g != NULL);
  if (!g) {
    fprintf(stderr, "%s\n", err);
    return;
  }
  CHECK(st.messages == 2 && st.collectives == 2);
  llamp_params_t p;
  llamp_params_default(&p);
  p.o = 0;
  p.G = 0;
  p.S = 1e12;
  p.L = 0.5 * us;
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  llamp_eval_t ev;
  llamp_engine_eval(e, &p, LLAMP_PARAM_L, &ev);
  CHECK_CLOSE(ev.T, 2.724 * us, 1e-15);
  CHECK(ev.slope_right == 1);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);
  tb_close(&tb);
}

/* 6 ranks split into {0,1,2} and {3,4,5}; each half runs an allreduce on
 * its communicator, then everyone a barrier on world.  Run twice: with
 * distinct communicator ids, and with the same id in both halves (a
 * capture layer numbering communicators per rank). */
static void split(int same_id) {
  char err[512];
  tb_t tb;
  const uint32_t P = 6;
  tb_open(&tb, P);
  uint32_t lo[3] = {0, 1, 2}, hi[3] = {3, 4, 5};
  for (uint32_t r = 0; r < P; r++) {
    uint32_t half = r / 3, id = same_id ? 1 : 1 + half;
    tb_init(&tb, r);
    tb_split(&tb, r, 0, id, half ? hi : lo, 3);
    tb_compute(&tb, r, 0.1 * us);
    tb_coll(&tb, r, LLAMP_OP_ALLREDUCE, id, LLAMP_TRACE_NO_PEER, 64, NULL, 0, LLAMP_TRACE_NO_REQ);
    tb_coll(&tb, r, LLAMP_OP_BCAST, id, (int32_t)(half ? 4 : 2), 64, NULL, 0, LLAMP_TRACE_NO_REQ);
    tb_compute(&tb, r, 0.1 * us);
    tb_coll(&tb, r, LLAMP_OP_BARRIER, 0, LLAMP_TRACE_NO_PEER, 0, NULL, 0, LLAMP_TRACE_NO_REQ);
    tb_call(&tb, r, LLAMP_OP_COMM_FREE, id, LLAMP_TRACE_NO_PEER, -1, 0, LLAMP_TRACE_NO_REQ, NULL, 0);
    tb_finalize(&tb, r);
  }
  llamp_sched_stats_t st;
  llamp_graph_t *g = tb_build(&tb, NULL, &st, err, sizeof err);
  CHECK(g != NULL);
  if (!g) {
    fprintf(stderr, "%s\n", err);
    return;
  }
  CHECK(llamp_graph_check(g, err, sizeof err) == 0);
  CHECK(st.collectives == 3 * P);
  /* every message of a sub-communicator collective stays in its half;
   * world (barrier) messages carry the tags of communicator index 0 */
  uint64_t n = llamp_graph_num_vertices(g), sub = 0, world = 0;
  int ok = 1;
  for (uint64_t v = 0; v < n; v++) {
    if (llamp_graph_kind(g, v) != LLAMP_VERTEX_RECV) continue;
    int32_t tag = llamp_graph_tag(g, v);
    CHECK(tag >= (1 << 30));
    uint32_t cidx = ((uint32_t)tag >> 16) & 0x3fff;
    uint32_t a = llamp_graph_rank(g, v), b = llamp_graph_rank(g, llamp_graph_partner(g, v));
    if (cidx == 0) {
      world++;
    } else {
      sub++;
      if (a / 3 != b / 3) ok = 0;
    }
  }
  CHECK(ok);
  /* the default allreduce and bcast on 3 ranks, the barrier on 6 */
  llamp_coll_selection_t sel;
  llamp_coll_selection_default(&sel);
  uint64_t want_sub = 0, want_world = 0;
  for (int r = 0; r < 3; r++) {
    llamp_coll_args_t a = {3, r, 2, 64, NULL, NULL, 0, 0};
    llamp_coll_stats_t cs;
    llamp_coll_count(sel.algo[LLAMP_COLL_ALLREDUCE], &a, &cs, err, sizeof err);
    want_sub += 2 * cs.sends;
    /* (a bcast sends p - 1 messages whatever the root) */
    llamp_coll_count(sel.algo[LLAMP_COLL_BCAST], &a, &cs, err, sizeof err);
    want_sub += 2 * cs.sends;
  }
  for (int r = 0; r < 6; r++) {
    llamp_coll_args_t a = {6, r, 0, 0, NULL, NULL, 0, 0};
    llamp_coll_stats_t cs;
    llamp_coll_count(sel.algo[LLAMP_COLL_BARRIER], &a, &cs, err, sizeof err);
    want_world += cs.sends;
  }
  CHECK(sub == want_sub && world == want_world);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);
  tb_close(&tb);
}

/* A nonblocking allreduce overlapped with compute: the compute after the
 * call does not wait for the collective, the Wait does.  2 ranks,
 * recursive doubling: rank r computes 0.1(r+1), Iallreduce, 1 us, Wait,
 * 0.5 us.  T = max(0.2 + 1, 0.2 + L) + 0.5. */
static void iallreduce(void) {
  char err[512];
  tb_t tb;
  tb_open(&tb, 2);
  for (uint32_t r = 0; r < 2; r++) {
    tb_init(&tb, r);
    tb_compute(&tb, r, 0.1 * us * (r + 1));
    tb_coll(&tb, r, LLAMP_OP_IALLREDUCE, 0, LLAMP_TRACE_NO_PEER, 1024, NULL, 0, 5);
    tb_compute(&tb, r, 1 * us);
    tb_wait(&tb, r, 5);
    tb_compute(&tb, r, 0.5 * us);
    tb_finalize(&tb, r);
  }
  llamp_sched_options_t opt;
  llamp_sched_options_default(&opt);
  opt.collectives = "allreduce=recursive_doubling";
  llamp_sched_stats_t st;
  llamp_graph_t *g = tb_build(&tb, &opt, &st, err, sizeof err);
  CHECK(g != NULL);
  if (!g) {
    fprintf(stderr, "%s\n", err);
    return;
  }
  llamp_params_t p;
  llamp_params_default(&p);
  p.o = 0;
  p.G = 0;
  p.S = 1e12;
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  llamp_eval_t ev;
  p.L = 0.5 * us;
  llamp_engine_eval(e, &p, LLAMP_PARAM_L, &ev);
  CHECK_CLOSE(ev.T, 1.7 * us, 1e-15);
  CHECK(ev.slope_right == 0);
  p.L = 2 * us;
  llamp_engine_eval(e, &p, LLAMP_PARAM_L, &ev);
  CHECK_CLOSE(ev.T, 2.7 * us, 1e-15);
  CHECK(ev.slope_right == 1);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);
  tb_close(&tb);
}

/* Communicator members as runs (LLAMP_TRACE_F_COMM_RUNS): the helpers agree
 * with the plain list on every index and world rank, and a program whose
 * COMM_SPLIT records carry runs builds the same graph as the same program
 * with plain member lists.  8 ranks; communicators {0,2,4,6} and {1,3,5,7}
 * (stride 2), {6,4,2,0} (stride -2), {0,3,4,7} (two runs), each with an
 * allreduce and a bcast whose root is the communicator's third member. */
static void member_runs_helpers(void) {
  uint32_t lists[5][9] = {{0, 2, 4, 6}, {6, 4, 2, 0}, {0, 3, 4, 7}, {5, 1, 7, 3, 3, 9, 11, 13, 2}, {4}};
  uint32_t sizes[5] = {4, 4, 4, 9, 1}, want_runs[5] = {1, 1, 2, 5, 1};
  for (int l = 0; l < 5; l++) {
    llamp_trace_run_t runs[10];
    uint32_t n = 0;
    for (uint32_t i = 0; i < sizes[l]; i++) llamp_trace_runs_push(runs, &n, lists[l][i]);
    CHECK(n == want_runs[l]);
    for (uint32_t i = 0; i < sizes[l]; i++) {
      CHECK(llamp_trace_runs_world(runs, n, i) == lists[l][i]);
      /* the first member with that world rank */
      uint32_t first = 0;
      while (lists[l][first] != lists[l][i]) first++;
      CHECK(llamp_trace_runs_index(runs, n, lists[l][i]) == (int64_t)first);
    }
    CHECK(llamp_trace_runs_index(runs, n, 1000) == -1);
  }
  CHECK(llamp_trace_unzigzag(llamp_trace_zigzag(-2)) == -2 && llamp_trace_zigzag(-1) == 1);
}

static llamp_graph_t *member_runs_graph(int as_runs, llamp_sched_stats_t *st, char *err, size_t errlen) {
  static const uint32_t comms[4][4] = {{0, 2, 4, 6}, {1, 3, 5, 7}, {6, 4, 2, 0}, {0, 3, 4, 7}};
  tb_t tb;
  const uint32_t P = 8;
  tb_open(&tb, P);
  for (uint32_t r = 0; r < P; r++) tb_init(&tb, r);
  for (uint32_t c = 0; c < 4; c++)
    for (uint32_t r = 0; r < P; r++) {
      int in = 0;
      for (int i = 0; i < 4; i++) in |= comms[c][i] == r;
      if (!in) continue;
      uint64_t pl[2 + 3 * 4 + 1];
      uint32_t nw;
      uint16_t flags = 0;
      pl[0] = 10 + c;
      pl[1] = 4;
      if (as_runs) {
        llamp_trace_run_t runs[4];
        uint32_t n = 0;
        for (int i = 0; i < 4; i++) llamp_trace_runs_push(runs, &n, comms[c][i]);
        pl[2] = n;
        for (uint32_t i = 0; i < n; i++) {
          pl[3 + 3 * i] = runs[i].first;
          pl[4 + 3 * i] = llamp_trace_zigzag(runs[i].stride);
          pl[5 + 3 * i] = runs[i].count;
        }
        nw = 3 + 3 * n;
        flags = LLAMP_TRACE_F_COMM_RUNS;
      } else {
        for (int i = 0; i < 4; i++) pl[2 + i] = comms[c][i];
        nw = 6;
      }
      tb_call_st(&tb, r, LLAMP_OP_COMM_CREATE, 0, LLAMP_TRACE_NO_PEER, -1, 0, -1, -1, flags, pl, nw);
      tb_compute(&tb, r, 0.1 * us * (r + 1));
      tb_coll(&tb, r, LLAMP_OP_ALLREDUCE, 10 + c, LLAMP_TRACE_NO_PEER, 64, NULL, 0, LLAMP_TRACE_NO_REQ);
      tb_coll(&tb, r, LLAMP_OP_BCAST, 10 + c, (int32_t)comms[c][2], 4096, NULL, 0, LLAMP_TRACE_NO_REQ);
      tb_call(&tb, r, LLAMP_OP_COMM_FREE, 10 + c, LLAMP_TRACE_NO_PEER, -1, 0, LLAMP_TRACE_NO_REQ, NULL, 0);
    }
  for (uint32_t r = 0; r < P; r++) tb_finalize(&tb, r);
  llamp_graph_t *g = tb_build(&tb, NULL, st, err, errlen);
  tb_close(&tb);
  return g;
}

static void member_runs(void) {
  member_runs_helpers();
  char err[512];
  llamp_sched_stats_t st[2];
  llamp_graph_t *g[2];
  for (int k = 0; k < 2; k++) {
    g[k] = member_runs_graph(k, &st[k], err, sizeof err);
    CHECK(g[k] != NULL);
    if (!g[k]) {
      fprintf(stderr, "%s\n", err);
      return;
    }
    CHECK(llamp_graph_check(g[k], err, sizeof err) == 0);
    CHECK(st[k].collectives == 4 * 4 * 2);
  }
  uint64_t n = llamp_graph_num_vertices(g[0]);
  CHECK(n == llamp_graph_num_vertices(g[1]) && llamp_graph_num_edges(g[0]) == llamp_graph_num_edges(g[1]));
  int same = n == llamp_graph_num_vertices(g[1]);
  for (uint64_t v = 0; same && v < n; v++)
    same = llamp_graph_kind(g[0], v) == llamp_graph_kind(g[1], v) &&
           llamp_graph_rank(g[0], v) == llamp_graph_rank(g[1], v) &&
           llamp_graph_tag(g[0], v) == llamp_graph_tag(g[1], v) &&
           (llamp_graph_kind(g[0], v) == LLAMP_VERTEX_CALC ||
            llamp_graph_rank(g[0], llamp_graph_partner(g[0], v)) == llamp_graph_rank(g[1], llamp_graph_partner(g[1], v)));
  CHECK(same);
  for (int k = 0; k < 2; k++) {
    llamp_graph_destroy(g[k]);
    llamp_sched_stats_free(&st[k]);
  }
  /* a run that leaves the world is refused, with the communicator named */
  tb_t tb;
  tb_open(&tb, 2);
  for (uint32_t r = 0; r < 2; r++) {
    tb_init(&tb, r);
    uint64_t pl[6] = {7, 2, 1, 1, llamp_trace_zigzag(1), 2}; /* ranks 1, 2 of 2 */
    tb_call_st(&tb, r, LLAMP_OP_COMM_CREATE, 0, LLAMP_TRACE_NO_PEER, -1, 0, -1, -1, LLAMP_TRACE_F_COMM_RUNS, pl, 6);
    tb_finalize(&tb, r);
  }
  llamp_sched_stats_t bst;
  llamp_graph_t *bad = tb_build(&tb, NULL, &bst, err, sizeof err);
  CHECK(bad == NULL && strstr(err, "communicator 7: member run 0") != NULL);
  llamp_graph_destroy(bad);
  llamp_sched_stats_free(&bst);
  tb_close(&tb);
}

int main(void) {
  registry();
  allreduce_2();
  split(0);
  split(1);
  iallreduce();
  member_runs();
  TEST_DONE();
}
