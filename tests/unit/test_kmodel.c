/* Kernel models (smpi_llamp/kmodel): the half-normal draw's moments on 10^6
 * draws, seeded streams, fits recovered on synthetic data, model file errors
 * (file:line, key, expected), the write/read round trip and the hierarchical
 * generator's population moments. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llamp_kmodel.h"
#include "llamp_test.h"

/* mean, sd and skewness of n draws of H(mu, sigma) */
static void moments(gsl_rng *r, double mu, double sigma, size_t n, double *mean, double *sd, double *skew,
                    double *min) {
  double s1 = 0, s2 = 0, s3 = 0;
  *min = INFINITY;
  double *x = malloc(n * sizeof *x);
  for (size_t i = 0; i < n; i++) {
    x[i] = llamp_kmodel_halfnormal(r, mu, sigma);
    s1 += x[i];
    if (x[i] < *min) *min = x[i];
  }
  *mean = s1 / (double)n;
  for (size_t i = 0; i < n; i++) {
    double d = x[i] - *mean;
    s2 += d * d;
    s3 += d * d * d;
  }
  *sd = sqrt(s2 / (double)(n - 1));
  *skew = (s3 / (double)n) / pow(s2 / (double)n, 1.5);
  free(x);
}

static void test_moments(void) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  llamp_kmodel_seed_rng(r, 42, 0, 0);
  const size_t n = 1000000;
  /* half-normal: skewness sqrt(2)(4 - pi)/(pi - 2)^1.5, kurtosis 3.8692 */
  double skew_th = sqrt(2) * (4 - M_PI) / pow(M_PI - 2, 1.5);
  const double cases[][2] = {{1e-3, 2e-4}, {2.5, 0.7}, {1e-6, 1e-8}};
  for (size_t c = 0; c < 3; c++) {
    double mu = cases[c][0], sigma = cases[c][1], mean, sd, skew, min;
    moments(r, mu, sigma, n, &mean, &sd, &skew, &min);
    /* 5 standard errors: se(mean) = sigma/sqrt(n), se(sd) = sigma sqrt((kurt - 1)/(4 n)) */
    double se_mean = sigma / sqrt((double)n), se_sd = sigma * sqrt((3.8692 - 1) / (4.0 * (double)n));
    printf("H(%g, %g): mean %.9g (%+.2f se), sd %.9g (%+.2f se), skewness %.4f (theory %.4f), min %.6g\n", mu,
           sigma, mean, (mean - mu) / se_mean, sd, (sd - sigma) / se_sd, skew, skew_th, min);
    CHECK(fabs(mean - mu) <= 5 * se_mean);
    CHECK(fabs(sd - sigma) <= 5 * se_sd);
    CHECK(fabs(skew - skew_th) < 0.02);
    double b = sigma / sqrt(1 - 2 / M_PI);
    CHECK(min >= mu - b * sqrt(2 / M_PI) - 1e-15); /* the support starts at a */
  }
  /* sigma 0: exactly mu */
  CHECK(llamp_kmodel_halfnormal(r, 3e-6, 0) == 3e-6);
  gsl_rng_free(r);
}

static void test_streams(void) {
  gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937), *b = gsl_rng_alloc(gsl_rng_mt19937);
  llamp_kmodel_seed_rng(a, 7, 1, 3);
  llamp_kmodel_seed_rng(b, 7, 1, 3);
  int same = 1;
  for (int i = 0; i < 1000; i++) same &= gsl_rng_get(a) == gsl_rng_get(b);
  CHECK(same);
  llamp_kmodel_seed_rng(a, 7, 1, 3);
  llamp_kmodel_seed_rng(b, 7, 1, 4);
  int diff = 0;
  for (int i = 0; i < 10; i++) diff += gsl_rng_get(a) != gsl_rng_get(b);
  CHECK(diff == 10);
  llamp_kmodel_seed_rng(b, 8, 1, 3);
  llamp_kmodel_seed_rng(a, 7, 1, 3);
  diff = 0;
  for (int i = 0; i < 10; i++) diff += gsl_rng_get(a) != gsl_rng_get(b);
  CHECK(diff == 10);
  gsl_rng_free(a);
  gsl_rng_free(b);
}

