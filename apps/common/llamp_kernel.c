/* llamp_kernel.c: models, profiling and the SMPI replacement behind
 * LLAMP_KERNEL (see llamp_kernel.h for the contract and the file format).
 *
 * State is global: one copy per process natively, one copy per rank under
 * SMPI (smpirun's default dlopen privatization gives every rank its own copy
 * of the program's globals). */
#define _GNU_SOURCE
#include "llamp_kernel.h"
/* smpi-llamp's region API (smpi_llamp/include; smpi_llamp-cc and the apps'
 * build put it in the include path).  A build without it has no capture to
 * forward to: the hook then works as before. */
#if defined(__has_include)
#if __has_include("llamp_region.h")
#include "llamp_region.h"
#define LLAMP_KERNEL_REGIONS 1
#endif
#endif
#ifndef LLAMP_KERNEL_REGIONS
static inline int llamp_region_models(void) { return 0; }
static inline int llamp_region_enter(const char *n, double a, double b, double c)
{
    (void)n, (void)a, (void)b, (void)c;
    return 1;
}
static inline void llamp_region_leave(void) {}
static int (*const llamp_region_rt_enter)(const char *, double, double, double) = 0;
#endif

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LLAMP_KERNEL_MAX 64      /* distinct kernel names per run */
#define LLAMP_KERNEL_NAME 48     /* longest name, with the NUL */

typedef struct {
    char name[LLAMP_KERNEL_NAME];
    double a, b, c, d;
} kmodel_t;

/* Profile sums of one kernel: x = d1*d2*d3, y = seconds. */
typedef struct {
    char name[LLAMP_KERNEL_NAME];
    double n, sx, sy, sxx, sxy, syy;
} kprof_t;

/* Pointer cache: the names are string literals, so one pointer compare
 * usually finds the entry. */
typedef struct {
    const char *key;
    int index; /* into models (model mode) or profs (profile mode); -1: none */
} kcache_t;

int llamp_kernel_active_ = 0;

static int g_profile;            /* native: time every call */
static char g_profile_path[4096];
static kmodel_t g_models[LLAMP_KERNEL_MAX];
static int g_nmodels;
static int g_wildcard = -1;      /* index of the `*` model */
static char g_model_path[4096];
static kprof_t g_profs[LLAMP_KERNEL_MAX];
static int g_nprofs;
static kcache_t g_cache[LLAMP_KERNEL_MAX];
static int g_ncache;
static long g_skipped;
static char g_describe[4200];

/* Kernels without a line in LLAMP_KERNEL_MODEL go to smpi-llamp's region API
 * (llamp_region.h) when the program has it: the stochastic kernel models of
 * smpi_llamp-run -llamp-kernels under SMPI, the recorder natively. */
static int g_regions;
static int g_in_region;

/* current kernel (profile mode) */
static int g_cur = -1;
static double g_cur_x;
static struct timespec g_cur_t0;

static void kfail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void kfail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("llamp_kernel: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort();
}

static int find_model(const char *name)
{
    for (int i = 0; i < g_nmodels; i++)
        if (strcmp(g_models[i].name, name) == 0)
            return i;
    return -1;
}

static int add_model(const char *name, double a, double b, double c, double d)
{
    if (g_nmodels == LLAMP_KERNEL_MAX)
        return -1;
    kmodel_t *m = &g_models[g_nmodels];
    snprintf(m->name, sizeof m->name, "%s", name);
    m->a = a;
    m->b = b;
    m->c = c;
    m->d = d;
    if (strcmp(name, "*") == 0)
        g_wildcard = g_nmodels;
    return g_nmodels++;
}

/* Parses the model file; every error names the file and the line. */
static void load_models(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        kfail("LLAMP_KERNEL_MODEL=%s: %s", path, strerror(errno));
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            continue;
        char name[LLAMP_KERNEL_NAME + 1];
        int len = 0;
        while (*p && !isspace((unsigned char)*p)) {
            if (len == LLAMP_KERNEL_NAME - 1)
                kfail("%s:%d: kernel name longer than %d characters", path, lineno,
                      LLAMP_KERNEL_NAME - 1);
            name[len++] = *p++;
        }
        name[len] = '\0';
        double coef[4] = {0, 0, 0, 0};
        int ncoef = 0;
        for (;;) {
            while (isspace((unsigned char)*p))
                p++;
            if (*p == '\0')
                break;
            if (ncoef == 4)
                kfail("%s:%d: more than 4 coefficients (expected: name a b [c [d]])", path,
                      lineno);
            char *end;
            errno = 0;
            double v = strtod(p, &end);
            if (end == p || errno || !isfinite(v) || (*end && !isspace((unsigned char)*end)))
                kfail("%s:%d: bad coefficient '%.*s' (expected a number in seconds)", path,
                      lineno, (int)strcspn(p, " \t\r\n"), p);
            coef[ncoef++] = v;
            p = end;
        }
        if (ncoef < 2)
            kfail("%s:%d: kernel '%s' needs at least 2 coefficients (expected: name a b [c [d]])",
                  path, lineno, name);
        if (find_model(name) >= 0)
            kfail("%s:%d: kernel '%s' has a second line", path, lineno, name);
        if (add_model(name, coef[0], coef[1], coef[2], coef[3]) < 0)
            kfail("%s:%d: more than %d kernels", path, lineno, LLAMP_KERNEL_MAX);
    }
    if (ferror(f))
        kfail("LLAMP_KERNEL_MODEL=%s: read error", path);
    fclose(f);
}

