/* latency_example: the LLAMP paper's two-rank running example (Fig. 4).
 *
 *   rank 0:  compute c0 | send 4 bytes to rank 1 | compute c1
 *   rank 1:  compute c2 | receive from rank 0    | compute c3
 *
 * Runtime T = max(c0 + c1, max(c2, c0 + message) + c3) for eager messages,
 * so T depends on the latency only while c0 + message > c2: with the defaults
 * (0.1, 1, 0.5, 1 us) the critical latency is 0.4 us minus the overheads.
 *
 * The four computations go through LLAMP_KERNEL as kernels "c0".."c3" with
 * d1 = the duration in ns.  Natively they spin doing real arithmetic until the
 * wall clock has advanced by the duration.  Under SMPI the app registers the
 * built-in model "cN 0 1e-9" (duration = d1 ns, exactly, through
 * smpi_execute_benched) unless --spin is given or LLAMP_KERNEL_MODEL defines
 * the kernel.  Verification: the payload arrives intact and each rank's time
 * is at least its compute; --expect T also checks the makespan (within 1 %).
 */
#define _GNU_SOURCE
#include "llamp_app.h"
#include "llamp_kernel.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The spin loop reads the real clock even under SMPI (smpicc redirects
 * clock_gettime to simulated time, which does not advance inside a burst). */
#ifdef clock_gettime
#undef clock_gettime
#endif

typedef struct {
    double c[4];  /* seconds */
    long bytes;
    long iters;
    int spin;
    double expect; /* seconds, < 0: none */
} opts_t;

static double real_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Real arithmetic for `seconds` of wall-clock time; returns the value so the
 * compiler keeps the work. */
static double spin(double seconds, double x)
{
    double t_end = real_now() + seconds;
    do {
        for (int i = 0; i < 16; i++)
            x = x * 0.999999 + 1e-6;
    } while (real_now() < t_end);
    return x;
}

static void usage(void)
{
    printf("usage: latency_example [options]   (exactly 2 ranks)\n"
           "The LLAMP paper's running example: rank 0 computes c0, sends a message to\n"
           "rank 1, computes c1; rank 1 computes c2, receives, computes c3.\n"
           "  --c0 T --c1 T --c2 T --c3 T  durations (suffix ns|us|ms|s, bare = us;\n"
           "                               defaults 0.1us 1us 0.5us 1us)\n"
           "  --bytes B       message size (default 4)\n"
           "  --iters N       repetitions, each after a barrier (default 1); the\n"
           "                  minimum and mean makespan are reported\n"
           "  --spin          under SMPI, run the spin loops (timed by SimGrid) instead\n"
           "                  of the built-in exact models\n"
           "  --expect T      also verify that the minimum makespan is T (within 1 %%)\n"
           "  -h, --help      this text (under smpirun use -h: SimGrid takes --help)\n"
           "  --version       the version (natively; SimGrid takes it under smpirun)\n");
}

