/* netmodel_file.c - the `smpi` and `network` groups of a model file
 * (docs/models.md) into a llamp_netmodel_t; every error names file:line,
 * the key and what was expected. */
#include "llamp_netmodel.h"
#include "llamp_units.h"

#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  const char *path;
  char *err;
  size_t errlen;
} ctx_t;

static int fail(ctx_t *c, const config_setting_t *s, const char *key, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (c->err && c->errlen) {
    snprintf(c->err, c->errlen, "%s:%u: %s: %s", c->path, s ? config_setting_source_line(s) : 0, key, msg);
    llamp_units_one_line(c->err); /* a string of the file may hold newlines */
  }
  return -1;
}

/* A number (SI) or a string with a unit; `signed_ok`: negative values too. */
static int get_quantity_signed(ctx_t *c, const config_setting_t *s, const char *key,
                               llamp_unit_kind_t kind, const char *bare, const char *expected,
                               int signed_ok, double *out) {
  char e2[256];
  switch (config_setting_type(s)) {
  case CONFIG_TYPE_INT: *out = config_setting_get_int(s); break;
  case CONFIG_TYPE_INT64: *out = (double)config_setting_get_int64(s); break;
  case CONFIG_TYPE_FLOAT: *out = config_setting_get_float(s); break;
  case CONFIG_TYPE_STRING:
    if (llamp_units_parse(config_setting_get_string(s), kind, bare, out, e2, sizeof e2))
      return fail(c, s, key, "'%s' (expected %s)", config_setting_get_string(s), expected);
    break;
  default: return fail(c, s, key, "expected %s", expected);
  }
  if (!isfinite(*out) || (*out < 0 && !signed_ok))
    return fail(c, s, key, "%g (expected %s >= 0)", *out, expected);
  return 0;
}

static int get_quantity(ctx_t *c, const config_setting_t *s, const char *key, llamp_unit_kind_t kind,
                        const char *bare, const char *expected, double *out) {
  return get_quantity_signed(c, s, key, kind, bare, expected, 0, out);
}

static int get_string(ctx_t *c, const config_setting_t *s, const char *key, const char *expected,
                      const char **out) {
  if (config_setting_type(s) != CONFIG_TYPE_STRING) return fail(c, s, key, "expected %s", expected);
  *out = config_setting_get_string(s);
  return 0;
}

/* ( { from = 0; offset = "0.9us"; per_byte = "0.01ns"; }, ... ) */
static int get_curve(ctx_t *c, const config_setting_t *s, const char *key, llamp_netmodel_curve_t *out) {
  const char *shape = "a list of pieces ( { from = BYTES; offset = TIME; per_byte = TIME; }, ... )";
  if (!config_setting_is_list(s) && !config_setting_is_array(s)) return fail(c, s, key, "expected %s", shape);
  int n = config_setting_length(s);
  if (n < 1 || n > LLAMP_NETMODEL_MAX_SEGS)
    return fail(c, s, key, "%d pieces (expected 1 to %d)", n, LLAMP_NETMODEL_MAX_SEGS);
  memset(out, 0, sizeof *out);
  for (int i = 0; i < n; i++) {
    const config_setting_t *p = config_setting_get_elem(s, (unsigned)i);
    char k2[128];
    snprintf(k2, sizeof k2, "%s[%d]", key, i);
    if (!config_setting_is_group(p)) return fail(c, p, k2, "expected %s", shape);
    static const char *const names[] = {"from", "offset", "per_byte"};
    double v[3] = {0, 0, 0};
    for (int j = 0; j < config_setting_length(p); j++) {
      const config_setting_t *f = config_setting_get_elem(p, (unsigned)j);
      const char *nm = config_setting_name(f);
      int which = -1;
      for (int q = 0; q < 3; q++)
        if (!strcmp(nm, names[q])) which = q;
      char k3[200];
      snprintf(k3, sizeof k3, "%s.%s", k2, nm);
      if (which < 0) return fail(c, f, k3, "unknown key (valid: from, offset, per_byte)");
      /* a fitted piece may have a negative offset or slope inside its range
       * (calibrations cut curves into short pieces): costs are clamped at 0 */
      if (get_quantity_signed(c, f, k3, which ? LLAMP_UNIT_TIME : LLAMP_UNIT_BYTES, which ? "s" : "B",
                              which ? "a time" : "bytes", which != 0, &v[which]))
        return -1;
    }
    if (!config_setting_get_member(p, "from")) return fail(c, p, k2, "missing 'from' (bytes)");
    if (!config_setting_get_member(p, "offset")) return fail(c, p, k2, "missing 'offset' (a time)");
    out->seg[i] = (llamp_netmodel_seg_t){v[0], v[1], v[2]};
  }
  out->n = (unsigned)n;
  char e2[400];
  if (llamp_netmodel_curve_check(out, key, 0, e2, sizeof e2)) return fail(c, s, key, "%s", e2 + strlen(key) + 2);
  return 0;
}