void llamp_kernel_init(MPI_Comm comm)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const char *model = getenv("LLAMP_KERNEL_MODEL");
    const char *profile = getenv("LLAMP_KERNEL_PROFILE");
    g_ncache = 0;
    g_skipped = 0;
    snprintf(g_describe, sizeof g_describe, "%s, kernels run",
             LLAMP_KERNEL_UNDER_SMPI ? "SMPI (timed by SimGrid)" : "native");
    if (model && *model) {
        if (LLAMP_KERNEL_UNDER_SMPI) {
            snprintf(g_model_path, sizeof g_model_path, "%s", model);
            load_models(model);
            llamp_kernel_active_ = 1;
            snprintf(g_describe, sizeof g_describe,
                     "SMPI, kernel models from %s (%d kernels%s)", model, g_nmodels,
                     g_wildcard >= 0 ? ", * for the rest" : "");
        } else if (rank == 0) {
            fprintf(stderr, "note: LLAMP_KERNEL_MODEL is ignored by native builds (kernels run)\n");
        }
    }
    if (profile && *profile) {
        if (!LLAMP_KERNEL_UNDER_SMPI) {
            snprintf(g_profile_path, sizeof g_profile_path, "%s", profile);
            g_profile = 1;
            llamp_kernel_active_ = 1;
            snprintf(g_describe, sizeof g_describe, "native, kernels profiled into %s", profile);
        } else if (rank == 0) {
            fprintf(stderr, "note: LLAMP_KERNEL_PROFILE is ignored by SMPI builds\n");
        }
    }
    const char *rec = getenv("LLAMP_KERNEL_RECORD");
    if (llamp_region_rt_enter &&
        (llamp_region_models() || (!LLAMP_KERNEL_UNDER_SMPI && rec && *rec))) {
        g_regions = 1;
        llamp_kernel_active_ = 1;
        if (llamp_region_models())
            snprintf(g_describe, sizeof g_describe, "SMPI, stochastic kernel models (smpi_llamp-run -llamp-kernels)%s",
                     g_nmodels ? " and LLAMP_KERNEL_MODEL" : "");
        else if (!g_profile)
            snprintf(g_describe, sizeof g_describe, "native, kernels recorded (LLAMP_KERNEL_RECORD=%s)", rec);
    }
}

void llamp_kernel_model_default(const char *name, double a, double b, double c, double d)
{
    if (!LLAMP_KERNEL_UNDER_SMPI || find_model(name) >= 0)
        return;
    if (add_model(name, a, b, c, d) < 0)
        kfail("more than %d kernels", LLAMP_KERNEL_MAX);
    llamp_kernel_active_ = 1;
    g_ncache = 0;
    if (!g_model_path[0])
        snprintf(g_describe, sizeof g_describe, "SMPI, built-in kernel models");
}

int llamp_kernel_modeled(void)
{
    return LLAMP_KERNEL_UNDER_SMPI && (g_nmodels > 0 || llamp_region_models());
}

long llamp_kernel_skipped(void)
{
    return g_skipped;
}

const char *llamp_kernel_describe(void)
{
    return g_describe;
}

static int lookup(const char *name)
{
    for (int i = 0; i < g_ncache; i++)
        if (g_cache[i].key == name)
            return g_cache[i].index;
    int index = -1;
    if (g_profile) {
        for (int i = 0; i < g_nprofs; i++)
            if (strcmp(g_profs[i].name, name) == 0)
                index = i;
        if (index < 0) {
            if (g_nprofs == LLAMP_KERNEL_MAX)
                kfail("more than %d kernel names", LLAMP_KERNEL_MAX);
            if (strlen(name) >= LLAMP_KERNEL_NAME || strchr(name, ' ') || !*name)
                kfail("kernel name '%s' is empty, has a space or is too long", name);
            index = g_nprofs++;
            memset(&g_profs[index], 0, sizeof g_profs[index]);
            snprintf(g_profs[index].name, LLAMP_KERNEL_NAME, "%s", name);
        }
    } else {
        index = find_model(name);
        if (index < 0)
            index = g_wildcard;
    }
    if (g_ncache < LLAMP_KERNEL_MAX)
        g_cache[g_ncache++] = (kcache_t){name, index};
    return index;
}

