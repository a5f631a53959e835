/* netsel.c - what the DAG charges per message: what SimGrid charges, read
 * from SimGrid's effective settings at MPI_Init (docs/capture.md, "Message
 * costs").
 *
 * SMPI charges a message of s bytes (network/model:SMPI, smpirun's default)
 *   route latency x lat-factor(s+16) + (s+16) / (bandwidth x bw-factor(s+16))
 * plus smpi/os (blocking eager send), smpi/ois (every MPI_Isend) and
 * smpi/or (eager receive) of CPU time; messages below
 * smpi/send-is-detached-thresh are eager.  Whatever set them (SimGrid's
 * defaults, a platform's <config> block, --cfg, the model file's smpi group
 * through smpi_llamp-run), the DAG takes the values SimGrid runs.  When they
 * are trivial (factors 1, overheads 0) the DAG keeps the scalar LogGPS
 * model; otherwise it charges them as size-dependent costs. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Is `key` among the space-separated words of `added`? */
static int listed(const char *added, const char *key) {
  size_t n = strlen(key);
  for (const char *s = added; s && *s;) {
    while (*s == ' ') s++;
    const char *e = s;
    while (*e && *e != ' ') e++;
    if ((size_t)(e - s) == n && !strncmp(s, key, n)) return 1;
    s = e;
  }
  return 0;
}

static void record(llamp_capture_net_t *out, const char *key, const char *value,
                   int (*is_default)(const char *), const char *added) {
  if (out->n == LLAMP_CAPTURE_NET_SETTINGS) return;
  llamp_capture_net_setting_t *s = &out->setting[out->n++];
  snprintf(s->key, sizeof s->key, "%s", key);
  snprintf(s->value, sizeof s->value, "%s", value ? value : "");
  int def = is_default ? is_default(key) : -1;
  if (listed(added, key))
    snprintf(s->source, sizeof s->source, "the model file's smpi group (passed by smpi_llamp-run)");
  else if (def == 1)
    snprintf(s->source, sizeof s->source, "SimGrid's default");
  else if (def == 0)
    snprintf(s->source, sizeof s->source, "--cfg or the platform's <config> block");
  else
    snprintf(s->source, sizeof s->source, "SimGrid");
}

static int curve_nonzero(const llamp_netmodel_curve_t *c) {
  for (unsigned i = 0; i < c->n; i++)
    if (c->seg[i].offset > 0 || c->seg[i].per_byte > 0) return 1;
  return 0;
}

