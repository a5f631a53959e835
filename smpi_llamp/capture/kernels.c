/* kernels.c - kernel models in the capture runtime (llamp_capture.h,
 * "kernel models"): which file, the run's seed, the noise option, per-host
 * resolution (with the hierarchical generator for hosts without a model of
 * their own), each rank's GSL stream, and the totals report.json shows.
 *
 * Per process (libsmpi_llamp_capture_rt.so): the ranks call in from the
 * program (kernels_rank.c) one at a time, as coroutines of one thread. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <simgrid/host.h>

#include "capture_internal.h"
#include "llamp_capture.h"
#include "llamp_kmodel.h"

typedef enum { NOISE_BOTH, NOISE_SPATIAL, NOISE_TEMPORAL, NOISE_NONE } noise_t;
static const char *const noise_names[] = {"both", "spatial", "temporal", "none"};
static const char *const blas_names[] = {"off", "skip", "time"};

typedef struct {
  llamp_kmodel_t m;     /* what this (kernel, host) draws from */
  sg_host_t host;
  uint64_t calls;
  double seconds;
} resolved_t;

static struct {
  int ready, active, blas;
  uint64_t seed;
  int seed_given;
  noise_t noise;
  double cv; /* < 0: the models' sigma; else sigma = cv x mu (seed 004, Sec. 5.2) */
  llamp_kmodel_set_t set;
  char source[2048];
  size_t generated, slow;
  resolved_t *r;
  size_t nr, capr;
  gsl_rng **rng; /* per world rank */
  size_t nrng;
  /* per platform host: the generated models' mean scale (leading mu
   * coefficient over the "*" model's), what a study evicts hosts by */
  sg_host_t *hosts;
  double *scale_sum;
  unsigned *scale_n;
  size_t nhosts;
} K;

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

uint64_t llamp_capture_seed(void) { return K.seed; }

static uint64_t fresh_seed(void) {
  uint64_t s = 0;
  if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
  }
  return s % 4000000000000000000ull; /* readable, and fits every shell's arithmetic */
}

/* a model file with a `kernels` group of some models */
static int has_kernels(const char *path) {
  llamp_kmodel_set_t s;
  char e[16];
  if (!path || !*path || llamp_kmodel_load(&s, path, e, sizeof e)) return 0;
  int n = s.n > 0;
  llamp_kmodel_set_free(&s);
  return n;
}

/* Per-host models of the generators, for every platform host without its own. */
static int generate_hosts(char *err, size_t errlen) {
  size_t nh = sg_host_count();
  sg_host_t *hosts = sg_host_list();
  gsl_rng *c = gsl_rng_alloc(gsl_rng_mt19937), *d = gsl_rng_alloc(gsl_rng_mt19937);
  int rc = 0;
  free(K.scale_sum);
  free(K.scale_n);
  free(K.hosts);
  K.scale_sum = calloc(nh ? nh : 1, sizeof *K.scale_sum);
  K.scale_n = calloc(nh ? nh : 1, sizeof *K.scale_n);
  K.hosts = malloc((nh ? nh : 1) * sizeof *K.hosts);
  if (!K.scale_sum || !K.scale_n || !K.hosts) {
    gsl_rng_free(c);
    gsl_rng_free(d);
    free(hosts);
    seterr(err, errlen, "out of memory (generated kernel models)");
    return -1;
  }
  memcpy(K.hosts, hosts, nh * sizeof *hosts);
  K.nhosts = nh;
  for (size_t gi = 0; gi < K.set.ngen && rc == 0; gi++) {
    const llamp_kmodel_gen_t *g = &K.set.gen[gi];
    int temporal = 0;
    for (size_t i = 0; i < LLAMP_KMODEL_MAX_COEF * LLAMP_KMODEL_MAX_COEF; i++) temporal |= g->temporal[i] != 0;
    for (size_t h = 0; h < nh && rc == 0; h++) {
      const char *name = sg_host_get_name(hosts[h]);
      const llamp_kmodel_t *own = llamp_kmodel_find(&K.set, g->name, name);
      if (own && strcmp(own->host, "*") != 0) continue;
      const llamp_kmodel_t *base = llamp_kmodel_find(&K.set, g->name, NULL);
      llamp_kmodel_t copy = *base, out;
      /* the cluster is the generator's seed (or the run's); the day is the run's */
      uint64_t hh = llamp_kmodel_hash(name), kh = llamp_kmodel_hash(g->name);
      llamp_kmodel_seed_rng(c, g->has_seed ? g->seed : K.seed, 0x636c7573ull ^ kh, hh);
      llamp_kmodel_seed_rng(d, K.seed, 0x646179ull ^ kh, hh);
      int slow = 0;
      if (llamp_kmodel_generate(g, &copy, c, temporal ? d : NULL, name, &out, &slow, err, errlen) ||
          llamp_kmodel_set_add(&K.set, &out)) {
        if (!err[0]) seterr(err, errlen, "out of memory (generated kernel models)");
        rc = -1;
      }
      K.generated++;
      K.slow += (size_t)slow;
      if (base->mu[0] > 0) {
        K.scale_sum[h] += out.mu[0] / base->mu[0];
        K.scale_n[h]++;
      }
    }
  }
  gsl_rng_free(c);
  gsl_rng_free(d);
  free(hosts);
  return rc;
}

