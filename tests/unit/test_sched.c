/* DAG builder from traces: point-to-point semantics checked through the
 * engine's answers on hand-computed cases (the LLAMP paper's running
 * example, a nonblocking ring, wildcards, persistent requests, Sendrecv,
 * probes, unmodelled calls) and error messages. */
#include "llamp_engine.h"
#include "llamp_test.h"
#include "sched_trace.h"

static const double us = 1e-6;

static double T_at(const llamp_graph_t *g, double L, double G, double *slope) {
  char err[256];
  llamp_params_t p;
  llamp_params_default(&p);
  p.o = 0;
  p.G = G;
  p.S = 1e12;
  p.L = L;
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  if (!e) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  llamp_eval_t r;
  llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r);
  if (slope) *slope = r.slope_right;
  llamp_engine_destroy(e);
  return r.T;
}

static void count_progress(void *ctx, uint32_t done, uint32_t n, uint64_t records) {
  int *calls = ctx;
  if (done == (uint32_t)*calls + 1 && n == 2 && records >= 3 * done) (*calls)++;
}

static void paper_example(void) {
  char err[512];
  tb_t tb;
  tb_open(&tb, 2);
  tb_init(&tb, 0);
  tb_compute(&tb, 0, 0.1 * us);
  tb_send(&tb, 0, 1, 0, 4);
  tb_compute(&tb, 0, 1 * us);
  tb_finalize(&tb, 0);
  tb_init(&tb, 1);
  tb_compute(&tb, 1, 0.5 * us);
  tb.call_time = 3 * us; /* a long wait inside MPI_Recv is not compute */
  tb_recv(&tb, 1, 0, 0, 4, 0, 0);
  tb.call_time = 0.37 * us;
  tb_compute(&tb, 1, 1 * us);
  tb_finalize(&tb, 1);
  llamp_sched_stats_t st;
  llamp_sched_options_t opt;
  llamp_sched_options_default(&opt);
  int calls = 0;
  opt.progress = count_progress;
  opt.progress_ctx = &calls;
  llamp_graph_t *g = tb_build(&tb, &opt, &st, err, sizeof err);
  CHECK(g != NULL);
  if (!g) {
    fprintf(stderr, "%s\n", err);
    return;
  }
  CHECK(calls == 2);
  CHECK(llamp_graph_check(g, err, sizeof err) == 0);
  if (st.records != 6 || st.vertices != 6 || st.calcs != 4) llamp_sched_stats_print(&st, stderr);
  CHECK(st.records == 6 && st.vertices == 6 && st.messages == 1 && st.calcs == 4);
  CHECK(st.approximate == 0 && st.num_unmodelled == 0);
  double s;
  CHECK_CLOSE(T_at(g, 0.5 * us, 5e-9, &s), 1.615 * us, 1e-15);
  CHECK(s == 1);
  CHECK_CLOSE(T_at(g, 0.3 * us, 5e-9, &s), 1.5 * us, 1e-15);
  CHECK(s == 0);
  llamp_params_t p;
  llamp_params_default(&p);
  p.o = 0;
  p.G = 5e-9;
  p.S = 1e12;
  p.L = 0.3 * us;
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  llamp_breakpoint_t *bp = NULL;
  size_t nbp = 0;
  int evals = 0;
  CHECK(llamp_engine_breakpoints(e, &p, LLAMP_PARAM_L, 0.1 * us, 2 * us, &bp, &nbp, &evals) == 0);
  CHECK(nbp == 1);
  if (nbp == 1) CHECK_CLOSE(bp[0].x, 0.385 * us, 1e-15);
  free(bp);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);
  tb_close(&tb);
}

/* Ring on 4 ranks: rank r computes 0.1r us, Irecv from r-1, Isend to r+1,
 * computes 1 us (overlapping the messages), Waitall, computes 1 us.
 * The overlapped compute starts right after the posts (it must not wait for
 * the message), so T(L) = max(2.3 us, 1.3 us + L). */
