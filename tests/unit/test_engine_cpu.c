/* CPU edges (LLAMP_EDGE_CPU, GOAL `cpurequires`) checked by hand
 * (docs/model.md, "Receive overhead"): SMPI sleeps a receive's or in the
 * call that completes it, after what the rank did before the call and
 * after the receives that call completed before it.  Each case is also
 * evaluated after a round trip through the binary file and, when glpsol
 * is there, against GLPK on its exported LP. */
#include "llamp_engine.h"
#include "llamp_lp.h"
#include "llamp_test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const double us = 1e-6;

/* T and the right derivatives in L and o; the binary round trip gives the same */
static void point_of(const llamp_graph_t *g, const llamp_params_t *p, llamp_point_t *pt) {
  char err[256], path[] = "/tmp/llamp_cpu_XXXXXX";
  llamp_engine_t *e = llamp_engine_create(g, p, err, sizeof err);
  CHECK(e != NULL);
  if (!e) {
    fprintf(stderr, "engine: %s\n", err);
    memset(pt, 0, sizeof *pt);
    return;
  }
  CHECK(llamp_engine_point(e, p, pt) == 0);
  llamp_engine_destroy(e);
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  CHECK(llamp_graph_write_binary(g, path, err, sizeof err) == 0);
  llamp_graph_t *h = llamp_graph_read_binary(path, err, sizeof err);
  unlink(path);
  CHECK(h != NULL);
  llamp_engine_t *f = h ? llamp_engine_create(h, p, err, sizeof err) : NULL;
  llamp_point_t q;
  CHECK(f && llamp_engine_point(f, p, &q) == 0);
  if (f) CHECK_CLOSE(q.T, pt->T, 1e-15);
  llamp_engine_destroy(f);
  llamp_graph_destroy(h);
}

/* The LP's optimum (glpsol) equals T; skipped without glpsol. */
static void glpk_agrees(const llamp_graph_t *g, const llamp_params_t *p, double T) {
  if (system("glpsol --version >/dev/null 2>&1") != 0) return;
  char err[256], lp[] = "/tmp/llamp_cpu_lp_XXXXXX", out[64], cmd[256];
  int fd = mkstemp(lp);
  CHECK(fd >= 0);
  close(fd);
  CHECK(llamp_lp_write(g, p, LLAMP_LP_CPLEX, LLAMP_LP_MIN_RUNTIME, 0, lp, err, sizeof err) == 0);
  snprintf(out, sizeof out, "%s.sol", lp);
  snprintf(cmd, sizeof cmd, "glpsol --lp %s -o %s >/dev/null 2>&1", lp, out);
  CHECK(system(cmd) == 0);
  FILE *f = fopen(out, "r");
  double obj = -1;
  char line[256];
  while (f && fgets(line, sizeof line, f)) /* "Objective:  obj = 13 (MINimum)" */
    if (!strncmp(line, "Objective:", 10) && strchr(line, '=')) obj = atof(strchr(line, '=') + 1);
  if (f) fclose(f);
  unlink(lp);
  unlink(out);
  CHECK_CLOSE(obj * 1e-6, T, 1e-9); /* the LP is in microseconds */
}

/* Rank 0 posts an Irecv (message `bytes` from rank 1, sent at 0), computes
 * 10 us, waits for it (CPU edge from the compute when `cpu`), computes 1 us. */
static llamp_graph_t *irecv_compute_wait(double bytes, int cpu) {
  llamp_builder_t *b = llamp_builder_create(2, "cpu");
  int64_t r = llamp_builder_add(b, 0, LLAMP_VERTEX_RECV, bytes, 1, 0, 1);
  int64_t c = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 10 * us, 0, 0, 2);
  int64_t d = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 1 * us, 0, 0, 3);
  CHECK(llamp_builder_depend(b, d, r, LLAMP_EDGE_REQUIRES, 4) == 0);
  CHECK(llamp_builder_depend(b, d, c, LLAMP_EDGE_REQUIRES, 5) == 0);
  if (cpu) CHECK(llamp_builder_depend(b, r, c, LLAMP_EDGE_CPU, 6) == 0);
  CHECK(llamp_builder_add(b, 1, LLAMP_VERTEX_SEND, bytes, 0, 0, 7) >= 0);
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  CHECK(g != NULL);
  return g;
}

/* Rank 0 posts three Irecvs (from ranks 1, 2, 3, each sending 100 B at 0),
 * computes 1 us, then a Waitall completes them in order; then 1 us. */
static llamp_graph_t *waitall3(int cpu) {
  llamp_builder_t *b = llamp_builder_create(4, "cpu");
  int64_t r[3];
  for (int i = 0; i < 3; i++) r[i] = llamp_builder_add(b, 0, LLAMP_VERTEX_RECV, 100, i + 1, 0, 1);
  int64_t c = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 1 * us, 0, 0, 2);
  int64_t d = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 1 * us, 0, 0, 3);
  CHECK(llamp_builder_depend(b, d, c, LLAMP_EDGE_REQUIRES, 4) == 0);
  for (int i = 0; i < 3; i++) {
    CHECK(llamp_builder_depend(b, d, r[i], LLAMP_EDGE_REQUIRES, 5) == 0);
    if (!cpu) continue;
    CHECK(llamp_builder_depend(b, r[i], c, LLAMP_EDGE_CPU, 6) == 0);
    if (i) CHECK(llamp_builder_depend(b, r[i], r[i - 1], LLAMP_EDGE_CPU, 7) == 0);
  }
  for (int i = 0; i < 3; i++) CHECK(llamp_builder_add(b, (uint32_t)i + 1, LLAMP_VERTEX_SEND, 100, 0, 0, 8) >= 0);
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  CHECK(g != NULL);
  return g;
}

