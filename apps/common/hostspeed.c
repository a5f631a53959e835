/* llamp_hostspeed: measures this machine's flop rate on three small kernels
 * and prints the --cfg=smpi/host-speed value for smpirun.
 *
 * SMPI times every CPU burst of an application on the simulating machine,
 * converts the seconds to flops with smpi/host-speed, and runs those flops on
 * the platform's host at its `speed`.  Setting host-speed to the rate measured
 * here, and the platform's speed to the target machine's rate for the same
 * kind of code, predicts the target's compute time.  (The test platform
 * apps/common/platform_small.xml uses speed="1Gf" with host-speed 1Gf: the
 * simulated compute time is then the measured time.)
 *
 *   llamp_hostspeed                     all three kernels, then the line
 *   llamp_hostspeed --cfg-only          just --cfg=smpi/host-speed:<rate>f
 *   llamp_hostspeed --kernel dgemm      use dgemm's rate in that line
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef LLAMP_HAVE_OPENBLAS
#include <cblas.h>
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile double sink;

/* 7-point Jacobi sweep on n^3 (8 flops per interior point). */
static double rate_stencil(double min_seconds)
{
    const int n = 64, s = n + 2;
    size_t total = (size_t)s * s * s;
    double *u = calloc(total, sizeof *u), *v = calloc(total, sizeof *v);
    for (size_t i = 0; i < total; i++)
        u[i] = (double)(i % 17) * 0.01;
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        long sweeps = 0;
        double t0 = now(), t;
        do {
            for (int k = 1; k <= n; k++)
                for (int j = 1; j <= n; j++)
                    for (int i = 1; i <= n; i++) {
                        size_t c = ((size_t)k * s + j) * s + i;
                        v[c] = 0.1 + (u[c - 1] + u[c + 1] + u[c - s] + u[c + s] + u[c - s * s] +
                                      u[c + s * s]) * (1.0 / 6.0);
                    }
            double *w = u;
            u = v;
            v = w;
            sweeps++;
            t = now() - t0;
        } while (t < min_seconds / 3);
        double r = 8.0 * n * n * n * sweeps / t;
        if (r > best)
            best = r;
    }
    sink = u[total / 2];
    free(u);
    free(v);
    return best;
}

/* y += a x on 2^20 elements (2 flops per element). */
static double rate_daxpy(double min_seconds)
{
    const size_t n = 1u << 20;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        x[i] = 1e-3 * (double)(i % 13);
        y[i] = 0;
    }
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        long calls = 0;
        double t0 = now(), t;
        do {
            double a = 1e-9 * (double)(calls + 1);
            for (size_t i = 0; i < n; i++)
                y[i] += a * x[i];
            calls++;
            t = now() - t0;
        } while (t < min_seconds / 3);
        double r = 2.0 * (double)n * calls / t;
        if (r > best)
            best = r;
    }
    sink = y[n / 2];
    free(x);
    free(y);
    return best;
}

#ifdef LLAMP_HAVE_OPENBLAS
/* C += A B with n = 256, one OpenBLAS thread (2 n^3 flops). */
static double rate_dgemm(double min_seconds)
{
    const int n = 256;
    openblas_set_num_threads(1);
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n),
           *c = calloc((size_t)n * n, sizeof(double));
    for (int i = 0; i < n * n; i++) {
        a[i] = 1e-3 * (i % 11);
        b[i] = 1e-3 * (i % 7);
    }
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        long calls = 0;
        double t0 = now(), t;
        do {
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 1.0,
                        c, n);
            calls++;
            t = now() - t0;
        } while (t < min_seconds / 3);
        double r = 2.0 * n * n * (double)n * calls / t;
        if (r > best)
            best = r;
    }
    sink = c[n];
    free(a);
    free(b);
    free(c);
    return best;
}
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: llamp_hostspeed [--kernel stencil|daxpy|dgemm] [--seconds S] [--cfg-only]\n"
            "Measures this machine's flop rate (best of 3) and prints the smpirun option\n"
            "--cfg=smpi/host-speed:<rate>f.  Default kernel: stencil (the apps' plain C loops).\n"
            "  --kernel K    kernel whose rate goes into the option line\n"
            "  --seconds S   measuring time per kernel (default 0.3)\n"
            "  --cfg-only    print only the option (e.g. smpirun $(llamp_hostspeed --cfg-only) ...)\n");
}

int main(int argc, char **argv)
{
    const char *kernel = "stencil";
    double seconds = 0.3;
    int cfg_only = 0;
    static const struct option opts[] = {{"kernel", required_argument, 0, 'k'},
                                         {"seconds", required_argument, 0, 's'},
                                         {"cfg-only", no_argument, 0, 'c'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'k':
            kernel = optarg;
            break;
        case 's':
            seconds = atof(optarg);
            if (!(seconds > 0)) {
                fprintf(stderr, "llamp_hostspeed: --seconds needs a positive number\n");
                return 1;
            }
            break;
        case 'c':
            cfg_only = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "llamp_hostspeed: unexpected argument '%s'\n", argv[optind]);
        return 1;
    }
    int want_dgemm = strcmp(kernel, "dgemm") == 0;
    if (strcmp(kernel, "stencil") && strcmp(kernel, "daxpy") && !want_dgemm) {
        fprintf(stderr, "llamp_hostspeed: unknown kernel '%s' (stencil, daxpy, dgemm)\n", kernel);
        return 1;
    }
#ifndef LLAMP_HAVE_OPENBLAS
    if (want_dgemm) {
        fprintf(stderr, "llamp_hostspeed: built without OpenBLAS, no dgemm\n");
        return 1;
    }
#endif
    double chosen = 0;
    if (!cfg_only || strcmp(kernel, "stencil") == 0) {
        double r = rate_stencil(seconds);
        if (!cfg_only)
            printf("stencil7 %10.3f Gflop/s  (7-point Jacobi, 64^3, 8 flop/point)\n", r * 1e-9);
        if (strcmp(kernel, "stencil") == 0)
            chosen = r;
    }
    if (!cfg_only || strcmp(kernel, "daxpy") == 0) {
        double r = rate_daxpy(seconds);
        if (!cfg_only)
            printf("daxpy    %10.3f Gflop/s  (2^20 elements, 2 flop/element)\n", r * 1e-9);
        if (strcmp(kernel, "daxpy") == 0)
            chosen = r;
    }
#ifdef LLAMP_HAVE_OPENBLAS
    if (!cfg_only || want_dgemm) {
        double r = rate_dgemm(seconds);
        if (!cfg_only)
            printf("dgemm    %10.3f Gflop/s  (OpenBLAS, 1 thread, n=256)\n", r * 1e-9);
        if (want_dgemm)
            chosen = r;
    }
#endif
    printf("--cfg=smpi/host-speed:%.4gf\n", chosen);
    return 0;
}
