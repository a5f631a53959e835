/* diagnose.c - why SimGrid's simulated time and the DAG's T(L0) may differ:
 * the causes the capture can see at the end of a run (llamp_capture.h,
 * llamp_capture_diagnose).  Each is a fact about this run, with numbers:
 * calls the DAG does not model, ranks sharing a host, links shared between
 * routes (contention), SMPI network settings the LogGPS model does not
 * share, route latencies and bandwidths unlike the DAG's L and G. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/config.h>
#include <xbt/dynar.h>

#include "capture_internal.h"
#include "llamp_capture.h"
#include "llamp_units.h"

static void add(llamp_capture_reasons_t *out, const char *fmt, ...) {
  if (out->n >= LLAMP_CAPTURE_MAX_REASONS) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->reason[out->n++], sizeof out->reason[0], fmt, ap);
  va_end(ap);
}

/* A piecewise "thr:v1[:v2];thr:..." SMPI setting: 1 when every section's
 * values equal `want` (1 for factors, 0 for os/or/ois). */
static int piecewise_is(const char *text, double want) {
  char buf[2048];
  if (!text) return 1; /* no such setting: nothing to say */
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *sec = strtok_r(buf, ";", &save); sec; sec = strtok_r(NULL, ";", &save)) {
    char *colon = strchr(sec, ':');
    if (!colon) return 0;
    for (char *v = colon + 1; v && *v;) {
      char *end;
      double x = strtod(v, &end);
      if (end == v || x != want) return 0;
      v = *end == ':' ? end + 1 : NULL;
    }
  }
  return 1;
}

static void routes(const llamp_capture_config_t *cfg, llamp_capture_reasons_t *out) {
  const sg_host_t *hosts;
  size_t n = llamp_capture_session_hosts(&hosts);
  if (n == 0) return;
  /* ranks sharing a host compute and communicate through one CPU and link */
  size_t shared = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      if (j != i && hosts[j] == hosts[i]) {
        shared++;
        break;
      }
  /* the observed contention model holds both (the compute as simulated,
   * each transfer as SimGrid ran it) */
  const int observed = cfg->contention > 0;
  if (shared && !observed)
    add(out, "%zu of %zu ranks share a host with another rank: their compute and messages contend "
             "in SimGrid; the DAG charges each alone", shared, n);
  /* route latency and bandwidth between distinct hosts, over a sample of pairs */
  size_t m = n < 64 ? n : 64;
  double lmin = INFINITY, lmax = 0, bmin = INFINITY, bmax = 0;
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < m; j++) {
      if (hosts[i] == hosts[j]) continue;
      double l = sg_host_get_route_latency(hosts[i], hosts[j]);
      double b = sg_host_get_route_bandwidth(hosts[i], hosts[j]);
      if (l < lmin) lmin = l;
      if (l > lmax) lmax = l;
      if (b < bmin) bmin = b;
      if (b > bmax) bmax = b;
    }
  char a[64], b[64], c[64];
  double L = cfg->params.L;
  /* with per-pair costs (docs/topology.md) every message costs its own route */
  const int per_pair = cfg->topo && cfg->topology == 0;
  if (per_pair) lmax = bmax = 0;
  if (lmax > 0 && (fabs(lmin - L) > 1e-3 * L + 1e-12 || fabs(lmax - L) > 1e-3 * L + 1e-12)) {
    llamp_units_format_time(lmin, a, sizeof a);
    llamp_units_format_time(lmax, b, sizeof b);
    llamp_units_format_time(L, c, sizeof c);
    if (lmin == lmax)
      add(out, "the platform's route latency is %s, the DAG's L is %s (model file %s)", a, c,
          cfg->config_path[0] ? cfg->config_path : "built-in defaults");
    else
      add(out, "route latencies between the ranks' hosts range from %s to %s; the DAG charges one L = %s "
               "to every message", a, b, c);
  }
  double G = cfg->params.G;
  if (bmax > 0 && G > 0 && (fabs(1 / bmin - G) > 1e-3 * G || fabs(1 / bmax - G) > 1e-3 * G)) {
    add(out, "route bandwidths range from %.4g to %.4g GB/s; the DAG's G is %.4g ns/B (%.4g GB/s)",
        bmin / 1e9, bmax / 1e9, G * 1e9, 1 / G / 1e9);
  }
  /* contention: one host's routes to two destinations, or both directions
   * between two hosts, through one link */
  if (n >= 2 && !observed) {
    xbt_dynar_t r1 = xbt_dynar_new(sizeof(sg_link_t), NULL);
    xbt_dynar_t r2 = xbt_dynar_new(sizeof(sg_link_t), NULL);
    const char *shared_link = NULL;
    size_t d1 = 0, d2 = 0;
    for (size_t j = 1; j < n && !shared_link; j++) {
      if (hosts[j] == hosts[0]) continue;
      xbt_dynar_reset(r1);
      sg_host_get_route(hosts[0], hosts[j], r1);
      for (size_t k = j; k < n && k < j + 8 && !shared_link; k++) {
        if (hosts[k] == hosts[0] || (k != j && hosts[k] == hosts[j])) continue;
        xbt_dynar_reset(r2);
        if (k == j) sg_host_get_route(hosts[j], hosts[0], r2); /* the way back */
        else sg_host_get_route(hosts[0], hosts[k], r2);
        for (unsigned long x = 0; x < xbt_dynar_length(r1) && !shared_link; x++) {
          sg_link_t lx;
          xbt_dynar_get_cpy(r1, x, &lx);
          if (xbt_dynar_member(r2, &lx)) {
            shared_link = sg_link_get_name(lx);
            d1 = j;
            d2 = k;
          }
        }
      }
    }
    if (shared_link && d1 == d2)
      add(out, "routes share links (link %s carries both rank 0 -> %zu and rank %zu -> 0): SimGrid "
               "shares it fairly between concurrent messages, which the DAG approximates at best (the "
               "NIC rule: docs/model.md) (contention)",
          shared_link, d1, d2);
    else if (shared_link)
      add(out, "routes share links (link %s carries both rank 0 -> %zu and rank 0 -> %zu): SimGrid "
               "shares it fairly between concurrent messages, which the DAG approximates at best (the "
               "NIC rule: docs/model.md) (contention)",
          shared_link, d1, d2);
    xbt_dynar_free(&r1);
    xbt_dynar_free(&r2);
  }
}

