/* libFuzzer harness for the capture's settings (capture/config.c): the
 * libconfig model file (models/NAME.cfg) and the LLAMP_* environment variables
 * smpi_llamp-run passes.
 *
 * An input "LLAMP_NAME=value" sets that variable (one of those below);
 * anything else is a model file.  Oracle: failure gives a
 * one-line message; success gives finite non-negative parameters. */
#include "fuzz_util.h"

#include <math.h>

#include "llamp_capture.h"

static const char *const vars[] = {
    "LLAMP_L", "LLAMP_O", "LLAMP_GAP", "LLAMP_G", "LLAMP_S", "LLAMP_BANDWIDTH_TERM",
    "LLAMP_RENDEZVOUS", "LLAMP_RANGE", "LLAMP_TOLERANCE", "LLAMP_SWEEP_POINTS", "LLAMP_COLL",
    "LLAMP_REDUCE_COST", "LLAMP_GOAL", "LLAMP_ANALYZE", "LLAMP_SPILL", "LLAMP_QUIET", "LLAMP_OUT",
    "LLAMP_COMPUTE", "LLAMP_MEASURED_HOST_SPEED"};
#define NVARS (sizeof vars / sizeof vars[0])

static void check_config(const llamp_capture_config_t *c) {
  const llamp_params_t *p = &c->params;
  double v[] = {p->L, p->o, p->g, p->G, p->S, c->reduce_cost};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (!isfinite(v[i]) || v[i] < 0) abort();
  if (c->have_range && !(c->range_lo >= 0 && c->range_hi >= c->range_lo && isfinite(c->range_hi))) abort();
  if (c->num_tolerance == 0 || c->num_tolerance > LLAMP_CAPTURE_MAX_TOL) abort();
  for (size_t i = 0; i < c->num_tolerance; i++)
    if (!isfinite(c->tolerance[i]) || !(c->tolerance[i] > 0)) abort();
  if (c->measured_host_speed < 0 || !isfinite(c->measured_host_speed)) abort();
  if (c->sweep_points < 2) abort();
  if (!memchr(c->out_dir, 0, sizeof c->out_dir) || !c->out_dir[0]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llamp_capture_config_t cfg;
  char err[2048] = "";
  if (size < 6 || memcmp(data, "LLAMP_", 6) != 0) {
    char path[64];
    int fd = fuzz_memfile(data, size, path, sizeof path);
    llamp_capture_config_default(&cfg);
    if (llamp_capture_config_load(&cfg, path, err, sizeof err) == 0) check_config(&cfg);
    else fuzz_check_error(err);
    close(fd);
    return 0;
  }
  if (memchr(data, 0, size)) return 0; /* an environment variable has no NUL */
  char *s = fuzz_string(data, size);
  char *eq = strchr(s, '=');
  const char *var = NULL;
  if (eq) {
    *eq = 0;
    for (size_t i = 0; i < NVARS; i++)
      if (strcmp(s, vars[i]) == 0) var = vars[i];
  }
  if (var) {
    setenv("LLAMP_CONFIG", "none", 1);
    setenv(var, eq + 1, 1);
    if (llamp_capture_config_from_env(&cfg, err, sizeof err) == 0) check_config(&cfg);
    else fuzz_check_error(err);
    unsetenv(var);
  }
  free(s);
  return 0;
}