int llamp_capture_kernels_setup(const llamp_capture_config_t *cfg, char *err, size_t errlen) {
  if (K.ready) return 0;
  K.ready = 1;
  K.cv = -1;
  const char *seed = getenv("LLAMP_SEED");
  if (seed && *seed) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(seed, &end, 10);
    if (*end || errno || seed[0] == '-') {
      seterr(err, errlen, "LLAMP_SEED '%s' (-llamp-seed): expected an integer >= 0", seed);
      return -1;
    }
    K.seed = v;
    K.seed_given = 1;
  } else {
    K.seed = fresh_seed();
  }
  const char *noise = getenv("LLAMP_KERNEL_NOISE");
  if (noise && *noise) {
    size_t i = 0;
    while (i < 4 && strcmp(noise, noise_names[i])) i++;
    if (i == 4) {
      seterr(err, errlen, "LLAMP_KERNEL_NOISE '%s' (-llamp-kernel-noise): expected both, spatial, temporal or none", noise);
      return -1;
    }
    K.noise = (noise_t)i;
  }
  const char *cv = getenv("LLAMP_KERNEL_CV");
  if (cv && *cv) {
    char *end;
    K.cv = strtod(cv, &end);
    if (end == cv || *end || !(K.cv >= 0) || !isfinite(K.cv)) {
      seterr(err, errlen, "LLAMP_KERNEL_CV '%s' (-llamp-kernel-cv): expected a coefficient of variation >= 0", cv);
      return -1;
    }
  }
  const char *blas = getenv("LLAMP_KERNEL_BLAS");
  K.blas = 1;
  if (blas && *blas) {
    if (!strcmp(blas, "skip")) K.blas = 1;
    else if (!strcmp(blas, "time")) K.blas = 2;
    else if (!strcmp(blas, "off")) K.blas = 0;
    else {
      seterr(err, errlen, "LLAMP_KERNEL_BLAS '%s' (-llamp-kernel-blas): expected skip, time or off", blas);
      return -1;
    }
  }
  const char *path = getenv("LLAMP_KERNELS");
  if (path && !strcmp(path, "none")) return 0;
  if (!path || !*path) path = has_kernels(cfg->config_path) ? cfg->config_path : NULL;
  if (!path) return 0;
  snprintf(K.source, sizeof K.source, "%s", path);
  if (llamp_kmodel_load(&K.set, path, err, errlen)) return -1;
  if (K.set.n == 0) {
    seterr(err, errlen, "%s: no kernel models (expected a kernels = { models = ( ... ); }; group)", path);
    return -1;
  }
  err[0] = '\0';
  if (generate_hosts(err, errlen)) return -1;
  K.active = 1;
  if (!cfg->quiet) {
    fprintf(stderr, "smpi_llamp: seed %" PRIu64 "%s\n", K.seed, K.seed_given ? "" : " (fresh: -llamp-seed repeats this run)");
    fprintf(stderr, "smpi_llamp: kernel models from %s: %zu models", path, K.set.n - K.generated);
    if (K.generated) fprintf(stderr, ", %zu generated for hosts (%zu slow)", K.generated, K.slow);
    fprintf(stderr, "; noise %s", noise_names[K.noise]);
    if (K.cv >= 0) fprintf(stderr, ", sigma = %g x mu", K.cv);
    fprintf(stderr, "; BLAS calls with a model: %s\n", blas_names[K.blas]);
  }
  return 0;
}

