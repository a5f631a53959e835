/* C1-C5 classification (llamp_classify.h) on hand-built graphs whose time
 * split is known in closed form. */
#include "llamp_classify.h"
#include "llamp_test.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

static const double us = 1e-6;

/* n round trips of `bytes` between ranks 0 and 1, each rank computing c0 / c1
 * before every send */
static llamp_graph_t *pingpong(int n, double bytes, double c0, double c1) {
  llamp_builder_t *b = llamp_builder_create(2, "pingpong");
  for (int r = 0; r < 2; r++) { /* one rank's block at a time, in posting order */
    int64_t last = -1;
    for (int i = 0; i < n; i++)
      for (int dir = 0; dir < 2; dir++) {
        int64_t v;
        if (dir == r) { /* this rank sends: compute, then the send */
          int64_t calc = llamp_builder_add(b, r, LLAMP_VERTEX_CALC, r ? c1 : c0, 0, 0, 0);
          if (last >= 0) llamp_builder_depend(b, calc, last, LLAMP_EDGE_REQUIRES, 0);
          v = llamp_builder_add(b, r, LLAMP_VERTEX_SEND, bytes, 1 - r, 0, 0);
          llamp_builder_depend(b, v, calc, LLAMP_EDGE_REQUIRES, 0);
        } else {
          v = llamp_builder_add(b, r, LLAMP_VERTEX_RECV, bytes, 1 - r, 0, 0);
          if (last >= 0) llamp_builder_depend(b, v, last, LLAMP_EDGE_REQUIRES, 0);
        }
        last = v;
      }
  }
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  if (!g) fprintf(stderr, "builder: %s\n", err);
  return g;
}

/* n exchanges: each rank computes (c0 / c1), sends to the other, then
 * receives from it (eager) */
static llamp_graph_t *exchange(int n, double bytes, double c0, double c1) {
  llamp_builder_t *b = llamp_builder_create(2, "exchange");
  for (int r = 0; r < 2; r++) {
    int64_t last = -1;
    for (int i = 0; i < n; i++) {
      int64_t calc = llamp_builder_add(b, r, LLAMP_VERTEX_CALC, r ? c1 : c0, 0, 0, 0);
      if (last >= 0) llamp_builder_depend(b, calc, last, LLAMP_EDGE_REQUIRES, 0);
      int64_t sv = llamp_builder_add(b, r, LLAMP_VERTEX_SEND, bytes, 1 - r, 0, 0);
      llamp_builder_depend(b, sv, calc, LLAMP_EDGE_REQUIRES, 0);
      last = llamp_builder_add(b, r, LLAMP_VERTEX_RECV, bytes, 1 - r, 0, 0);
      llamp_builder_depend(b, last, sv, LLAMP_EDGE_REQUIRES, 0);
    }
  }
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  if (!g) fprintf(stderr, "builder: %s\n", err);
  return g;
}

typedef struct {
  llamp_classify_job_t *job;
  llamp_engine_t *engine;
} worker_t;

static void *work(void *arg) {
  worker_t *w = arg;
  llamp_classify_job_work(w->job, w->engine);
  return NULL;
}

/* The job split over the engine and a fork in a second thread (what the
 * capture does) gives the one-thread classification bit for bit. */
static void check_threaded(llamp_engine_t *e, llamp_graph_t *g, const llamp_params_t *p,
                           const llamp_classification_t *one) {
  char err[256];
  worker_t w = {llamp_classify_job_create(g, p, err, sizeof err), llamp_engine_fork(e)};
  CHECK(w.job && w.engine);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, work, &w) == 0);
  llamp_classify_job_work(w.job, e);
  pthread_join(t, NULL);
  llamp_classification_t two;
  memset(&two, 0, sizeof two);
  CHECK(llamp_classify_job_finish(w.job, NULL, &two, err, sizeof err) == 0);
  CHECK(memcmp(one, &two, sizeof two) == 0);
  llamp_classify_job_free(w.job);
  llamp_engine_destroy(w.engine);
  /* a job nobody worked on is refused, not read */
  llamp_classify_job_t *idle = llamp_classify_job_create(g, p, err, sizeof err);
  CHECK(idle && llamp_classify_job_finish(idle, NULL, &two, err, sizeof err) == -1);
  CHECK(strstr(err, "was never run") != NULL);
  llamp_classify_job_free(idle);
}

static void classify(llamp_graph_t *g, double L, double G, double o, llamp_classification_t *c) {
  llamp_params_t p;
  llamp_params_default(&p);
  p.L = L;
  p.G = G;
  p.o = o;
  p.S = 1e12; /* eager */
  char err[256];
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e != NULL);
  CHECK(llamp_classify(e, g, &p, NULL, c, err, sizeof err) == 0);
  printf("%-26s %s: %s\n", llamp_class_name(c->cls, c->sensitive), llamp_class_code(c->cls), c->reason);
  CHECK(c->evaluations == 19);
  check_threaded(e, g, &p, c);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
}

