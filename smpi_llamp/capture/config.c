/* config.c - the capture's analysis settings: built-in defaults, a libconfig
 * model file (models/NAME.cfg), then LLAMP_* environment variables (what
 * smpi_llamp-run passes).  Each setting is declared once below with its
 * name, unit and check; errors name the file and line, or the variable. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llamp_capture.h"
#include "llamp_classify.h"
#include "llamp_units.h"

#ifndef LLAMP_CAPTURE_DEFAULT_CONFIG
#define LLAMP_CAPTURE_DEFAULT_CONFIG ""
#endif

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

int llamp_capture_parse_flops(const char *text, double *flops) {
  char *end;
  double v = strtod(text, &end);
  if (end == text || !isfinite(v)) return -1;
  while (*end == ' ') end++;
  static const struct {
    char prefix;
    double scale;
  } prefixes[] = {{'k', 1e3}, {'K', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}, {'P', 1e15}, {'E', 1e18}};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (*end == prefixes[i].prefix && (end[1] == 'f' || end[1] == 'F')) {
      v *= prefixes[i].scale;
      end++;
      break;
    }
  if (*end == 'f' || *end == 'F') {
    end++;
    if (strncmp(end, "lops", 4) == 0) end += 4;
    else if (strncmp(end, "lop/s", 5) == 0) end += 5;
  }
  if (*end) return -1;
  *flops = v;
  return 0;
}

void llamp_capture_config_default(llamp_capture_config_t *cfg) {
  memset(cfg, 0, sizeof *cfg);
  snprintf(cfg->out_dir, sizeof cfg->out_dir, "llamp-out");
  llamp_params_default(&cfg->params);
  /* SimGrid's CPU overheads are smpi/os, or, ois (the DAG charges them as
   * SimGrid does): o is an offset on top of them, 0 unless set (the engine's
   * default of 5 us made a model file without loggps.o charge 10 us more per
   * message than SimGrid: the calibrated model's ping-pong +148 %) */
  cfg->params.o = 0;
  cfg->tolerance[0] = 1;
  cfg->tolerance[1] = 2;
  cfg->tolerance[2] = 5;
  cfg->num_tolerance = 3;
  snprintf(cfg->classify, sizeof cfg->classify, "auto");
  cfg->nic_mode = -1;
  cfg->contention = 1;
  cfg->sweep_points = 101;
  cfg->full_routes_hosts = 1024;
  cfg->analyze = 1;
  cfg->spill_bytes = (size_t)64 << 20;
  cfg->prefault = 1;
  cfg->stream = 1;
}

void llamp_capture_config_range(const llamp_capture_config_t *cfg, double *lo, double *hi) {
  if (cfg->have_range) {
    *lo = cfg->range_lo;
    *hi = cfg->range_hi;
  } else {
    *lo = 0;
    *hi = cfg->params.L > 0 ? 10 * cfg->params.L : 10e-6;
  }
}

/* ---- setting values, shared by the file and the environment ------------------- */

typedef enum {
  V_TIME, V_PERBYTE, V_BYTES, V_TERM, V_TOPO, V_RNDV, V_CONTENTION, V_DELTAS, V_STRING, V_RANGE, V_TOL, V_COUNT, V_BOOL, V_COST,
  V_COMPUTE, V_FLOPS, V_HOSTS
} vkind_t;

typedef struct {
  const char *group, *name; /* in the model file */
  const char *env;          /* environment variable */
  vkind_t kind;
  const char *help;
} setting_t;