int llamp_capture_kernels_active(int *blas) {
  if (blas) *blas = K.active ? K.blas : 0;
  return K.active;
}

/* The model every host shares (temporal, none): the "*" one, else the mean
 * of the hosts' models with the same terms. */
static int shared_model(const char *name, llamp_kmodel_t *out) {
  const llamp_kmodel_t *any = llamp_kmodel_find(&K.set, name, NULL);
  if (any) {
    *out = *any;
    return 0;
  }
  size_t n = 0;
  for (size_t i = 0; i < K.set.n; i++) {
    const llamp_kmodel_t *m = &K.set.m[i];
    if (strcmp(m->name, name)) continue;
    if (n == 0) {
      *out = *m;
    } else {
      if (m->nterms != out->nterms || memcmp(m->term, out->term, m->nterms * sizeof m->term[0])) continue;
      for (unsigned j = 0; j < m->nterms; j++) {
        out->mu[j] += m->mu[j];
        out->sigma[j] += m->sigma[j];
      }
    }
    n++;
  }
  if (!n) return -1;
  for (unsigned j = 0; j < out->nterms; j++) {
    out->mu[j] /= (double)n;
    out->sigma[j] /= (double)n;
  }
  snprintf(out->host, sizeof out->host, "*");
  return 0;
}

int llamp_capture_kernel_find(uint32_t rank, const char *name) {
  if (!K.active) return -1;
  const sg_host_t *hosts;
  size_t n = llamp_capture_session_hosts(&hosts);
  sg_host_t host = rank < n ? hosts[rank] : NULL;
  for (size_t i = 0; i < K.nr; i++)
    if (K.r[i].host == host && !strcmp(K.r[i].m.name, name)) return (int)i;
  llamp_kmodel_t m;
  if (K.noise == NOISE_BOTH || K.noise == NOISE_SPATIAL) {
    const llamp_kmodel_t *p = llamp_kmodel_find(&K.set, name, host ? sg_host_get_name(host) : NULL);
    if (!p) return -1;
    m = *p;
  } else if (shared_model(name, &m)) {
    return -1;
  }
  if (K.nr == K.capr) {
    size_t cap = K.capr ? 2 * K.capr : 32;
    resolved_t *r = realloc(K.r, cap * sizeof *r);
    if (!r) llamp_capture_fatal("out of memory (kernel models)");
    K.r = r;
    K.capr = cap;
  }
  memset(&K.r[K.nr], 0, sizeof K.r[K.nr]);
  K.r[K.nr].m = m;
  K.r[K.nr].host = host;
  return (int)K.nr++;
}

static gsl_rng *rank_rng(uint32_t rank) {
  if (rank >= K.nrng) {
    size_t n = rank + 1 > 2 * K.nrng ? rank + 1 : 2 * K.nrng;
    gsl_rng **p = realloc(K.rng, n * sizeof *p);
    if (!p) llamp_capture_fatal("out of memory (random streams)");
    memset(p + K.nrng, 0, (n - K.nrng) * sizeof *p);
    K.rng = p;
    K.nrng = n;
  }
  if (!K.rng[rank]) {
    if (!(K.rng[rank] = gsl_rng_alloc(gsl_rng_mt19937))) llamp_capture_fatal("out of memory (random streams)");
    llamp_kmodel_seed_rng(K.rng[rank], K.seed, 0x72616e6bull /* "rank" */, rank);
  }
  return K.rng[rank];
}

