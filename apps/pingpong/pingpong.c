/* pingpong: blocking and nonblocking ping-pong between ranks 0 and 1 (other
 * ranks wait at the final barrier) over a list of message sizes.
 *
 *   blocking     rank 0: Send, Recv        rank 1: Recv, Send
 *   nonblocking  both: Irecv posted first, then Isend, then Waitall
 *
 * For each size: `--warmup` untimed round trips, then `--reps` timed ones.
 * One-way latency = round trip / 2 (mean and minimum over the repetitions),
 * bandwidth = size / mean one-way time.  Verification: rank 0 fills the
 * message with a pattern that depends on the size and the mode, rank 1 echoes
 * what it received, and rank 0 checks every byte of the last echo.
 */
#define _GNU_SOURCE
#include "llamp_app.h"
#include "llamp_kernel.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 64

typedef struct {
    long sizes[MAX_SIZES];
    int nsizes;
    long reps, warmup;
    int blocking, nonblocking;
} opts_t;

static void usage(void)
{
    printf("usage: pingpong [options]   (2 or more ranks; ranks 0 and 1 play)\n"
           "  --sizes LIST    message sizes in bytes: \"0,8,1K,64K\" or \"A:B\" for 0 (if A\n"
           "                  is 0) and the powers of two from A to B (default 0:1M)\n"
           "  --reps N        timed round trips per size (default 100)\n"
           "  --warmup N      untimed round trips per size (default 10)\n"
           "  --mode M        blocking, nonblocking or both (default both)\n"
           "  -h, --help      this text (under smpirun use -h: SimGrid takes --help)\n"
           "  --version       the version (natively; SimGrid takes it under smpirun)\n"
           "Output: one line per mode and size with the one-way latency (mean, min, us)\n"
           "and the bandwidth (MB/s = 1e6 B/s).\n");
}

