/* libFuzzer harness for the kernel models of a model file (the `kernels`
 * group, kmodel/kmodel.c: llamp_kmodel_load).
 *
 * Oracle: failure gives a one-line message; a loaded set has models with
 * 1..MAX terms, finite coefficients, finite mu/sigma at a few call sizes and
 * draws, writes out and reads back with the same models, and every
 * generator draws finite per-host models (or says in one line that its
 * covariance is not positive semi-definite). */
#include "fuzz_util.h"

#include <math.h>

#include "llamp_kmodel.h"

static void check_model(const llamp_kmodel_t *m) {
  if (m->nterms < 1 || m->nterms > LLAMP_KMODEL_MAX_TERMS) abort();
  if (!memchr(m->name, 0, sizeof m->name) || !m->name[0]) abort();
  if (!memchr(m->host, 0, sizeof m->host) || !m->host[0]) abort();
  for (unsigned i = 0; i < m->nterms; i++)
    if (!isfinite(m->mu[i]) || !isfinite(m->sigma[i])) abort();
  static const double dims[][3] = {{1, 1, 1}, {64, 64, 64}, {1000, 10, 3}};
  for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
    double mu = llamp_kmodel_mu(m, dims[i][0], dims[i][1], dims[i][2]);
    double sd = llamp_kmodel_sigma(m, dims[i][0], dims[i][1], dims[i][2]);
    /* huge coefficients at huge sizes may overflow; never NaN, never < 0 */
    if (isnan(mu) || isnan(sd) || mu < 0 || sd < 0) abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64], err[2048] = "";
  int fd = fuzz_memfile(data, size, path, sizeof path);
  llamp_kmodel_set_t s;
  if (llamp_kmodel_load(&s, path, err, sizeof err)) {
    fuzz_check_error(err);
    llamp_kmodel_set_free(&s);
    close(fd);
    return 0;
  }
  close(fd);
  if (!(s.reference_speed >= 0) || !isfinite(s.reference_speed)) abort();
  for (size_t i = 0; i < s.n; i++) check_model(&s.m[i]);

  /* written and read back: the same models */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f || llamp_kmodel_write(&s, f)) abort();
  fclose(f);
  int fd2 = fuzz_memfile((const uint8_t *)buf, len, path, sizeof path);
  llamp_kmodel_set_t back;
  if (llamp_kmodel_load(&back, path, err, sizeof err)) {
    fprintf(stderr, "fuzz: the written models do not read back: %s\n%s", err, buf);
    abort();
  }
  close(fd2);
  if (back.n != s.n) abort();
  for (size_t i = 0; i < s.n; i++)
    if (strcmp(back.m[i].name, s.m[i].name) || strcmp(back.m[i].host, s.m[i].host) ||
        back.m[i].nterms != s.m[i].nterms)
      abort();
  llamp_kmodel_set_free(&back);
  free(buf);

  /* each generator: two hosts, with and without the day-to-day term */
  gsl_rng *cl = gsl_rng_alloc(gsl_rng_mt19937), *day = gsl_rng_alloc(gsl_rng_mt19937);
  for (size_t i = 0; i < s.ngen; i++) {
    const llamp_kmodel_t *base = llamp_kmodel_find(&s, s.gen[i].name, "no-such-host");
    if (!base) abort(); /* the reader promised a "*" model */
    for (uint64_t h = 0; h < 2; h++) {
      llamp_kmodel_seed_rng(cl, s.gen[i].seed, 1, h);
      llamp_kmodel_seed_rng(day, s.gen[i].seed, 2, h);
      llamp_kmodel_t out;
      int slow = 0;
      if (llamp_kmodel_generate(&s.gen[i], base, cl, h ? day : NULL, "host-0", &out, &slow, err,
                                sizeof err)) {
        fuzz_check_error(err);
        continue;
      }
      for (unsigned t = 0; t < out.nterms; t++)
        if (isnan(out.mu[t]) || isnan(out.sigma[t])) abort();
    }
  }
  gsl_rng_free(cl);
  gsl_rng_free(day);
  llamp_kmodel_set_free(&s);
  return 0;
}
