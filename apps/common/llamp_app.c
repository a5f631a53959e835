/* llamp_app.c: option values with units and the verdict line (llamp_app.h). */
#define _GNU_SOURCE
#include "llamp_app.h"

#include <getopt.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int world_rank(void)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int llamp_app_parse_count(const char *s, long *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno)
        return -1;
    long long mult = 1;
    if (*end == 'K' || *end == 'k')
        mult = 1LL << 10;
    else if (*end == 'M')
        mult = 1LL << 20;
    else if (*end == 'G')
        mult = 1LL << 30;
    if (mult != 1) {
        end++;
        if (*end == 'i')
            end++;
        if (*end == 'B')
            end++;
    }
    if (*end != '\0' || v > (long long)(0x7fffffffffffffffLL / mult))
        return -1;
    *out = (long)(v * mult);
    return 0;
}

int llamp_app_parse_time(const char *s, double *seconds)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0)
        return -1;
    double scale = 1e-6;
    if (strcmp(end, "ns") == 0)
        scale = 1e-9;
    else if (strcmp(end, "us") == 0 || *end == '\0')
        scale = 1e-6;
    else if (strcmp(end, "ms") == 0)
        scale = 1e-3;
    else if (strcmp(end, "s") == 0)
        scale = 1;
    else
        return -1;
    *seconds = v * scale;
    return 0;
}

/* Splits s on ',' or 'x' into at most n counts; returns how many. */
static int split_counts(const char *s, long *v, int n)
{
    char buf[256];
    if (!s || strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    int k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",x", &save); tok; tok = strtok_r(NULL, ",x", &save)) {
        if (k == n || llamp_app_parse_count(tok, &v[k]) || v[k] <= 0)
            return -1;
        k++;
    }
    return k;
}

int llamp_app_opt_grid(const char *app, const char *opt, const char *arg, long v[3])
{
    if (!llamp_app_parse_dims(arg, v))
        return 0;
    llamp_app_usage_error(app, "--%s: expected N, NX,NY or NX,NY,NZ, got '%s'", opt, arg);
    return LLAMP_APP_EXIT_USAGE;
}

int llamp_app_opt_procs(const char *app, const char *arg, int dims[3])
{
    long v[3];
    if (llamp_app_parse_dims(arg, v) || strchr(arg, ',') == NULL) {
        llamp_app_usage_error(app, "--dims: expected PX,PY,PZ, got '%s'", arg);
        return LLAMP_APP_EXIT_USAGE;
    }
    for (int d = 0; d < 3; d++)
        dims[d] = (int)v[d];
    return 0;
}

int llamp_app_parse_dims(const char *s, long v[3])
{
    int k = split_counts(s, v, 3);
    if (k == 1) {
        v[1] = v[2] = v[0];
        return 0;
    }
    if (k == 2) {
        v[2] = 1;
        return 0;
    }
    return k == 3 ? 0 : -1;
}

int llamp_app_parse_grid(const char *s, int *p, int *q)
{
    long v[2];
    if (split_counts(s, v, 2) != 2 || v[0] > 1 << 20 || v[1] > 1 << 20)
        return -1;
    *p = (int)v[0];
    *q = (int)v[1];
    return 0;
}

int llamp_app_parse_sizes(const char *s, long *out, int max)
{
    char buf[1024];
    if (!s || strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    int n = 0;
    char *colon = strchr(buf, ':');
    if (colon) {
        *colon = '\0';
        long lo, hi;
        if (llamp_app_parse_count(buf, &lo) || llamp_app_parse_count(colon + 1, &hi) || lo > hi)
            return -1;
        if (lo == 0) {
            if (n == max)
                return -1;
            out[n++] = 0;
            lo = 1;
        }
        long p = 1;
        while (p < lo)
            p <<= 1;
        for (; p <= hi; p <<= 1) {
            if (n == max)
                return -1;
            out[n++] = p;
        }
        return n;
    }
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == max || llamp_app_parse_count(tok, &out[n]))
            return -1;
        n++;
    }
    return n > 0 ? n : -1;
}

void llamp_app_usage_error(const char *app, const char *fmt, ...)
{
    if (world_rank() != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", app);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see --help)\n");
    va_end(ap);
}

void llamp_app_version(const char *app)
{
    if (world_rank() == 0)
        printf("%s (smpi-llamp proxy apps) %s, %s build\n", app, LLAMP_VERSION,
#if defined(LLAMP_SMPI) || defined(SMPI_HELPERS_H) || defined(SMPI_H)
               "SMPI"
#else
               "native MPI"
#endif
        );
}

int llamp_app_verdict(MPI_Comm comm, int ok, int skipped, const char *fmt, ...)
{
    int in[2] = {ok ? 1 : 0, skipped ? 1 : 0}, out[2];
    int rank;
    MPI_Comm_rank(comm, &rank);
    /* min of ok, max of skipped: one reduction over {ok, -skipped} */
    int v[2] = {in[0], -in[1]};
    MPI_Allreduce(v, out, 2, MPI_INT, MPI_MIN, comm);
    int all_ok = out[0], any_skipped = -out[1];
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (rank == 0) {
        if (any_skipped)
            printf("verification: SKIPPED (%s)\n", detail);
        else
            printf("verification: %s (%s)\n", all_ok ? "PASSED" : "FAILED", detail);
        fflush(stdout);
    }
    if (any_skipped)
        return LLAMP_APP_EXIT_OK;
    return all_ok ? LLAMP_APP_EXIT_OK : LLAMP_APP_EXIT_VERIFY;
}

void llamp_app_waitall(int n, MPI_Request *reqs)
{
    MPI_Status local[16];
    MPI_Status *st = n <= 16 ? local : malloc((size_t)n * sizeof *st);
    MPI_Waitall(n, reqs, st);
    if (st != local)
        free(st);
}

int llamp_app_other_option(const char *app, int c, int rank, void (*usage)(void), char **argv)
{
    if (c == 'h') {
        if (rank == 0)
            usage();
        return LLAMP_APP_EXIT_OK;
    }
    if (c == 'V') {
        llamp_app_version(app);
        return LLAMP_APP_EXIT_OK;
    }
    llamp_app_usage_error(app, "unknown or incomplete option '%s'", argv[optind - 1]);
    return LLAMP_APP_EXIT_USAGE;
}

int llamp_app_no_operands(const char *app, int argc, char **argv)
{
    if (optind < argc) {
        llamp_app_usage_error(app, "unexpected argument '%s'", argv[optind]);
        return LLAMP_APP_EXIT_USAGE;
    }
    return -1;
}

void llamp_app_end_times(void)
{
    const char *e = getenv("LLAMP_APP_END_TIMES");
    if (!e || !*e || strcmp(e, "0") == 0)
        return;
    printf("end %d %.15g\n", world_rank(), MPI_Wtime());
    fflush(stdout);
}
