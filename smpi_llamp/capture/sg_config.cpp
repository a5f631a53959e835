/* sg_config.cpp - read SimGrid settings that have no C accessor (string
 * settings: smpi/privatization, smpi/coll-selector, smpi/<collective>;
 * sg_cfg_get_* cover numbers only). */
#include <string>
#include <xbt/config.hpp>

#include "llamp_capture.h"

extern "C" const char *llamp_capture_sg_privatization(void) {
  static std::string value;
  try {
    value = simgrid::config::get_value<std::string>("smpi/privatization");
  } catch (...) {
    value.clear();
  }
  return value.c_str();
}

extern "C" const char *llamp_capture_sg_string(const char *name) {
  static std::string value;
  try {
    value = simgrid::config::get_value<std::string>(name);
  } catch (...) {
    return nullptr;
  }
  return value.c_str();
}
