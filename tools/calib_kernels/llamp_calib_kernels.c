/* llamp_calib_kernels - kernel calibration (docs/models.md, "Kernel models";
 * `llamp-calibrate kernels ARGS` runs this program).
 *
 *   llamp_calib_kernels [--quick] [-o k.cfg]                 built-in sweep
 *   llamp_calib_kernels [-o k.cfg] -- PROGRAM [ARGS...]      record a real run
 *   llamp_calib_kernels [-o k.cfg] --records FILE...         fit recorded calls
 *
 * The built-in sweep times OpenBLAS dgemm and dtrsm on this machine at
 * random sizes (log-uniform, seeded; the seed is printed), by the thread's
 * CPU clock.  A PROGRAM runs
 * natively with the recorder (libllamp_kernel_record.so in LD_PRELOAD,
 * LLAMP_KERNEL_RECORD): its annotated regions and BLAS calls are recorded
 * with their sizes.  Then mu and sigma of each kernel are fitted per host
 * (GSL least squares, R^2 printed), and a pooled host "*" model; the
 * `kernels` group is written to the output file with a gnuplot plot (SVG):
 * measured durations against the fitted mean. */
#define _GNU_SOURCE
#include <cblas.h>
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "llamp_kmodel.h"

#ifndef LLAMP_TOOL_VERSION
#define LLAMP_TOOL_VERSION "0"
#endif
#ifndef LLAMP_RECORD_LIB
#define LLAMP_RECORD_LIB "libllamp_kernel_record.so"
#endif

static const char *prog = "llamp_calib_kernels";

static void usage(FILE *f) {
  fprintf(f,
          "usage: %s [options] [--records FILE... | -- PROGRAM [ARGS...]]\n"
          "  -o FILE           model file to write (default kernels.cfg): the `kernels` group\n"
          "  --plot FILE       gnuplot SVG of measured against fitted durations (default: FILE.svg)\n"
          "  --quick           built-in sweep with fewer and smaller calls\n"
          "  --calls N         calls per kernel of the built-in sweep (default 400, quick 120)\n"
          "  --max-size N      largest dimension of the sweep (default 768, quick 384)\n"
          "  --kernels LIST    kernels of the sweep (default dgemm,dtrsm)\n"
          "  --seed N          seed of the sweep's sizes (default: fresh, printed)\n"
          "  --records FILE... fit these recorder files (name host d1 d2 d3 seconds)\n"
          "  -- PROGRAM ARGS   run PROGRAM natively with the recorder preloaded, then fit\n"
          "  -h, --help; --version\n",
          prog);
}

/* ---- samples ------------------------------------------------------------------ */

typedef struct {
  char name[LLAMP_KMODEL_NAME], host[LLAMP_KMODEL_HOST];
  double *dims, *y;
  size_t n, cap;
} series_t;

static series_t *series;
static size_t nseries;

static series_t *series_of(const char *name, const char *host) {
  for (size_t i = 0; i < nseries; i++)
    if (!strcmp(series[i].name, name) && !strcmp(series[i].host, host)) return &series[i];
  series_t *s = realloc(series, (nseries + 1) * sizeof *s);
  if (!s) exit(1);
  series = s;
  s = &series[nseries++];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  snprintf(s->host, sizeof s->host, "%s", host);
  return s;
}

static void sample(const char *name, const char *host, double d1, double d2, double d3, double y) {
  series_t *s = series_of(name, host);
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 256;
    s->dims = realloc(s->dims, 3 * s->cap * sizeof *s->dims);
    s->y = realloc(s->y, s->cap * sizeof *s->y);
    if (!s->dims || !s->y) {
      fprintf(stderr, "%s: out of memory\n", prog);
      exit(1);
    }
  }
  s->dims[3 * s->n] = d1;
  s->dims[3 * s->n + 1] = d2;
  s->dims[3 * s->n + 2] = d3;
  s->y[s->n++] = y;
}

static int read_records(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
    return -1;
  }
  char line[1024];
  int lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (line[0] == '#' || line[0] == '\n') continue;
    char name[LLAMP_KMODEL_NAME], host[LLAMP_KMODEL_HOST];
    double d1, d2, d3, y;
    if (sscanf(line, "%47s %127s %lf %lf %lf %lf", name, host, &d1, &d2, &d3, &y) != 6 || !(y >= 0)) {
      fprintf(stderr, "%s: %s:%d: expected 'name host d1 d2 d3 seconds'\n", prog, path, lineno);
      fclose(f);
      return -1;
    }
    sample(name, host, d1, d2, d3, y);
  }
  fclose(f);
  return 0;
}

/* ---- the built-in sweep ----------------------------------------------------------- */

void openblas_set_num_threads(int) __attribute__((weak));