/* Rank 0 posts r1 (from rank 1) then r2 (from rank 2), waits for r2,
 * computes 1 us, then waits for r1: r1's CPU edge from the compute runs
 * against the NIC rule's receive chain in posting order (r1 before r2);
 * r1 leaves that chain and the plan stays acyclic. */
static llamp_graph_t *out_of_order(void) {
  llamp_builder_t *b = llamp_builder_create(3, "cpu");
  int64_t r1 = llamp_builder_add(b, 0, LLAMP_VERTEX_RECV, 100, 1, 0, 1);
  int64_t r2 = llamp_builder_add(b, 0, LLAMP_VERTEX_RECV, 100, 2, 0, 2);
  int64_t c = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 1 * us, 0, 0, 3);
  int64_t d = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 1 * us, 0, 0, 4);
  CHECK(llamp_builder_depend(b, c, r2, LLAMP_EDGE_REQUIRES, 5) == 0);
  CHECK(llamp_builder_depend(b, r1, c, LLAMP_EDGE_CPU, 6) == 0);
  CHECK(llamp_builder_depend(b, d, r1, LLAMP_EDGE_REQUIRES, 7) == 0);
  CHECK(llamp_builder_depend(b, d, c, LLAMP_EDGE_REQUIRES, 8) == 0);
  CHECK(llamp_builder_add(b, 1, LLAMP_VERTEX_SEND, 100, 0, 0, 9) >= 0);
  CHECK(llamp_builder_add(b, 2, LLAMP_VERTEX_SEND, 100, 0, 0, 10) >= 0);
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  CHECK(g != NULL);
  return g;
}

int main(void) {
  llamp_params_t p;
  llamp_params_default(&p);
  p.L = 1 * us;
  p.o = 2 * us;
  p.G = 0;
  p.S = 65536;
  llamp_point_t pt;

  /* eager: the message is there at o + L = 3 us; or after the compute:
   * 10 + 2 + 1 = 13 us (without the edge max(3 + 2, 10) + 1 = 11 us) */
  llamp_graph_t *g = irecv_compute_wait(100, 1), *h = irecv_compute_wait(100, 0);
  point_of(g, &p, &pt);
  CHECK_CLOSE(pt.T, 13 * us, 1e-15);
  CHECK_CLOSE(pt.lambda[LLAMP_PARAM_L], 0, 0);
  CHECK_CLOSE(pt.lambda[LLAMP_PARAM_O], 1, 0);
  glpk_agrees(g, &p, pt.T);
  point_of(h, &p, &pt);
  CHECK_CLOSE(pt.T, 11 * us, 1e-15);
  /* without CPU time (o = 0, no model) the edge binds nothing */
  llamp_params_t p0 = p;
  p0.o = 0;
  point_of(g, &p0, &pt);
  CHECK_CLOSE(pt.T, 11 * us, 1e-15);
  glpk_agrees(g, &p0, pt.T);
  llamp_graph_destroy(g);
  llamp_graph_destroy(h);

  /* a message that starts at its match (above S, direct rendezvous): the
   * edge is dropped, the match stays at the post: m = o = 2 us, the receive
   * ends at m + L + o = 5 us; T = max(5, 10) + 1 = 11 us (the edge as a
   * requires edge would give 10 + 1 + 2 + 1 = 14 us) */
  p.rndv_direct = 1;
  g = irecv_compute_wait(100000, 1);
  point_of(g, &p, &pt);
  CHECK_CLOSE(pt.T, 11 * us, 1e-15);
  glpk_agrees(g, &p, pt.T);
  llamp_graph_destroy(g);
  p.rndv_direct = 0;

  /* a Waitall of three: the data are all there at 3 us, the compute ends at
   * 1 us; or one after the other: 3 + 3 x 2 + 1 = 10 us, lambda_o = 4 (the
   * sender's and three receives'), lambda_L = 1 (without: 3 + 2 + 1 = 6 us) */
  g = waitall3(1);
  h = waitall3(0);
  point_of(g, &p, &pt);
  CHECK_CLOSE(pt.T, 10 * us, 1e-15);
  CHECK_CLOSE(pt.lambda[LLAMP_PARAM_O], 4, 0);
  CHECK_CLOSE(pt.lambda[LLAMP_PARAM_L], 1, 0);
  glpk_agrees(g, &p, pt.T);
  point_of(h, &p, &pt);
  CHECK_CLOSE(pt.T, 6 * us, 1e-15);
  /* with the NIC rule: the receives left the receive chain, same T */
  p.nic = 1;
  point_of(g, &p, &pt);
  CHECK_CLOSE(pt.T, 10 * us, 1e-15);
  llamp_graph_destroy(g);
  llamp_graph_destroy(h);

  /* out of posting order under the NIC rule: r2 at 3 us, ends 5 us; the
   * compute 5..6 us; r1 (there at 3 us) 6..8 us; the last compute 8..9 us */
  g = out_of_order();
  point_of(g, &p, &pt);
  CHECK_CLOSE(pt.T, 9 * us, 1e-15);
  p.nic = 0;
  point_of(g, &p, &pt);
  CHECK_CLOSE(pt.T, 9 * us, 1e-15);
  glpk_agrees(g, &p, pt.T);
  llamp_graph_destroy(g);
  TEST_DONE();
}
