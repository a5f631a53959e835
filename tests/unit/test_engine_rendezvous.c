/* Rendezvous and gap semantics checked by hand (docs/model.md).
 * Rendezvous (s > S, RDMA read): match m = max(recv posted, send end + L);
 * recv ends at m + 2L + (s-1)G + o; the send's successors wait for
 * m + L + (s-1)G. */
#include "llamp_engine.h"
#include "llamp_test.h"
#include <string.h>
#include <unistd.h>

static llamp_graph_t *two_ranks_as(double c0, double c1, double c2, double c3, double bytes, int sync) {
  llamp_builder_t *b = llamp_builder_create(2, "rndv");
  int64_t a0 = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, c0, 0, 0, 1);
  int64_t s = llamp_builder_add(b, 0, LLAMP_VERTEX_SEND, bytes, 1, 0, 2);
  if (sync) CHECK(llamp_builder_set_flags(b, s, LLAMP_VERTEX_F_SYNC) == 0);
  int64_t a1 = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, c1, 0, 0, 3);
  llamp_builder_depend(b, s, a0, LLAMP_EDGE_REQUIRES, 4);
  llamp_builder_depend(b, a1, s, LLAMP_EDGE_REQUIRES, 5);
  int64_t a2 = llamp_builder_add(b, 1, LLAMP_VERTEX_CALC, c2, 0, 0, 6);
  int64_t r = llamp_builder_add(b, 1, LLAMP_VERTEX_RECV, bytes, 0, 0, 7);
  int64_t a3 = llamp_builder_add(b, 1, LLAMP_VERTEX_CALC, c3, 0, 0, 8);
  llamp_builder_depend(b, r, a2, LLAMP_EDGE_REQUIRES, 9);
  llamp_builder_depend(b, a3, r, LLAMP_EDGE_REQUIRES, 10);
  char err[256];
  return llamp_builder_finish(b, err, sizeof err);
}
static llamp_graph_t *two_ranks(double c0, double c1, double c2, double c3, double bytes) {
  return two_ranks_as(c0, c1, c2, c3, bytes, 0);
}

/* T of g at p, also after a round trip through the binary file */
static double T_of(const llamp_graph_t *g, const llamp_params_t *p, int file) {
  char err[256], path[] = "/tmp/llamp_rndv_XXXXXX";
  llamp_graph_t *h = NULL;
  if (file) {
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK(llamp_graph_write_binary(g, path, err, sizeof err) == 0);
    h = llamp_graph_read_binary(path, err, sizeof err);
    unlink(path);
    CHECK(h != NULL);
    if (!h) return -1;
    for (uint64_t v = 0; v < llamp_graph_num_vertices(g); v++) CHECK(llamp_graph_flags(h, v) == llamp_graph_flags(g, v));
  }
  llamp_point_t pt;
  llamp_engine_t *e = llamp_engine_create(h ? h : g, p, err, sizeof err);
  CHECK(e && llamp_engine_point(e, p, &pt) == 0);
  llamp_engine_destroy(e);
  llamp_graph_destroy(h);
  return e ? pt.T : -1;
}

