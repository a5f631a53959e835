/* libFuzzer harness for the routes file (topo/topo.c: llamp_topo_read), as
 * `llamp analyze --routes` uses it: the table, its reference point and the
 * engine's per-pair costs.
 *
 * Oracle: failure gives a one-line message; a table read has finite route
 * latencies and positive bandwidths, writes back and reads again with the
 * same routes, and gives a finite reference point and finite per-pair
 * costs (or a one-line reason why not). */
#include "fuzz_util.h"

#include <math.h>

#include "llamp_topo.h"

static void must_be_finite(double v) {
  if (!isfinite(v)) {
    fprintf(stderr, "fuzz: %g from a routes table that was accepted\n", v);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64], err[2048] = "";
  int fd = fuzz_memfile(data, size, path, sizeof path);
  llamp_topo_t *t = llamp_topo_read(path, err, sizeof err);
  close(fd);
  if (!t) {
    fuzz_check_error(err);
    return 0;
  }
  uint32_t P = llamp_topo_num_ranks(t), H = llamp_topo_num_hosts(t);
  for (uint32_t i = 0; i < P; i++)
    if (llamp_topo_rank_host(t, i) >= H) abort();
  /* the pairs' routes (bounded: a few thousand) */
  for (uint32_t i = 0; i < P && i < 64; i++)
    for (uint32_t k = 0; k < P && k < 64; k++) {
      llamp_topo_route_t r;
      if (llamp_topo_route(t, llamp_topo_rank_host(t, i), llamp_topo_rank_host(t, k), &r)) continue;
      must_be_finite(r.latency);
      if (!(r.latency >= 0) || !(r.bandwidth > 0)) abort();
    }

  /* written and read back: the same table */
  char out[64];
  int ofd = fuzz_memfile(data, 0, out, sizeof out);
  if (llamp_topo_write(t, out, err, sizeof err)) abort();
  llamp_topo_t *b = llamp_topo_read(out, err, sizeof err);
  close(ofd);
  if (!b) {
    fprintf(stderr, "fuzz: the written routes do not read back: %s\n", err);
    abort();
  }
  if (llamp_topo_num_ranks(b) != P || llamp_topo_num_hosts(b) != H ||
      llamp_topo_num_links(b) != llamp_topo_num_links(t))
    abort();
  llamp_topo_destroy(b);

  llamp_topo_ref_t ref;
  if (llamp_topo_reference(t, NULL, P, &ref, err, sizeof err)) {
    fuzz_check_error(err);
    llamp_topo_destroy(t);
    return 0;
  }
  must_be_finite(ref.L0);
  must_be_finite(ref.G0);
  must_be_finite(ref.l_wire0);
  must_be_finite(ref.d_switch0);
  llamp_pairs_t *p = llamp_topo_pairs(t, NULL, P, &ref, err, sizeof err);
  if (!p) {
    fuzz_check_error(err);
  } else {
    if (p->ranks != P) abort();
    for (uint32_t k = 0; k < p->num_kinds; k++) {
      must_be_finite(p->c0[k]);
      must_be_finite(p->gscale[k]);
      for (uint32_t q = 0; q < p->num_params; q++) must_be_finite(p->coef[k * p->num_params + q]);
    }
    for (uint32_t q = 0; q < p->num_params; q++) must_be_finite(p->ref[q]);
    for (uint32_t i = 0; i < P; i++) {
      if (p->self_lat) must_be_finite(p->self_lat[i]);
      if (p->self_G) must_be_finite(p->self_G[i]);
    }
    llamp_pairs_free(p);
  }
  llamp_topo_destroy(t);
  return 0;
}