/* The calling thread's CPU time, as the capture times compute: the sweep
 * runs OpenBLAS on one thread, and on a shared machine wall time would also
 * count the time other processes held the core. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int sweep(const char *kernels, unsigned calls, unsigned max, uint64_t seed, const char *host) {
  if (openblas_set_num_threads) openblas_set_num_threads(1);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  size_t nn = (size_t)max * max;
  double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
  if (!r || !a || !b || !c) return -1;
  for (size_t i = 0; i < nn; i++) {
    a[i] = 1.0 / (1 + (double)(i % 13));
    b[i] = 0.5 + (double)(i % 7) / 7;
    c[i] = 0;
  }
  /* a unit lower triangle with small entries: dtrsm stays finite */
  double *t = malloc(nn * sizeof *t);
  if (!t) return -1;
  for (size_t i = 0; i < nn; i++) t[i] = 1e-3 / (1 + (double)(i % 11));
  char list[256];
  snprintf(list, sizeof list, "%s", kernels);
  for (char *save = NULL, *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
    int gemm = !strcmp(k, "dgemm");
    if (!gemm && strcmp(k, "dtrsm")) {
      fprintf(stderr, "%s: --kernels: unknown kernel '%s' (expected dgemm, dtrsm)\n", prog, k);
      return -1;
    }
    llamp_kmodel_seed_rng(r, seed, llamp_kmodel_hash(k), 0);
    fprintf(stderr, "%s: timing %u calls of %s (sizes 8..%u, log-uniform)\n", prog, calls, k, max);
    for (unsigned i = 0; i < calls + 5; i++) {
      int d[3];
      for (int j = 0; j < 3; j++) d[j] = (int)floor(exp(log(8.0) + gsl_rng_uniform(r) * log((max + 1.0) / 8)));
      double t0 = now();
      if (gemm)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, d[0], d[1], d[2], 1.0, a, d[0], b, d[2], 0.0, c, d[0]);
      else
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, d[0], d[1], 1.0, t, d[0], b, d[0]);
      double y = now() - t0;
      if (i >= 5) sample(k, host, d[0], d[1], gemm ? d[2] : 0, y); /* the first calls warm up */
    }
  }
  free(a);
  free(b);
  free(c);
  free(t);
  gsl_rng_free(r);
  return 0;
}

/* ---- a program run natively with the recorder --------------------------------------- */

/* The recorder library: installed, relative to this program's directory;
 * else the build tree's (an absolute path compiled in). */
static void record_lib(char *lib, size_t len) {
  snprintf(lib, len, "%s", LLAMP_RECORD_LIB);
#ifdef LLAMP_RECORD_LIB_REL
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return;
  self[n] = 0;
  char *slash = strrchr(self, '/');
  if (!slash) return;
  *slash = 0;
  char rel[8192];
  snprintf(rel, sizeof rel, "%s/%s", self, LLAMP_RECORD_LIB_REL);
  size_t k = strlen(rel);
  if (k < len && access(rel, R_OK) == 0) memcpy(lib, rel, k + 1); /* only whole paths */
#endif
}

static int record_run(char **argv, const char *prefix) {
  char lib[4096];
  record_lib(lib, sizeof lib);
  const char *old = getenv("LD_PRELOAD");
  char pre[8192];
  snprintf(pre, sizeof pre, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
  fprintf(stderr, "%s: running %s with LD_PRELOAD=%s LLAMP_KERNEL_RECORD=%s\n", prog, argv[0], lib, prefix);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    setenv("LD_PRELOAD", pre, 1);
    setenv("LLAMP_KERNEL_RECORD", prefix, 1);
    execvp(argv[0], argv);
    fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[0], strerror(errno));
    _exit(127);
  }
  int st;
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr, "%s: %s failed (status %d)\n", prog, argv[0], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return -1;
  }
  return 0;
}

/* ---- the plot ------------------------------------------------------------------------ */