static const setting_t settings[] = {
    {"loggps", "L", "LLAMP_L", V_TIME, "latency"},
    {"loggps", "o", "LLAMP_O", V_TIME, "CPU overhead per message"},
    {"loggps", "g", "LLAMP_GAP", V_TIME, "gap between messages (0 = not modelled)"},
    {"loggps", "G", "LLAMP_G", V_PERBYTE, "gap per byte or a bandwidth"},
    {"loggps", "S", "LLAMP_S", V_BYTES, "rendezvous threshold (s > S is rendezvous)"},
    {"loggps", "bandwidth_term", "LLAMP_BANDWIDTH_TERM", V_TERM, "s-1 or s"},
    {"loggps", "rendezvous", "LLAMP_RENDEZVOUS", V_RNDV, "rdma-read or direct"},
    {"loggps", "nic", "LLAMP_NIC", V_BOOL, "LogGP's NIC rule (a rank's consecutive messages g + (s-1)G apart): auto, yes or no"},
    {"loggps", "contention", "LLAMP_CONTENTION", V_CONTENTION,
     "observed (each message's transfer as SimGrid ran it) or rule (the NIC rule)"},
    {"analysis", "range", "LLAMP_RANGE", V_RANGE, "LMIN:LMAX of the critical-latency search and sweep"},
    {"analysis", "tolerance", "LLAMP_TOLERANCE", V_TOL, "percentages, e.g. 1,2,5, or none"},
    {"analysis", "sweep_points", "LLAMP_SWEEP_POINTS", V_COUNT, "rows of sweep.csv"},
    {"analysis", "deltas", "LLAMP_DELTAS", V_DELTAS, "latency offsets dL, e.g. 1,10,100us: report.json's T(L + dL)"},
    {"capture", "delta_L", "LLAMP_DELTA_L", V_TIME,
     "SimGrid charges every message's latency this much more (what-if runs; 0: off)"},
    {"analysis", "collectives", "LLAMP_COLL", V_STRING, "algorithm per collective, e.g. allreduce=ring"},
    {"analysis", "classify", "LLAMP_CLASSIFY", V_STRING,
     "classes C1-C5 at here, e1g, e10g, qdr or BW@L; auto (here, up to 2 M events) or off"},
    {"analysis", "reduce_cost", "LLAMP_REDUCE_COST", V_COST, "seconds per byte reduced"},
    {"analysis", "goal", "LLAMP_GOAL", V_BOOL, "also write graph.goal"},
    {"analysis", "topology", "LLAMP_TOPOLOGY", V_TOPO,
     "auto: per-pair costs from the platform's routes; off: one L and G for every message"},
    {"analysis", "enabled", "LLAMP_ANALYZE", V_BOOL, "0: write the traces only"},
    {"capture", "spill", "LLAMP_SPILL", V_BYTES, "trace memory per rank before spilling"},
    {"capture", "prefault", "LLAMP_PREFAULT", V_BOOL,
     "fault in the analysis's memory during the simulation, on the core SimGrid leaves idle"},
    {"capture", "stream", "LLAMP_STREAM", V_BOOL,
     "build the DAG during the simulation, on the core SimGrid leaves idle"},
    {"capture", "full_routes_hosts", "LLAMP_FULL_ROUTES_HOSTS", V_HOSTS,
     "up to this many hosts routes.txt holds every host pair, above only the pairs the messages use"},
    {"capture", "quiet", "LLAMP_QUIET", V_BOOL, "no summary on stdout"},
    {"capture", "smpi_cpu_timer", "LLAMP_SMPI_CPU_TIMER", V_BOOL,
     "keep SMPI's thread-CPU clock reads at every MPI call (a system call each; the capture times compute itself)"},
    {"capture", "out", "LLAMP_OUT", V_STRING, "output directory"},
    {"capture", "compute", "LLAMP_COMPUTE", V_COMPUTE, "compute replay: auto, replay, measured or none"},
    {"capture", "measured_host_speed", "LLAMP_MEASURED_HOST_SPEED", V_FLOPS,
     "this machine's flop rate (llamp_hostspeed)"},
};
#define NSETTINGS (sizeof settings / sizeof settings[0])

/* A value as error messages quote it: one line, at most 60 characters. */
static const char *shown(const char *text, char *buf, size_t len) {
  return llamp_units_shown(text, 60, buf, len);
}

/* Apply one textual value.  `bare` is the unit of a number without suffix:
 * SI in the model file, the CLI's units (us, ns/B) in the environment. */
