/* llamp_engine_points_lg against llamp_engine_point_of, bit for bit, at the
 * classification's kind of points around p (L and G scaled, alone and
 * together).  Returns how many of them had overhead on the critical path (so
 * a caller can assert that the overhead's path tracking was exercised). */
#ifndef LANES_CHECK_H
#define LANES_CHECK_H
#include <stdlib.h>
#include <string.h>

#include "llamp_engine.h"
#include "llamp_test.h"

/* the lanes four a vector where the CPU allows (their width recorded in
 * lanes_vector_passes), then one lane at a time (LLAMP_LANES=scalar) */
static int lanes_vector_passes;
static int check_points_lg_once(llamp_engine_t *e, const llamp_params_t *p);
static int check_points_lg(llamp_engine_t *e, const llamp_params_t *p) {
  int with_overhead = check_points_lg_once(e, p);
  lanes_vector_passes += llamp_engine_points_lg_width(e) == 4;
  setenv("LLAMP_LANES", "scalar", 1);
  check_points_lg_once(e, p);
  CHECK(llamp_engine_points_lg_width(e) == 1);
  unsetenv("LLAMP_LANES");
  return with_overhead;
}

static int check_points_lg_once(llamp_engine_t *e, const llamp_params_t *p) {
  enum { K = 7 };
  static const double f[K] = {1, 0.125, 8, 1, 1, 0.5, 4};
  static const double h[K] = {1, 1, 1, 8, 0.25, 2, 0.5};
  double L[K], G[K];
  llamp_lane_point_t lp[K];
  int with_overhead = 0;
  for (int k = 0; k < K; k++) L[k] = p->L * f[k] + (p->L > 0 ? 0 : 1e-6 * f[k]), G[k] = p->G * h[k];
  int rc = llamp_engine_points_lg(e, p, L, G, K, lp);
  CHECK(rc == 0);
  for (int k = 0; k < K && rc == 0; k++) {
    llamp_params_t q = *p;
    q.L = L[k];
    q.G = G[k];
    llamp_point_t pt;
    CHECK(llamp_engine_point_of(e, &q, 1u << LLAMP_PARAM_G, &pt) == 0);
    llamp_lane_point_t want = {pt.T, pt.lambda[LLAMP_PARAM_L], pt.lambda[LLAMP_PARAM_G], pt.t_overhead};
    if (memcmp(&want, &lp[k], sizeof want) != 0) {
      fprintf(stderr, "points_lg lane %d: T %.17g/%.17g lambda_L %.17g/%.17g lambda_G %.17g/%.17g overhead %.17g/%.17g\n",
              k, lp[k].T, want.T, lp[k].lambda_L, want.lambda_L, lp[k].lambda_G, want.lambda_G, lp[k].t_overhead,
              want.t_overhead);
      CHECK(0);
    }
    with_overhead += pt.t_overhead > 0;
  }
  return with_overhead;
}
#endif