static void ring(void) {
  char err[512];
  tb_t tb;
  tb_open(&tb, 4);
  for (uint32_t r = 0; r < 4; r++) {
    tb_init(&tb, r);
    tb_compute(&tb, r, 0.1 * us * r);
    tb_irecv(&tb, r, (int32_t)((r + 3) % 4), 7, 1000, 100 + r);
    tb_isend(&tb, r, (int32_t)((r + 1) % 4), 7, 1000, 200 + r);
    tb_compute(&tb, r, 1 * us);
    uint64_t reqs[2] = {100 + r, 200 + r};
    int32_t src[2] = {(int32_t)((r + 3) % 4), -1}, tag[2] = {7, -1};
    tb_waitall(&tb, r, reqs, 2, src, tag);
    tb_compute(&tb, r, 1 * us);
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
  CHECK(st.messages == 4 && st.sends == 4 && st.recvs == 4);
  CHECK(st.calcs == 11); /* rank 0 has no first calc */
  double s;
  CHECK_CLOSE(T_at(g, 0.5 * us, 0, &s), 2.3 * us, 1e-15);
  CHECK(s == 0);
  CHECK_CLOSE(T_at(g, 2 * us, 0, &s), 3.3 * us, 1e-15);
  CHECK(s == 1);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);
  tb_close(&tb);
}

/* Wildcards: rank 0 posts two Irecv(ANY_SOURCE, ANY_TAG) and a blocking
 * Recv(ANY_SOURCE); the statuses say the first got rank 2's message (tag 5),
 * the second rank 1's (tag 9), the blocking one rank 3's. */
static void wildcards(void) {
  char err[512];
  tb_t tb;
  tb_open(&tb, 4);
  tb_init(&tb, 0);
  tb_irecv(&tb, 0, LLAMP_TRACE_ANY_SOURCE, LLAMP_TRACE_ANY_TAG, 64, 1);
  tb_irecv(&tb, 0, LLAMP_TRACE_ANY_SOURCE, LLAMP_TRACE_ANY_TAG, 64, 2);
  tb_compute(&tb, 0, 1 * us);
  uint64_t reqs[2] = {1, 2};
  int32_t src[2] = {2, 1}, tag[2] = {5, 9};
  /* completion in the opposite order, by Waitany then Wait */
  uint64_t pl[4] = {1, llamp_trace_pack_status(0, -1, -1), 2, llamp_trace_pack_status(1, 1, 9)};
  tb_call(&tb, 0, LLAMP_OP_WAITANY, 0, LLAMP_TRACE_NO_PEER, -1, 0, LLAMP_TRACE_NO_REQ, pl, 4);
  tb_waitall(&tb, 0, reqs, 1, src, tag);
  tb_recv(&tb, 0, LLAMP_TRACE_ANY_SOURCE, 3, 16, 3, 3);
  tb_finalize(&tb, 0);
  tb_init(&tb, 1);
  tb_compute(&tb, 1, 2 * us);
  tb_send(&tb, 1, 0, 9, 8);
  tb_finalize(&tb, 1);
  tb_init(&tb, 2);
  tb_send(&tb, 2, 0, 5, 64);
  tb_finalize(&tb, 2);
  tb_init(&tb, 3);
  tb_send(&tb, 3, 0, 3, 16);
  tb_finalize(&tb, 3);
  llamp_sched_stats_t st;
  llamp_graph_t *g = tb_build(&tb, NULL, &st, err, sizeof err);
  CHECK(g != NULL);
  if (!g) {
    fprintf(stderr, "%s\n", err);
    return;
  }
  CHECK(llamp_graph_check(g, err, sizeof err) == 0);
  CHECK(st.messages == 3 && st.unresolved_wildcards == 0 && !st.approximate);
  /* rank 0's operations: recv, recv, calc, recv */
  uint64_t r0 = tb_vertex(g, 0, 0), r1 = tb_vertex(g, 0, 1), r2 = tb_vertex(g, 0, 3);
  CHECK(r0 != UINT64_MAX && llamp_graph_kind(g, r0) == LLAMP_VERTEX_RECV);
  CHECK(llamp_graph_peer(g, r0) == 2 && llamp_graph_tag(g, r0) == 5);
  CHECK(llamp_graph_rank(g, llamp_graph_partner(g, r0)) == 2);
  CHECK(llamp_graph_peer(g, r1) == 1 && llamp_graph_tag(g, r1) == 9);
  CHECK(llamp_graph_rank(g, llamp_graph_partner(g, r1)) == 1);
  CHECK(llamp_graph_peer(g, r2) == 3 && llamp_graph_rank(g, llamp_graph_partner(g, r2)) == 3);
  /* rank 1 sends at 2 us: rank 0's blocking Recv waits for the Waitall,
   * which waits for it: T = 2 us + L */
  double s;
  CHECK_CLOSE(T_at(g, 1 * us, 0, &s), 3 * us, 1e-15);
  CHECK(s == 1);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);

  /* an Irecv(ANY_SOURCE) never completed stays a wildcard and is counted */
  tb_close(&tb);
  tb_open(&tb, 2);
  tb_init(&tb, 0);
  tb_irecv(&tb, 0, LLAMP_TRACE_ANY_SOURCE, 4, 8, 1);
  tb_compute(&tb, 0, 1 * us);
  tb_finalize(&tb, 0);
  tb_init(&tb, 1);
  tb_send(&tb, 1, 0, 4, 8);
  tb_finalize(&tb, 1);
  g = tb_build(&tb, NULL, &st, err, sizeof err);
  CHECK(g != NULL);
  CHECK(st.unresolved_wildcards == 1 && st.approximate == 1);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);
  tb_close(&tb);
}

