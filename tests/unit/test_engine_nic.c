/* The NIC rule (docs/model.md, "The NIC rule") checked by hand: a rank's
 * consecutive sends start at least g + (s_prev - 1) G apart, and its
 * receives, in their order of arrival, end at least g + (s - 1) G apart
 * (an eager receive starts at the end of its data), and two rendezvous
 * receives' data as well. */
#include "llamp_engine.h"
#include "llamp_test.h"

#include <stdint.h>
#include <string.h>

static const double us = 1e-6;

static llamp_graph_t *finish(llamp_builder_t *bd) {
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(bd, err, sizeof err);
  if (!g) fprintf(stderr, "builder: %s\n", err);
  return g;
}

/* rank 0 computes c0, then sends a then b bytes to rank 1 (blocking, eager);
 * rank 1 receives both (posting order a, b) */
static llamp_graph_t *two_sends(double c0, double a, double b) {
  llamp_builder_t *bd = llamp_builder_create(2, "two_sends");
  int64_t x = llamp_builder_add(bd, 0, LLAMP_VERTEX_CALC, c0, 0, 0, 0);
  int64_t s1 = llamp_builder_add(bd, 0, LLAMP_VERTEX_SEND, a, 1, 0, 0);
  int64_t s2 = llamp_builder_add(bd, 0, LLAMP_VERTEX_SEND, b, 1, 0, 0);
  llamp_builder_depend(bd, s1, x, LLAMP_EDGE_REQUIRES, 0);
  llamp_builder_depend(bd, s2, s1, LLAMP_EDGE_REQUIRES, 0);
  int64_t r1 = llamp_builder_add(bd, 1, LLAMP_VERTEX_RECV, a, 0, 0, 0);
  int64_t r2 = llamp_builder_add(bd, 1, LLAMP_VERTEX_RECV, b, 0, 0, 0);
  llamp_builder_depend(bd, r2, r1, LLAMP_EDGE_IREQUIRES, 0);
  return finish(bd);
}

/* rank 0 posts two receives, from rank 1 first, then from rank 2 (Irecv,
 * Irecv); rank 1 computes c1 before its send, rank 2 sends at once */
static llamp_graph_t *two_arrivals(double c1, double bytes) {
  llamp_builder_t *bd = llamp_builder_create(3, "two_arrivals");
  int64_t r1 = llamp_builder_add(bd, 0, LLAMP_VERTEX_RECV, bytes, 1, 0, 0);
  int64_t r2 = llamp_builder_add(bd, 0, LLAMP_VERTEX_RECV, bytes, 2, 0, 0);
  llamp_builder_depend(bd, r2, r1, LLAMP_EDGE_IREQUIRES, 0);
  int64_t x = llamp_builder_add(bd, 1, LLAMP_VERTEX_CALC, c1, 0, 0, 0);
  int64_t s1 = llamp_builder_add(bd, 1, LLAMP_VERTEX_SEND, bytes, 0, 0, 0);
  llamp_builder_depend(bd, s1, x, LLAMP_EDGE_REQUIRES, 0);
  llamp_builder_add(bd, 2, LLAMP_VERTEX_SEND, bytes, 0, 0, 0);
  return finish(bd);
}

/* rank 0: a zero calc, then two receives that both only require it (from
 * rank 1, posted first, and from rank 2); rank 1 computes c1 first and
 * sends b1 bytes, rank 2 sends b2 at once */
static llamp_graph_t *blocking_arrivals2(double c1, double b1, double b2) {
  llamp_builder_t *bd = llamp_builder_create(3, "blocking_arrivals");
  int64_t x0 = llamp_builder_add(bd, 0, LLAMP_VERTEX_CALC, 0, 0, 0, 0);
  int64_t r1 = llamp_builder_add(bd, 0, LLAMP_VERTEX_RECV, b1, 1, 0, 0);
  int64_t r2 = llamp_builder_add(bd, 0, LLAMP_VERTEX_RECV, b2, 2, 0, 0);
  llamp_builder_depend(bd, r1, x0, LLAMP_EDGE_REQUIRES, 0);
  llamp_builder_depend(bd, r2, x0, LLAMP_EDGE_REQUIRES, 0);
  int64_t x = llamp_builder_add(bd, 1, LLAMP_VERTEX_CALC, c1, 0, 0, 0);
  int64_t s1 = llamp_builder_add(bd, 1, LLAMP_VERTEX_SEND, b1, 0, 0, 0);
  llamp_builder_depend(bd, s1, x, LLAMP_EDGE_REQUIRES, 0);
  llamp_builder_add(bd, 2, LLAMP_VERTEX_SEND, b2, 0, 0, 0);
  return finish(bd);
}