static int plot(const llamp_kmodel_set_t *set, const char *svg) {
  char dat[4200], gp[4200];
  snprintf(dat, sizeof dat, "%s.dat", svg);
  snprintf(gp, sizeof gp, "%s.gp", svg);
  FILE *d = fopen(dat, "w"), *g = fopen(gp, "w");
  if (!d || !g) {
    fprintf(stderr, "%s: cannot write %s\n", prog, d ? gp : dat);
    return -1;
  }
  size_t np = 0;
  for (size_t i = 0; i < nseries; i++) {
    const llamp_kmodel_t *m = llamp_kmodel_find(set, series[i].name, series[i].host);
    if (!m) continue;
    fprintf(d, "# %s %s\n", series[i].name, series[i].host);
    for (size_t j = 0; j < series[i].n; j++) {
      const double *x = &series[i].dims[3 * j];
      fprintf(d, "%.9e %.9e %.9e\n", llamp_kmodel_mu(m, x[0], x[1], x[2]), series[i].y[j],
              llamp_kmodel_sigma(m, x[0], x[1], x[2]));
    }
    fprintf(d, "\n\n");
    np++;
  }
  fclose(d);
  fprintf(g, "set terminal svg size 1000,%zu dynamic\nset output '%s'\n", 360 * ((np + 1) / 2), svg);
  fprintf(g, "set multiplot layout %zu,2\nset logscale xy\nset key top left\n"
             "set xlabel 'fitted mean mu (s)'\nset ylabel 'measured duration (s)'\n", (np + 1) / 2);
  size_t idx = 0;
  for (size_t i = 0; i < nseries; i++) {
    const llamp_kmodel_t *m = llamp_kmodel_find(set, series[i].name, series[i].host);
    if (!m) continue;
    fprintf(g, "set title '%s on %s: R^2 %.4f (mu), %.3f (|residual|)'\n", series[i].name, series[i].host, m->r2,
            m->r2_sigma);
    fprintf(g, "plot '%s' index %zu using 1:2 with points pt 7 ps 0.3 title 'calls', "
               "'' index %zu using 1:1 with lines lw 2 title 'mu', '' index %zu using 1:($1+$3) with lines dt 2 title 'mu + sigma'\n",
            dat, idx, idx, idx);
    idx++;
  }
  fprintf(g, "unset multiplot\n");
  fclose(g);
  char cmd[9000];
  snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>&1", gp);
  int rc = system(cmd);
  if (rc != 0) {
    fprintf(stderr, "%s: gnuplot failed on %s (the data is in %s)\n", prog, gp, dat);
    return -1;
  }
  fprintf(stderr, "%s: plot %s (gnuplot script %s)\n", prog, svg, gp);
  return 0;
}