double llamp_capture_kernel_draw(uint32_t rank, int handle, double d1, double d2, double d3, double *flops) {
  resolved_t *r = &K.r[handle];
  double mu = llamp_kmodel_mu(&r->m, d1, d2, d3), t = mu;
  if (K.noise == NOISE_BOTH || K.noise == NOISE_TEMPORAL) {
    double sigma = K.cv >= 0 ? K.cv * mu : llamp_kmodel_sigma(&r->m, d1, d2, d3);
    t = llamp_kmodel_halfnormal(rank_rng(rank), mu, sigma);
  }
  r->calls++;
  r->seconds += t;
  *flops = K.set.reference_speed > 0 ? t * K.set.reference_speed : 0;
  return t;
}

/* per kernel name: calls and seconds over all hosts */
static size_t totals(const char **names, uint64_t *calls, double *secs, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < K.nr; i++) {
    size_t j = 0;
    while (j < n && strcmp(names[j], K.r[i].m.name)) j++;
    if (j == n) {
      if (n == max) continue;
      names[n] = K.r[i].m.name;
      calls[n] = 0;
      secs[n] = 0;
      n++;
    }
    calls[j] += K.r[i].calls;
    secs[j] += K.r[i].seconds;
  }
  return n;
}

void llamp_capture_kernels_json(FILE *f, const char *indent) {
  fprintf(f, "{\"seed\": %" PRIu64 ", \"source\": ", K.seed);
  if (K.active) llamp_capture_json_str(f, K.source);
  else fprintf(f, "null");
  fprintf(f, ", \"noise\": \"%s\", \"cv\": ", noise_names[K.noise]);
  if (K.cv >= 0) fprintf(f, "%.6g", K.cv);
  else fprintf(f, "null");
  fprintf(f, ", \"blas\": \"%s\", \"models\": %zu, \"generated_hosts\": %zu, \"slow_hosts\": %zu,\n%s  \"calls\": [",
          blas_names[K.active ? K.blas : 0], K.active ? K.set.n - K.generated : 0, K.generated, K.slow, indent);
  const char *names[64];
  uint64_t calls[64];
  double secs[64];
  size_t n = totals(names, calls, secs, 64);
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "%s{\"name\": ", i ? ", " : "");
    llamp_capture_json_str(f, names[i]);
    fprintf(f, ", \"calls\": %" PRIu64 ", \"seconds\": %.12g}", calls[i], secs[i]);
  }
  fprintf(f, "]");
  if (K.active) { /* where each rank ran, and how fast the generators made each host */
    const sg_host_t *rh;
    size_t nr = llamp_capture_session_hosts(&rh);
    fprintf(f, ",\n%s  \"rank_hosts\": [", indent);
    for (size_t i = 0; i < nr; i++) {
      if (i) fprintf(f, ", ");
      llamp_capture_json_str(f, rh[i] ? sg_host_get_name(rh[i]) : "?");
    }
    fprintf(f, "]");
    if (K.nhosts) {
      fprintf(f, ",\n%s  \"host_scale\": [", indent);
      for (size_t h = 0; h < K.nhosts; h++) {
        fprintf(f, "%s{\"host\": ", h ? ", " : "");
        llamp_capture_json_str(f, sg_host_get_name(K.hosts[h]));
        fprintf(f, ", \"scale\": %.9g}", K.scale_n[h] ? K.scale_sum[h] / K.scale_n[h] : 1.0);
      }
      fprintf(f, "]");
    }
  }
  fprintf(f, "}");
}

void llamp_capture_kernels_summary(FILE *f) {
  if (!K.active) return;
  const char *names[64];
  uint64_t calls[64];
  double secs[64];
  size_t n = totals(names, calls, secs, 64);
  fprintf(f, "smpi_llamp: kernel models (seed %" PRIu64 "):", K.seed);
  for (size_t i = 0; i < n; i++) fprintf(f, "%s %s x %" PRIu64 " = %.6g s", i ? "," : "", names[i], calls[i], secs[i]);
  fprintf(f, "%s\n", n ? "" : " no call modelled");
}
