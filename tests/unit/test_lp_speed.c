/* Export speed: a random trace-like graph of about N vertices written as a
 * CPLEX LP and as free MPS, eager and with rendezvous + gap.  Prints
 * vertices per second; fails only on an export error or an empty file.
 * usage: test_lp_speed [vertices (default 200000)] [ranks (default 64)] */
#define _POSIX_C_SOURCE 200809L
#include <sys/stat.h>
#include <time.h>

#include "llamp_test.h"
#include "test_lp_common.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  uint64_t want = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000;
  uint32_t ranks = argc > 2 ? (uint32_t)atol(argv[2]) : 64;
  char *dir = lp_scratch_dir();
  if (!dir) return 1;
  char work[1024], path[1100], err[256];
  snprintf(work, sizeof work, "%s", dir);
  lp_rng_t r = {42};
  /* about 1.55 vertices per generator step (a message step makes two) */
  double t0 = now();
  llamp_graph_t *g = lp_random_graph(&r, ranks, (uint64_t)(want / 1.55), 65536, 0.55, err,
                                     sizeof err);
  if (!g) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  uint64_t n = llamp_graph_num_vertices(g), m = llamp_graph_num_edges(g);
  printf("graph: %llu vertices, %llu edges, %u ranks (built in %.2f s)\n", (unsigned long long)n,
         (unsigned long long)m, ranks, now() - t0);
  llamp_params_t p;
  llamp_params_default(&p);
  for (int variant = 0; variant < 2; variant++) {
    if (variant == 1) { /* rendezvous above 64 KiB and the gap g */
      p.S = 65536;
      p.g = 1e-6;
    } else {
      p.S = 1e12;
    }
    for (int fmt = 0; fmt < 2; fmt++) {
      snprintf(path, sizeof path, "%s/%s", work, fmt ? "a.mps" : "a.lp");
      double t1 = now();
      int rc = llamp_lp_write(g, &p, (llamp_lp_format_t)fmt, LLAMP_LP_MIN_RUNTIME, 0, path, err,
                              sizeof err);
      double dt = now() - t1;
      struct stat st;
      CHECK(rc == 0);
      if (rc) fprintf(stderr, "%s\n", err);
      CHECK(stat(path, &st) == 0 && st.st_size > 0);
      printf("%-4s %-20s %8.3f s  %10.0f vertices/s  %7.1f MB (%.0f MB/s)\n", fmt ? "mps" : "lp",
             variant ? "rendezvous + gap" : "eager", dt, n / dt, st.st_size / 1e6,
             st.st_size / 1e6 / dt);
      remove(path);
    }
  }
  llamp_graph_destroy(g);
  lp_scratch_cleanup(work);
  TEST_DONE();
}
