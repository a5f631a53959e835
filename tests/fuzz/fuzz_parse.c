/* libFuzzer harness for the option parsers: units (util/units.c), the
 * collective selection (coll/registry.c, -llamp-coll and --coll).
 *
 * The first byte picks the parser, the rest is the text.  Oracle: failure
 * gives a one-line message; success gives a finite value >= 0 (units), or a
 * selection whose formatted spec parses back to the same selection. */
#include "fuzz_util.h"

#include <math.h>

#include "llamp_coll.h"
#include "llamp_units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  char *s = fuzz_string(data + 1, size - 1);
  char err[1024] = "";
  unsigned which = data[0] % 8;
  if (which < 6) {
    static const llamp_unit_kind_t kinds[3] = {LLAMP_UNIT_TIME, LLAMP_UNIT_BYTES, LLAMP_UNIT_PER_BYTE};
    static const char *const defs[3][2] = {{"us", "s"}, {"B", "KiB"}, {"ns", "s"}};
    double v = -1;
    if (llamp_units_parse(s, kinds[which % 3], defs[which % 3][which / 3], &v, err, sizeof err) == 0) {
      if (!isfinite(v) || !(v >= 0)) abort();
      char buf[64];
      llamp_units_format_time(v, buf, sizeof buf);
      llamp_units_format_bytes(v, buf, sizeof buf);
    } else {
      fuzz_check_error(err);
    }
  } else {
    llamp_coll_selection_t sel, back;
    if (llamp_coll_parse_selection(s, &sel, err, sizeof err) == 0) {
      char spec[4096];
      int n = llamp_coll_selection_format(&sel, spec, sizeof spec);
      if (n < 0 || (size_t)n >= sizeof spec) abort();
      if (llamp_coll_parse_selection(spec, &back, err, sizeof err) != 0) abort();
      if (memcmp(&sel, &back, sizeof sel) != 0) abort();
      char cfg[8192], missing[2048];
      llamp_coll_selection_smpi_cfg(&sel, cfg, sizeof cfg, missing, sizeof missing);
    } else {
      fuzz_check_error(err);
    }
  }
  free(s);
  return 0;
}