int main(void) {
  const double us = 1e-6, tol = 1e-15;
  char err[256];
  llamp_params_t p;
  llamp_params_default(&p);
  p.L = 1 * us;
  p.o = 0.5 * us;
  p.G = 1e-9; /* 1 ns per byte: 1001 bytes cost 1 us */
  p.S = 100;
  llamp_point_t pt;

  /* late receiver: m = c2 = 5; recv ends 5 + 2 + 1 + 0.5 = 8.5, c3 -> 9.5;
   * sender resumes at 5 + 1 + 1 = 7, c1 -> 9 */
  llamp_graph_t *g = two_ranks(1 * us, 2 * us, 5 * us, 1 * us, 1001);
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e && llamp_engine_point(e, &p, &pt) == 0);
  CHECK_CLOSE(pt.T, 9.5 * us, tol);
  CHECK(pt.lambda[LLAMP_PARAM_L] == 2 && pt.lambda[LLAMP_PARAM_G] == 1000 && pt.lambda[LLAMP_PARAM_O] == 1);
  CHECK_CLOSE(pt.t_latency, 2 * us, tol);
  CHECK_CLOSE(pt.t_compute, 6 * us, tol);
  /* the sender's completion: with c3 = 0 and c1 = 3, T = max(7 + 3, 8.5) = 10 */
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  g = two_ranks(1 * us, 3 * us, 5 * us, 0, 1001);
  e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e && llamp_engine_point(e, &p, &pt) == 0);
  CHECK_CLOSE(pt.T, 10 * us, tol);
  CHECK(pt.lambda[LLAMP_PARAM_L] == 1 && pt.lambda[LLAMP_PARAM_G] == 1000);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);

  /* early receiver: m = c0 + o + L = 2.5; recv ends 2.5 + 2 + 1 + 0.5 = 6, c3 -> 7 */
  g = two_ranks(1 * us, 2 * us, 1 * us, 1 * us, 1001);
  e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e && llamp_engine_point(e, &p, &pt) == 0);
  CHECK_CLOSE(pt.T, 7 * us, tol);
  CHECK(pt.lambda[LLAMP_PARAM_L] == 3 && pt.lambda[LLAMP_PARAM_O] == 2);
  /* the same message eager (S above it): recv at 1.5 + 1 + 1 = 3.5, ends 4, c3 -> 5;
   * sender: 1.5 + 2 = 3.5 */
  llamp_engine_destroy(e);
  p.S = 4096;
  e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e && llamp_engine_point(e, &p, &pt) == 0);
  CHECK_CLOSE(pt.T, 5 * us, tol);
  CHECK(pt.lambda[LLAMP_PARAM_L] == 1);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);

  /* the direct (SMPI) rendezvous: no request latency, the receive costs one
   * L. Late receiver: m = 5, recv ends 5 + 1 + 1 + 0.5 = 7.5, c3 -> 8.5;
   * sender resumes at 5 + 1 + 1 = 7, c1 -> 9: T = 9 with one L */
  p.S = 100;
  p.rndv_direct = 1;
  g = two_ranks(1 * us, 2 * us, 5 * us, 1 * us, 1001);
  e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e && llamp_engine_point(e, &p, &pt) == 0);
  CHECK_CLOSE(pt.T, 9 * us, tol);
  CHECK(pt.lambda[LLAMP_PARAM_L] == 1 && pt.lambda[LLAMP_PARAM_G] == 1000);
  llamp_affine_t ac;
  for (uint64_t v = 0; v < llamp_graph_num_vertices(g); v++)
    if (llamp_graph_kind(g, v) == LLAMP_VERTEX_RECV) {
      CHECK(llamp_engine_vertex_cost(e, v, &ac) == 0 && ac.nL == 1 && ac.nG == 1000 && ac.no == 1);
      int fs;
      CHECK(llamp_engine_edge_cost(e, v, 0, &ac, &fs) == 0 && ac.nL == 0); /* the message edge */
    }
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  /* early receiver: m = c0 + o = 1.5; recv ends 1.5 + 2.5 = 4, c3 -> 5;
   * sender resumes at 1.5 + 2 = 3.5, c1 -> 5.5 */
  g = two_ranks(1 * us, 2 * us, 1 * us, 1 * us, 1001);
  e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e && llamp_engine_point(e, &p, &pt) == 0);
  CHECK_CLOSE(pt.T, 5.5 * us, tol);
  CHECK(pt.lambda[LLAMP_PARAM_L] == 1);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);

  /* a synchronous send (MPI_Ssend) below S: SMPI never detaches it, so it is
   * the direct rendezvous above all the same (late receiver 9, early 5.5),
   * through the binary file too; without the flag the same message is
   * eager: late receiver, recv at max(5, 1.5 + 1 + 1) ends 5.5, c3 -> 6.5 */
  p.S = 4096;
  for (int file = 0; file < 2; file++) {
    g = two_ranks_as(1 * us, 2 * us, 5 * us, 1 * us, 1001, 1);
    CHECK_CLOSE(T_of(g, &p, file), 9 * us, tol);
    llamp_graph_destroy(g);
    g = two_ranks_as(1 * us, 2 * us, 1 * us, 1 * us, 1001, 1);
    CHECK_CLOSE(T_of(g, &p, file), 5.5 * us, tol);
    llamp_graph_destroy(g);
    g = two_ranks_as(1 * us, 2 * us, 5 * us, 1 * us, 1001, 0);
    CHECK_CLOSE(T_of(g, &p, file), 6.5 * us, tol);
    CHECK(!llamp_graph_has_flags(g));
    llamp_graph_destroy(g);
  }
  {
    llamp_builder_t *b = llamp_builder_create(1, "flags");
    int64_t c = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 1, 0, 0, 1);
    CHECK(llamp_builder_set_flags(b, c, LLAMP_VERTEX_F_SYNC) == -1); /* sends only */
    CHECK(strstr(llamp_builder_error(b), "expected a send") != NULL);
    llamp_builder_destroy(b);
  }
  p.rndv_direct = 0;

  /* blocking sends above S on both sides first: a deadlock, reported */
  {
    llamp_builder_t *b = llamp_builder_create(2, "dl");
    for (uint32_t r = 0; r < 2; r++) {
      int64_t s = llamp_builder_add(b, r, LLAMP_VERTEX_SEND, 1e6, 1 - r, 0, 1);
      int64_t q = llamp_builder_add(b, r, LLAMP_VERTEX_RECV, 1e6, 1 - r, 0, 2);
      llamp_builder_depend(b, q, s, LLAMP_EDGE_REQUIRES, 3);
    }
    llamp_graph_t *d = llamp_builder_finish(b, err, sizeof err);
    CHECK(d != NULL); /* eager-acyclic */
    p.S = 100;
    CHECK(llamp_engine_create(d, &p, err, sizeof err) == NULL);
    CHECK(strstr(err, "cyclic") != NULL);
    p.S = 1e7; /* eager: fine */
    llamp_engine_t *ok = llamp_engine_create(d, &p, err, sizeof err);
    CHECK(ok != NULL);
    llamp_engine_destroy(ok);
    llamp_graph_destroy(d);
  }

  /* gap: three independent sends and receives; g spaces their starts.
   * recv k starts at max(k*g + L, recv k-1 + g): T = 2g + L when g <= L */
  {
    llamp_builder_t *b = llamp_builder_create(2, "gap");
    for (int k = 0; k < 3; k++) llamp_builder_add(b, 0, LLAMP_VERTEX_SEND, 1, 1, 0, 1);
    for (int k = 0; k < 3; k++) llamp_builder_add(b, 1, LLAMP_VERTEX_RECV, 1, 0, 0, 2);
    llamp_graph_t *d = llamp_builder_finish(b, err, sizeof err);
    llamp_params_default(&p);
    p.o = 0;
    p.G = 0;
    p.L = 1 * us;
    p.g = 0.5 * us;
    llamp_engine_t *ge = llamp_engine_create(d, &p, err, sizeof err);
    CHECK(ge && llamp_engine_point(ge, &p, &pt) == 0);
    CHECK_CLOSE(pt.T, 2 * us, tol);
    CHECK(pt.lambda[LLAMP_PARAM_GAP] == 2 && pt.lambda[LLAMP_PARAM_L] == 1);
    CHECK_CLOSE(pt.t_gap, 1 * us, tol);
    llamp_engine_destroy(ge);
    p.g = 0; /* no gap modelled: all arrive at L */
    ge = llamp_engine_create(d, &p, err, sizeof err);
    CHECK(ge && llamp_engine_point(ge, &p, &pt) == 0);
    CHECK_CLOSE(pt.T, 1 * us, tol);
    llamp_engine_destroy(ge);
    llamp_graph_destroy(d);
  }
  TEST_DONE();
}