static llamp_graph_t *blocking_arrivals(double c1, double bytes) {
  return blocking_arrivals2(c1, bytes, bytes);
}

/* the graph vertex of builder id b (the graph renumbers for locality) */
/* rank 0 sends a bytes to rank 1 and b bytes to rank 2, then computes c0;
 * the second send and the compute depend on the send before them by `dep`
 * (LLAMP_EDGE_REQUIRES: blocking sends, eager so the program goes on;
 * LLAMP_EDGE_IREQUIRES: Isends, they start when it starts) */
static llamp_graph_t *sends_then_compute(double a, double b, double c0, unsigned dep) {
  llamp_builder_t *bd = llamp_builder_create(3, "sends_then_compute");
  int64_t s1 = llamp_builder_add(bd, 0, LLAMP_VERTEX_SEND, a, 1, 0, 0);
  int64_t s2 = llamp_builder_add(bd, 0, LLAMP_VERTEX_SEND, b, 2, 0, 0);
  int64_t x = llamp_builder_add(bd, 0, LLAMP_VERTEX_CALC, c0, 0, 0, 0);
  llamp_builder_depend(bd, s2, s1, dep, 0);
  llamp_builder_depend(bd, x, s2, dep, 0);
  llamp_builder_add(bd, 1, LLAMP_VERTEX_RECV, a, 0, 0, 0);
  llamp_builder_add(bd, 2, LLAMP_VERTEX_RECV, b, 0, 0, 0);
  return finish(bd);
}

static uint32_t vid(const llamp_graph_t *g, uint64_t b) {
  for (uint64_t v = 0; v < llamp_graph_num_vertices(g); v++)
    if (llamp_graph_id(g, v) == b) return (uint32_t)v;
  return UINT32_MAX - 1;
}

static double T_of(llamp_graph_t *g, llamp_params_t *p, double *lambda_G) {
  char err[256];
  if (!g) return -1;
  llamp_engine_t *e = llamp_engine_create(g, p, err, sizeof err);
  if (!e) fprintf(stderr, "engine: %s\n", err);
  CHECK(e != NULL);
  if (!e) return -1;
  llamp_point_t pt;
  CHECK(llamp_engine_point(e, p, &pt) == 0);
  if (lambda_G) *lambda_G = pt.lambda[LLAMP_PARAM_G];
  llamp_engine_destroy(e);
  return pt.T;
}