static void test_fit(void) {
  /* dgemm-like truth (Eq. 1), random sizes, half-normal noise */
  llamp_kmodel_t truth;
  memset(&truth, 0, sizeof truth);
  snprintf(truth.name, sizeof truth.name, "dgemm");
  snprintf(truth.host, sizeof truth.host, "*");
  truth.nterms = llamp_kmodel_default_terms("dgemm", truth.term);
  CHECK(truth.nterms == 5);
  const double mu[5] = {7e-11, 2e-10, 1e-10, 5e-11, 2e-6}, sigma[5] = {2.1e-12, 0, 0, 0, 2e-7};
  memcpy(truth.mu, mu, sizeof mu);
  memcpy(truth.sigma, sigma, sizeof sigma);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  llamp_kmodel_seed_rng(r, 1, 2, 3);
  size_t n = 20000;
  double *dims = malloc(3 * n * sizeof *dims), *y = malloc(n * sizeof *y);
  for (size_t i = 0; i < n; i++) {
    /* log-uniform sizes in [8, 1024], as the calibration sweep draws them */
    for (int j = 0; j < 3; j++) dims[3 * i + j] = floor(exp(log(8) + gsl_rng_uniform(r) * log(1025.0 / 8)));
    y[i] = llamp_kmodel_draw(&truth, r, dims[3 * i], dims[3 * i + 1], dims[3 * i + 2]);
  }
  llamp_kmodel_t fit;
  char err[512];
  CHECK(llamp_kmodel_fit(dims, y, n, truth.term, truth.nterms, "dgemm", "*", &fit, err, sizeof err) == 0);
  printf("fit: mu = %.4g mnk + %.4g mn + %.4g mk + %.4g nk + %.4g (R^2 %.6f); sigma = %.4g mnk + ... + %.4g (R^2 %.4f)\n",
         fit.mu[0], fit.mu[1], fit.mu[2], fit.mu[3], fit.mu[4], fit.r2, fit.sigma[0], fit.sigma[4], fit.r2_sigma);
  CHECK_NEAR(fit.mu[0] / mu[0], 1, 0.005);
  CHECK(fit.r2 > 0.99);
  CHECK(fit.points == n);
  /* mu and sigma recovered where the calls were */
  const double at[][3] = {{8, 8, 8}, {64, 512, 32}, {1000, 1000, 1000}, {1024, 16, 1024}};
  for (int i = 0; i < 4; i++) {
    double mt = llamp_kmodel_mu(&truth, at[i][0], at[i][1], at[i][2]);
    double mf = llamp_kmodel_mu(&fit, at[i][0], at[i][1], at[i][2]);
    double st = llamp_kmodel_sigma(&truth, at[i][0], at[i][1], at[i][2]);
    double sf = llamp_kmodel_sigma(&fit, at[i][0], at[i][1], at[i][2]);
    printf("  at %g,%g,%g: mu %.4g fitted %.4g, sigma %.4g fitted %.4g\n", at[i][0], at[i][1], at[i][2], mt, mf, st, sf);
    CHECK(fabs(mf - mt) <= 0.02 * mt);
    CHECK(fabs(sf - st) <= 0.1 * st);
  }
  /* too few calls */
  CHECK(llamp_kmodel_fit(dims, y, 5, truth.term, 5, "dgemm", "h", &fit, err, sizeof err) == -1);
  CHECK(strstr(err, "5 calls for 5 terms") != NULL);
  /* a kernel recorded at one size (a stencil sweep): mnk and the constant
   * cannot be told apart; the fit keeps mnk and gives the calls' mean */
  const llamp_kmodel_term_t two[2] = {{{1, 1, 1}}, {{0, 0, 0}}};
  double mean = 0;
  for (size_t i = 0; i < 90; i++) {
    dims[3 * i] = 48, dims[3 * i + 1] = 48, dims[3 * i + 2] = 48;
    y[i] = 1.8e-3 * (1 + 0.05 * gsl_rng_uniform(r));
    mean += y[i] / 90;
  }
  CHECK(llamp_kmodel_fit(dims, y, 90, two, 2, "jacobi", "*", &fit, err, sizeof err) == 0);
  printf("one size: %u term(s), mu %.6g at 48^3 (mean of the calls %.6g)\n", fit.nterms,
         llamp_kmodel_mu(&fit, 48, 48, 48), mean);
  CHECK(fit.nterms == 1 && fit.term[0].e[0] == 1 && fit.term[0].e[1] == 1 && fit.term[0].e[2] == 1);
  CHECK_NEAR(llamp_kmodel_mu(&fit, 48, 48, 48) / mean, 1, 0.01);
  CHECK(llamp_kmodel_sigma(&fit, 48, 48, 48) > 0);
  free(dims);
  free(y);
  gsl_rng_free(r);
}

