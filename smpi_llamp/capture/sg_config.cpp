/* sg_config.cpp - read and set SimGrid settings that have no C accessor
 * (string settings: smpi/privatization, smpi/coll-selector, smpi/<collective>;
 * "was it set by anyone"; sg_cfg_get_* cover numbers only). */
#include <cstdio>
#include <string>
#include <xbt/config.hpp>

#include "llamp_capture.h"

/* The value lives in one of 8 slots used in turn: callers compare a few
 * settings at once (diagnose.c reads two before using either; with one slot
 * the second call freed the first's text: ASan, heap-use-after-free). */
extern "C" const char *llamp_capture_sg_string(const char *name) {
  static std::string value[8];
  static unsigned next;
  std::string &v = value[next++ % 8];
  try {
    v = simgrid::config::get_value<std::string>(name);
  } catch (...) {
    return nullptr;
  }
  return v.c_str();
}

/* Any setting as text, whatever its type (ints, doubles, booleans too). */
extern "C" const char *llamp_capture_sg_value(const char *name) {
  static std::string value;
  /* get_value<std::string> of a number setting gives "" (and get_value<int>
   * of a string one a number): numbers only when the string is empty */
  const char *str = llamp_capture_sg_string(name);
  if (str && *str) return str;
  try {
    value = std::to_string(simgrid::config::get_value<int>(name));
    return value.c_str();
  } catch (...) {
  }
  try {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", simgrid::config::get_value<double>(name));
    value = buf;
    return value.c_str();
  } catch (...) {
  }
  try {
    value = simgrid::config::get_value<bool>(name) ? "yes" : "no";
    return value.c_str();
  } catch (...) {
  }
  return llamp_capture_sg_string(name);
}

extern "C" const char *llamp_capture_sg_privatization(void) {
  const char *v = llamp_capture_sg_string("smpi/privatization");
  return v ? v : "";
}

extern "C" int llamp_capture_sg_is_default(const char *name) {
  try {
    return simgrid::config::is_default(name) ? 1 : 0;
  } catch (...) {
    return -1;
  }
}

extern "C" int llamp_capture_sg_set_bool(const char *name, int value) {
  try {
    simgrid::config::set_value<bool>(name, value != 0);
    return 0;
  } catch (...) {
    return -1;
  }
}

extern "C" int llamp_capture_sg_set_string(const char *name, const char *value) {
  try {
    simgrid::config::set_value<std::string>(name, value);
    return 0;
  } catch (...) {
    return -1;
  }
}
