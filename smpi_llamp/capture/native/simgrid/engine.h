/* native/simgrid/engine.h - what capture_rank.c takes from SimGrid, for the
 * native (MPICH, LD_PRELOAD) build of the same file (docs/native.md).
 *
 * The native capture compiles capture_rank.c unchanged with this directory
 * first on the include path:
 *   simgrid_get_clock()   CLOCK_MONOTONIC of this process plus the offset to
 *                         rank 0's clock estimated at MPI_Init
 *                         (native_session.c), in seconds
 *   smpi_bench_begin/end  nothing: natively no simulator charges compute. */
#ifndef LLAMP_NATIVE_SIMGRID_ENGINE_H
#define LLAMP_NATIVE_SIMGRID_ENGINE_H

#include <time.h>

/* Seconds to add to this rank's CLOCK_MONOTONIC to get rank 0's. */
extern double llamp_native_clock_offset __attribute__((visibility("hidden")));

static inline double llamp_native_monotonic(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double simgrid_get_clock(void) {
  return llamp_native_monotonic() + llamp_native_clock_offset;
}

static inline void smpi_bench_begin(void) {}
static inline void smpi_bench_end(void) {}

#endif