int main(void) {
  llamp_classification_t c;

  /* C1: both ranks compute 1 ms per step, then exchange 1 byte */
  classify(exchange(4, 1, 1000 * us, 1000 * us), 2 * us, 1e-10, 0.5 * us, &c);
  CHECK(c.cls == LLAMP_CLASS_COMPUTATION && !c.sensitive);
  CHECK(c.compute_share > 0.99 && c.T_change < 0.05);

  /* C4: 1-byte ping-pong, no compute.  Per message o + L + o, no byte
   * costs ((s-1) G = 0): T = 1000 x (L + 1 us); communication is all of T,
   * and comm(2L) / comm(L/2) = (4 + 1) / (1 + 1) = 2.5 exactly */
  classify(pingpong(500, 1, 0, 0), 2 * us, 1e-10, 0.5 * us, &c);
  CHECK(c.cls == LLAMP_CLASS_LATENCY && !c.sensitive);
  CHECK_CLOSE(c.lat[3].T, 1000 * 3 * us, 1e-12);
  CHECK_CLOSE(c.comm_ratio_lat, 2.5, 1e-12);
  CHECK(c.comm_change_bw == 0);
  CHECK_CLOSE(c.latency_share, 2.0 / 3, 1e-12);
  CHECK_CLOSE(c.overhead_share, 1.0 / 3, 1e-12);

  /* C3: 10 MB messages at 10 GB/s (1 ms each) against L = 1 us: 8 L
   * changes communication by < 1 %, BW/2 -> 2BW divides it by ~4 */
  classify(pingpong(2, 1e7, 0, 0), 1 * us, 1e-10, 0.5 * us, &c);
  CHECK(c.cls == LLAMP_CLASS_BANDWIDTH && !c.sensitive);
  CHECK(c.comm_change_lat < 0.01 && c.comm_ratio_bw > 3.9);

  /* C5: 100 KB at 1 GB/s (100 us) against L = 50 us: both matter */
  classify(pingpong(50, 1e5, 0, 0), 50 * us, 1e-9, 0.5 * us, &c);
  CHECK(c.cls == LLAMP_CLASS_COMMUNICATION);
  CHECK(c.comm_ratio_both >= 2 && c.comm_change_lat >= 0.05 && c.comm_change_bw >= 0.05);

  /* C2, the serialised kind: in a ping-pong with 1 ms of compute on each
   * side one rank waits while the other computes (Tong et al. call such
   * dependency-bound patterns, wavefronts included, load-imbalance-bound):
   * per trip T = 2 ms + 2 (2o + L), mean compute 1 ms, wait 1 ms */
  classify(pingpong(3, 1, 1000 * us, 1000 * us), 2 * us, 1e-10, 0.5 * us, &c);
  CHECK(c.cls == LLAMP_CLASS_IMBALANCE && !c.sensitive);
  CHECK_CLOSE(c.lat[3].wait, 3 * 1000 * us, 1e-12);

  /* C2, imbalance proper: rank 0 computes 10 ms per exchange, rank 1 1 ms.
   * T per step = 10 ms + 2o + L, mean compute 5.5 ms: rank 1 waits 4.5 ms
   * per step whatever L or BW */
  classify(exchange(3, 1, 10000 * us, 1000 * us), 2 * us, 1e-10, 0.5 * us, &c);
  CHECK(c.cls == LLAMP_CLASS_IMBALANCE && !c.sensitive);
  CHECK_CLOSE(c.lat[3].wait, 3 * 4500 * us, 1e-12);
  CHECK(c.wait_change < 1e-9);

  /* latency-sensitive: 20 us of compute then a 1-byte exchange: per step
   * 20 + 2o + L = 23 us at L = 2 us, communication 3/23 = 13 % */
  classify(exchange(200, 1, 20 * us, 20 * us), 2 * us, 1e-10, 0.5 * us, &c);
  CHECK(c.cls == LLAMP_CLASS_LATENCY && c.sensitive);
  CHECK_CLOSE(c.comm_share, 3.0 / 23, 1e-9);
  CHECK(strcmp(llamp_class_name(c.cls, c.sensitive), "latency-sensitive") == 0);

  /* anchors */
  double L, G;
  CHECK(llamp_classify_preset("qdr", &L, &G) == 0 && fabs(L - 1.3e-6) < 1e-18 && fabs(G - 0.25e-9) < 1e-21);
  CHECK(llamp_classify_preset("e1g", &L, &G) == 0 && fabs(G - 8e-9) < 1e-21);
  CHECK(llamp_classify_preset("ib", &L, &G) == -1);
  TEST_DONE();
}
