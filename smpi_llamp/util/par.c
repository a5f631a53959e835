/* Two halves of a loop, the second on a helper thread (llamp_par.h). */
#include "llamp_par.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A wait first spins this long, then sleeps: waking a thread from its
 * condition variable took ~0.1 ms on this VM, and the DAG's finish hands
 * ~15 passes of 0.3-4 ms to the helper (bench_capture64: 2-3 ms of its
 * 20-30 ms were wake-ups).  Bounded, so a helper idle between phases gives
 * its core back soon. */
#define SPIN_NS 100000

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Spin until *word differs from `from` or SPIN_NS passed; 1 when it did. */
static int spin_while(const uint64_t *word, uint64_t from) {
  uint64_t t0 = now_ns();
  for (unsigned i = 1;; i++) {
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != from) return 1;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (!(i & 63) && now_ns() - t0 > SPIN_NS) return 0;
  }
}

struct llamp_par {
  int halves;
  int running; /* the helper thread exists */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t go, done;
  /* written under lock (atomically: the waits spin on them first): the job
   * of generation `posted`, `finished` the last one done */
  uint64_t posted, finished;
  int quit;
  llamp_par_fn fn;
  void *ctx;
  uint64_t lo, hi;
};

static void *helper(void *arg) {
  llamp_par_t *p = arg;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    if (p->posted == seen && !p->quit) {
      pthread_mutex_unlock(&p->lock);
      (void)spin_while(&p->posted, seen);
      pthread_mutex_lock(&p->lock);
    }
    while (p->posted == seen && !p->quit) pthread_cond_wait(&p->go, &p->lock);
    if (p->quit) break;
    seen = p->posted;
    llamp_par_fn fn = p->fn;
    void *ctx = p->ctx;
    uint64_t lo = p->lo, hi = p->hi;
    pthread_mutex_unlock(&p->lock);
    fn(ctx, lo, hi, 1);
    pthread_mutex_lock(&p->lock);
    __atomic_store_n(&p->finished, seen, __ATOMIC_RELEASE);
    pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

llamp_par_t *llamp_par_create(int halves) {
  llamp_par_t *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->halves = halves > 1 ? 2 : 1;
  if (p->halves == 2 && pthread_mutex_init(&p->lock, NULL) == 0) {
    if (pthread_cond_init(&p->go, NULL) == 0) {
      if (pthread_cond_init(&p->done, NULL) == 0) {
        if (pthread_create(&p->thread, NULL, helper, p) == 0) {
          p->running = 1;
          return p;
        }
        pthread_cond_destroy(&p->done);
      }
      pthread_cond_destroy(&p->go);
    }
    pthread_mutex_destroy(&p->lock);
  }
  return p;
}

int llamp_par_halves(int threads, uint64_t n) {
  if (threads == 0) {
    /* LLAMP_THREADS=1 or 2 decides instead: one core on a shared node, or
     * two halves on any graph (the tests compare both splits) */
    const char *env = getenv("LLAMP_THREADS");
    if (env && (strcmp(env, "1") == 0 || strcmp(env, "2") == 0)) return env[0] - '0';
    return n >= LLAMP_PAR_MIN_ITEMS && sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
  }
  return threads > 1 ? 2 : 1;
}

uint64_t llamp_par_mid(const llamp_par_t *p, uint64_t n) { return p && p->halves == 2 ? n / 2 : n; }

void llamp_par_run(llamp_par_t *p, uint64_t n, llamp_par_fn fn, void *ctx) {
  uint64_t mid = llamp_par_mid(p, n);
  int beside = p && p->running && mid < n;
  if (beside) {
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->lo = mid;
    p->hi = n;
    __atomic_store_n(&p->posted, p->posted + 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&p->go);
    pthread_mutex_unlock(&p->lock);
  }
  fn(ctx, 0, mid, 0);
  if (beside) {
    uint64_t want = p->posted; /* only this thread posts */
    uint64_t was = __atomic_load_n(&p->finished, __ATOMIC_ACQUIRE);
    if (was == want || (spin_while(&p->finished, was) && __atomic_load_n(&p->finished, __ATOMIC_ACQUIRE) == want))
      return;
    pthread_mutex_lock(&p->lock);
    while (p->finished != p->posted) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
  } else if (mid < n) {
    fn(ctx, mid, n, 1);
  }
}

void llamp_par_destroy(llamp_par_t *p) {
  if (!p) return;
  if (p->running) {
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_signal(&p->go);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
  }
  free(p);
}
