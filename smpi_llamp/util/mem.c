/* Memory hints: madvise(MADV_HUGEPAGE) on big blocks, the heap kept, and a
 * reserve of pages faulted in by a background thread. */
#define _GNU_SOURCE
#include "llamp_mem.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

#define GROW_ALIGNED_MAX ((size_t)16 << 20)

int llamp_mem_grow(void **p, size_t old_bytes, size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (bytes >= HUGE_PAGE && bytes < GROW_ALIGNED_MAX) {
    size_t room = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    void *q;
    if (posix_memalign(&q, HUGE_PAGE, room)) return -1;
    (void)madvise(q, room, MADV_HUGEPAGE);
    if (*p) {
      memcpy(q, *p, old_bytes < bytes ? old_bytes : bytes);
      free(*p);
    }
    *p = q;
    return 0;
  }
#else
  (void)old_bytes;
#endif
  void *q = realloc(*p, bytes ? bytes : 1);
  if (!q) return -1;
  llamp_mem_advise_huge(q, bytes);
  *p = q;
  return 0;
}

static int kept; /* atomic: the analysis may run its passes on a helper thread */

int llamp_mem_freed_kept(void) { return __atomic_load_n(&kept, __ATOMIC_RELAXED); }

void llamp_mem_keep_freed(void) {
  __atomic_store_n(&kept, 1, __ATOMIC_RELAXED);
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 0);             /* every block from the heap */
  mallopt(M_TRIM_THRESHOLD, -1);      /* and the heap never shrinks (mallopt(3)) */
#endif
}

void llamp_mem_map_big_blocks(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 1 << 20); /* a fixed threshold: glibc's own no longer moves */
#endif
}

void llamp_mem_return_freed(void) {
  __atomic_store_n(&kept, 0, __ATOMIC_RELAXED);
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 65536);            /* glibc's default (mallopt(3)) */
  mallopt(M_TRIM_THRESHOLD, 128 * 1024); /* likewise */
  malloc_trim(0);
#endif
}

/* ---- the warm reserve ------------------------------------------------------------ */

#define WARM_STEP ((size_t)4 << 20) /* grows when `want` grew by this much; faults in
                                       slices of this size between stop checks */

static struct {
  pthread_t thread;
  int running;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int stop; /* under lock */
  int started; /* under lock: the thread has its arena */
  size_t (*want)(void *);
  void *arg;
  size_t bytes; /* faulted in so far (owned by the thread until it is joined) */
} warm = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static int warm_stopping(void) {
  pthread_mutex_lock(&warm.lock);
  int s = warm.stop;
  pthread_mutex_unlock(&warm.lock);
  return s;
}

/* Fault in `bytes` of heap.  A block of that size is allocated and freed at
 * once, which leaves it free at the heap's top (keep_freed: never trimmed),
 * then each of its pages gets one write that changes nothing: an atomic add
 * of 0 to its first word, since the other thread may allocate from the range
 * meanwhile (an atomic read-modify-write never undoes a concurrent store).
 * The heap's next allocations, the program's and then the analysis's, take
 * the pages in one piece, in order; blocks held until the stop instead left
 * holes that the analysis's small allocations split (30 % more memory for the
 * same time).  A write, not madvise(MADV_POPULATE_WRITE): on this VM the
 * first user-space write to a page costs 8 us even after the kernel
 * populated it (200 MB: populate 0.04 s, the memset after it 0.43 s).
 * 0 on success. */
static int warm_grow(size_t bytes, size_t page) {
  char *p = malloc(bytes);
  if (!p) return -1;
  /* only in the main arena's brk heap, which free never gives back here:
   * a block of another arena (a thread of its own, stream.c) or one mmap'd
   * would be unmapped by the free below, and the writes would fault */
  if (p + bytes > (char *)sbrk(0)) {
    free(p);
    return -1;
  }
  uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
  uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(page - 1);
  /* in 2 MiB pages: 512 times fewer faults, and a page the run's early
   * steps faulted in is not cold (~5 us a 4 KiB page on this VM) when the
   * analysis takes it: a CG capture's engine 0.27 -> 0.23 s (medians of 12
   * interleaved runs), the short reserves (3 of 12 runs: 613-707 of 720 MiB,
   * the engine then 0.55-1.19 s) gone */
  llamp_mem_advise_huge(p, bytes);
  free(p);
  for (uintptr_t a = lo; a < hi; a += page) {
    __atomic_fetch_add((volatile uint64_t *)a, 0, __ATOMIC_RELAXED);
    if (((a - lo) & (WARM_STEP - 1)) == 0 && a > lo && warm_stopping()) return 0; /* the rest on use */
  }
  warm.bytes = bytes;
  return 0;
}

static void *warm_run(void *arg) {
  (void)arg;
  /* its arena must be the main one, where the analysis allocates: with
   * M_ARENA_MAX = 1 glibc gives a new thread an existing arena, but with a
   * second one there (stream.c's thread) it may give that one; the caller
   * then makes another thread (this one's arena is still attached to the
   * other thread, so glibc hands the next one the arena after it: main) */
  char *probe = malloc(64);
  int in_main = probe && probe + 64 <= (char *)sbrk(0);
  free(probe);
  pthread_mutex_lock(&warm.lock);
  warm.started = in_main ? 1 : -1;
  pthread_cond_signal(&warm.wake);
  pthread_mutex_unlock(&warm.lock);
  if (!in_main) return NULL;
#ifdef SCHED_IDLE
  struct sched_param sp = {0};
  (void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
#endif
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (page == 0 || page > WARM_STEP) page = 4096;
  for (;;) {
    size_t want = warm.want(warm.arg);
    if (want >= warm.bytes + WARM_STEP || (want > warm.bytes && want - warm.bytes >= want / 8)) {
      want = (want + page - 1) / page * page;
      if (warm_grow(want, page)) {
        pthread_mutex_lock(&warm.lock);
        warm.stop = 1; /* out of memory: what is there stays */
        pthread_mutex_unlock(&warm.lock);
      }
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
#if defined(__SANITIZE_ADDRESS__)
  return -1; /* its allocator quarantines what is freed, and would see the writes as use after free */
#endif
#ifdef __GLIBC__
  /* the pages must be in the arena the later allocations come from */
  mallopt(M_ARENA_MAX, 1);
#endif
  llamp_mem_keep_freed();
  warm.want = want;
  warm.arg = arg;
  warm.stop = 0;
  warm.bytes = 0;
  for (int attempt = 0; attempt < 4; attempt++) {
    warm.started = 0;
    if (pthread_create(&warm.thread, NULL, warm_run, NULL)) return -1;
    pthread_mutex_lock(&warm.lock);
    while (!warm.started) pthread_cond_wait(&warm.wake, &warm.lock);
    int ok = warm.started > 0;
    pthread_mutex_unlock(&warm.lock);
    if (ok) {
      warm.running = 1;
      return 0;
    }
    pthread_join(warm.thread, NULL);
  }
  return -1;
}

size_t llamp_mem_warm_stop(void) {
  if (!warm.running) return 0;
  pthread_mutex_lock(&warm.lock);
  warm.stop = 1;
  pthread_cond_signal(&warm.wake);
  pthread_mutex_unlock(&warm.lock);
  pthread_join(warm.thread, NULL);
  warm.running = 0;
  return warm.bytes;
}
