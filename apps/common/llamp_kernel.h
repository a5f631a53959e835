/* llamp_kernel.h: the one compute-kernel hook of the proxy applications.
 *
 *   LLAMP_KERNEL("dgemm", m, n, k, cblas_dgemm(...));
 *
 * wraps a compute kernel with a name and up to three dimensions.  What it does
 * depends on the build and on the environment:
 *
 *   native build (mpicc)      the code runs.  With LLAMP_KERNEL_PROFILE=path
 *                             every call is timed and llamp_kernel_finalize()
 *                             writes, on rank 0, a model file fitted to the
 *                             calls of all ranks (the format below).
 *   SMPI build (smpicc)       the code runs and SimGrid times it as part of the
 *                             CPU burst (smpirun needs --cfg=smpi/host-speed,
 *                             see docs/apps.md and llamp_hostspeed) -- unless
 *   SMPI + LLAMP_KERNEL_MODEL a model line names the kernel (or a `*` line
 *                             exists): then the code is skipped and
 *                             smpi_execute_benched(duration) advances the
 *                             rank's simulated clock instead.  Results are then
 *                             meaningless and the applications skip their
 *                             verification and say so.
 *
 * Model file: one kernel per line, `#` starts a comment,
 *
 *   name a b [c [d]]     duration = a + b*d1*d2*d3 + c*d1*d2 + d*d1   (seconds)
 *
 * missing coefficients are 0, a negative result is clamped to 0, `*` as the name
 * applies to every kernel without a line of its own.  A malformed file stops
 * the run with a message naming the file and line.
 *
 * Detection of SMPI: smpicc force-includes smpi/smpi_helpers.h, which defines
 * SMPI_HELPERS_H in every translation unit; <mpi.h> of SimGrid defines SMPI_H.
 * The apps' build also passes -DLLAMP_SMPI=1.  Any of the three selects SMPI.
 *
 * Rules for the wrapped code: it must not leave the macro by break, continue,
 * goto or return, must not call MPI, and kernels do not nest.  Its results must
 * not decide the control flow when it may be skipped: an application asks
 * llamp_kernel_modeled() and then runs a fixed number of iterations.
 */
#ifndef LLAMP_KERNEL_H
#define LLAMP_KERNEL_H

#include <mpi.h>

#if defined(LLAMP_SMPI) || defined(SMPI_HELPERS_H) || defined(SMPI_H)
#define LLAMP_KERNEL_UNDER_SMPI 1
#else
#define LLAMP_KERNEL_UNDER_SMPI 0
#endif

/* Nonzero when llamp_kernel_begin has work to do (profiling or models). */
extern int llamp_kernel_active_;

/* Reads LLAMP_KERNEL_MODEL and LLAMP_KERNEL_PROFILE; call after MPI_Init on
 * every rank.  Prints a note on rank 0 of `comm` when a variable is ignored by
 * this build.  A bad model file aborts the run (MPI_Abort) with a message. */
void llamp_kernel_init(MPI_Comm comm);

/* Collective over `comm`: writes the profile (when profiling) and frees the
 * model.  Call before MPI_Finalize. */
void llamp_kernel_finalize(MPI_Comm comm);

/* Registers a model for `name` unless the model file already has one: the
 * application's built-in default (used by latency_example under SMPI).  Has
 * no effect in native builds.  `name` must be a string that outlives the run. */
void llamp_kernel_model_default(const char *name, double a, double b, double c, double d);

/* 1 when, on this rank, some kernel may be replaced by a model (SMPI build
 * with a model file or a default registered), 0 otherwise. */
int llamp_kernel_modeled(void);

/* Number of kernel calls replaced by their model so far on this rank. */
long llamp_kernel_skipped(void);

/* One line describing the hook's mode, for the applications' banners. */
const char *llamp_kernel_describe(void);

/* Slow paths of the macro. */
int llamp_kernel_begin_slow(const char *name, double d1, double d2, double d3);
void llamp_kernel_end_slow(void);

/* 1: run the code, 0: the model replaced it. */
static inline int llamp_kernel_begin(const char *name, double d1, double d2, double d3)
{
    if (!llamp_kernel_active_)
        return 1;
    return llamp_kernel_begin_slow(name, d1, d2, d3);
}

static inline void llamp_kernel_end(void)
{
    if (llamp_kernel_active_)
        llamp_kernel_end_slow();
}

#define LLAMP_KERNEL(name, d1, d2, d3, ...)                                                    \
    do {                                                                                       \
        if (llamp_kernel_begin((name), (double)(d1), (double)(d2), (double)(d3))) {            \
            __VA_ARGS__;                                                                       \
            llamp_kernel_end();                                                                \
        }                                                                                      \
    } while (0)

#endif /* LLAMP_KERNEL_H */
