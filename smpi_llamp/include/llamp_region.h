/* llamp_region.h - annotate a compute region for smpi-llamp's kernel models
 * (docs/models.md, "Kernel models").
 *
 *   #include <llamp_region.h>
 *   LLAMP_REGION("stencil", nx, ny, nz, sweep(u, v, nx, ny, nz));   // macro form
 *
 *   llamp_region_begin("assemble", nelem, 0, 0);                    // begin/end form
 *   assemble(...);
 *   llamp_region_end();
 *
 * A region has a name (a kernel model's `name`) and up to three sizes (the
 * model's d1, d2, d3 = m, n, k; pass 0 for the unused ones).
 *
 *   under smpi_llamp-run with a kernel model for the region on the rank's
 *   host (-llamp-kernels FILE, or the `kernels` group of -llamp-config):
 *     macro form      the statement is SKIPPED; a duration drawn from the
 *                     model advances the rank's simulated clock
 *                     (smpi_execute_benched, or smpi_execute_flops_benched
 *                     for a model relative to the host speed)
 *     begin/end form  the code RUNS (its results stay valid), but its CPU
 *                     time is dropped and the drawn duration charged instead
 *   under smpi_llamp-run without a model for it: the code runs and is timed
 *     with the rest of the compute between MPI calls (nothing changes)
 *   natively with the recorder (LLAMP_KERNEL_RECORD=PREFIX and
 *     libllamp_kernel_record.so linked or in LD_PRELOAD): the code runs and
 *     each call's duration and sizes are recorded for llamp-calibrate kernels
 *   built without smpi-llamp: the code runs (the functions are weak).
 *
 * Rules: no MPI call inside a region; regions do not nest (an inner region,
 * or a BLAS call inside one, just runs); when the macro form may skip its
 * statement, the statement's results must not steer communication.
 * llamp_region_begin returns 1 when a model replaces the region's time. */
#ifndef LLAMP_REGION_H
#define LLAMP_REGION_H

#ifdef __cplusplus
extern "C" {
#endif

/* The implementations (smpi-llamp's capture archive, or the native
 * recorder); weak, so that a program built without them still runs. */
int llamp_region_rt_begin(const char *name, double d1, double d2, double d3) __attribute__((weak));
void llamp_region_rt_end(void) __attribute__((weak));
int llamp_region_rt_enter(const char *name, double d1, double d2, double d3) __attribute__((weak));
void llamp_region_rt_leave(void) __attribute__((weak));
int llamp_region_rt_models(void) __attribute__((weak));

static inline int llamp_region_begin(const char *name, double d1, double d2, double d3) {
  return llamp_region_rt_begin ? llamp_region_rt_begin(name, d1, d2, d3) : 0;
}
static inline void llamp_region_end(void) {
  if (llamp_region_rt_end) llamp_region_rt_end();
}
/* 1 when kernel models may replace regions in this run (under
 * smpi_llamp-run with models), 0 otherwise: a program that skips regions
 * should then also skip checking their results. */
static inline int llamp_region_models(void) {
  return llamp_region_rt_models ? llamp_region_rt_models() : 0;
}
/* The macro form's halves: 0 = the model replaced the region (skip it, no
 * llamp_region_leave), 1 = run it, then call llamp_region_leave. */
static inline int llamp_region_enter(const char *name, double d1, double d2, double d3) {
  return llamp_region_rt_enter ? llamp_region_rt_enter(name, d1, d2, d3) : 1;
}
static inline void llamp_region_leave(void) {
  if (llamp_region_rt_leave) llamp_region_rt_leave();
}

#ifdef __cplusplus
}
#endif

#define LLAMP_REGION(name, d1, d2, d3, ...)                                                     \
  do {                                                                                          \
    if (llamp_region_enter((name), (double)(d1), (double)(d2), (double)(d3))) {                 \
      __VA_ARGS__;                                                                              \
      llamp_region_leave();                                                                     \
    }                                                                                           \
  } while (0)

#endif
