/* native/xbt/config.h - SimGrid's configuration query, natively: no
 * setting is on (capture_rank.c asks for smpi/simulate-computation, which
 * would make it call the SMPI benchmark timers). */
#ifndef LLAMP_NATIVE_XBT_CONFIG_H
#define LLAMP_NATIVE_XBT_CONFIG_H

static inline int sg_cfg_get_boolean(const char *name) {
  (void)name;
  return 0;
}

#endif
