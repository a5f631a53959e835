/* llamp_app.h: what the proxy applications share besides the kernel hook:
 * option values with units, the verdict line and exit codes, a counter-based
 * random generator (any rank can produce any entry of an input), timing.
 *
 * Conventions of every application (docs/apps.md):
 *   --help      usage on stdout, exit 0        --version   version, exit 0
 *   bad option  one line on stderr, exit 1     verification failed: exit 2
 *   output      "key: value" lines on rank 0, ending with
 *               "verification: PASSED|FAILED|SKIPPED (detail)"
 */
#ifndef LLAMP_APP_H
#define LLAMP_APP_H

#include <mpi.h>
#include <stdint.h>

#define LLAMP_APP_EXIT_OK 0
#define LLAMP_APP_EXIT_USAGE 1
#define LLAMP_APP_EXIT_VERIFY 2

#ifndef LLAMP_VERSION
#define LLAMP_VERSION "0.1.0"
#endif

/* A non-negative integer with an optional binary suffix K, M, G (also Ki,
 * KiB, ...): "64", "4K" = 4096.  0 on success, -1 on a malformed value. */
int llamp_app_parse_count(const char *s, long *out);

/* A duration with a suffix ns, us, ms or s; a bare number means
 * microseconds.  Stored in seconds.  0 on success, -1 on error. */
int llamp_app_parse_time(const char *s, double *seconds);

/* "32" (all three equal), "32,16,8" or "32x16x8", or "32,16" (the third is
 * 1); each > 0. */
int llamp_app_parse_dims(const char *s, long v[3]);

/* A process grid "2x4" or "2,4"; each > 0. */
int llamp_app_parse_grid(const char *s, int *p, int *q);

/* A list of message sizes: "0,1,8,1K", or "A:B" for 0 (when A is 0) and the
 * powers of two from max(A,1) to B.  Writes at most `max` values; returns the
 * count, or -1 on error. */
int llamp_app_parse_sizes(const char *s, long *out, int max);

/* Prints "app: message (see --help)" on stderr on rank 0 of MPI_COMM_WORLD. */
void llamp_app_usage_error(const char *app, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The options every 3-D app shares: --weak / --strong (`opt`) N, NX,NY or
 * NX,NY,NZ into v, and --dims PX,PY,PZ into dims.  0, or the usage error
 * printed and LLAMP_APP_EXIT_USAGE. */
int llamp_app_opt_grid(const char *app, const char *opt, const char *arg, long v[3]);
int llamp_app_opt_procs(const char *app, const char *arg, int dims[3]);

/* Prints "--version" output on rank 0. */
void llamp_app_version(const char *app);

/* The end of every app's getopt switch: 'h' (usage on rank 0), 'V'
 * (--version) and anything unknown.  Returns the exit code to use. */
int llamp_app_other_option(const char *app, int c, int rank, void (*usage)(void), char **argv);

/* Operands left after the options are an error: LLAMP_APP_EXIT_USAGE, else -1. */
int llamp_app_no_operands(const char *app, int argc, char **argv);

/* Collective over `comm`.  skipped != 0 (on any rank): prints
 * "verification: SKIPPED (detail)" and returns 0.  Otherwise all ranks' ok
 * flags are combined; rank 0 prints PASSED or FAILED with the detail; the
 * return value is the exit code (0 or LLAMP_APP_EXIT_VERIFY) on every rank. */
int llamp_app_verdict(MPI_Comm comm, int ok, int skipped, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* MPI_Waitall with a status array (GCC 12 warns about MPICH's
 * MPI_STATUSES_IGNORE in some call sites); aborts on an MPI error. */
void llamp_app_waitall(int n, MPI_Request *reqs);

/* With LLAMP_APP_END_TIMES set (to anything but 0), every rank prints
 * "end RANK TIME" (MPI_Wtime) on stdout: call it after the last computation,
 * just before MPI_Finalize.  tests/consistency/run.sh takes the largest TIME
 * as the simulated run time. */
void llamp_app_end_times(void);

/* splitmix64 of x: a well-mixed 64-bit hash. */
static inline uint64_t llamp_app_hash(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Uniform in [0, 1) from a key (53 random bits). */
static inline double llamp_app_uniform(uint64_t key)
{
    return (double)(llamp_app_hash(key) >> 11) * 0x1.0p-53;
}

/* Wall-clock seconds: MPI_Wtime (simulated time under SMPI). */
static inline double llamp_app_now(void)
{
    return MPI_Wtime();
}

#endif /* LLAMP_APP_H */
