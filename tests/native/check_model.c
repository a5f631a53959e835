/* check_model - read a model file with the capture's own loader
 * (smpi_llamp/capture/config.c, the reader of models/default.cfg) and check
 * that calib_loggp measured positive L, o and G:
 *     check_model FILE        prints "L=... o=... g=... G=... S=..." */
#include <stdio.h>

#include "llamp_capture.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: check_model FILE\n");
    return 2;
  }
  llamp_capture_config_t cfg;
  char err[2048];
  llamp_capture_config_default(&cfg);
  if (llamp_capture_config_load(&cfg, argv[1], err, sizeof err)) {
    fprintf(stderr, "check_model: %s\n", err);
    return 1;
  }
  const llamp_params_t *p = &cfg.params;
  printf("L=%g o=%g g=%g G=%g S=%g\n", p->L, p->o, p->g, p->G, p->S);
  if (!(p->L > 0) || !(p->o > 0) || !(p->G > 0)) {
    fprintf(stderr, "check_model: %s: L, o and G must be positive\n", argv[1]);
    return 1;
  }
  return 0;
}