/* Persistent requests started 3 times, then freed; the send side uses
 * Startall, the receive side Start; a Test that did not complete adds no
 * vertex, and its time (SMPI's injected smpi/test) joins the calc. */
static void persistent(void) {
  char err[512];
  tb_t tb;
  tb_open(&tb, 2);
  tb_init(&tb, 0);
  tb_call(&tb, 0, LLAMP_OP_SEND_INIT, 0, 1, 3, 100, 11, NULL, 0);
  tb_init(&tb, 1);
  tb_call(&tb, 1, LLAMP_OP_RECV_INIT, 0, 0, 3, 100, 12, NULL, 0);
  for (int it = 0; it < 3; it++) {
    uint64_t pl[2] = {11, 0};
    tb_compute(&tb, 0, 1 * us);
    tb_call(&tb, 0, LLAMP_OP_STARTALL, 0, LLAMP_TRACE_NO_PEER, -1, 0, LLAMP_TRACE_NO_REQ, pl, 2);
    tb_wait(&tb, 0, 11);
    tb_compute(&tb, 1, 0.5 * us);
    tb_call(&tb, 1, LLAMP_OP_START, 0, LLAMP_TRACE_NO_PEER, -1, 0, 12, NULL, 0);
    uint64_t tp[2] = {12, llamp_trace_pack_status(0, -1, -1)};
    tb_compute(&tb, 1, 0.2 * us);
    tb_call_st(&tb, 1, LLAMP_OP_TEST, 0, LLAMP_TRACE_NO_PEER, -1, 0, -1, -1, 0, tp, 2);
    tb_compute(&tb, 1, 0.3 * us);
    tb_wait(&tb, 1, 12);
  }
  uint64_t f0[2] = {11, 0}, f1[2] = {12, 0};
  tb_call(&tb, 0, LLAMP_OP_REQUEST_FREE, 0, LLAMP_TRACE_NO_PEER, -1, 0, LLAMP_TRACE_NO_REQ, f0, 2);
  tb_call(&tb, 1, LLAMP_OP_REQUEST_FREE, 0, LLAMP_TRACE_NO_PEER, -1, 0, LLAMP_TRACE_NO_REQ, f1, 2);
  tb_finalize(&tb, 0);
  tb_finalize(&tb, 1);
  llamp_sched_stats_t st;
  llamp_graph_t *g = tb_build(&tb, NULL, &st, err, sizeof err);
  CHECK(g != NULL);
  if (!g) {
    fprintf(stderr, "%s\n", err);
    return;
  }
  CHECK(llamp_graph_check(g, err, sizeof err) == 0);
  CHECK(st.messages == 3 && st.sends == 3 && st.recvs == 3);
  CHECK(tb_count(g, 0, LLAMP_VERTEX_CALC) == 3);
  /* rank 1: 0.5 before each Start, then 0.2 + 0.37 + 0.3 (the failed Test
   * merges them, with its own 0.37 us) before each Wait */
  CHECK(tb_count(g, 1, LLAMP_VERTEX_CALC) == 6);
  /* rank 0 sends at 1, 2, 3 us (a Wait on an eager send costs nothing);
   * rank 1's receive k completes at max(its own 1.37 us per iteration,
   * 1k us + L): with L = 0.1 us rank 1 is never waiting: T = 3 x 1.37 us */
  CHECK_CLOSE(T_at(g, 0.1 * us, 0, NULL), 4.11 * us, 1e-14);
  /* L = 2 us: the first receive waits for its message (3 us), the next two
   * are later than theirs: T = 3 + 2 x 1.37 us, through one message */
  double s;
  double t = T_at(g, 2 * us, 0, &s);
  CHECK_CLOSE(t, 5.74 * us, 1e-14);
  CHECK(s == 1);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);
  tb_close(&tb);
}