/* ---- main ------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
  const char *out = "kernels.cfg", *plot_path = NULL, *kernels = "dgemm,dtrsm";
  unsigned calls = 0, max = 0;
  int quick = 0, have_seed = 0, nrec = 0;
  uint64_t seed = 0;
  char **records = NULL, **run = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("%s (smpi-llamp) %s\n", prog, LLAMP_TOOL_VERSION);
      return 0;
    } else if (!strcmp(a, "-o") && more) {
      out = argv[++i];
    } else if (!strcmp(a, "--plot") && more) {
      plot_path = argv[++i];
    } else if (!strcmp(a, "--quick")) {
      quick = 1;
    } else if ((!strcmp(a, "--calls") || !strcmp(a, "--max-size") || !strcmp(a, "--seed")) && more) {
      char *end;
      errno = 0;
      unsigned long long v = strtoull(argv[i + 1], &end, 10);
      if (*end || errno || argv[i + 1][0] == '-' || (strcmp(a, "--seed") && (v < 8 || v > 100000))) {
        fprintf(stderr, "%s: %s '%s' (expected an integer%s)\n", prog, a, argv[i + 1],
                strcmp(a, "--seed") ? " in [8, 100000]" : " >= 0");
        return 1;
      }
      if (!strcmp(a, "--calls")) calls = (unsigned)v;
      else if (!strcmp(a, "--max-size")) max = (unsigned)v;
      else seed = v, have_seed = 1;
      i++;
    } else if (!strcmp(a, "--kernels") && more) {
      kernels = argv[++i];
    } else if (!strcmp(a, "--records")) {
      records = argv + i + 1;
      while (i + 1 < argc && argv[i + 1][0] != '-') i++, nrec++;
      if (!nrec) {
        fprintf(stderr, "%s: --records needs at least one file\n", prog);
        return 1;
      }
    } else if (!strcmp(a, "--")) {
      if (!more) {
        fprintf(stderr, "%s: -- needs a program to run\n", prog);
        return 1;
      }
      run = argv + i + 1;
      break;
    } else {
      fprintf(stderr, "%s: unknown option or missing value '%s' (see %s --help)\n", prog, a, prog);
      return 1;
    }
  }
  char host[256] = "unknown";
  gethostname(host, sizeof host);
  host[sizeof host - 1] = '\0';
  llamp_kmodel_set_t set;
  llamp_kmodel_set_init(&set);
  char prefix[4200];
  if (run) {
    snprintf(prefix, sizeof prefix, "%s.records", out);
    /* the recorder writes PREFIX.<host>.<pid>.txt; those of an earlier run
     * with the same -o would be fitted with this one's */
    char pattern[4300];
    snprintf(pattern, sizeof pattern, "%s.*.txt", prefix);
    glob_t old;
    if (glob(pattern, 0, NULL, &old) == 0) {
      for (size_t i = 0; i < old.gl_pathc; i++)
        if (unlink(old.gl_pathv[i]) != 0) {
          fprintf(stderr, "%s: cannot remove %s (records of an earlier run): %s\n", prog, old.gl_pathv[i],
                  strerror(errno));
          return 1;
        }
      fprintf(stderr, "%s: removed %zu record file(s) of an earlier run (%s)\n", prog, old.gl_pathc, pattern);
      globfree(&old);
    }
    if (record_run(run, prefix)) return 1;
    glob_t found;
    int n = 0;
    if (glob(pattern, 0, NULL, &found) == 0) {
      for (size_t i = 0; i < found.gl_pathc; i++, n++)
        if (read_records(found.gl_pathv[i])) return 1;
      globfree(&found);
    }
    if (!n) {
      fprintf(stderr, "%s: the run wrote no records (%s.*.txt): does it call BLAS or llamp_region.h?\n", prog, prefix);
      return 1;
    }
    snprintf(set.source, sizeof set.source, "llamp_calib_kernels: recorded run of %s", run[0]);
  } else if (records) {
    for (int i = 0; i < nrec; i++)
      if (read_records(records[i])) return 1;
    snprintf(set.source, sizeof set.source, "llamp_calib_kernels: %d record file(s)", nrec);
  } else {
    if (!have_seed) {
      if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) seed = (uint64_t)time(NULL);
      seed %= 4000000000000000000ull;
    }
    if (!calls) calls = quick ? 120 : 400;
    if (!max) max = quick ? 384 : 768;
    fprintf(stderr, "%s: seed %" PRIu64 "%s\n", prog, seed, have_seed ? "" : " (--seed repeats the sizes)");
    if (sweep(kernels, calls, max, seed, "*")) return 1;
    snprintf(set.source, sizeof set.source, "llamp_calib_kernels sweep on %.160s, OpenBLAS 1 thread, seed %" PRIu64,
             host, seed);
  }
  /* per host, and pooled as "*" when several hosts were recorded */
  size_t nbase = nseries;
  for (size_t i = 0; i < nbase; i++) {
    int hosts = 0;
    for (size_t j = 0; j < nbase; j++) hosts += !strcmp(series[j].name, series[i].name);
    if (hosts > 1) {
      int first = 1;
      for (size_t j = 0; j < i; j++) first &= strcmp(series[j].name, series[i].name) != 0;
      if (!first) continue;
      for (size_t j = 0; j < nbase; j++)
        if (!strcmp(series[j].name, series[i].name))
          for (size_t k = 0; k < series[j].n; k++) {
            const double *x = &series[j].dims[3 * k];
            sample(series[j].name, "*", x[0], x[1], x[2], series[j].y[k]);
          }
    }
  }
  int single = 1;
  for (size_t i = 0; i < nseries; i++) single &= !strcmp(series[i].host, series[0].host);
  for (size_t i = 0; i < nseries; i++) {
    series_t *s = &series[i];
    llamp_kmodel_term_t terms[LLAMP_KMODEL_MAX_TERMS];
    unsigned nt = llamp_kmodel_default_terms(s->name, terms);
    llamp_kmodel_t m;
    char err[512];
    /* one host only: its model is every host's ("*") */
    if (llamp_kmodel_fit(s->dims, s->y, s->n, terms, nt, s->name, single ? "*" : s->host, &m, err, sizeof err)) {
      fprintf(stderr, "%s: skipped: %s\n", prog, err);
      continue;
    }
    if (single) snprintf(s->host, sizeof s->host, "*");
    llamp_kmodel_set_add(&set, &m);
    double tot = 0;
    for (size_t j = 0; j < s->n; j++) tot += s->y[j];
    printf("%-10s host %-12s %6zu calls, %8.4f s: R^2 %.5f (mu), %.3f (|residual| for sigma)\n", m.name, m.host, s->n,
           tot, m.r2, m.r2_sigma);
  }
  if (!set.n) {
    fprintf(stderr, "%s: nothing to fit\n", prog);
    return 1;
  }
  FILE *f = fopen(out, "w");
  if (!f) {
    fprintf(stderr, "%s: cannot write %s: %s\n", prog, out, strerror(errno));
    return 1;
  }
  fprintf(f, "# written by %s on %s\n", prog, host);
  if (llamp_kmodel_write(&set, f) || fclose(f)) {
    fprintf(stderr, "%s: cannot write %s\n", prog, out);
    return 1;
  }
  fprintf(stderr, "%s: wrote %s (%zu models)\n", prog, out, set.n);
  char svg[4200];
  snprintf(svg, sizeof svg, "%s", plot_path ? plot_path : out);
  if (!plot_path) {
    char *dot = strrchr(svg, '.');
    if (dot && !strchr(dot, '/')) *dot = '\0';
    strncat(svg, ".svg", sizeof svg - strlen(svg) - 1);
  }
  int rc = plot(&set, svg) ? 2 : 0;
  llamp_kmodel_set_free(&set);
  return rc;
}