static int apply_text(llamp_capture_config_t *cfg, const setting_t *s, const char *text, int si,
                      const char *where, char *err, size_t errlen) {
  char e2[256], q[72];
  double v;
  switch (s->kind) {
  case V_TIME:
  case V_PERBYTE:
  case V_BYTES: {
    llamp_unit_kind_t k = s->kind == V_TIME ? LLAMP_UNIT_TIME
                          : s->kind == V_PERBYTE ? LLAMP_UNIT_PER_BYTE
                                                 : LLAMP_UNIT_BYTES;
    const char *def = s->kind == V_BYTES ? "B" : s->kind == V_TIME ? (si ? "s" : "us") : (si ? "s" : "ns");
    if (llamp_units_parse(text, k, def, &v, e2, sizeof e2) || !(v >= 0) || !isfinite(v)) {
      seterr(err, errlen, "%s: %s '%s': %s", where, s->help, shown(text, q, sizeof q),
             llamp_units_parse(text, k, def, &v, e2, sizeof e2) ? e2 : "expected a value >= 0");
      return -1;
    }
    if (strcmp(s->name, "spill") == 0 && v > 0x1p60) { /* (size_t)v must be defined */
      seterr(err, errlen, "%s: %s '%s' is too large (at most 1 EiB)", where, s->help, shown(text, q, sizeof q));
      return -1;
    }
    if (strcmp(s->name, "L") == 0) cfg->params.L = v, cfg->L_given = 1;
    else if (strcmp(s->name, "o") == 0) cfg->params.o = v;
    else if (strcmp(s->name, "g") == 0) cfg->params.g = v;
    else if (strcmp(s->name, "G") == 0) cfg->params.G = v, cfg->G_given = 1;
    else if (strcmp(s->name, "S") == 0) cfg->params.S = v;
    else if (strcmp(s->name, "spill") == 0) cfg->spill_bytes = (size_t)v;
    else if (strcmp(s->name, "delta_L") == 0) cfg->delta_L = v;
    return 0;
  }
  case V_COST: {
    char *end;
    errno = 0;
    v = strtod(text, &end);
    if (end == text || *end || errno || !(v >= 0) || !isfinite(v)) {
      seterr(err, errlen, "%s: %s '%s' (expected a number >= 0)", where, s->help, shown(text, q, sizeof q));
      return -1;
    }
    cfg->reduce_cost = v;
    return 0;
  }
  case V_TOPO: {
    static const char *const names[] = {"auto", "off"};
    for (int i = 0; i < 2; i++)
      if (strcmp(text, names[i]) == 0) {
        cfg->topology = i;
        return 0;
      }
    seterr(err, errlen, "%s: topology '%s' (expected auto or off)", where, text);
    return -1;
  }
  case V_COMPUTE: {
    static const char *const names[] = {"auto", "replay", "measured", "none"};
    for (int i = 0; i < 4; i++)
      if (strcmp(text, names[i]) == 0) {
        cfg->compute = i;
        return 0;
      }
    seterr(err, errlen, "%s: compute '%s' (expected auto, replay, measured or none)", where, shown(text, q, sizeof q));
    return -1;
  }
  case V_FLOPS:
    if (llamp_capture_parse_flops(text, &v) || !(v > 0)) {
      seterr(err, errlen, "%s: %s '%s' (expected a positive flop rate, e.g. 6.8e9 or 6.8Gf)", where,
             s->help, shown(text, q, sizeof q));
      return -1;
    }
    cfg->measured_host_speed = v;
    return 0;
  case V_CONTENTION:
    if (strcmp(text, "observed") == 0) cfg->contention = 1;
    else if (strcmp(text, "rule") == 0) cfg->contention = 0;
    else {
      seterr(err, errlen, "%s: contention '%s' (expected observed or rule)", where, shown(text, q, sizeof q));
      return -1;
    }
    return 0;
  case V_RNDV:
    if (strcmp(text, "rdma-read") == 0) cfg->params.rndv_direct = 0;
    else if (strcmp(text, "direct") == 0) cfg->params.rndv_direct = 1;
    else {
      seterr(err, errlen, "%s: rendezvous '%s' (expected rdma-read or direct)", where, shown(text, q, sizeof q));
      return -1;
    }
    return 0;
  case V_TERM:
    if (strcmp(text, "s-1") == 0) cfg->params.size_g_full = 0;
    else if (strcmp(text, "s") == 0) cfg->params.size_g_full = 1;
    else {
      seterr(err, errlen, "%s: bandwidth term '%s' (expected s-1 or s)", where, shown(text, q, sizeof q));
      return -1;
    }
    return 0;
  case V_STRING: {
    if (strcmp(s->name, "classify") == 0) {
      llamp_params_t probe = cfg->params;
      char e3[512];
      if (strlen(text) >= sizeof cfg->classify ||
          (strcmp(text, "auto") && strcmp(text, "off") && llamp_classify_anchor(text, &probe, e3, sizeof e3))) {
        seterr(err, errlen, "%s: classify '%.100s' (expected auto, off, here, e1g, e10g, qdr or BW@L such as 10Gbps@5us)",
               where, text);
        return -1;
      }
      snprintf(cfg->classify, sizeof cfg->classify, "%s", text);
      return 0;
    }
    char *dst = strcmp(s->name, "out") == 0 ? cfg->out_dir : cfg->collectives;
    size_t cap = strcmp(s->name, "out") == 0 ? sizeof cfg->out_dir : sizeof cfg->collectives;
    if (strlen(text) >= cap || (dst == cfg->out_dir && !*text)) {
      seterr(err, errlen, "%s: %s '%s' is %s", where, s->help, shown(text, q, sizeof q), *text ? "too long" : "empty");
      return -1;
    }
    snprintf(dst, cap, "%s", text);
    return 0;
  }
  case V_RANGE: {
    char a[64], b[64], extra;
    double lo, hi;
    const char *def = si ? "s" : "us";
    if (sscanf(text, "%63[^:]:%63[^:]%c", a, b, &extra) != 2 ||
        llamp_units_parse(a, LLAMP_UNIT_TIME, def, &lo, e2, sizeof e2) ||
        llamp_units_parse(b, LLAMP_UNIT_TIME, def, &hi, e2, sizeof e2) || !(lo >= 0) || !(hi >= lo)) {
      seterr(err, errlen, "%s: range '%s' (expected LMIN:LMAX with 0 <= LMIN <= LMAX, e.g. 0:50us)",
             where, shown(text, q, sizeof q));
      return -1;
    }
    cfg->have_range = 1;
    cfg->range_lo = lo;
    cfg->range_hi = hi;
    return 0;
  }
  case V_DELTAS: {
    size_t n = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
      if (n == LLAMP_CAPTURE_MAX_TOL || llamp_units_parse(t, LLAMP_UNIT_TIME, si ? "s" : "us", &v, e2, sizeof e2) ||
          !(v >= 0) || !isfinite(v)) {
        seterr(err, errlen, "%s: %s '%s' (expected up to %d times >= 0, e.g. 1,10,100us)", where, s->help,
               shown(text, q, sizeof q), LLAMP_CAPTURE_MAX_TOL);
        return -1;
      }
      cfg->deltas[n++] = v;
    }
    cfg->num_deltas = n;
    return 0;
  }
  case V_TOL: {
    size_t n = 0;
    char buf[512];
    if (strcmp(text, "none") == 0) { /* no tolerance search, as llamp analyze --tolerance none */
      cfg->num_tolerance = 0;
      return 0;
    }
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
      char *end;
      double x = strtod(t, &end);
      if (end == t || *end || !(x > 0) || !isfinite(x) || n == LLAMP_CAPTURE_MAX_TOL) {
        seterr(err, errlen, "%s: tolerance '%s' (expected up to %d positive percentages, e.g. 1,2,5, or none)",
               where, shown(text, q, sizeof q), LLAMP_CAPTURE_MAX_TOL);
        return -1;
      }
      cfg->tolerance[n++] = x;
    }
    if (!n) {
      seterr(err, errlen, "%s: empty tolerance list", where);
      return -1;
    }
    cfg->num_tolerance = n;
    return 0;
  }
  case V_COUNT: {
    char *end;
    long n = strtol(text, &end, 10);
    if (end == text || *end || n < 2 || n > 1000000) {
      seterr(err, errlen, "%s: sweep points '%s' (expected 2 .. 1000000)", where, shown(text, q, sizeof q));
      return -1;
    }
    cfg->sweep_points = (unsigned)n;
    return 0;
  }
  case V_HOSTS: {
    char *end;
    long n = strtol(text, &end, 10);
    if (end == text || *end || n < 0 || n > 1000000000) {
      seterr(err, errlen, "%s: host count '%s' (expected 0 .. 1000000000)", where, shown(text, q, sizeof q));
      return -1;
    }
    cfg->full_routes_hosts = (uint32_t)n;
    return 0;
  }
  case V_BOOL: {
    int b;
    if (strcmp(s->name, "nic") == 0 && strcmp(text, "auto") == 0) {
      cfg->nic_mode = -1;
      return 0;
    }
    if (!strcmp(text, "1") || !strcmp(text, "yes") || !strcmp(text, "true") || !strcmp(text, "on")) b = 1;
    else if (!strcmp(text, "0") || !strcmp(text, "no") || !strcmp(text, "false") || !strcmp(text, "off")) b = 0;
    else {
      seterr(err, errlen, "%s: '%s' (expected yes or no)", where, shown(text, q, sizeof q));
      return -1;
    }
    if (strcmp(s->name, "goal") == 0) cfg->write_goal = b;
    else if (strcmp(s->name, "enabled") == 0) cfg->analyze = b;
    else if (strcmp(s->name, "nic") == 0) cfg->nic_mode = b;
    else if (strcmp(s->name, "prefault") == 0) cfg->prefault = b;
    else if (strcmp(s->name, "stream") == 0) cfg->stream = b;
    else if (strcmp(s->name, "smpi_cpu_timer") == 0) cfg->smpi_cpu_timer = b;
    else cfg->quiet = b;
    return 0;
  }
  }
  return -1;
}

