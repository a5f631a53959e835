/* kernels_rank.c - kernel models in the rank (per-rank half, compiled into
 * the program): annotated regions (llamp_region.h) and the interposed BLAS
 * calls (cblas_dgemm/dtrsm/dgemv/daxpy/ddot and the Fortran dgemm_ ...).
 *
 * A call with a model on this rank's host is charged a duration drawn by
 * the runtime from the rank's own stream (llamp_capture_kernel_draw), by
 * calling smpi_execute_benched (or smpi_execute_flops_benched for a model
 * relative to the host speed).  Those bind to the capture's hooks
 * (capture_copy.c), which end the compute burst before the call and restart
 * the clock after it: the drawn time is a gap between two records, i.e. part
 * of a calc vertex, and is never measured again as compute.  A region whose
 * code still runs (begin/end form, BLAS in `time` mode, ddot) has its CPU
 * time dropped (llamp_cap_compute_restart) before the draw is charged.
 * Without a model the code runs and is timed with the rest of the burst. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <smpi/smpi.h>

#include "capture_rank.h"
#include "llamp_capture.h"

/* per rank (the program's globals are privatized) */
static struct {
  int depth;        /* inside a region or an interposed call: inner ones just run */
  int handle;       /* begin/end: the model replacing the open region's time, -1 none */
  double d[3];
  struct {
    const char *key; /* name pointer (string literals: one compare finds it) */
    int handle;
  } cache[64];
  int ncache;
} R = {.handle = -1};

static int find(int rank, const char *name) {
  for (int i = 0; i < R.ncache; i++)
    if (R.cache[i].key == name) return R.cache[i].handle;
  int h = llamp_capture_kernel_find((uint32_t)rank, name);
  if (R.ncache < 64) {
    R.cache[R.ncache].key = name;
    R.cache[R.ncache].handle = h;
    R.ncache++;
  }
  return h;
}

/* The model of `name` for this rank, or -1 (no capture, not active, none). */
static int model_of(const char *name, int blas) {
  int mode = 0;
  if (!llamp_capture_kernels_active(&mode) || (blas && !mode)) return -1;
  int rank = llamp_cap_rank();
  return rank < 0 ? -1 : find(rank, name);
}

static void charge(int h, double d1, double d2, double d3) {
  double flops = 0, t = llamp_capture_kernel_draw((uint32_t)llamp_cap_rank(), h, d1, d2, d3, &flops);
  if (flops > 0) smpi_execute_flops_benched(flops);
  else if (t > 0) smpi_execute_benched(t);
}

int llamp_region_rt_models(void) { return llamp_capture_kernels_active(NULL); }

int llamp_region_rt_enter(const char *name, double d1, double d2, double d3) {
  if (R.depth++) return 1;
  int h = model_of(name, 0);
  if (h < 0) return 1;
  charge(h, d1, d2, d3);
  R.depth--;
  return 0;
}

void llamp_region_rt_leave(void) {
  if (R.depth) R.depth--;
}

int llamp_region_rt_begin(const char *name, double d1, double d2, double d3) {
  if (R.depth++) return 0;
  R.handle = model_of(name, 0);
  if (R.handle < 0) return 0;
  R.d[0] = d1, R.d[1] = d2, R.d[2] = d3;
  llamp_cap_sync_compute(); /* the compute before the region is the program's */
  return 1;
}

void llamp_region_rt_end(void) {
  if (!R.depth || --R.depth) return;
  if (R.handle < 0) return;
  llamp_cap_compute_restart(); /* the region's own CPU time: replaced by the draw */
  charge(R.handle, R.d[0], R.d[1], R.d[2]);
  R.handle = -1;
}

/* ---- BLAS ----------------------------------------------------------------------- */

/* One interposed routine: its kernel name and the real function. */
typedef struct {
  const char *kernel, *symbol;
  void *real;
} blas_fn_t;

static void *real_fn(blas_fn_t *f) {
  if (!f->real && !(f->real = dlsym(RTLD_NEXT, f->symbol)))
    llamp_capture_fatal("the program calls %s, but no library after it provides it (link a BLAS)", f->symbol);
  return f->real;
}

/* Before a BLAS call: 0 = run it untouched, 1 = skip it (its time was
 * charged), 2 = run it, then blas_after() replaces its time.  `must_run`:
 * the caller needs its result (ddot). */
static int blas_before(blas_fn_t *f, double d1, double d2, double d3, int must_run) {
  if (R.depth) return 0;
  int h = model_of(f->kernel, 1);
  if (h < 0) return 0;
  int mode = 0;
  llamp_capture_kernels_active(&mode);
  if (mode == 1 && !must_run) {
    charge(h, d1, d2, d3);
    return 1;
  }
  R.depth++;
  R.handle = h;
  R.d[0] = d1, R.d[1] = d2, R.d[2] = d3;
  llamp_cap_sync_compute();
  return 2;
}

static void blas_after(void) {
  R.depth--;
  llamp_cap_compute_restart();
  charge(R.handle, R.d[0], R.d[1], R.d[2]);
  R.handle = -1;
}

#define RUN(f, d1, d2, d3, must, call)                   \
  do {                                                   \
    int a_ = blas_before(&blas[f], d1, d2, d3, must);    \
    if (a_ == 1) break;                                  \
    call;                                                \
    if (a_ == 2) blas_after();                           \
  } while (0)

#include "blas_wrappers.inc"
