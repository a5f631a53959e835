/* topo_sg.c - llamp_topo_from_simgrid: SimGrid's routes between the ranks'
 * hosts into a routes table.  One sg_host_get_route per ordered pair of
 * distinct hosts (and each host to itself: SimGrid's loopback). */
#include "llamp_topo_sg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

llamp_topo_t *llamp_topo_from_simgrid(const sg_host_t *hosts, uint32_t P, char *err, size_t errlen) {
  llamp_topo_t *t = llamp_topo_create();
  uint32_t *hr = malloc((P ? P : 1) * sizeof *hr), *links = NULL;
  sg_host_t *uh = malloc((P ? P : 1) * sizeof *uh);
  xbt_dynar_t r = xbt_dynar_new(sizeof(sg_link_t), NULL);
  size_t lcap = 0;
  if (!t || !hr || !uh) goto oom;
  uint32_t nh = 0;
  for (uint32_t i = 0; i < P; i++) {
    int64_t h = llamp_topo_host(t, sg_host_get_name(hosts[i]));
    if (h < 0) goto oom;
    hr[i] = (uint32_t)h;
    if (h == nh) uh[nh++] = hosts[i];
  }
  for (uint32_t a = 0; a < nh; a++)
    for (uint32_t b = 0; b < nh; b++) {
      xbt_dynar_reset(r);
      sg_host_get_route(uh[a], uh[b], r);
      size_t n = xbt_dynar_length(r);
      if (n > lcap) {
        lcap = n * 2;
        uint32_t *nl = realloc(links, lcap * sizeof *nl);
        if (!nl) goto oom;
        links = nl;
      }
      for (size_t i = 0; i < n; i++) {
        sg_link_t l;
        xbt_dynar_get_cpy(r, i, &l);
        int64_t k = llamp_topo_link(t, sg_link_get_name(l), sg_link_get_latency(l),
                                    sg_link_get_bandwidth(l), sg_link_is_shared(l));
        if (k < 0) goto oom;
        links[i] = (uint32_t)k;
      }
      if (llamp_topo_set_route(t, a, b, links, n, err, errlen)) goto fail;
    }
  if (llamp_topo_set_ranks(t, P, hr, err, errlen) || llamp_topo_classify(t, err, errlen)) goto fail;
  free(hr);
  free(uh);
  free(links);
  xbt_dynar_free(&r);
  return t;
oom:
  seterr(err, errlen, "out of memory reading the platform's routes");
fail:
  free(hr);
  free(uh);
  free(links);
  xbt_dynar_free(&r);
  llamp_topo_destroy(t);
  return NULL;
}