/* ---- the model file ---------------------------------------------------------------- */

static const char *setting_text(const config_setting_t *s, char *buf, size_t len) {
  switch (config_setting_type(s)) {
  case CONFIG_TYPE_INT: snprintf(buf, len, "%d", config_setting_get_int(s)); return buf;
  case CONFIG_TYPE_INT64: snprintf(buf, len, "%lld", (long long)config_setting_get_int64(s)); return buf;
  case CONFIG_TYPE_FLOAT: snprintf(buf, len, "%.17g", config_setting_get_float(s)); return buf;
  case CONFIG_TYPE_BOOL: snprintf(buf, len, "%s", config_setting_get_bool(s) ? "yes" : "no"); return buf;
  case CONFIG_TYPE_STRING: snprintf(buf, len, "%s", config_setting_get_string(s)); return buf;
  case CONFIG_TYPE_ARRAY:
  case CONFIG_TYPE_LIST: {
    /* [lo, hi] for range, [1, 2, 5] for tolerance: join with ',' or ':' */
    size_t n = 0;
    buf[0] = 0;
    int cnt = config_setting_length(s);
    for (int i = 0; i < cnt; i++) {
      char one[64];
      const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
      if (!e || config_setting_is_aggregate(e) || !setting_text(e, one, sizeof one)) return NULL;
      n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? "\x1f" : "", one);
    }
    return n < len ? buf : NULL;
  }
  }
  return NULL;
}