/* Returns -1 to run, otherwise the exit code. */
static int parse(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"c0", required_argument, 0, '0'},    {"c1", required_argument, 0, '1'},
        {"c2", required_argument, 0, '2'},    {"c3", required_argument, 0, '3'},
        {"bytes", required_argument, 0, 'b'}, {"iters", required_argument, 0, 'i'},
        {"spin", no_argument, 0, 's'},        {"expect", required_argument, 0, 'e'},
        {"help", no_argument, 0, 'h'},        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    const char *app = "latency_example";
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case '0': case '1': case '2': case '3':
            if (llamp_app_parse_time(optarg, &o->c[c - '0'])) {
                llamp_app_usage_error(app, "--c%c: bad duration '%s'", c, optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        case 'b':
            if (llamp_app_parse_count(optarg, &o->bytes) || o->bytes > (1L << 30)) {
                llamp_app_usage_error(app, "--bytes: bad size '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        case 'i':
            if (llamp_app_parse_count(optarg, &o->iters) || o->iters < 1) {
                llamp_app_usage_error(app, "--iters: expected a positive count, got '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        case 's':
            o->spin = 1;
            break;
        case 'e':
            if (llamp_app_parse_time(optarg, &o->expect)) {
                llamp_app_usage_error(app, "--expect: bad duration '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        case 'h':
            {
                int rank;
                MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                if (rank == 0)
                    usage();
            }
            return LLAMP_APP_EXIT_OK;
        case 'V':
            llamp_app_version(app);
            return LLAMP_APP_EXIT_OK;
        default:
            llamp_app_usage_error(app, "unknown or incomplete option '%s'", argv[optind - 1]);
            return LLAMP_APP_EXIT_USAGE;
        }
    }
    return llamp_app_no_operands(app, argc, argv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts_t o = {{0.1e-6, 1e-6, 0.5e-6, 1e-6}, 4, 1, 0, -1};
    int rc = parse(argc, argv, &o);
    if (rc < 0 && size != 2) {
        llamp_app_usage_error("latency_example", "needs exactly 2 ranks, got %d", size);
        rc = LLAMP_APP_EXIT_USAGE;
    }
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    llamp_kernel_init(MPI_COMM_WORLD);
    static const char *names[4] = {"c0", "c1", "c2", "c3"};
    if (!o.spin)
        for (int k = 0; k < 4; k++)
            llamp_kernel_model_default(names[k], 0, 1e-9, 0, 0);

    unsigned char *buf = malloc((size_t)o.bytes + 1);
    double x = 1.0;
    int payload_ok = 1;
    double best = INFINITY, sum = 0;
    double stamp[3] = {0, 0, 0}, best_stamp[2][3] = {{0}};
    long checksum = 0;
    const double *c = o.c;
    for (long it = 0; it < o.iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = llamp_app_now();
        if (rank == 0) {
            LLAMP_KERNEL(names[0], c[0] * 1e9, 1, 1, x = spin(c[0], x));
            stamp[0] = llamp_app_now() - t0;
            for (long i = 0; i < o.bytes; i++)
                buf[i] = (unsigned char)(i * 7 + it + 1);
            MPI_Send(buf, (int)o.bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            stamp[1] = llamp_app_now() - t0;
            LLAMP_KERNEL(names[1], c[1] * 1e9, 1, 1, x = spin(c[1], x));
            stamp[2] = llamp_app_now() - t0;
        } else {
            LLAMP_KERNEL(names[2], c[2] * 1e9, 1, 1, x = spin(c[2], x));
            stamp[0] = llamp_app_now() - t0;
            MPI_Recv(buf, (int)o.bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            stamp[1] = llamp_app_now() - t0;
            LLAMP_KERNEL(names[3], c[3] * 1e9, 1, 1, x = spin(c[3], x));
            stamp[2] = llamp_app_now() - t0;
            for (long i = 0; i < o.bytes; i++) {
                if (buf[i] != (unsigned char)(i * 7 + it + 1))
                    payload_ok = 0;
                checksum += buf[i];
            }
        }
        double both[2][3];
        MPI_Gather(stamp, 3, MPI_DOUBLE, both, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double t = fmax(both[0][2], both[1][2]);
            sum += t;
            if (t < best) {
                best = t;
                memcpy(best_stamp, both, sizeof both);
            }
        }
    }
    long total_checksum = 0;
    MPI_Reduce(&checksum, &total_checksum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    int ok = payload_ok;
    char detail[256];
    if (rank == 0) {
        printf("latency_example: 2 ranks, c0=%gus c1=%gus c2=%gus c3=%gus, %ld B message, %ld iterations\n",
               c[0] * 1e6, c[1] * 1e6, c[2] * 1e6, c[3] * 1e6, o.bytes, o.iters);
        printf("kernels: %s\n", llamp_kernel_describe());
        printf("rank 0: c0 end %.4f us, send end %.4f us, c1 end %.4f us\n", best_stamp[0][0] * 1e6,
               best_stamp[0][1] * 1e6, best_stamp[0][2] * 1e6);
        printf("rank 1: c2 end %.4f us, recv end %.4f us, c3 end %.4f us\n", best_stamp[1][0] * 1e6,
               best_stamp[1][1] * 1e6, best_stamp[1][2] * 1e6);
        printf("time: %.6e s (minimum makespan; mean %.6e s)\n", best, sum / (double)o.iters);
        printf("checksum: %ld\n", total_checksum);
        const double slack = 1e-9;
        int bounds = best_stamp[0][2] + slack >= c[0] + c[1] && best_stamp[1][2] + slack >= c[2] + c[3] &&
                     best_stamp[1][1] + slack >= best_stamp[0][0];
        ok = ok && bounds;
        int n = snprintf(detail, sizeof detail, "payload %s; T0 >= c0+c1, T1 >= c2+c3, recv after c0: %s",
                         "checked on rank 1", bounds ? "yes" : "NO");
        if (o.expect >= 0) {
            int hit = fabs(best - o.expect) <= fmax(0.01 * o.expect, 1e-9);
            ok = ok && hit;
            snprintf(detail + n, sizeof detail - (size_t)n, "; T = %.4f us vs expected %.4f us: %s",
                     best * 1e6, o.expect * 1e6, hit ? "ok" : "MISMATCH");
        }
    }
    MPI_Bcast(detail, sizeof detail, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 1 && !payload_ok)
        fprintf(stderr, "latency_example: the payload arrived corrupted\n");
    rc = llamp_app_verdict(MPI_COMM_WORLD, ok, 0, "%s", detail);
    if (x == 42.4242)
        printf("%g\n", x);
    free(buf);
    llamp_kernel_finalize(MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