/* write `text` to a temporary model file and load it */
static int load_text(const char *text, llamp_kmodel_set_t *s, char *err, size_t errlen, char *path) {
  strcpy(path, "/tmp/llamp_kmodel_XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0) return -2;
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  int rc = llamp_kmodel_load(s, path, err, errlen);
  unlink(path);
  return rc;
}

static void expect_error(const char *text, int line, const char *key, const char *expected) {
  llamp_kmodel_set_t s;
  char err[1024], path[64], want[256];
  int rc = load_text(text, &s, err, sizeof err, path);
  snprintf(want, sizeof want, "%s:%d: %s: ", path, line, key);
  if (rc != -1 || strncmp(err, want, strlen(want)) != 0 || !strstr(err, expected)) {
    fprintf(stderr, "model error: got '%s' (rc %d), expected '%s...%s'\n", rc ? err : "(none)", rc, want, expected);
    llamp_test_failures++;
  } else {
    printf("error ok: %s\n", err);
  }
  llamp_kmodel_set_free(&s);
}

static void test_errors(void) {
  expect_error("kernels = { models = ( { name = \"dgemm\"; mu = [1.0, 2.0]; } ); };\n", 1,
               "kernels.models.[0].mu", "expected 5 numbers, got 2");
  expect_error("kernels = {\n  models = (\n    { name = \"dgemm\"; host = \"n0\"; terms = [\"mnk\", \"1\"];\n"
               "      mu = [1e-10, 1e-6]; sigma = (\"x\", 0.0); } );\n};\n",
               4, "kernels.models.[0].sigma", "element 1 is not a number");
  expect_error("kernels = { models = ( { name = \"k\"; terms = [\"mq\"]; mu = [1.0]; } ); };\n", 1,
               "kernels.models.[0].terms", "expected \"1\" or a product of the letters m, n, k");
  expect_error("kernels = { models = ( { mu = [1.0]; } ); };\n", 1, "kernels.models.[0].name",
               "expected the kernel's name");
  expect_error("kernels = { models = (\n { name = \"k\"; mu = [1.0, 0.0]; },\n { name = \"k\"; mu = [2.0, 0.0]; } ); };\n",
               3, "kernels.models.[1]", "already has a model (line 2)");
  expect_error("kernels = { modles = (); };\n", 1, "kernels.modles", "unknown setting (valid: source, reference_speed, models, generators)");
  expect_error("kernels = { models = ( { name = \"k\"; mu = [1.0, 0.0]; speed = 3; } ); };\n", 1,
               "kernels.models.[0].speed", "unknown setting");
  expect_error("kernels = { reference_speed = \"fast\"; };\n", 1, "kernels.reference_speed", "expected a flop rate");
  expect_error("kernels = { models = ( { name = \"k\"; mu = [1.0, 0.0]; } );\n generators = ( { name = \"k\"; spatial_cov = [1.0, 2.0, 0.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]; } ); };\n",
               2, "kernels.generators.[0].spatial_cov", "positive semi-definite");
  expect_error("kernels = { models = ( { name = \"k\"; host = \"a\"; mu = [1.0, 0.0]; } );\n generators = ( { name = \"k\"; } ); };\n",
               2, "kernels.generators.[0].name", "has none");
  expect_error("kernels = { models = ( { name = \"k\"; mu = [1.0, 0.0]; } );\n generators = ( { name = \"k\"; slow = { weight = 1.5; scale = 2.0; }; } ); };\n",
               2, "kernels.generators.[0].slow.weight", "in [0, 1]");
  /* syntax errors and missing files name the file */
  llamp_kmodel_set_t s;
  char err[1024], path[64];
  CHECK(load_text("kernels = { models = ( { name = \"k\"; mu = [1.0; } ); };\n", &s, err, sizeof err, path) == -1);
  printf("syntax error: %s\n", err);
  CHECK(strstr(err, ":1: ") != NULL && strstr(err, "expected libconfig syntax") != NULL);
  CHECK(llamp_kmodel_load(&s, "/nonexistent/k.cfg", err, sizeof err) == -1);
  CHECK(strstr(err, "/nonexistent/k.cfg: cannot read the model file") != NULL);
  /* a file without the group: no models */
  CHECK(load_text("loggps = { L = \"2us\"; };\n", &s, err, sizeof err, path) == 0 && s.n == 0);
  llamp_kmodel_set_free(&s);
}

static void test_roundtrip(void) {
  llamp_kmodel_set_t s, t;
  char err[1024], path[64];
  CHECK(load_text("kernels = { source = \"hand\"; reference_speed = \"2Gf\";\n models = (\n"
                  "  { name = \"dgemm\"; mu = [1e-10, 0.0, 0.0, 0.0, 1e-6]; sigma = [3e-12, 0.0, 0.0, 0.0, 0.0]; },\n"
                  "  { name = \"dgemm\"; host = \"node-1\"; mu = [2e-10, 0.0, 0.0, 0.0, 1e-6]; },\n"
                  "  { name = \"region\"; terms = [\"mm\", \"1\"]; mu = [1e-9, 1e-7]; } );\n"
                  " generators = ( { name = \"dgemm\"; seed = 5; spatial_cv = [0.05, 0.0, 0.0, 0.0, 0.1, 0.2, 0.0, 0.0, 0.0, 0.0];\n"
                  "   slow = { weight = 0.25; scale = 1.5; }; } ); };\n",
                  &s, err, sizeof err, path) == 0);
  CHECK(s.n == 3 && s.ngen == 1 && s.reference_speed == 2e9);
  CHECK(llamp_kmodel_find(&s, "dgemm", "node-1") == &s.m[1]);
  CHECK(llamp_kmodel_find(&s, "dgemm", "node-2") == &s.m[0]);
  CHECK(llamp_kmodel_find(&s, "dtrsm", "node-2") == NULL);
  CHECK_NEAR(llamp_kmodel_mu(&s.m[2], 10, 0, 0), 1e-7 + 1e-7, 1e-12);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CHECK(llamp_kmodel_write(&s, f) == 0);
  fclose(f);
  CHECK(load_text(buf, &t, err, sizeof err, path) == 0);
  CHECK(t.n == 3 && t.ngen == 1 && t.gen[0].seed == 5 && t.gen[0].slow_weight == 0.25);
  for (size_t i = 0; i < 3 && t.n == 3; i++) {
    CHECK(!strcmp(t.m[i].name, s.m[i].name) && !strcmp(t.m[i].host, s.m[i].host) && t.m[i].nterms == s.m[i].nterms);
    for (unsigned j = 0; j < s.m[i].nterms; j++) CHECK_NEAR(t.m[i].mu[j], s.m[i].mu[j], 1e-8);
  }
  for (size_t i = 0; i < 100 && t.ngen; i++) CHECK_NEAR(t.gen[0].spatial[i], s.gen[0].spatial[i], 1e-8);
  free(buf);
  llamp_kmodel_set_free(&s);
  llamp_kmodel_set_free(&t);
}

/* The generator's population: theta_p ~ N(theta, Sigma_S), a fraction
 * `weight` of slow nodes at scale x theta; theta_p,d ~ N(theta_p, Sigma_T). */
static void test_generator(void) {
  llamp_kmodel_t base;
  memset(&base, 0, sizeof base);
  snprintf(base.name, sizeof base.name, "dgemm");
  snprintf(base.host, sizeof base.host, "*");
  llamp_kmodel_term_parse("mnk", &base.term[0]);
  llamp_kmodel_term_parse("1", &base.term[1]);
  base.nterms = 2;
  base.mu[0] = 1e-10; /* alpha, beta, gamma of Eq. 2 */
  base.mu[1] = 2e-6;
  base.sigma[0] = 3e-12;
  llamp_kmodel_gen_t g;
  memset(&g, 0, sizeof g);
  snprintf(g.name, sizeof g.name, "dgemm");
  /* Sigma_S: alpha sd 5 %, beta sd 10 %, gamma sd 20 %, corr(alpha, gamma) = 0.5 */
  unsigned n = 4;
  double sa = 0.05e-10, sb = 0.2e-6, sg = 0.6e-12;
  g.spatial[0 * n + 0] = sa * sa;
  g.spatial[1 * n + 1] = sb * sb;
  g.spatial[2 * n + 2] = sg * sg;
  g.spatial[0 * n + 2] = g.spatial[2 * n + 0] = 0.5 * sa * sg;
  g.temporal[0 * n + 0] = (0.01e-10) * (0.01e-10);
  gsl_rng *c = gsl_rng_alloc(gsl_rng_mt19937), *d = gsl_rng_alloc(gsl_rng_mt19937);
  const size_t hosts = 40000;
  double m[3] = {0}, v[3] = {0}, cov02 = 0;
  double *th = malloc(hosts * 3 * sizeof *th);
  char err[256];
  for (size_t p = 0; p < hosts; p++) {
    llamp_kmodel_t out;
    int slow;
    llamp_kmodel_seed_rng(c, 11, 1, p);
    llamp_kmodel_seed_rng(d, 12, 2, p);
    CHECK(llamp_kmodel_generate(&g, &base, c, d, "h", &out, &slow, err, sizeof err) == 0);
    th[3 * p] = out.mu[0];
    th[3 * p + 1] = out.mu[1];
    th[3 * p + 2] = out.sigma[0];
    CHECK(out.sigma[1] == 0); /* zero variance stays zero */
  }
  for (size_t p = 0; p < hosts; p++)
    for (int j = 0; j < 3; j++) m[j] += th[3 * p + j] / (double)hosts;
  for (size_t p = 0; p < hosts; p++) {
    for (int j = 0; j < 3; j++) v[j] += (th[3 * p + j] - m[j]) * (th[3 * p + j] - m[j]) / (double)(hosts - 1);
    cov02 += (th[3 * p] - m[0]) * (th[3 * p + 2] - m[2]) / (double)(hosts - 1);
  }
  double sd_alpha = sqrt(sa * sa + 0.01e-10 * 0.01e-10); /* spatial + one day */
  printf("generator: alpha mean %.5g sd %.4g (expected %.5g, %.4g); beta %.5g sd %.4g; gamma %.5g sd %.4g; corr %.4f\n",
         m[0], sqrt(v[0]), 1e-10, sd_alpha, m[1], sqrt(v[1]), m[2], sqrt(v[2]),
         cov02 / sqrt(v[0] * v[2]));
  double k = 5 / sqrt((double)hosts); /* 5 standard errors, relative to the sd */
  CHECK(fabs(m[0] - 1e-10) <= k * sd_alpha);
  CHECK(fabs(m[1] - 2e-6) <= k * sb);
  CHECK(fabs(m[2] - 3e-12) <= k * sg);
  CHECK(fabs(sqrt(v[0]) / sd_alpha - 1) <= 5 / sqrt(2.0 * (double)hosts));
  CHECK(fabs(sqrt(v[1]) / sb - 1) <= 5 / sqrt(2.0 * (double)hosts));
  CHECK(fabs(sqrt(v[2]) / sg - 1) <= 5 / sqrt(2.0 * (double)hosts));
  CHECK(fabs(cov02 / sqrt(v[0] * v[2]) - 0.5 * sa / sd_alpha) < 0.02);
  /* the mixture: 10 % slow nodes at 1.3 x the mean */
  g.slow_weight = 0.1;
  g.slow_scale = 1.3;
  memcpy(g.slow_spatial, g.spatial, sizeof g.spatial);
  size_t nslow = 0;
  double mslow = 0;
  for (size_t p = 0; p < hosts; p++) {
    llamp_kmodel_t out;
    int slow;
    llamp_kmodel_seed_rng(c, 13, 1, p);
    CHECK(llamp_kmodel_generate(&g, &base, c, NULL, "h", &out, &slow, err, sizeof err) == 0);
    if (slow) {
      nslow++;
      mslow += out.mu[0];
    }
  }
  mslow /= (double)nslow;
  printf("mixture: %zu of %zu slow (%.4f), their alpha mean %.5g (expected %.5g)\n", nslow, hosts,
         (double)nslow / (double)hosts, mslow, 1.3e-10);
  CHECK(fabs((double)nslow / (double)hosts - 0.1) <= 5 * sqrt(0.1 * 0.9 / (double)hosts));
  CHECK(fabs(mslow - 1.3e-10) <= 5 * sa / sqrt((double)nslow));
  free(th);
  gsl_rng_free(c);
  gsl_rng_free(d);
}

int main(void) {
  test_moments();
  test_streams();
  test_fit();
  test_errors();
  test_roundtrip();
  test_generator();
  TEST_DONE();
}
