/* llamp_units.h - parse quantities with unit suffixes into SI values.
 * Return 0 on success, -1 (with a one-line reason in err) on failure. */
#ifndef LLAMP_UNITS_H
#define LLAMP_UNITS_H
#include <stddef.h>

typedef enum {
  LLAMP_UNIT_TIME,     /* ns us ms s (default unit given by caller) -> seconds */
  LLAMP_UNIT_BYTES,    /* B KB KiB MB MiB GB GiB -> bytes */
  LLAMP_UNIT_PER_BYTE  /* ns s us ps (per byte), or a bandwidth: Gbps GBps MBps Mbps -> s/B */
} llamp_unit_kind_t;

/* `default_suffix` is used when the text has no suffix (e.g. "ns", "B"). */
int llamp_units_parse(const char *text, llamp_unit_kind_t kind, const char *default_suffix,
                      double *out, char *err, size_t errlen);

/* Format seconds with an engineering suffix ("1.615 us") into buf. */
const char *llamp_units_format_time(double seconds, char *buf, size_t len);
const char *llamp_units_format_bytes(double bytes, char *buf, size_t len);

/* Error messages stay on one line whatever input they quote:
 * llamp_units_shown puts `text` into buf cut to `max` characters (then
 * "..."), control characters as '?'; llamp_units_one_line turns the
 * control characters of a finished message into '?'. */
const char *llamp_units_shown(const char *text, size_t max, char *buf, size_t len);
void llamp_units_one_line(char *msg);
#endif
