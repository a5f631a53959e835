/* Unit parsing: a number followed by an optional suffix; everything SI. */
#include "llamp_units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct {
  const char *suffix;
  double factor;
} unit_entry_t;

static const unit_entry_t time_units[] = {
    {"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {NULL, 0}};
static const unit_entry_t byte_units[] = {
    {"B", 1.0},           {"KB", 1e3},    {"KiB", 1024.0}, {"MB", 1e6},  {"MiB", 1048576.0},
    {"GB", 1e9},          {"GiB", 1073741824.0},           {"k", 1e3},   {"K", 1024.0},
    {NULL, 0}};
/* bandwidths become a per-byte gap: factor = bytes per second */
static const unit_entry_t bw_units[] = {{"Gbps", 1e9 / 8}, {"Mbps", 1e6 / 8}, {"GBps", 1e9},
                                        {"MBps", 1e6},     {"Bps", 1.0},      {NULL, 0}};

static const unit_entry_t *find_unit(const unit_entry_t *table, const char *s) {
  for (const unit_entry_t *u = table; u->suffix; u++)
    if (strcmp(u->suffix, s) == 0) return u;
  return NULL;
}

const char *llamp_units_shown(const char *text, size_t max, char *buf, size_t len) {
  size_t n = 0;
  for (; text[n] && n + 4 < len && n < max; n++) buf[n] = (unsigned char)text[n] < 0x20 ? '?' : text[n];
  snprintf(buf + n, len - n, "%s", text[n] ? "..." : "");
  return buf;
}

void llamp_units_one_line(char *msg) {
  for (char *c = msg; c && *c; c++)
    if ((unsigned char)*c < 0x20) *c = '?';
}

/* The value as error messages quote it: one line, at most 40 characters. */
static const char *shown(const char *text, char *buf, size_t len) {
  return llamp_units_shown(text, 40, buf, len);
}

int llamp_units_parse(const char *text, llamp_unit_kind_t kind, const char *default_suffix,
                      double *out, char *err, size_t errlen) {
  char q[48];
  if (!text || !*text) {
    snprintf(err, errlen, "empty value");
    return -1;
  }
  errno = 0;
  char *end = NULL;
  double v = strtod(text, &end);
  if (end == text || errno == ERANGE || !isfinite(v)) {
    snprintf(err, errlen, "'%s' is not a number", shown(text, q, sizeof q));
    return -1;
  }
  const char *suf = *end ? end : default_suffix;
  /* accept "ns/B" style for per-byte values */
  char buf[32];
  snprintf(buf, sizeof buf, "%s", suf ? suf : "");
  char *slash = strchr(buf, '/');
  if (slash && kind == LLAMP_UNIT_PER_BYTE && strcmp(slash, "/B") == 0) *slash = 0;
  const unit_entry_t *u = NULL;
  if (kind == LLAMP_UNIT_TIME || kind == LLAMP_UNIT_PER_BYTE) u = find_unit(time_units, buf);
  if (kind == LLAMP_UNIT_BYTES) u = find_unit(byte_units, buf);
  if (u) {
    if (v < 0) {
      snprintf(err, errlen, "'%s' is negative", shown(text, q, sizeof q));
      return -1;
    }
    if (!isfinite(v * u->factor)) { /* 4e305 KiB */
      snprintf(err, errlen, "'%s' is too large", shown(text, q, sizeof q));
      return -1;
    }
    *out = v * u->factor;
    return 0;
  }
  if (kind == LLAMP_UNIT_PER_BYTE && (u = find_unit(bw_units, buf))) {
    if (v <= 0) {
      snprintf(err, errlen, "bandwidth '%s' must be positive", shown(text, q, sizeof q));
      return -1;
    }
    if (!isfinite(1.0 / (v * u->factor))) { /* 1e-320 Gbps */
      snprintf(err, errlen, "bandwidth '%s' is too small", shown(text, q, sizeof q));
      return -1;
    }
    *out = 1.0 / (v * u->factor);
    return 0;
  }
  const char *expect = kind == LLAMP_UNIT_TIME    ? "ps, ns, us, ms or s"
                       : kind == LLAMP_UNIT_BYTES ? "B, KB, KiB, MB, MiB, GB or GiB"
                                                  : "ns (per byte) or a bandwidth such as 10Gbps";
  char q2[48];
  snprintf(err, errlen, "'%s': unknown unit '%s' (expected %s)", shown(text, q, sizeof q),
           shown(buf, q2, sizeof q2), expect);
  return -1;
}

const char *llamp_units_format_time(double s, char *buf, size_t len) {
  double a = fabs(s);
  if (a == 0) snprintf(buf, len, "0 s");
  else if (a < 1e-6) snprintf(buf, len, "%.6g ns", s * 1e9);
  else if (a < 1e-3) snprintf(buf, len, "%.6g us", s * 1e6);
  else if (a < 1) snprintf(buf, len, "%.6g ms", s * 1e3);
  else snprintf(buf, len, "%.6g s", s);
  return buf;
}

const char *llamp_units_format_bytes(double b, char *buf, size_t len) {
  if (b >= 1073741824.0) snprintf(buf, len, "%.4g GiB", b / 1073741824.0);
  else if (b >= 1048576.0) snprintf(buf, len, "%.4g MiB", b / 1048576.0);
  else if (b >= 1024.0) snprintf(buf, len, "%.4g KiB", b / 1024.0);
  else snprintf(buf, len, "%.6g B", b);
  return buf;
}