/* Sendrecv: both halves start after the previous op, the next op needs both. */
static void sendrecv(void) {
  char err[512];
  tb_t tb;
  tb_open(&tb, 2);
  for (uint32_t r = 0; r < 2; r++) {
    tb_init(&tb, r);
    tb_compute(&tb, r, r ? 0.4 * us : 0.1 * us);
    uint64_t pl[3] = {1 - r, 0, 8};
    tb_call_st(&tb, r, r ? LLAMP_OP_SENDRECV_REPLACE : LLAMP_OP_SENDRECV, 0, (int32_t)(1 - r), 0, 8,
               (int32_t)(1 - r), 0, 0, pl, 3);
    tb_compute(&tb, r, 1 * us);
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
  CHECK(st.messages == 2 && st.vertices == 8);
  double s;
  /* rank 0's receive: max(0.1, 0.4 + L); then 1 us */
  CHECK_CLOSE(T_at(g, 1 * us, 0, &s), 2.4 * us, 1e-15);
  CHECK(s == 1);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);
  tb_close(&tb);
}

/* Unmodelled calls, probes and MPI_PROC_NULL add no vertex; their gaps merge. */
static void unmodelled_and_probe(void) {
  char err[512];
  tb_t tb;
  tb_open(&tb, 2);
  int32_t id0 = llamp_trace_intern_name(tb.w[0], "MPI_Comm_rank");
  int32_t id0b = llamp_trace_intern_name(tb.w[0], "MPI_Type_commit");
  int32_t id1b = llamp_trace_intern_name(tb.w[1], "MPI_Type_commit");
  int32_t id1 = llamp_trace_intern_name(tb.w[1], "MPI_Comm_rank");
  CHECK(id0 == 0 && id1 == 1 && id0b == 1 && id1b == 0);
  tb_init(&tb, 0);
  for (int i = 0; i < 5; i++) {
    tb_compute(&tb, 0, 0.1 * us);
    tb_call(&tb, 0, LLAMP_OP_UNMODELLED, 0, LLAMP_TRACE_NO_PEER, id0, 0, LLAMP_TRACE_NO_REQ, NULL, 0);
  }
  tb_call(&tb, 0, LLAMP_OP_UNMODELLED, 0, LLAMP_TRACE_NO_PEER, id0b, 0, LLAMP_TRACE_NO_REQ, NULL, 0);
  tb_compute(&tb, 0, 0.5 * us);
  tb_send(&tb, 0, LLAMP_TRACE_NO_PEER, 0, 8); /* MPI_PROC_NULL */
  tb_send(&tb, 0, 1, 0, 8);
  tb_finalize(&tb, 0);
  tb_init(&tb, 1);
  tb_call(&tb, 1, LLAMP_OP_UNMODELLED, 0, LLAMP_TRACE_NO_PEER, id1, 0, LLAMP_TRACE_NO_REQ, NULL, 0);
  tb_call(&tb, 1, LLAMP_OP_UNMODELLED, 0, LLAMP_TRACE_NO_PEER, id1b, 0, LLAMP_TRACE_NO_REQ, NULL, 0);
  for (int i = 0; i < 4; i++) {
    tb_compute(&tb, 1, 0.1 * us);
    tb_call_st(&tb, 1, LLAMP_OP_IPROBE, 0, 0, 0, 0, -1, -1, 0, NULL, 0);
  }
  tb_call_st(&tb, 1, LLAMP_OP_PROBE, 0, 0, 0, 8, 0, 0, LLAMP_TRACE_F_COMPLETED, NULL, 0);
  tb_recv(&tb, 1, 0, 0, 8, 0, 0);
  tb_finalize(&tb, 1);
  llamp_sched_stats_t st;
  llamp_graph_t *g = tb_build(&tb, NULL, &st, err, sizeof err);
  CHECK(g != NULL);
  if (!g) {
    fprintf(stderr, "%s\n", err);
    return;
  }
  CHECK(st.vertices == 4 && st.messages == 1);
  CHECK(st.num_unmodelled == 2 && st.approximate == 1);
  if (st.num_unmodelled == 2) {
    CHECK(strcmp(st.unmodelled[0].name, "MPI_Comm_rank") == 0 && st.unmodelled[0].count == 6);
    CHECK(strcmp(st.unmodelled[1].name, "MPI_Type_commit") == 0 && st.unmodelled[1].count == 2);
  }
  /* one calc of 1.0 us on rank 0 (0.5 + 5 x 0.1), one of 1.88 us on rank 1
   * (4 x 0.1 us, and the 4 Iprobes' 0.37 us: SMPI's injected smpi/iprobe) */
  uint64_t c0 = tb_vertex(g, 0, 0), c1 = tb_vertex(g, 1, 0);
  CHECK(llamp_graph_kind(g, c0) == LLAMP_VERTEX_CALC && llamp_graph_kind(g, c1) == LLAMP_VERTEX_CALC);
  CHECK_CLOSE(llamp_graph_value(g, c0), 1.0 * us, 1e-15);
  CHECK_CLOSE(llamp_graph_value(g, c1), 1.88 * us, 1e-14);
  CHECK(st.polls == 4);
  CHECK_CLOSE(st.poll_time, 4 * 0.37 * us, 1e-14);
  char buf[1024];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  llamp_sched_stats_print(&st, f);
  fclose(f);
  CHECK(strstr(buf, "not modelled: MPI_Comm_rank x 6\n") != NULL);
  CHECK(strstr(buf, "not modelled: MPI_Type_commit x 2\n") != NULL);
  CHECK(strstr(buf, "approximate") != NULL);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);

  /* min_calc drops the short calc */
  llamp_sched_options_t opt;
  llamp_sched_options_default(&opt);
  opt.min_calc = 1.5 * us;
  g = tb_build(&tb, &opt, &st, err, sizeof err);
  CHECK(g && st.vertices == 3 && st.dropped_calcs == 1);
  CHECK_CLOSE(st.dropped_calc_time, 1.0 * us, 1e-15);
  llamp_graph_destroy(g);
  llamp_sched_stats_free(&st);
  tb_close(&tb);
}

