/* The critical path timeline (llamp_engine_path_timeline) against the
 * engine's own answers: on the paper's example by hand, and on random graphs
 * (eager, rendezvous, gaps) its segments chain without holes from 0 to T and
 * add up, per kind, to the critical path breakdown of llamp_engine_point. */
#include <stdlib.h>
#include <string.h>

#include "llamp_engine.h"
#include "llamp_goal.h"
#include "llamp_synth.h"
#include "llamp_test.h"

static void check_timeline(const llamp_graph_t *g, const llamp_params_t *p, int *checked) {
  char err[256];
  llamp_engine_t *e = llamp_engine_create(g, p, err, sizeof err);
  if (!e) return;
  llamp_point_t pt;
  CHECK(llamp_engine_point(e, p, &pt) == 0);
  llamp_segment_t *s = NULL;
  size_t n = 0;
  CHECK(llamp_engine_path_timeline(e, p, &s, &n) == 0);
  double sum[LLAMP_NUM_SEGS] = {0}, end = 0, tol = 1e-12 * pt.T + 1e-18;
  for (size_t i = 0; i < n; i++) {
    CHECK(s[i].t1 > s[i].t0);
    CHECK(s[i].rank < llamp_graph_num_ranks(g));
    /* each part starts where the path got to (an irequires edge may step back
     * to a vertex's start: never beyond the last end) */
    CHECK(s[i].t0 <= end + tol);
    if (s[i].t1 > end) end = s[i].t1;
    sum[s[i].kind] += s[i].t1 - s[i].t0;
  }
  CHECK_CLOSE(end, pt.T, tol);
  CHECK_CLOSE(sum[LLAMP_SEG_COMPUTE], pt.t_compute, tol);
  CHECK_CLOSE(sum[LLAMP_SEG_OVERHEAD], pt.t_overhead, tol);
  CHECK_CLOSE(sum[LLAMP_SEG_LATENCY], pt.t_latency, tol);
  CHECK_CLOSE(sum[LLAMP_SEG_BANDWIDTH], pt.t_bandwidth, tol);
  CHECK_CLOSE(sum[LLAMP_SEG_GAP], pt.t_gap, tol);
  free(s);
  llamp_engine_destroy(e);
  (*checked)++;
}

int main(void) {
  char err[256], params[256];
  /* The LLAMP paper's example (Fig. 4): o = 0, G = 5 ns, L = 0.5 us: T = 1.615 us
   * along rank 0's compute, one message and rank 1's compute. */
  llamp_goal_options_t go;
  llamp_goal_options_default(&go);
  llamp_graph_t *g = llamp_goal_read("data/examples/paper_example.goal", &go, err, sizeof err);
  if (!g) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  llamp_params_t p;
  llamp_params_default(&p);
  p.o = 0;
  p.G = 5e-9;
  p.L = 0.5e-6;
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  llamp_segment_t *s = NULL;
  size_t n = 0;
  CHECK(llamp_engine_path_timeline(e, &p, &s, &n) == 0);
  double lat = 0, comp = 0, last = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i].kind == LLAMP_SEG_LATENCY) lat += s[i].t1 - s[i].t0;
    if (s[i].kind == LLAMP_SEG_COMPUTE) comp += s[i].t1 - s[i].t0;
    if (s[i].t1 > last) last = s[i].t1;
  }
  CHECK_CLOSE(last, 1.615e-6, 1e-15);
  CHECK_CLOSE(lat, 0.5e-6, 1e-15); /* one message on the path */
  CHECK(comp > 0);
  free(s);
  llamp_engine_destroy(e);
  int checked = 0;
  check_timeline(g, &p, &checked);
  llamp_graph_destroy(g);

  for (int seed = 1; seed <= 30; seed++) {
    snprintf(params, sizeof params, "ranks=%d,ops=%d,seed=%d,compute=%dus", 2 + seed % 7,
             40 + (seed * 37) % 200, seed, 1 + seed % 5);
    g = llamp_synth_graph("random", params, err, sizeof err);
    if (!g) {
      fprintf(stderr, "%s\n", err);
      CHECK(0);
      continue;
    }
    for (int variant = 0; variant < 4; variant++) {
      llamp_params_default(&p);
      p.o = 0.3e-6 * (seed % 3);
      if (variant == 1) p.S = 4096;   /* rendezvous: completion edges on the path */
      if (variant == 2) p.g = 0.5e-6; /* gap edges */
      if (variant == 3) p.rndv_direct = 1, p.S = 4096;
      int before = llamp_test_failures;
      check_timeline(g, &p, &checked);
      if (llamp_test_failures != before) fprintf(stderr, "  (graph %s, variant %d)\n", params, variant);
    }
    llamp_graph_destroy(g);
  }
  printf("%d timelines checked against the critical path breakdown\n", checked);
  CHECK(checked == 121);
  return llamp_test_failures ? 1 : 0;
}
