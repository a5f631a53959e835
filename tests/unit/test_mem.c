/* The warm reserve (llamp_mem_warm_*): a background thread faults in what
 * want() asks for, following it as it grows, at the heap's top, where the
 * next allocations find the pages resident. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "llamp_mem.h"
#include "llamp_test.h"

static atomic_int calls;
static atomic_size_t target;

static size_t want(void *arg) {
  (void)arg;
  atomic_fetch_add(&calls, 1);
  return atomic_load(&target);
}

/* Wait until the thread has asked want() `n` more times: it then grew to the
 * previous answer (it asks again only after each growth).  SCHED_IDLE may
 * wait for a busy machine: up to a minute. */
static int wait_calls(int n) {
  int until = atomic_load(&calls) + n;
  for (int i = 0; i < 6000 && atomic_load(&calls) < until; i++) usleep(10000);
  return atomic_load(&calls) >= until;
}

/* Pages of [p, p + bytes) resident, out of those checked. */
static size_t resident(void *p, size_t bytes, size_t *pages) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
  uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(page - 1);
  *pages = (hi - lo) / page;
  unsigned char *v = malloc(*pages ? *pages : 1);
  size_t r = 0;
  if (v && mincore((void *)lo, hi - lo, v) == 0)
    for (size_t i = 0; i < *pages; i++) r += v[i] & 1;
  free(v);
  return r;
}

int main(void) {
  const size_t MiB = (size_t)1 << 20;
  CHECK(llamp_mem_warm_stop() == 0); /* never started */
  CHECK(llamp_mem_warm_start(NULL, NULL) != 0);

  atomic_store(&target, 6 * MiB);
#ifdef __SANITIZE_ADDRESS__ /* off: its writes to free memory would be reported */
  CHECK(llamp_mem_warm_start(want, NULL) != 0);
  return llamp_test_failures != 0;
#endif
  CHECK(llamp_mem_warm_start(want, NULL) == 0);
  CHECK(llamp_mem_warm_start(want, NULL) != 0); /* one per process */
  CHECK(wait_calls(2));
  atomic_store(&target, 13 * MiB); /* the simulation appended more records */
  CHECK(wait_calls(2));
  size_t got = llamp_mem_warm_stop();
  CHECK(got == 13 * MiB);
  if (got != 13 * MiB) fprintf(stderr, "warmed %zu bytes, expected %zu\n", got, 13 * MiB);
  CHECK(llamp_mem_warm_stop() == 0); /* stopped once */

  /* the next allocation reuses the faulted pages: resident before any write
   * (glibc's malloc; valgrind brings its own) */
  const char *pre = getenv("LD_PRELOAD");
  size_t pages = 0, bytes = 8 * MiB;
  if (!pre || !strstr(pre, "vgpreload")) {
  char *p = malloc(bytes);
  CHECK(p != NULL);
  size_t r = p ? resident(p, bytes, &pages) : 0;
  CHECK(pages > 0 && r == pages);
  if (r != pages) fprintf(stderr, "%zu of %zu pages resident\n", r, pages);
  free(p);
  }

  /* a reserve that wants nothing faults nothing; start again after a stop */
  atomic_store(&target, 0);
  CHECK(llamp_mem_warm_start(want, NULL) == 0);
  CHECK(wait_calls(1));
  CHECK(llamp_mem_warm_stop() == 0);
  llamp_mem_return_freed();
  if (llamp_test_failures) fprintf(stderr, "%d failure(s)\n", llamp_test_failures);
  return llamp_test_failures != 0;
}