static void errors(void) {
  char err[512];
  tb_t tb;
  llamp_sched_stats_t st;
  /* unmatched send: the builder's message comes through */
  tb_open(&tb, 2);
  tb_init(&tb, 0);
  tb_send(&tb, 0, 1, 0, 8);
  tb_init(&tb, 1);
  CHECK(tb_build(&tb, NULL, &st, err, sizeof err) == NULL);
  CHECK(strstr(err, "unmatched send") != NULL);
  llamp_sched_stats_free(&st);
  /* destination out of range */
  tb_send(&tb, 1, 5, 0, 8);
  CHECK(tb_build(&tb, NULL, &st, err, sizeof err) == NULL);
  CHECK(strstr(err, "rank 1 record 2 (MPI_Send): destination 5 out of range") != NULL);
  llamp_sched_stats_free(&st);
  tb_close(&tb);
  /* collective on an unknown communicator */
  tb_open(&tb, 2);
  tb_coll(&tb, 0, LLAMP_OP_ALLREDUCE, 4, LLAMP_TRACE_NO_PEER, 8, NULL, 0, LLAMP_TRACE_NO_REQ);
  CHECK(tb_build(&tb, NULL, &st, err, sizeof err) == NULL);
  CHECK(strstr(err, "rank 0 record 1 (MPI_Allreduce): unknown communicator 4") != NULL);
  llamp_sched_stats_free(&st);
  /* unknown algorithm */
  llamp_sched_options_t opt;
  llamp_sched_options_default(&opt);
  opt.collectives = "allreduce=nosuch";
  CHECK(tb_build(&tb, &opt, &st, err, sizeof err) == NULL);
  CHECK(strstr(err, "nosuch") != NULL);
  llamp_sched_stats_free(&st);
  tb_close(&tb);
  /* readers in the wrong order */
  tb_open(&tb, 2);
  llamp_trace_reader_t *rd[2];
  rd[0] = llamp_trace_reader_from_writer(tb.w[1], err, sizeof err);
  rd[1] = llamp_trace_reader_from_writer(tb.w[0], err, sizeof err);
  CHECK(llamp_sched_build(rd, 2, NULL, NULL, err, sizeof err) == NULL);
  CHECK(strstr(err, "trace 0 holds rank 1") != NULL);
  llamp_trace_reader_destroy(rd[0]);
  llamp_trace_reader_destroy(rd[1]);
  tb_close(&tb);
}

int main(void) {
  paper_example();
  ring();
  wildcards();
  persistent();
  sendrecv();
  unmodelled_and_probe();
  errors();
  TEST_DONE();
}
