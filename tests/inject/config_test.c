/* config_test - the injector's configuration (smpi_llamp/inject/config.c):
 * values, delays per pair, file and variables, and the error lines. */
#include "llamp_inject.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *vars[32][2];
static int nvars, fails;
static const char *get(const char *k)
{
  for (int i = 0; i < nvars; i++)
    if (!strcmp(vars[i][0], k)) return vars[i][1];
  return NULL;
}
static void set(const char *k, const char *v)
{
  vars[nvars][0] = k;
  vars[nvars++][1] = v;
}
#define CHECK(c, ...)                                                                              \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      printf("FAIL line %d: ", __LINE__);                                                          \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      fails++;                                                                                     \
    }                                                                                              \
  } while (0)

static void expect_error(int size, const char *want)
{
  llamp_inject_config_t c;
  char err[512] = "";
  int rc = llamp_inject_config_load(&c, size, get, err, sizeof err);
  CHECK(rc == -1 && strstr(err, want), "expected error '%s', got rc %d '%s'", want, rc, err);
  nvars = 0;
}

int main(void)
{
  llamp_inject_config_t c;
  char err[512];
  /* defaults: nothing delayed, all eager, collectives on */
  CHECK(llamp_inject_config_load(&c, 4, get, err, sizeof err) == 0, "%s", err);
  CHECK(c.dl == 0 && c.S == UINT64_MAX && c.coll == 1 && c.small == 16384 &&
            c.rdv == LLAMP_INJECT_RDV_RDMA && llamp_inject_config_zero(&c),
        "defaults");
  llamp_inject_config_free(&c);
  /* dL for every pair, none to itself */
  set("LLAMP_INJECT_DL", "10us");
  set("LLAMP_INJECT_S", "8KiB");
  set("LLAMP_INJECT_RENDEZVOUS", "direct");
  CHECK(llamp_inject_config_load(&c, 4, get, err, sizeof err) == 0, "%s", err);
  CHECK(fabs(llamp_inject_config_delay(&c, 0, 3) - 10e-6) < 1e-15 && llamp_inject_config_delay(&c, 2, 2) == 0,
        "dl 10us");
  CHECK(c.S == 8192 && c.rdv == LLAMP_INJECT_RDV_DIRECT, "S %llu", (unsigned long long)c.S);
  llamp_inject_config_free(&c);
  nvars = 0;
  /* ranks: messages from or to ranks 1, 3 */
  set("LLAMP_INJECT_DL", "2.5");
  set("LLAMP_INJECT_RANKS", "1,3");
  CHECK(llamp_inject_config_load(&c, 4, get, err, sizeof err) == 0, "%s", err);
  CHECK(llamp_inject_config_delay(&c, 0, 2) == 0 && fabs(llamp_inject_config_delay(&c, 0, 1) - 2.5e-6) < 1e-15 &&
            fabs(llamp_inject_config_delay(&c, 3, 2) - 2.5e-6) < 1e-15,
        "ranks");
  llamp_inject_config_free(&c);
  nvars = 0;
  /* pairs, both directions */
  set("LLAMP_INJECT_DL", "1ms");
  set("LLAMP_INJECT_PAIRS", "0-1,2:3");
  CHECK(llamp_inject_config_load(&c, 4, get, err, sizeof err) == 0, "%s", err);
  CHECK(llamp_inject_config_delay(&c, 1, 0) == 1e-3 && llamp_inject_config_delay(&c, 3, 2) == 1e-3 &&
            llamp_inject_config_delay(&c, 0, 2) == 0,
        "pairs");
  llamp_inject_config_free(&c);
  nvars = 0;
  /* a matrix file and a config file; the variable wins over the file */
  char mpath[] = "/tmp/llamp_inject_mXXXXXX", cpath[] = "/tmp/llamp_inject_cXXXXXX";
  FILE *f = fdopen(mkstemp(mpath), "w");
  fprintf(f, "# sender rows\n0 5us\n7 0\n");
  fclose(f);
  f = fdopen(mkstemp(cpath), "w");
  fprintf(f, "dl = 3us  # ignored: the matrix decides\nmatrix = %s\nS = 64KiB\ncollectives = no\n", mpath);
  fclose(f);
  set("LLAMP_INJECT_CONFIG", cpath);
  set("LLAMP_INJECT_S", "none");
  CHECK(llamp_inject_config_load(&c, 2, get, err, sizeof err) == 0, "%s", err);
  CHECK(fabs(llamp_inject_config_delay(&c, 0, 1) - 5e-6) < 1e-15 &&
            fabs(llamp_inject_config_delay(&c, 1, 0) - 7e-6) < 1e-15 && c.coll == 0 && c.S == UINT64_MAX,
        "matrix %g %g", llamp_inject_config_delay(&c, 0, 1), llamp_inject_config_delay(&c, 1, 0));
  llamp_inject_config_free(&c);
  nvars = 0;
  /* errors */
  set("LLAMP_INJECT_DL", "-1us");
  expect_error(2, "LLAMP_INJECT_DL: '-1us' (expected a delay >= 0");
  set("LLAMP_INJECT_RANKS", "0,x");
  expect_error(2, "LLAMP_INJECT_RANKS: '0,x' (expected ranks like 0,2,4-7)");
  set("LLAMP_INJECT_PAIRS", "1-1");
  expect_error(2, "LLAMP_INJECT_PAIRS: pair 1-1 (expected two different ranks in 0..1)");
  set("LLAMP_INJECT_MATRIX", mpath);
  expect_error(3, ":2: 2 values (expected 3, the world size)");
  set("LLAMP_INJECT_SMALL", "lots");
  expect_error(2, "LLAMP_INJECT_SMALL: 'lots'");
  set("LLAMP_INJECT_VERBOSE", "maybe");
  expect_error(2, "LLAMP_INJECT_VERBOSE: 'maybe' (expected 0 or 1)");
  f = fopen(cpath, "w");
  fprintf(f, "dl 3us\n");
  fclose(f);
  set("LLAMP_INJECT_CONFIG", cpath);
  expect_error(2, ":1: expected 'key = value'");
  remove(mpath);
  remove(cpath);
  if (!fails) printf("config_test: PASS\n");
  return fails != 0;
}
