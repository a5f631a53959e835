/* record.c - the native kernel recorder, libllamp_kernel_record.so: linked
 * into a program or put in LD_PRELOAD, it times every annotated region
 * (llamp_region.h) and every BLAS call (blas_wrappers.inc) of a real run and
 * writes one line per call, "name host d1 d2 d3 seconds", to
 * $LLAMP_KERNEL_RECORD.<host>.<pid>.txt at exit; llamp_calib_kernels fits
 * the models to those files.  Without LLAMP_KERNEL_RECORD it only forwards.
 * No MPI and no GSL in here: it must load into any program. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  const char *name;
  double d[3], seconds;
} rec_t;

static struct {
  int init, on, depth;
  char path[4096], host[256];
  rec_t *r;
  size_t n, cap;
  /* the open region (begin/end or enter/leave) */
  const char *name;
  double d[3], t0;
} W;

/* The calling thread's CPU time (as the capture times compute), or the
 * wall clock with LLAMP_KERNEL_RECORD_CLOCK=wall (multithreaded kernels). */
static clockid_t clock_id = CLOCK_THREAD_CPUTIME_ID;
static double now(void) {
  struct timespec ts;
  clock_gettime(clock_id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void flush(void) {
  if (!W.on || !W.n) return;
  FILE *f = fopen(W.path, "a");
  if (!f) {
    fprintf(stderr, "llamp_kernel_record: cannot write %s\n", W.path);
    W.n = 0;
    return;
  }
  for (size_t i = 0; i < W.n; i++)
    fprintf(f, "%s %s %.17g %.17g %.17g %.9e\n", W.r[i].name, W.host, W.r[i].d[0], W.r[i].d[1], W.r[i].d[2],
            W.r[i].seconds);
  fclose(f);
  W.n = 0;
}

static void at_exit(void) { flush(); }

static void setup(void) {
  if (W.init) return;
  W.init = 1;
  const char *p = getenv("LLAMP_KERNEL_RECORD");
  if (!p || !*p) return;
  const char *ck = getenv("LLAMP_KERNEL_RECORD_CLOCK");
  if (ck && !strcmp(ck, "wall")) clock_id = CLOCK_MONOTONIC;
  if (gethostname(W.host, sizeof W.host) != 0) snprintf(W.host, sizeof W.host, "unknown");
  W.host[sizeof W.host - 1] = '\0';
  for (char *c = W.host; *c; c++)
    if (*c == ' ') *c = '_';
  snprintf(W.path, sizeof W.path, "%s.%s.%ld.txt", p, W.host, (long)getpid());
  FILE *f = fopen(W.path, "w");
  if (!f) {
    fprintf(stderr, "llamp_kernel_record: cannot write %s (LLAMP_KERNEL_RECORD)\n", W.path);
    return;
  }
  fprintf(f, "# llamp kernel records: name host d1 d2 d3 seconds\n");
  fclose(f);
  W.on = 1;
  atexit(at_exit);
}

static void add(const char *name, const double *d, double seconds) {
  if (W.n == W.cap) {
    if (W.cap >= (1u << 20)) flush();
    if (W.n == W.cap) {
      size_t cap = W.cap ? 2 * W.cap : 4096;
      rec_t *r = realloc(W.r, cap * sizeof *r);
      if (!r) return;
      W.r = r;
      W.cap = cap;
    }
  }
  W.r[W.n].name = name;
  memcpy(W.r[W.n].d, d, sizeof W.r[W.n].d);
  W.r[W.n].seconds = seconds;
  W.n++;
}

static void open_region(const char *name, double d1, double d2, double d3) {
  W.name = name;
  W.d[0] = d1, W.d[1] = d2, W.d[2] = d3;
  W.t0 = now();
}

static void close_region(void) { add(W.name, W.d, now() - W.t0); }

int llamp_region_rt_begin(const char *name, double d1, double d2, double d3) {
  setup();
  if (W.depth++ == 0 && W.on) open_region(name, d1, d2, d3);
  return 0;
}

void llamp_region_rt_end(void) {
  if (W.depth && --W.depth == 0 && W.on) close_region();
}

int llamp_region_rt_enter(const char *name, double d1, double d2, double d3) {
  llamp_region_rt_begin(name, d1, d2, d3);
  return 1;
}

void llamp_region_rt_leave(void) { llamp_region_rt_end(); }

int llamp_region_rt_models(void) { return 0; } /* natively the code always runs */

/* ---- BLAS ------------------------------------------------------------------- */

typedef struct {
  const char *kernel, *symbol;
  void *real;
} blas_fn_t;

static void *real_fn(blas_fn_t *f) {
  if (!f->real && !(f->real = dlsym(RTLD_NEXT, f->symbol))) {
    fprintf(stderr, "llamp_kernel_record: no library after the recorder provides %s (link a BLAS)\n", f->symbol);
    abort();
  }
  return f->real;
}

/* a BLAS call inside a region belongs to the region */
#define RUN(f, d1, d2, d3, must, call)                                      \
  do {                                                                      \
    (void)(must);                                                           \
    setup();                                                                \
    if (W.depth || !W.on) {                                                 \
      call;                                                                 \
      break;                                                                \
    }                                                                       \
    W.depth++;                                                              \
    double d_[3] = {(double)(d1), (double)(d2), (double)(d3)}, t_ = now();  \
    call;                                                                   \
    add(blas[f].kernel, d_, now() - t_);                                    \
    W.depth--;                                                              \
  } while (0)

#include "blas_wrappers.inc"