int llamp_kernel_begin_slow(const char *name, double d1, double d2, double d3)
{
    int i = lookup(name);
    if (g_regions && (g_profile || i < 0)) {
        if (!llamp_region_enter(name, d1, d2, d3)) {
            g_skipped++;
            return 0;
        }
        g_in_region = 1;
        if (!g_profile)
            return 1;
    }
    if (g_profile) {
        if (g_cur >= 0)
            kfail("kernel '%s' started inside kernel '%s' (kernels do not nest)", name,
                  g_profs[g_cur].name);
        g_cur = i;
        g_cur_x = d1 * d2 * d3;
        clock_gettime(CLOCK_MONOTONIC, &g_cur_t0);
        return 1;
    }
    if (i < 0)
        return 1;
#if LLAMP_KERNEL_UNDER_SMPI
    const kmodel_t *m = &g_models[i];
    double t = m->a + m->b * d1 * d2 * d3 + m->c * d1 * d2 + m->d * d1;
    if (t > 0)
        smpi_execute_benched(t);
#endif
    g_skipped++;
    return 0;
}

void llamp_kernel_end_slow(void)
{
    if (g_in_region) {
        g_in_region = 0;
        llamp_region_leave();
    }
    if (!g_profile || g_cur < 0)
        return;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double y = (double)(t1.tv_sec - g_cur_t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - g_cur_t0.tv_nsec);
    kprof_t *p = &g_profs[g_cur];
    double x = g_cur_x;
    p->n += 1;
    p->sx += x;
    p->sy += y;
    p->sxx += x * x;
    p->sxy += x * y;
    p->syy += y * y;
    g_cur = -1;
}

/* Least squares y = a + b x with a, b >= 0: the full fit when both come out
 * non-negative, else the best fit with one of them forced to 0. */
static void fit(const kprof_t *p, double *a, double *b, double *r2)
{
    double n = p->n, mx = p->sx / n, my = p->sy / n;
    double vxx = p->sxx / n - mx * mx, vxy = p->sxy / n - mx * my, vyy = p->syy / n - my * my;
    *a = my;
    *b = 0;
    if (vxx > 1e-12 * (mx * mx + 1e-300) && vxx > 0) {
        *b = vxy / vxx;
        *a = my - *b * mx;
    }
    if (*b < 0) {
        *b = 0;
        *a = my;
    } else if (*a < 0) {
        *a = 0;
        *b = p->sxx > 0 ? p->sxy / p->sxx : 0;
    }
    /* r2 of the chosen line */
    double sse = p->syy - 2 * (*a) * p->sy - 2 * (*b) * p->sxy + n * (*a) * (*a) +
                 2 * (*a) * (*b) * p->sx + (*b) * (*b) * p->sxx;
    *r2 = vyy > 0 ? 1 - sse / (n * vyy) : 1;
}

void llamp_kernel_finalize(MPI_Comm comm)
{
    if (g_profile) {
        int rank, size;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        int bytes = (int)(g_nprofs * sizeof(kprof_t));
        int *counts = NULL, *displs = NULL;
        char *all = NULL;
        if (rank == 0) {
            counts = calloc((size_t)size, sizeof *counts);
            displs = calloc((size_t)size, sizeof *displs);
        }
        MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
        int total = 0;
        if (rank == 0) {
            for (int r = 0; r < size; r++) {
                displs[r] = total;
                total += counts[r];
            }
            all = malloc((size_t)total + 1);
        }
        MPI_Gatherv(g_profs, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, comm);
        if (rank == 0) {
            kprof_t merged[LLAMP_KERNEL_MAX];
            int nm = 0;
            for (int off = 0; off + (int)sizeof(kprof_t) <= total; off += (int)sizeof(kprof_t)) {
                kprof_t p;
                memcpy(&p, all + off, sizeof p);
                int j = 0;
                while (j < nm && strcmp(merged[j].name, p.name) != 0)
                    j++;
                if (j == nm) {
                    if (nm == LLAMP_KERNEL_MAX)
                        continue;
                    merged[nm++] = p;
                    continue;
                }
                merged[j].n += p.n;
                merged[j].sx += p.sx;
                merged[j].sy += p.sy;
                merged[j].sxx += p.sxx;
                merged[j].sxy += p.sxy;
                merged[j].syy += p.syy;
            }
            FILE *f = fopen(g_profile_path, "w");
            if (!f) {
                fprintf(stderr, "llamp_kernel: LLAMP_KERNEL_PROFILE=%s: %s\n", g_profile_path,
                        strerror(errno));
            } else {
                fprintf(f, "# llamp kernel model fitted from a native run on %d ranks\n", size);
                fprintf(f, "# name a b c d : duration = a + b*d1*d2*d3 + c*d1*d2 + d*d1 (s)\n");
                for (int j = 0; j < nm; j++) {
                    double a, b, r2;
                    if (merged[j].n <= 0)
                        continue;
                    fit(&merged[j], &a, &b, &r2);
                    fprintf(f, "%-16s %.6e %.6e 0 0   # calls=%.0f total=%.6es r2=%.4f\n",
                            merged[j].name, a, b, merged[j].n, merged[j].sy, r2);
                }
                fclose(f);
                fprintf(stderr, "kernel profile: %d kernels written to %s\n", nm, g_profile_path);
            }
            free(all);
            free(counts);
            free(displs);
        }
    }
    g_nmodels = 0;
    g_wildcard = -1;
    g_nprofs = 0;
    g_ncache = 0;
    g_profile = 0;
    g_regions = 0;
    llamp_kernel_active_ = 0;
}
