/* libFuzzer harness for the injector's settings (inject/config.c:
 * llamp_inject_config_load): the LLAMP_INJECT_CONFIG file, the delay
 * matrix file it may name, and the LLAMP_INJECT_* variables.
 *
 * Input: the first byte gives the world size (1 + byte % 8); the rest is
 * the config file, then optionally "\n%%\n" and the matrix file (the
 * harness's directory holds it as `m`: "matrix = m" reads it), then
 * optionally "\n%%\n" and NUL-separated VAR=value pairs (values may hold
 * newlines, as the environment's can).  Inputs naming a path ('/') are
 * skipped: the matrix key opens what it names.  The load runs in a
 * directory of the harness's own (and goes back), so that libFuzzer's
 * relative paths still work.
 *
 * Oracle: failure gives a one-line message; a configuration loaded has a
 * finite delay >= 0 for every pair, rank flags and pairs inside the world. */
#include "fuzz_util.h"

#include <fcntl.h>
#include <math.h>

#include "llamp_inject.h"

static const char *env_keys[16], *env_vals[16];
static int nenv;
static char cfg_path[64];

static const char *get(const char *var) {
  if (!strcmp(var, "LLAMP_INJECT_CONFIG")) return cfg_path;
  for (int i = nenv - 1; i >= 0; i--)
    if (!strcmp(var, env_keys[i])) return env_vals[i];
  return NULL;
}

static const uint8_t *find_sep(const uint8_t *p, size_t n) {
  for (size_t i = 0; i + 4 <= n; i++)
    if (!memcmp(p + i, "\n%%\n", 4)) return p + i;
  return NULL;
}

static char dir[] = "/tmp/llamp-fuzz-inject-XXXXXX";

/* the directory and its link go when the harness ends (ctest's runs left
 * one a run in /tmp) */
static void remove_dir(void) {
  char m[sizeof dir + 2];
  snprintf(m, sizeof m, "%s/m", dir);
  unlink(m);
  rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int home = -1;
  if (home < 0) {
    if (!mkdtemp(dir) || (home = open(".", O_RDONLY | O_DIRECTORY)) < 0) abort();
    atexit(remove_dir);
  }
  if (size < 1 || memchr(data, '/', size)) return 0;
  int world = 1 + data[0] % 8;
  const uint8_t *cfg = data + 1, *end = data + size;
  const uint8_t *s1 = find_sep(cfg, (size_t)(end - cfg));
  const uint8_t *mat = s1 ? s1 + 4 : end;
  const uint8_t *s2 = s1 ? find_sep(mat, (size_t)(end - mat)) : NULL;
  const uint8_t *env = s2 ? s2 + 4 : end;
  const uint8_t *cfg_end = s1 ? s1 + 1 : end, *mat_end = s2 ? s2 + 1 : end;

  int cfd = fuzz_memfile(cfg, (size_t)(cfg_end - cfg), cfg_path, sizeof cfg_path);
  char mpath[64];
  int mfd = fuzz_memfile(mat, (size_t)(mat_end - mat), mpath, sizeof mpath);
  /* the load runs in the harness's directory, where `m` is the matrix */
  if (chdir(dir)) abort();
  unlink("m");
  if (symlink(mpath, "m")) abort();
  char *ev = fuzz_string(env, (size_t)(end - env));
  nenv = 0;
  for (char *p = ev, *next; p < ev + (end - env) && nenv < 16; p = next) {
    next = p + strlen(p) + 1;
    char *eq = strchr(p, '=');
    if (!eq) continue;
    *eq = 0;
    env_keys[nenv] = p;
    env_vals[nenv++] = eq + 1;
  }

  llamp_inject_config_t c;
  char err[2048] = "";
  if (llamp_inject_config_load(&c, world, get, err, sizeof err) == 0) {
    if (c.size != world || !isfinite(c.dl) || c.dl < 0) abort();
    for (int i = 0; i < c.npairs; i++)
      if (c.pairs[2 * i] < 0 || c.pairs[2 * i] >= world || c.pairs[2 * i + 1] < 0 ||
          c.pairs[2 * i + 1] >= world)
        abort();
    if (c.small > 1000000000ULL) abort();
    int zero = 1;
    for (int a = 0; a < world; a++)
      for (int b = 0; b < world; b++) {
        double d = llamp_inject_config_delay(&c, a, b);
        if (!isfinite(d) || d < 0) abort();
        zero &= d == 0;
      }
    if (llamp_inject_config_zero(&c) && !zero) abort();
    llamp_inject_config_free(&c);
  } else
    fuzz_check_error(err);
  if (fchdir(home)) abort();
  free(ev);
  close(cfd);
  close(mfd);
  return 0;
}
