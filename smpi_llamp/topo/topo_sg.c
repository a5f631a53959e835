/* topo_sg.c - llamp_topo_from_simgrid: SimGrid's routes between the ranks'
 * hosts into a routes table.  One sg_host_get_route per ordered pair of
 * distinct hosts (and each host to itself: SimGrid's loopback), or per pair
 * asked for (a subset table). */
#include "llamp_topo_sg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/config.h>
#include <xbt/dynar.h>

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The routes between host pairs (a << 32 | b, table indices) of uh[]. */
static int fetch_routes(llamp_topo_t *t, const sg_host_t *uh, const uint64_t *hp, size_t n, char *err,
                        size_t errlen) {
  xbt_dynar_t r = xbt_dynar_new(sizeof(sg_link_t), NULL);
  uint32_t *links = NULL;
  size_t lcap = 0;
  int rc = -1;
  for (size_t k = 0; k < n; k++) {
    uint32_t a = (uint32_t)(hp[k] >> 32), b = (uint32_t)hp[k];
    if (!llamp_topo_sg_routable(uh[a], uh[b])) continue;
    xbt_dynar_reset(r);
    sg_host_get_route(uh[a], uh[b], r);
    size_t nl = xbt_dynar_length(r);
    if (nl > lcap) {
      lcap = nl * 2;
      uint32_t *nlk = realloc(links, lcap * sizeof *nlk);
      if (!nlk) goto oom;
      links = nlk;
    }
    for (size_t i = 0; i < nl; i++) {
      sg_link_t l;
      xbt_dynar_get_cpy(r, i, &l);
      int64_t id = llamp_topo_link(t, sg_link_get_name(l), sg_link_get_latency(l), sg_link_get_bandwidth(l),
                                   sg_link_is_shared(l));
      if (id < 0) goto oom;
      links[i] = (uint32_t)id;
    }
    if (llamp_topo_set_route(t, a, b, links, nl, err, errlen)) goto out;
  }
  rc = 0;
  goto out;
oom:
  seterr(err, errlen, "out of memory reading the platform's routes");
out:
  free(links);
  xbt_dynar_free(&r);
  return rc;
}

/* Hosts of the ranks into t (hr[r] = rank r's host index, uh[] the distinct
 * hosts by index), then the routes of `pairs` (NULL: every host pair). */
static llamp_topo_t *from_simgrid(const sg_host_t *hosts, uint32_t P, const uint64_t *rank_pairs, size_t n,
                                  char *err, size_t errlen) {
  llamp_topo_t *t = llamp_topo_create();
  uint32_t *hr = malloc((P ? P : 1) * sizeof *hr);
  sg_host_t *uh = malloc((P ? P : 1) * sizeof *uh);
  uint64_t *hp = NULL;
  size_t nhp = 0;
  if (!t || !hr || !uh) goto oom;
  uint32_t nh = 0;
  for (uint32_t i = 0; i < P; i++) {
    int64_t h = llamp_topo_host(t, sg_host_get_name(hosts[i]));
    if (h < 0) goto oom;
    hr[i] = (uint32_t)h;
    if (h == nh) uh[nh++] = hosts[i];
  }
  if (!rank_pairs) {
    hp = malloc(((size_t)nh * nh + 1) * sizeof *hp);
    if (!hp) goto oom;
    for (uint32_t a = 0; a < nh; a++)
      for (uint32_t b = 0; b < nh; b++) hp[nhp++] = (uint64_t)a << 32 | b;
  } else {
    hp = malloc((2 * n + 1) * sizeof *hp);
    if (!hp) goto oom;
    for (size_t k = 0; k < n; k++) {
      uint32_t a = (uint32_t)(rank_pairs[k] >> 32), b = (uint32_t)rank_pairs[k];
      if (a >= P || b >= P) {
        seterr(err, errlen, "route of ranks %u -> %u: no such rank (%u ranks)", a, b, P);
        goto fail;
      }
      hp[nhp++] = (uint64_t)hr[a] << 32 | hr[b];
      hp[nhp++] = (uint64_t)hr[a] << 32 | hr[a];
    }
    qsort(hp, nhp, sizeof *hp, cmp_u64);
    size_t u = 0;
    for (size_t k = 0; k < nhp; k++)
      if (!u || hp[k] != hp[u - 1]) hp[u++] = hp[k];
    nhp = u;
    llamp_topo_set_subset(t);
  }
  if (fetch_routes(t, uh, hp, nhp, err, errlen)) goto fail;
  /* what bounds a flow besides its links (network_cm02.cpp) */
  llamp_topo_set_flow(t, sg_cfg_get_double("network/TCP-gamma"), sg_cfg_get_boolean("network/crosstraffic"));
  if (llamp_topo_set_ranks(t, P, hr, err, errlen) || llamp_topo_classify(t, err, errlen)) goto fail;
  free(hr);
  free(uh);
  free(hp);
  return t;
oom:
  seterr(err, errlen, "out of memory reading the platform's routes");
fail:
  free(hr);
  free(uh);
  free(hp);
  llamp_topo_destroy(t);
  return NULL;
}

llamp_topo_t *llamp_topo_from_simgrid(const sg_host_t *hosts, uint32_t P, char *err, size_t errlen) {
  return from_simgrid(hosts, P, NULL, 0, err, errlen);
}

llamp_topo_t *llamp_topo_from_simgrid_pairs(const sg_host_t *hosts, uint32_t P, const uint64_t *rank_pairs,
                                            size_t n, char *err, size_t errlen) {
  return from_simgrid(hosts, P, rank_pairs ? rank_pairs : (const uint64_t *)"", rank_pairs ? n : 0, err, errlen);
}