static int add_setting(ctx_t *c, llamp_netmodel_file_t *out, const config_setting_t *s,
                       const char *key, const char *value) {
  if (out->nsettings == LLAMP_NETMODEL_MAX_SETTINGS || strlen(value) >= sizeof out->value[0])
    return fail(c, s, key, "value too long");
  snprintf(out->key[out->nsettings], sizeof out->key[0], "%s", key);
  snprintf(out->value[out->nsettings], sizeof out->value[0], "%s", value);
  out->nsettings++;
  return 0;
}

static int read_smpi(ctx_t *c, const config_setting_t *g, llamp_netmodel_file_t *out) {
  static const char *const valid =
      "os, or, ois, lat_factor, bw_factor, reference_latency, reference_bandwidth, "
      "send_is_detached_thresh, overhead_scale, check";
  llamp_netmodel_t *m = &out->model;
  char e2[600];
  for (int i = 0; i < config_setting_length(g); i++) {
    const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
    const char *nm = config_setting_name(s), *text = NULL;
    char key[96];
    snprintf(key, sizeof key, "smpi.%s", nm);
    if (!strcmp(nm, "os") || !strcmp(nm, "or") || !strcmp(nm, "ois")) {
      if (get_string(c, s, key, "a string \"THRESHOLD:OFFSET:PER_BYTE;...\"", &text)) return -1;
      llamp_netmodel_curve_t *cv = nm[1] == 's' ? &m->o_send : nm[1] == 'r' ? &m->o_recv : &m->o_isend;
      if (llamp_netmodel_parse_overhead(text, key, cv, e2, sizeof e2)) return fail(c, s, key, "%s", e2 + strlen(key) + 1);
      char sk[32];
      snprintf(sk, sizeof sk, "smpi/%s", nm);
      if (add_setting(c, out, s, sk, text)) return -1;
    } else if (!strcmp(nm, "lat_factor") || !strcmp(nm, "bw_factor")) {
      if (get_string(c, s, key, "a string \"THRESHOLD:FACTOR;...\"", &text)) return -1;
      llamp_netmodel_curve_t *cv = nm[0] == 'l' ? &m->lat_factor : &m->bw_factor;
      if (llamp_netmodel_parse_factor(text, key, m->envelope, cv, e2, sizeof e2))
        return fail(c, s, key, "%s", e2 + strlen(key) + 1);
      if (add_setting(c, out, s, nm[0] == 'l' ? "smpi/lat-factor" : "smpi/bw-factor", text)) return -1;
    } else if (!strcmp(nm, "reference_latency")) {
      if (get_quantity(c, s, key, LLAMP_UNIT_TIME, "s", "a time (\"1us\" or seconds)", &out->L)) return -1;
      out->have_L = 1;
    } else if (!strcmp(nm, "reference_bandwidth")) {
      double v;
      if (config_setting_type(s) == CONFIG_TYPE_STRING) {
        if (get_quantity(c, s, key, LLAMP_UNIT_PER_BYTE, "ns", "a bandwidth (\"10GBps\")", &v)) return -1;
      } else {
        if (get_quantity(c, s, key, LLAMP_UNIT_BYTES, "B", "a bandwidth in B/s or \"10GBps\"", &v)) return -1;
        v = v > 0 ? 1 / v : 0;
      }
      if (!(v > 0)) return fail(c, s, key, "expected a bandwidth > 0");
      out->G = v;
      out->have_G = 1;
    } else if (!strcmp(nm, "send_is_detached_thresh")) {
      double v;
      if (get_quantity(c, s, key, LLAMP_UNIT_BYTES, "B", "bytes", &v)) return -1;
      if (v != floor(v) || v < 1 || v > 2147483647.0) return fail(c, s, key, "%g (expected an integer 1 .. 2^31-1)", v);
      out->have_S = 1;
      out->S = v - 1; /* SMPI: eager when s < the threshold */
      char txt[32];
      snprintf(txt, sizeof txt, "%.0f", v);
      /* the DAG's eager messages leave at the send: SMPI must not wait for
       * the receive below the eager limit either */
      if (add_setting(c, out, s, "smpi/send-is-detached-thresh", txt) ||
          add_setting(c, out, s, "smpi/async-small-thresh", txt))
        return -1;
    } else if (!strcmp(nm, "overhead_scale")) { /* informative (docs/calib.md) */
      int t = config_setting_type(s);
      if (t != CONFIG_TYPE_FLOAT && t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
        return fail(c, s, key, "expected a number");
    } else if (!strcmp(nm, "check")) { /* the calibration's own check of the strings */
      if (!config_setting_is_group(s)) return fail(c, s, key, "expected a group { ... }");
    } else {
      return fail(c, s, key, "unknown key (valid: %s)", valid);
    }
  }
  return 0;
}

static int read_network(ctx_t *c, const config_setting_t *g, llamp_netmodel_file_t *out) {
  static const char *const valid =
      "source, scope, o_send, o_recv, o_isend, one_way, eager_max, L, G, fit, fits, "
      "overhead_scale, intra, inter, intra_under_load, inter_under_load, intra_no_load, inter_no_load";
  llamp_netmodel_t *m = &out->model;
  for (int i = 0; i < config_setting_length(g); i++) {
    const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
    const char *nm = config_setting_name(s), *text = NULL;
    char key[96];
    snprintf(key, sizeof key, "network.%s", nm);
    if (!strcmp(nm, "source")) {
      if (get_string(c, s, key, "a string", &text)) return -1;
      snprintf(m->source, sizeof m->source, "%s", text);
    } else if (!strcmp(nm, "scope")) {
      if (get_string(c, s, key, "\"inter\" or \"intra\"", &text)) return -1;
      if (strcmp(text, "inter") && strcmp(text, "intra")) return fail(c, s, key, "'%s' (expected inter or intra)", text);
    } else if (!strcmp(nm, "o_send")) {
      if (get_curve(c, s, key, &m->o_send)) return -1;
    } else if (!strcmp(nm, "o_recv")) {
      if (get_curve(c, s, key, &m->o_recv)) return -1;
    } else if (!strcmp(nm, "o_isend")) {
      if (get_curve(c, s, key, &m->o_isend)) return -1;
    } else if (!strcmp(nm, "one_way")) {
      if (get_curve(c, s, key, &m->one_way)) return -1;
    } else if (!strcmp(nm, "eager_max")) {
      if (get_quantity(c, s, key, LLAMP_UNIT_BYTES, "B", "bytes", &out->S)) return -1;
      out->have_S = 1;
    } else if (!strcmp(nm, "L")) {
      if (get_quantity(c, s, key, LLAMP_UNIT_TIME, "s", "a time (\"1.9us\" or seconds)", &out->L)) return -1;
      out->have_L = 1;
    } else if (!strcmp(nm, "G")) {
      if (get_quantity(c, s, key, LLAMP_UNIT_PER_BYTE, "s", "a time per byte (\"0.1ns\") or a bandwidth", &out->G))
        return -1;
      out->have_G = 1;
    } else if (!strcmp(nm, "fit") || !strcmp(nm, "fits") || !strcmp(nm, "intra") || !strcmp(nm, "inter") ||
               !strcmp(nm, "intra_under_load") || !strcmp(nm, "inter_under_load") ||
               !strcmp(nm, "intra_no_load") || !strcmp(nm, "inter_no_load")) {
      /* fit statistics and the other scopes' fits (llamp-calibrate): read by people */
      if (!config_setting_is_group(s)) return fail(c, s, key, "expected a group { ... }");
    } else if (!strcmp(nm, "overhead_scale")) { /* informative (docs/calib.md) */
      int t = config_setting_type(s);
      if (t != CONFIG_TYPE_FLOAT && t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
        return fail(c, s, key, "expected a number");
    } else {
      return fail(c, s, key, "unknown key (valid: %s)", valid);
    }
  }
  if (!m->one_way.n) return fail(c, g, "network", "missing one_way (the transfer time curve)");
  return 0;
}

int llamp_netmodel_file_read(const char *path, double L0, double G0, llamp_netmodel_file_t *out,
                             char *err, size_t errlen) {
  ctx_t c = {path, err, errlen};
  memset(out, 0, sizeof *out);
  out->group = "";
  llamp_netmodel_init(&out->model);
  if (access(path, R_OK) != 0) {
    snprintf(err, errlen, "%s: cannot read the model file: %s", path, strerror(errno));
    return -1;
  }
  config_t lc;
  config_init(&lc);
  if (config_read_file(&lc, path) != CONFIG_TRUE) {
    snprintf(err, errlen, "%s:%d: %s", config_error_file(&lc) ? config_error_file(&lc) : path,
             config_error_line(&lc), config_error_text(&lc));
    config_destroy(&lc);
    return -1;
  }
  int rc = 0;
  const config_setting_t *smpi = config_lookup(&lc, "smpi"), *net = config_lookup(&lc, "network");
  if (smpi && !config_setting_is_group(smpi)) rc = fail(&c, smpi, "smpi", "expected a group { ... }");
  else if (net && !config_setting_is_group(net)) rc = fail(&c, net, "network", "expected a group { ... }");
  else if (smpi) { /* SimGrid's own settings: what the emulation charges */
    rc = read_smpi(&c, smpi, out);
    if (!rc) {
      out->have_model = 1;
      out->group = "smpi";
      snprintf(out->model.source, sizeof out->model.source, "%s (smpi group)", path);
    }
  }
  if (!rc && smpi && net) { /* the network group is checked even when smpi wins */
    llamp_netmodel_file_t *tmp = malloc(sizeof *tmp);
    if (!tmp) rc = fail(&c, net, "network", "out of memory");
    else {
      memset(tmp, 0, sizeof *tmp);
      llamp_netmodel_init(&tmp->model);
      rc = read_network(&c, net, tmp);
      free(tmp);
    }
  } else if (!rc && net) {
    rc = read_network(&c, net, out);
    if (!rc) {
      out->have_model = 1;
      out->group = "network";
      char src[sizeof out->model.source];
      snprintf(src, sizeof src, "%s", out->model.source);
      snprintf(out->model.source, sizeof out->model.source, "%s (network group%s%.400s)", path,
               src[0] ? ": " : "", src);
    }
  }
  config_destroy(&lc);
  if (rc) return -1;
  out->model.L_ref = out->have_L ? out->L : L0;
  out->model.G_ref = out->have_G ? out->G : G0;
  if (out->have_model && !strcmp(out->group, "network")) out->model.envelope = 0;
  return 0;
}
