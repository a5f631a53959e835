/* Tiny assertion helpers shared by the unit tests. */
#ifndef LLAMP_TEST_H
#define LLAMP_TEST_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int llamp_test_failures = 0;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
      llamp_test_failures++;                                                     \
    }                                                                            \
  } while (0)

/* relative-or-absolute closeness */
#define CHECK_NEAR(a, b, tol)                                                    \
  do {                                                                           \
    double _a = (a), _b = (b);                                                   \
    double _s = fmax(1.0, fmax(fabs(_a), fabs(_b)));                             \
    if (!(fabs(_a - _b) <= (tol) * _s)) {                                        \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %s = %.17g\n", __FILE__,      \
              __LINE__, #a, _a, #b, _b);                                         \
      llamp_test_failures++;                                                     \
    }                                                                            \
  } while (0)

/* for microsecond-scale quantities: compare in units of the scale */
#define CHECK_CLOSE(a, b, abs_tol)                                               \
  do {                                                                           \
    double _a = (a), _b = (b);                                                   \
    if (!(fabs(_a - _b) <= (abs_tol))) {                                         \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g (tol %g)\n", __FILE__,  \
              __LINE__, #a, _a, _b, (double)(abs_tol));                          \
      llamp_test_failures++;                                                     \
    }                                                                            \
  } while (0)

/* A test's random draws: xorshift64 from a fixed seed, printed so that a
 * failure can be replayed. */
static uint64_t llamp_test_rng_state = 1;
static inline void llamp_test_rng_seed(uint64_t seed) {
  llamp_test_rng_state = seed ? seed : 1;
  printf("seed 0x%llx\n", (unsigned long long)llamp_test_rng_state);
}
static inline uint64_t llamp_test_rng(void) {
  llamp_test_rng_state ^= llamp_test_rng_state << 13;
  llamp_test_rng_state ^= llamp_test_rng_state >> 7;
  llamp_test_rng_state ^= llamp_test_rng_state << 17;
  return llamp_test_rng_state;
}

#define TEST_DONE()                                                              \
  do {                                                                           \
    if (llamp_test_failures) {                                                   \
      fprintf(stderr, "%d check(s) failed\n", llamp_test_failures);              \
      return 1;                                                                  \
    }                                                                            \
    printf("ok\n");                                                              \
    return 0;                                                                    \
  } while (0)
#endif