int llamp_capture_config_load(llamp_capture_config_t *cfg, const char *path, char *err,
                              size_t errlen) {
  config_t lc;
  config_init(&lc);
  if (access(path, R_OK) != 0) {
    seterr(err, errlen, "%s: cannot read the model file: %s", path, strerror(errno));
    config_destroy(&lc);
    return -1;
  }
  if (config_read_file(&lc, path) != CONFIG_TRUE) {
    seterr(err, errlen, "%s:%d: %s", config_error_file(&lc) ? config_error_file(&lc) : path,
           config_error_line(&lc), config_error_text(&lc));
    config_destroy(&lc);
    return -1;
  }
  int rc = 0;
  static const char *groups[] = {"loggps", "analysis", "capture"};
  for (size_t gi = 0; gi < 3 && rc == 0; gi++) {
    config_setting_t *g = config_lookup(&lc, groups[gi]);
    if (!g) continue;
    if (!config_setting_is_group(g)) {
      seterr(err, errlen, "%s:%u: '%s' must be a group { ... }", path, config_setting_source_line(g),
             groups[gi]);
      rc = -1;
      break;
    }
    int n = config_setting_length(g);
    for (int i = 0; i < n && rc == 0; i++) {
      config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
      const char *name = config_setting_name(s);
      const setting_t *def = NULL;
      for (size_t k = 0; k < NSETTINGS; k++)
        if (!strcmp(settings[k].group, groups[gi]) && !strcmp(settings[k].name, name)) def = &settings[k];
      char where[2300];
      snprintf(where, sizeof where, "%s:%u: %s.%s", path, config_setting_source_line(s), groups[gi], name);
      if (!def) {
        char list[512] = "";
        for (size_t k = 0; k < NSETTINGS; k++)
          if (!strcmp(settings[k].group, groups[gi]))
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "",
                     settings[k].name);
        seterr(err, errlen, "%s: unknown setting (valid: %s)", where, list);
        rc = -1;
        break;
      }
      char text[1024];
      if (!setting_text(s, text, sizeof text)) {
        seterr(err, errlen, "%s: unsupported value", where);
        rc = -1;
        break;
      }
      /* lists: tolerance joins with ',', range with ':' */
      for (char *p = text; *p; p++)
        if (*p == '\x1f') *p = def->kind == V_RANGE ? ':' : ',';
      rc = apply_text(cfg, def, text, 1, where, err, errlen);
    }
  }
  config_destroy(&lc);
  /* the smpi / network groups (docs/models.md): size-dependent costs, and
   * their reference values and eager limit are L0, G0 and S */
  if (rc == 0 && llamp_netmodel_file_read(path, cfg->params.L, cfg->params.G, &cfg->netfile, err, errlen))
    rc = -1;
  if (rc == 0) {
    if (cfg->netfile.have_L) cfg->params.L = cfg->netfile.L;
    if (cfg->netfile.have_G) cfg->params.G = cfg->netfile.G;
    if (cfg->netfile.have_S) cfg->params.S = cfg->netfile.S;
  }
  if (rc == 0) snprintf(cfg->config_path, sizeof cfg->config_path, "%s", path);
  return rc;
}