/* SMPI takes a host's own smpi/os, or, ois property over the global
 * setting; the DAG charges the global one. */
static void per_host(llamp_capture_reasons_t *out) {
  static const char *const ovh[] = {"smpi/os", "smpi/or", "smpi/ois"};
  size_t n = sg_host_count();
  sg_host_t *hosts = sg_host_list();
  for (size_t i = 0; hosts && i < n; i++)
    for (int k = 0; k < 3; k++)
      if (sg_host_get_property_value(hosts[i], ovh[k])) {
        add(out, "host %s has its own %s property, which SMPI charges on it; the DAG charges the global "
                 "setting on every host", sg_host_get_name(hosts[i]), ovh[k]);
        free(hosts);
        return;
      }
  free(hosts);
}

static void settings(const llamp_capture_config_t *cfg, llamp_capture_reasons_t *out) {
  /* SMPI's protocol by size is the DAG's (analysis.c: async_small) */
  int protocol = cfg->net && cfg->net->have_A && cfg->params.rndv_direct;
  if (cfg->net && cfg->net->active) { /* the DAG charges SimGrid's per-message costs */
    const llamp_netmodel_t *m = &cfg->net->model;
    for (const char *n = cfg->net->note; *n;) { /* one reason per "; "-separated part */
      const char *e = strstr(n, "; ");
      size_t len = e ? (size_t)(e - n) : strlen(n);
      add(out, "%.*s", (int)len, n);
      n += len + (e ? 2 : 0);
    }
    if (!cfg->topo && fabs(m->L_ref - cfg->params.L) > 1e-3 * m->L_ref) /* with routes: each route's own */
      add(out, "the latency factors scale a route latency of L_ref = %.4g us, the DAG's L is %.4g us",
          m->L_ref * 1e6, cfg->params.L * 1e6);
    int async = sg_cfg_get_int("smpi/async-small-thresh");
    if (!protocol && (double)async < cfg->net->S + 1 && cfg->net->S > 0)
      add(out, "SimGrid starts a message above smpi/async-small-thresh (%d B) only when its receive is "
               "posted; the DAG's eager messages (up to S = %.0f B) leave at the send", async, cfg->net->S);
    per_host(out);
    return;
  }
  const char *lat = llamp_capture_sg_string("smpi/lat-factor");
  const char *bw = llamp_capture_sg_string("smpi/bw-factor");
  if (lat && *lat && !piecewise_is(lat, 1))
    add(out, "SMPI's size-dependent latency factors are on (smpi/lat-factor '%.60s'): "
             "SimGrid charges factor x latency, the DAG L", lat);
  if (bw && *bw && !piecewise_is(bw, 1))
    add(out, "SMPI's size-dependent bandwidth factors are on (smpi/bw-factor '%.60s'): "
             "SimGrid charges size / (factor x bandwidth), the DAG (s-1) G", bw);
  static const char *const ovh[] = {"smpi/os", "smpi/or", "smpi/ois"};
  for (int i = 0; i < 3; i++) {
    const char *v = llamp_capture_sg_string(ovh[i]);
    if (v && *v && !piecewise_is(v, 0))
      add(out, "SimGrid charges a CPU overhead per message (%s '%.60s'); the DAG's o is %.3g us",
          ovh[i], v, cfg->params.o * 1e6);
  }
  double S = cfg->params.S;
  int async = sg_cfg_get_int("smpi/async-small-thresh");
  int detached = sg_cfg_get_int("smpi/send-is-detached-thresh");
  if (protocol) return;
  if ((double)async < S + 1 && S > 0)
    add(out, "SimGrid starts a message above smpi/async-small-thresh (%d B) only when its receive is "
             "posted; the DAG's eager messages (up to S = %.0f B) leave at the send", async, S);
  if ((double)detached != S + 1)
    add(out, "SimGrid's eager limit (smpi/send-is-detached-thresh %d B) differs from the DAG's "
             "rendezvous threshold S = %.0f B", detached, S);
}

