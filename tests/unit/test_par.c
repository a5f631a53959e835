/* llamp_par: two halves of a loop, the second on a helper thread.  Every
 * index is visited once, by the half the split gives it (n/2 onwards is half
 * 1 with two halves, nothing with one), whatever n; the helper is reused for
 * thousands of loops in a row. */
#include <stdlib.h>

#include "llamp_par.h"
#include "llamp_test.h"

typedef struct {
  uint32_t *seen; /* index -> sum of 1 + half over the visits */
  uint64_t calls[2];
} visit_t;

static void visit(void *ctx, uint64_t lo, uint64_t hi, int half) {
  visit_t *v = ctx;
  for (uint64_t i = lo; i < hi; i++) v->seen[i] += (uint32_t)(1 + half);
  v->calls[half]++;
}

int main(void) {
  const uint64_t sizes[] = {0, 1, 2, 3, 7, 1000, 100001};
  for (int halves = 1; halves <= 2; halves++) {
    llamp_par_t *p = llamp_par_create(halves);
    CHECK(p != NULL);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      uint64_t n = sizes[s], mid = llamp_par_mid(p, n);
      CHECK(mid == (halves == 2 ? n / 2 : n));
      visit_t v = {calloc(n + 1, sizeof(uint32_t)), {0, 0}};
      llamp_par_run(p, n, visit, &v);
      int ok = 1;
      for (uint64_t i = 0; i < n; i++) ok &= v.seen[i] == (i < mid ? 1 : 2);
      CHECK(ok);
      CHECK(v.calls[0] == 1 && v.calls[1] == (mid < n ? 1u : 0u));
      free(v.seen);
    }
    /* many short loops in a row: each waits for its second half */
    visit_t v = {calloc(64, sizeof(uint32_t)), {0, 0}};
    for (int r = 0; r < 5000; r++) llamp_par_run(p, 64, visit, &v);
    int ok = 1;
    for (int i = 0; i < 64; i++) ok &= v.seen[i] == 5000u * (halves == 2 && i >= 32 ? 2 : 1);
    CHECK(ok);
    free(v.seen);
    llamp_par_destroy(p);
  }
  visit_t v = {calloc(5, sizeof(uint32_t)), {0, 0}};
  llamp_par_run(NULL, 5, visit, &v); /* NULL: one half, in the caller */
  CHECK(v.calls[0] == 1 && v.calls[1] == 0 && v.seen[4] == 1);
  free(v.seen);
  TEST_DONE();
}
