/* Memory hints: madvise(MADV_HUGEPAGE) on big blocks, the heap kept, and a
 * reserve of pages faulted in by a background thread. */
#define _GNU_SOURCE
#include "llamp_mem.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define HUGE_PAGE ((uintptr_t)2 << 20)

void llamp_mem_advise_huge(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (!p || bytes < 2 * HUGE_PAGE) return;
  uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  uintptr_t hi = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
  if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

void llamp_mem_keep_freed(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 0);             /* every block from the heap */
  mallopt(M_TRIM_THRESHOLD, -1);      /* and the heap never shrinks (mallopt(3)) */
#endif
}

void llamp_mem_return_freed(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 65536);            /* glibc's default (mallopt(3)) */
  mallopt(M_TRIM_THRESHOLD, 128 * 1024); /* likewise */
  malloc_trim(0);
#endif
}

/* ---- the warm reserve ------------------------------------------------------------ */

#define WARM_STEP_MIN ((size_t)4 << 20)   /* grows by half of what it holds, */
#define WARM_STEP_MAX ((size_t)256 << 20) /* in blocks between these sizes */

static struct {
  pthread_t thread;
  int running;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int stop; /* under lock */
  size_t (*want)(void *);
  void *arg;
  void **blocks; /* owned by the thread until it is joined */
  size_t num_blocks, cap_blocks, bytes;
} warm = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static int warm_stopping(void) {
  pthread_mutex_lock(&warm.lock);
  int s = warm.stop;
  pthread_mutex_unlock(&warm.lock);
  return s;
}

/* One more block of `bytes`, each page written once (volatile: a store to
 * memory freed unread may be dropped).  0 when the block was kept. */
static int warm_grow(size_t bytes, size_t page) {
  if (warm.num_blocks == warm.cap_blocks) {
    size_t cap = warm.cap_blocks ? 2 * warm.cap_blocks : 64;
    void **b = realloc(warm.blocks, cap * sizeof *b);
    if (!b) return -1;
    warm.blocks = b;
    warm.cap_blocks = cap;
  }
  volatile char *p = malloc(bytes);
  if (!p) return -1;
  warm.blocks[warm.num_blocks++] = (void *)p;
  for (size_t i = 0; i < bytes; i += page) {
    p[i] = 0;
    if ((i & ((1u << 20) - 1)) == 0 && i && warm_stopping()) break; /* the rest faults in on use */
  }
  warm.bytes += bytes;
  return 0;
}

static void *warm_run(void *arg) {
  (void)arg;
#ifdef SCHED_IDLE
  struct sched_param sp = {0};
  (void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
#endif
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (page == 0 || page > ((size_t)1 << 20)) page = 4096;
  for (;;) {
    size_t want = warm.want(warm.arg);
    while (warm.bytes < want && !warm_stopping()) {
      size_t step = warm.bytes / 2;
      if (step < WARM_STEP_MIN) step = WARM_STEP_MIN;
      if (step > WARM_STEP_MAX) step = WARM_STEP_MAX;
      if (step > want - warm.bytes) step = (want - warm.bytes + page - 1) / page * page;
      if (warm_grow(step, page)) break; /* out of memory: what is there stays */
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 20 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
    pthread_mutex_lock(&warm.lock);
    if (!warm.stop) pthread_cond_timedwait(&warm.wake, &warm.lock, &until);
    int s = warm.stop;
    pthread_mutex_unlock(&warm.lock);
    if (s) return NULL;
  }
}

int llamp_mem_warm_start(size_t (*want)(void *arg), void *arg) {
  if (warm.running || !want) return -1;
#ifdef __GLIBC__
  /* the blocks must be in the arena the later allocations come from */
  mallopt(M_ARENA_MAX, 1);
#endif
  llamp_mem_keep_freed();
  warm.want = want;
  warm.arg = arg;
  warm.stop = 0;
  warm.bytes = warm.num_blocks = 0;
  if (pthread_create(&warm.thread, NULL, warm_run, NULL)) return -1;
  warm.running = 1;
  return 0;
}

size_t llamp_mem_warm_stop(void) {
  if (!warm.running) return 0;
  pthread_mutex_lock(&warm.lock);
  warm.stop = 1;
  pthread_cond_signal(&warm.wake);
  pthread_mutex_unlock(&warm.lock);
  pthread_join(warm.thread, NULL);
  warm.running = 0;
  for (size_t i = warm.num_blocks; i-- > 0;) free(warm.blocks[i]);
  free(warm.blocks);
  warm.blocks = NULL;
  warm.num_blocks = warm.cap_blocks = 0;
  return warm.bytes;
}