int main(void) {
  llamp_params_t p;
  llamp_params_default(&p);
  p.L = 2 * us;
  p.o = 0.1 * us;
  p.G = 1e-9; /* 1001 B: 1 us on the wire */
  p.S = 1e9;
  double lG;

  /* Without the rule: s2 starts at 1 + 0.1, arrives 1.2 + 2 + 1 = 4.2, its
   * receive ends 4.3.  With it, s2 starts >= start(s1) + 1000 G = 2:
   * arrives 2.1 + 2 + 1 = 5.1, and the receive of b follows the receive of
   * a (arrived 4.1, started 4.1) by 1 us: starts at max(5.1, 5.1) = 5.1,
   * ends 5.2.  lambda_G = 1000 (b) + 1000 (the gap) */
  llamp_graph_t *g = two_sends(1 * us, 1001, 1001);
  CHECK_CLOSE(T_of(g, &p, &lG), 4.3 * us, 1e-15);
  CHECK(lG == 1000);
  p.nic = 1;
  CHECK_CLOSE(T_of(g, &p, &lG), 5.2 * us, 1e-15);
  CHECK(lG == 2000);
  /* a small first message leaves the second free: 11 B = 10 ns < o */
  llamp_graph_destroy(g);
  g = two_sends(1 * us, 11, 1001);
  CHECK_CLOSE(T_of(g, &p, &lG), (1.2 + 2 + 1 + 0.1) * us, 1e-15);
  /* the gap g adds to the bytes */
  p.g = 0.5 * us;
  CHECK_CLOSE(T_of(g, &p, &lG), (1.0 + 0.5 + 0.01 + 0.1 + 2 + 1 + 0.1) * us, 1e-15);
  p.g = 0;
  llamp_graph_destroy(g);

  /* Receives: the DAG matches a rank's nonblocking receives in posting
   * order (the second irequires the first), so the chain follows it.  Rank
   * 2's message (sent at 0) arrives at 0.1 + 2 + 1 = 3.1, rank 1's (after 10
   * us) at 13.1; the receive from rank 2 starts at max(13.1, 3.1) = 13.1
   * without the rule, 13.1 + 1 us with it (the first message's bytes) */
  g = two_arrivals(10 * us, 1001);
  p.nic = 0;
  CHECK_CLOSE(T_of(g, &p, NULL), 13.2 * us, 1e-15);
  p.nic = 1;
  CHECK_CLOSE(T_of(g, &p, NULL), 14.2 * us, 1e-15);
  char err[256];
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  uint32_t prev[8];
  CHECK(e && llamp_engine_gap_chain(e, prev) == 0);
  /* builder ids: rank 0's receives are 0 (from 1) and 1 (from 2) */
  CHECK(prev[vid(g, 0)] == UINT32_MAX && prev[vid(g, 1)] == vid(g, 0));
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  /* receives not chained by the graph (blocking receives from two ranks
   * after compute): ordered by when they start, not by posting */
  g = blocking_arrivals(10 * us, 1001);
  p.nic = 0;
  CHECK_CLOSE(T_of(g, &p, NULL), 13.2 * us, 1e-15);
  p.nic = 1;
  e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e && llamp_engine_gap_chain(e, prev) == 0);
  CHECK(prev[vid(g, 1)] == vid(g, 2) && prev[vid(g, 2)] == UINT32_MAX);
  llamp_engine_destroy(e);
  /* the receive from rank 2 (posted second, started at 3.1) first, the
   * one from rank 1 (13.1) 1 us after it at the earliest: no delay */
  CHECK_CLOSE(T_of(g, &p, NULL), 13.2 * us, 1e-15);
  llamp_graph_destroy(g);
  /* Unequal sizes: an eager receive starts when its data has arrived, so
   * the chain adds the CURRENT message's transfer to the previous
   * receive's start.  Both sent at 0: rank 1's 101 B arrive at 0.1 + 2 +
   * 0.1 = 2.2, rank 2's 1001 B at 3.1; through one NIC the second can only
   * end 1 us after the first: 3.2, its receive ends 3.3 (the previous
   * message's 100 ns, the rule before, left 3.1 and T = 3.2) */
  g = blocking_arrivals2(0, 101, 1001);
  p.nic = 0;
  CHECK_CLOSE(T_of(g, &p, NULL), 3.2 * us, 1e-15);
  p.nic = 1;
  CHECK_CLOSE(T_of(g, &p, &lG), 3.3 * us, 1e-15);
  CHECK(lG == 1100); /* both messages' bytes: 100 (the first) + 1000 (the chain) */
  llamp_graph_destroy(g);
  /* the same sizes from the other senders: rank 2's 101 B arrive first
   * (2.2), rank 1's 1001 B end 1 us later, 3.2 (ends 3.3; before: 3.2) */
  g = blocking_arrivals2(0, 1001, 101);
  CHECK_CLOSE(T_of(g, &p, NULL), 3.3 * us, 1e-15);
  llamp_graph_destroy(g);

  /* Rendezvous (S = 500 B; RDMA read: a receive costs 2L + (s-1)G + o after
   * the match).  Both senders post 1001 B at 0: each request arrives at 0.1
   * + 2 = 2.1 and is matched there; the data follows 2L later and takes
   * 1 us.  Without the rule both end at 2.1 + 4 + 1 + 0.1 = 7.2.  Through one
   * NIC the second read's data can only end 1 us after the first's: its
   * receive starts at 2.1 + 1 (the first message's bytes; the chain once
   * added g alone) and ends 8.2.  lambda_L: the request's L and the second
   * read's 2L; lambda_G: both messages' bytes. */
  p.S = 500;
  g = blocking_arrivals2(0, 1001, 1001);
  p.nic = 0;
  CHECK_CLOSE(T_of(g, &p, NULL), 7.2 * us, 1e-15);
  p.nic = 1;
  CHECK_CLOSE(T_of(g, &p, &lG), 8.2 * us, 1e-15);
  CHECK(lG == 2000);
  e = llamp_engine_create(g, &p, err, sizeof err);
  llamp_point_t pt;
  CHECK(e && llamp_engine_point(e, &p, &pt) == 0);
  if (e) CHECK(pt.lambda[LLAMP_PARAM_L] == 3);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  /* An eager message after a rendezvous one: rank 2's 1001 B are matched at
   * 2.1 and their data ends at 7.1; rank 1's 101 B, sent after 3 us of
   * compute, arrive at 3.1 + 2 + 0.1 = 5.2, before that read's data flows
   * (6.1), and go first: T stays 7.2, the chain adding only their own 100 ns
   * to the rendezvous receive's start (2.2 <= 5.2). */
  g = blocking_arrivals2(3 * us, 101, 1001);
  p.nic = 0;
  CHECK_CLOSE(T_of(g, &p, NULL), 7.2 * us, 1e-15);
  p.nic = 1;
  CHECK_CLOSE(T_of(g, &p, NULL), 7.2 * us, 1e-15);
  e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e && llamp_engine_gap_chain(e, prev) == 0);
  /* builder ids: rank 0's receives 1 (from rank 1, eager) and 2 (rank 2) */
  CHECK(prev[vid(g, 1)] == vid(g, 2) && prev[vid(g, 2)] == UINT32_MAX);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);

  /* The rank does not wait for its NIC (SMPI's eager sends are detached):
   * rank 0's second send is posted at 0.1 and its compute runs from 0.2;
   * the NIC sends the second message after the first (1 us each) while
   * both share the link (a burst to two hosts: both arrive with the last,
   * end(s1) 0.1 + 1 us ahead + 2 + 1 = 4.1, and leave the receive chains).
   * Before 2026-11-28 the rank waited: its compute began at 1.1 (T 11.1). */
  p.o = 0.1 * us;
  p.S = 1e9; /* eager */
  g = sends_then_compute(1001, 1001, 10 * us, LLAMP_EDGE_REQUIRES);
  p.nic = 0;
  CHECK_CLOSE(T_of(g, &p, NULL), 10.2 * us, 1e-15);
  p.nic = 1;
  CHECK_CLOSE(T_of(g, &p, &lG), 10.2 * us, 1e-15);
  CHECK(lG == 0);
  llamp_graph_destroy(g);
  /* with 1 us of compute the messages decide: 4.1 + o = 4.2 (3.3 without
   * the rule: s2 ends at 0.2, + 2 + 1 + o), both
   * messages' bytes at G, one L */
  g = sends_then_compute(1001, 1001, 1 * us, LLAMP_EDGE_REQUIRES);
  p.nic = 0;
  CHECK_CLOSE(T_of(g, &p, NULL), 3.3 * us, 1e-15);
  p.nic = 1;
  CHECK_CLOSE(T_of(g, &p, &lG), 4.2 * us, 1e-15);
  CHECK(lG == 2000);
  e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e && llamp_engine_point(e, &p, &pt) == 0);
  if (e) CHECK(pt.lambda[LLAMP_PARAM_L] == 1);
  /* both receives wait in the run of s1 (builder ids 0, 1, 3, 4), one
   * message ahead of the burst's last */
  double ab[8], ac[8], ach[8];
  uint32_t from[8];
  CHECK(e && llamp_engine_burst_sources(e, from) == 0 && llamp_engine_burst_ahead(e, ab, ac, ach) == 0);
  CHECK(from[vid(g, 3)] == vid(g, 0) && from[vid(g, 4)] == vid(g, 0));
  CHECK(ac[vid(g, 3)] == 1 && ac[vid(g, 4)] == 1 && ab[vid(g, 3)] == 1000 && ab[vid(g, 4)] == 1000);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  /* a second message posted after the first one's transfer would have
   * ended (o = 1.5 us > 1 us on the wire) queues behind nothing: no run */
  p.o = 1.5 * us;
  g = sends_then_compute(1001, 1001, 1 * us, LLAMP_EDGE_REQUIRES);
  e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e && llamp_engine_burst_sources(e, from) == 0);
  CHECK(from[vid(g, 3)] == UINT32_MAX && from[vid(g, 4)] == UINT32_MAX);
  llamp_engine_destroy(e);
  /* ... and T is the plain DAG's: s2 at 1.5, arrives 3 + 2 + 1 = 6, + o */
  CHECK_CLOSE(T_of(g, &p, NULL), 7.5 * us, 1e-15);
  llamp_graph_destroy(g);
  /* Rendezvous Isends (S = 500 B) do not stop the rank either: s2 and the
   * compute start at 0, and s2's read waits for the NIC (s1's 1 us ahead,
   * from s1's end 0.1) or its request (0.1 + L = 2.1), whichever is later:
   * 2.1, then 2 L + 1 us + o: 7.2.  T = the compute's 10 us.  When the rank
   * waited for its NIC, s2 and the compute began at 1.0: T = 11.0. */
  p.o = 0.1 * us;
  p.S = 500;
  g = sends_then_compute(1001, 1001, 10 * us, LLAMP_EDGE_IREQUIRES);
  CHECK_CLOSE(T_of(g, &p, NULL), 10 * us, 1e-15);
  llamp_graph_destroy(g);
  /* with 1 us of compute the reads decide: 7.2 us */
  g = sends_then_compute(1001, 1001, 1 * us, LLAMP_EDGE_IREQUIRES);
  CHECK_CLOSE(T_of(g, &p, NULL), 7.2 * us, 1e-15);
  /* with L = 0.2 us the NIC decides s2's read: 0.1 + 1 = 1.1 (its request
   * 0.3), then 0.4 + 1 + 0.1: 2.6 us (the compute ends at 1.0) */
  p.L = 0.2 * us;
  CHECK_CLOSE(T_of(g, &p, NULL), 2.6 * us, 1e-15);
  p.L = 2 * us;
  llamp_graph_destroy(g);
  TEST_DONE();
}