int llamp_capture_host_links_shared(char *link, size_t len) {
  const sg_host_t *hosts;
  size_t n = llamp_capture_session_hosts(&hosts);
  int found = 0;
  xbt_dynar_t r1 = xbt_dynar_new(sizeof(sg_link_t), NULL);
  xbt_dynar_t r2 = xbt_dynar_new(sizeof(sg_link_t), NULL);
  /* a few ranks' hosts, each against a few pairs of other hosts */
  for (size_t i = 0; i < n && i < 4 && !found; i++)
    for (size_t j = 0; j < n && j < 12 && !found; j++) {
      if (hosts[j] == hosts[i]) continue;
      xbt_dynar_reset(r1);
      sg_host_get_route(hosts[i], hosts[j], r1);
      for (size_t k = j + 1; k < n && k < 12 && !found; k++) {
        if (hosts[k] == hosts[i] || hosts[k] == hosts[j]) continue;
        xbt_dynar_reset(r2);
        sg_host_get_route(hosts[i], hosts[k], r2);
        for (unsigned long x = 0; x < xbt_dynar_length(r1) && !found; x++) {
          sg_link_t lx;
          xbt_dynar_get_cpy(r1, x, &lx);
          if (xbt_dynar_member(r2, &lx)) {
            found = 1;
            if (link && len) snprintf(link, len, "%s", sg_link_get_name(lx));
          }
        }
      }
    }
  xbt_dynar_free(&r1);
  xbt_dynar_free(&r2);
  return found;
}

void llamp_capture_diagnose(const llamp_capture_config_t *cfg, const char *not_modelled,
                            llamp_capture_reasons_t *out) {
  memset(out, 0, sizeof *out);
  if (not_modelled && *not_modelled)
    add(out, "calls the DAG does not model (their time counts as compute): %s", not_modelled);
  settings(cfg, out);
  routes(cfg, out);
}