/* models/default.cfg when LLAMP_CONFIG is not set (a plain smpirun):
 * installed, next to this library (LLAMP_CAPTURE_LIB_TO_MODELS, relative to
 * its directory); in the build tree, the source tree's.  1 when found. */
static int default_config(char *buf, size_t len) {
#ifdef LLAMP_CAPTURE_LIB_TO_MODELS
  Dl_info info;
  if (dladdr((void *)default_config, &info) && info.dli_fname) {
    const char *slash = strrchr(info.dli_fname, '/');
    int n = slash ? (int)(slash - info.dli_fname) : 1;
    snprintf(buf, len, "%.*s/%s/default.cfg", n, slash ? info.dli_fname : ".", LLAMP_CAPTURE_LIB_TO_MODELS);
    if (access(buf, R_OK) == 0) return 1;
  }
#endif
  snprintf(buf, len, "%s", LLAMP_CAPTURE_DEFAULT_CONFIG);
  return buf[0] && access(buf, R_OK) == 0;
}

int llamp_capture_config_from_env(llamp_capture_config_t *cfg, char *err, size_t errlen) {
  llamp_capture_config_default(cfg);
  const char *path = getenv("LLAMP_CONFIG");
  if (path && *path && strcmp(path, "none") != 0) {
    if (llamp_capture_config_load(cfg, path, err, errlen)) return -1;
    /* the bundled defaults (smpi_llamp-run names them) give way to the
     * platform's routes; a model file of the user's does not */
    char def[4096];
    char *a = realpath(path, NULL), *b = default_config(def, sizeof def) ? realpath(def, NULL) : NULL;
    if (a && b && strcmp(a, b) == 0) cfg->L_given = cfg->G_given = 0;
    free(a);
    free(b);
  } else if (!path) {
    char def[4096];
    if (default_config(def, sizeof def)) {
      if (llamp_capture_config_load(cfg, def, err, errlen)) return -1;
      cfg->L_given = cfg->G_given = 0; /* the bundled defaults give way to the platform's routes */
    }
  }
  for (size_t k = 0; k < NSETTINGS; k++) {
    const char *v = getenv(settings[k].env);
    if (!v || !*v) continue;
    if (apply_text(cfg, &settings[k], v, 0, settings[k].env, err, errlen)) return -1;
  }
  return 0;
}
