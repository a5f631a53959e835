/* Two halves of a loop, the second on a helper thread (llamp_par.h). */
#include "llamp_par.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct llamp_par {
  int halves;
  int running; /* the helper thread exists */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t go, done;
  /* under lock: the job of generation `posted`, `finished` the last one done */
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
    while (p->posted == seen && !p->quit) pthread_cond_wait(&p->go, &p->lock);
    if (p->quit) break;
    seen = p->posted;
    llamp_par_fn fn = p->fn;
    void *ctx = p->ctx;
    uint64_t lo = p->lo, hi = p->hi;
    pthread_mutex_unlock(&p->lock);
    fn(ctx, lo, hi, 1);
    pthread_mutex_lock(&p->lock);
    p->finished = seen;
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
  if (threads == 0) return n >= LLAMP_PAR_MIN_ITEMS && sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
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
    p->posted++;
    pthread_cond_signal(&p->go);
    pthread_mutex_unlock(&p->lock);
  }
  fn(ctx, 0, mid, 0);
  if (beside) {
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