static int parse(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"sizes", required_argument, 0, 's'}, {"reps", required_argument, 0, 'r'},
        {"warmup", required_argument, 0, 'w'}, {"mode", required_argument, 0, 'm'},
        {"help", no_argument, 0, 'h'},         {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    const char *app = "pingpong";
    int c, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 's':
            o->nsizes = llamp_app_parse_sizes(optarg, o->sizes, MAX_SIZES);
            if (o->nsizes < 0) {
                llamp_app_usage_error(app, "--sizes: bad list '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            for (int i = 0; i < o->nsizes; i++)
                if (o->sizes[i] > (1L << 30)) {
                    llamp_app_usage_error(app, "--sizes: %ld is more than 1 GiB", o->sizes[i]);
                    return LLAMP_APP_EXIT_USAGE;
                }
            break;
        case 'r':
        case 'w': {
            long *dst = c == 'r' ? &o->reps : &o->warmup;
            if (llamp_app_parse_count(optarg, dst) || (c == 'r' && *dst < 1)) {
                llamp_app_usage_error(app, "--%s: bad count '%s'", c == 'r' ? "reps" : "warmup",
                                      optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        }
        case 'm':
            o->blocking = strcmp(optarg, "blocking") == 0 || strcmp(optarg, "both") == 0;
            o->nonblocking = strcmp(optarg, "nonblocking") == 0 || strcmp(optarg, "both") == 0;
            if (!o->blocking && !o->nonblocking) {
                llamp_app_usage_error(app, "--mode: expected blocking, nonblocking or both, got '%s'",
                                      optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        default:
            return llamp_app_other_option(app, c, rank, usage, argv);
        }
    }
    return llamp_app_no_operands(app, argc, argv);
}

static unsigned char pattern(long i, long size, int mode)
{
    return (unsigned char)(llamp_app_hash((uint64_t)i * 131 + (uint64_t)size * 7 + (uint64_t)mode) & 0xff);
}

/* One round trip of `size` bytes; rank 0 sends `out` and receives into `in`,
 * rank 1 receives into `in` and sends `in` back. */
static void round_trip(int rank, int nonblocking, unsigned char *out, unsigned char *in, int size)
{
    const int tag = 7;
    if (!nonblocking) {
        if (rank == 0) {
            MPI_Send(out, size, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
            MPI_Recv(in, size, MPI_BYTE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, size, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(in, size, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
        }
        return;
    }
    MPI_Request req[2];
    if (rank == 0) {
        MPI_Irecv(in, size, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(out, size, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req[1]);
        llamp_app_waitall(2, req);
    } else {
        MPI_Irecv(in, size, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &req[0]);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        MPI_Isend(in, size, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &req[1]);
        MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts_t o = {.nsizes = 0, .reps = 100, .warmup = 10, .blocking = 1, .nonblocking = 1};
    o.nsizes = llamp_app_parse_sizes("0:1M", o.sizes, MAX_SIZES);
    int rc = parse(argc, argv, &o);
    if (rc < 0 && size < 2) {
        llamp_app_usage_error("pingpong", "needs at least 2 ranks, got %d", size);
        rc = LLAMP_APP_EXIT_USAGE;
    }
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    llamp_kernel_init(MPI_COMM_WORLD);
    long maxsize = 1;
    for (int i = 0; i < o.nsizes; i++)
        if (o.sizes[i] > maxsize)
            maxsize = o.sizes[i];
    unsigned char *out = malloc((size_t)maxsize), *in = malloc((size_t)maxsize);
    int ok = 1;
    long bad_size = -1;
    double checksum = 0, t_total = 0;
    if (rank == 0) {
        printf("pingpong: ranks 0 and 1 of %d, %d sizes, %ld reps (+%ld warmup)\n", size, o.nsizes,
               o.reps, o.warmup);
        printf("%-12s %12s %14s %14s %14s\n", "mode", "bytes", "lat_mean_us", "lat_min_us",
               "bw_MBps");
    }
    double t_start = llamp_app_now();
    for (int mode = 0; mode < 2; mode++) {
        if ((mode == 0 && !o.blocking) || (mode == 1 && !o.nonblocking))
            continue;
        for (int s = 0; s < o.nsizes; s++) {
            int n = (int)o.sizes[s];
            if (rank == 0) {
                for (long i = 0; i < n; i++)
                    out[i] = pattern(i, n, mode);
                memset(in, 0, (size_t)n);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            double tmin = INFINITY, tsum = 0;
            if (rank < 2) {
                for (long r = 0; r < o.warmup; r++)
                    round_trip(rank, mode, out, in, n);
                for (long r = 0; r < o.reps; r++) {
                    double t0 = llamp_app_now();
                    round_trip(rank, mode, out, in, n);
                    double t = llamp_app_now() - t0;
                    tsum += t;
                    if (t < tmin)
                        tmin = t;
                }
            }
            if (rank == 0) {
                for (long i = 0; i < n; i++) {
                    if (in[i] != out[i]) {
                        ok = 0;
                        bad_size = n;
                        break;
                    }
                    checksum += in[i];
                }
                double mean = tsum / (double)o.reps / 2, mn = tmin / 2;
                printf("%-12s %12d %14.3f %14.3f %14.2f\n", mode ? "nonblocking" : "blocking", n,
                       mean * 1e6, mn * 1e6, mean > 0 ? (double)n / mean * 1e-6 : 0.0);
                t_total += tsum;
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double elapsed = llamp_app_now() - t_start;
    if (rank == 0) {
        printf("time: %.6e s (all timed round trips %.6e s)\n", elapsed, t_total);
        printf("checksum: %.0f\n", checksum);
    }
    if (bad_size >= 0)
        fprintf(stderr, "pingpong: echo of %ld bytes differs from what was sent\n", bad_size);
    rc = llamp_app_verdict(MPI_COMM_WORLD, ok, 0, "every echoed byte matched on rank 0");
    free(out);
    free(in);
    llamp_kernel_finalize(MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
