/* The capture's per-message costs (smpi_llamp/capture/netsel.c) against
 * made-up SimGrid settings: trivial settings keep the scalar model,
 * SimGrid's default factors (not 1) are followed, the sources say who set
 * each value, the eager limit follows send-is-detached-thresh, the warnings
 * name what the DAG cannot follow, and a bad setting is an error. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"
#include "llamp_test.h"

static const char *const *settings;
static const char *get(const char *name) {
  size_t n = strlen(name);
  for (const char *const *s = settings; s && *s; s++)
    if (!strncmp(*s, name, n) && (*s)[n] == '=') return *s + n + 1;
  return NULL;
}
static const char *const *defaults; /* names still at SimGrid's default */
static int is_default(const char *name) {
  for (const char *const *s = defaults; s && *s; s++)
    if (!strcmp(*s, name)) return 1;
  return 0;
}

int main(void) {
  static llamp_capture_config_t cfg;
  static llamp_capture_net_t n;
  char err[1024];
  llamp_capture_config_default(&cfg);
  cfg.params.L = 2e-6;
  cfg.params.G = 1e-10;
  cfg.params.S = 65535;

  /* the bundled platforms: factors 0:1, overheads 0 -> scalar */
  static const char *const trivial[] = {"network/model=SMPI", "smpi/os=0:0:0:0:0", "smpi/or=0:0:0:0:0",
                                        "smpi/ois=0:0:0", "smpi/lat-factor=0:1", "smpi/bw-factor=0:1",
                                        "smpi/send-is-detached-thresh=65536", NULL};
  settings = trivial;
  CHECK(llamp_capture_net_resolve(&n, &cfg, get, is_default, "", err, sizeof err) == 0);
  CHECK(n.active == 0 && n.S == 65535 && n.n == 6);

  /* a platform without a <config> block: SimGrid's default factors */
  static const char *const def[] = {
      "network/model=SMPI", "smpi/os=0:0:0:0:0", "smpi/or=0:0:0:0:0", "smpi/ois=0:0:0:0:0",
      "smpi/lat-factor=65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467",
      "smpi/bw-factor=65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;0:0.812084",
      "smpi/send-is-detached-thresh=65536", NULL};
  static const char *const all_default[] = {"smpi/os", "smpi/or", "smpi/ois", "smpi/lat-factor",
                                            "smpi/bw-factor", "smpi/send-is-detached-thresh", NULL};
  settings = def;
  defaults = all_default;
  CHECK(llamp_capture_net_resolve(&n, &cfg, get, is_default, "", err, sizeof err) == 0);
  CHECK(n.active == 1 && n.model.L_ref == 2e-6 && n.note[0] == 0);
  llamp_netmodel_msg_t m;
  llamp_netmodel_message(&n.model, 100, 1, &m); /* 100 + 16 B <= 257: the 0: sections */
  CHECK_CLOSE(m.c, (2.01467 - 1) * 2e-6, 1e-18);
  CHECK_CLOSE(m.k, 116 / 0.812084, 1e-9);
  CHECK(!strcmp(n.setting[3].source, "SimGrid's default"));

  /* set by smpi_llamp-run from the model file, by the user; thresh 16384 */
  static const char *const mine[] = {"network/model=SMPI", "smpi/os=0:1e-6:0;100:2e-6:0", "smpi/or=0:1e-6:0",
                                     "smpi/ois=0:5e-7:0", "smpi/lat-factor=0:1", "smpi/bw-factor=0:1",
                                     "smpi/send-is-detached-thresh=16384", NULL};
  settings = mine;
  defaults = NULL;
  CHECK(llamp_capture_net_resolve(&n, &cfg, get, is_default, "smpi/os smpi/or", err, sizeof err) == 0);
  CHECK(n.active == 1 && n.S == 16383);
  CHECK(!strcmp(n.setting[0].source, "the model file's smpi group (passed by smpi_llamp-run)"));
  CHECK(!strcmp(n.setting[2].source, "--cfg or the platform's <config> block"));
  /* or: named with what the DAG still freezes; ois != os: modelled since
   * LLAMP_VERTEX_F_OS, not named any more */
  CHECK(strstr(n.note, "smpi/or is not 0") && strstr(n.note, "frozen"));
  CHECK(strstr(n.note, "MPI_Send_init") == NULL && strstr(n.note, "smpi/ois differs") == NULL &&
        strstr(n.note, "above the eager limit") == NULL);
  char buf[8192];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  llamp_capture_net_json(f, &n, "    ");
  fclose(f);
  CHECK(strstr(buf, "\"kind\": \"size-dependent\"") && strstr(buf, "\"S\": 16383") &&
        strstr(buf, "\"smpi/os\": {\"value\": \"0:1e-6:0;100:2e-6:0\""));

  /* another network model: its scalar factors for every size */
  static const char *const cm02[] = {"network/model=CM02", "network/latency-factor=13.01",
                                     "network/bandwidth-factor=0.97", NULL};
  settings = cm02;
  CHECK(llamp_capture_net_resolve(&n, &cfg, get, is_default, "", err, sizeof err) == 0);
  CHECK(n.active == 1 && strstr(n.note, "network/model:CM02"));
  llamp_netmodel_message(&n.model, 1000, 1, &m);
  CHECK_CLOSE(m.c, 12.01 * 2e-6, 1e-18);
  CHECK_CLOSE(m.k, 1016 / 0.97, 1e-9);

  /* a setting that does not parse */
  static const char *const bad[] = {"network/model=SMPI", "smpi/bw-factor=0:0", NULL};
  settings = bad;
  CHECK(llamp_capture_net_resolve(&n, &cfg, get, is_default, "", err, sizeof err) == -1);
  CHECK(strstr(err, "smpi/bw-factor") && strstr(err, "expected > 0"));
  TEST_DONE();
}