int llamp_capture_net_resolve(llamp_capture_net_t *out, const llamp_capture_config_t *cfg,
                              const char *(*get)(const char *name),
                              int (*is_default)(const char *name), const char *added, char *err,
                              size_t errlen) {
  memset(out, 0, sizeof *out);
  llamp_netmodel_t *m = &out->model;
  llamp_netmodel_init(m);
  const llamp_netmodel_file_t *nf = &cfg->netfile;
  int smpi_group = nf->have_model && !strcmp(nf->group, "smpi");
  m->L_ref = smpi_group && nf->have_L ? nf->L : cfg->params.L;
  m->G_ref = smpi_group && nf->have_G ? nf->G : cfg->params.G;
  const char *nm = get("network/model");
  snprintf(out->network_model, sizeof out->network_model, "%s", nm ? nm : "SMPI");
  char e2[700];
  static const char *const ovh[3] = {"smpi/os", "smpi/or", "smpi/ois"};
  llamp_netmodel_curve_t *oc[3] = {&m->o_send, &m->o_recv, &m->o_isend};
  for (int i = 0; i < 3; i++) {
    const char *v = get(ovh[i]);
    if (!v) continue; /* not an SMPI run */
    record(out, ovh[i], v, is_default, added);
    if (llamp_netmodel_parse_overhead(v, ovh[i], oc[i], e2, sizeof e2)) {
      seterr(err, errlen, "SimGrid's %s", e2);
      return -1;
    }
  }
  if (!strcmp(out->network_model, "SMPI")) {
    static const char *const fac[2] = {"smpi/lat-factor", "smpi/bw-factor"};
    llamp_netmodel_curve_t *fc[2] = {&m->lat_factor, &m->bw_factor};
    for (int i = 0; i < 2; i++) {
      const char *v = get(fac[i]);
      if (!v) continue;
      record(out, fac[i], v, is_default, added);
      if (llamp_netmodel_parse_factor(v, fac[i], m->envelope, fc[i], e2, sizeof e2)) {
        seterr(err, errlen, "SimGrid's %s", e2);
        return -1;
      }
    }
  } else { /* CM02, LV08...: one latency and one bandwidth factor for every size */
    static const char *const fac[2] = {"network/latency-factor", "network/bandwidth-factor"};
    llamp_netmodel_curve_t *fc[2] = {&m->lat_factor, &m->bw_factor};
    for (int i = 0; i < 2; i++) {
      const char *v = get(fac[i]);
      if (!v) continue;
      record(out, fac[i], v, is_default, added);
      char *end;
      double f = strtod(v, &end);
      if (end == v || !(f > 0)) {
        seterr(err, errlen, "SimGrid's %s '%s' (expected a factor > 0)", fac[i], v);
        return -1;
      }
      fc[i]->n = 1;
      fc[i]->seg[0] = (llamp_netmodel_seg_t){0, f, 0};
    }
    snprintf(out->note, sizeof out->note,
             "network/model:%s: SimGrid's flow model for every message, with its latency and bandwidth "
             "factors; smpi/lat-factor and smpi/bw-factor do not apply", out->network_model);
  }
  out->S = cfg->params.S;
  const char *dt = get("smpi/send-is-detached-thresh");
  if (dt) {
    record(out, "smpi/send-is-detached-thresh", dt, is_default, added);
    char *end;
    long t = strtol(dt, &end, 10);
    if (end != dt && t >= 0) out->S = (double)t - 1; /* eager when s < the threshold */
  }
  const char *as = get("smpi/async-small-thresh");
  if (as) { /* smpi_request.cpp, Request::start: below it a send goes to the receiver's
               small mailbox, whose permanent receiver starts it at once; from it up
               (0: every message) it waits in the mailbox for its receive */
    record(out, "smpi/async-small-thresh", as, is_default, added);
    char *end;
    long t = strtol(as, &end, 10);
    if (end != as && t >= 0) out->have_A = 1, out->A = (double)t;
  }
  snprintf(m->source, sizeof m->source, "SimGrid's settings at MPI_Init (%s)",
           smpi_group ? "from the model file's smpi group unless overridden" : "report.json: capture.network_model");
  out->active = !llamp_netmodel_is_trivial(m);
  if (!out->active) return 0;
  size_t len = strlen(out->note);
  if (curve_nonzero(&m->o_recv) && len < sizeof out->note)
    snprintf(out->note + len, sizeof out->note - len,
             "%ssmpi/or is not 0: SMPI sleeps it in the call that completes a receive, one completed "
             "receive after the other in the order they completed; the DAG chains them in the order the "
             "capture saw (MPI_Waitall) or the algorithm's (a collective's round), frozen: where the "
             "messages arrive in another order the DAG can charge up to one or more per receive",
             len ? "; " : "");
  return 0;
}

void llamp_capture_net_json(FILE *f, const llamp_capture_net_t *n, const char *indent) {
  fprintf(f, "{\"kind\": \"%s\", \"network_model\": ", n->active ? "size-dependent" : "scalar");
  llamp_capture_json_str(f, n->network_model);
  if (n->active)
    fprintf(f, ", \"L_ref\": %.12g, \"G_ref\": %.12g, \"envelope\": %g", n->model.L_ref, n->model.G_ref,
            n->model.envelope);
  fprintf(f, ", \"S\": %.0f", n->S);
  if (n->have_A) fprintf(f, ", \"A\": %.0f", n->A);
  if (n->note[0]) {
    fprintf(f, ", \"note\": ");
    llamp_capture_json_str(f, n->note);
  }
  fprintf(f, ",\n%s  \"settings\": {", indent);
  for (unsigned i = 0; i < n->n; i++) {
    fprintf(f, "%s\n%s    ", i ? "," : "", indent);
    llamp_capture_json_str(f, n->setting[i].key);
    fprintf(f, ": {\"value\": ");
    llamp_capture_json_str(f, n->setting[i].value);
    fprintf(f, ", \"source\": ");
    llamp_capture_json_str(f, n->setting[i].source);
    fputc('}', f);
  }
  fprintf(f, "}}");
}
