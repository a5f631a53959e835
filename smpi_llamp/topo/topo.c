/* topo.c - the routes table (llamp_topo.h): building, the routes file,
 * route summaries, the reference point and the engine's per-pair costs. */
#define _GNU_SOURCE
#include "llamp_topo.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_map.h"

typedef struct {
  char *name;
  double lat, bw;
  int shared;
  int cls; /* -1: not classified yet */
  int kind; /* 0 hop, 1 limiter (no hop), 2 loopback (no hop), 3 backbone (hop, no switch) */
} link_t;

typedef struct {
  uint32_t a, b, off, n;
} route_t;

struct llamp_topo {
  char **host;
  uint32_t nhost, hcap;
  llamp_map_t host_map; /* name hash -> index */
  link_t *link;
  uint32_t nlink, lcap;
  llamp_map_t link_map;
  route_t *route;
  uint32_t nroute, rcap;
  llamp_map_t route_map; /* a << 32 | b -> route index */
  uint32_t *rl;          /* routes' link indices */
  size_t nrl, rlcap;
  uint32_t P;
  uint32_t *rank_host;
  char cls[LLAMP_TOPO_MAX_CLASSES][24];
  uint32_t ncls;
  int subset; /* only some host pairs' routes */
  double tcp_gamma; /* llamp_topo_set_flow */
  int crosstraffic;
};

void llamp_topo_set_flow(llamp_topo_t *t, double tcp_gamma, int crosstraffic) {
  t->tcp_gamma = tcp_gamma > 0 && isfinite(tcp_gamma) ? tcp_gamma : 0;
  t->crosstraffic = crosstraffic != 0;
}

void llamp_topo_set_subset(llamp_topo_t *t) { t->subset = 1; }
int llamp_topo_is_subset(const llamp_topo_t *t) { return t->subset; }

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h == LLAMP_MAP_EMPTY ? 0 : h;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int link_kind_of(const char *name) {
  if (ends_with(name, "_limiter")) return 1;
  if (ends_with(name, "_loopback") || strncmp(name, "self", 4) == 0) return 2;
  if (ends_with(name, "_backbone")) return 3;
  return 0;
}

llamp_topo_t *llamp_topo_create(void) {
  llamp_topo_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  if (llamp_map_init(&t->host_map, 64) || llamp_map_init(&t->link_map, 256) ||
      llamp_map_init(&t->route_map, 1024)) {
    llamp_topo_destroy(t);
    return NULL;
  }
  return t;
}

void llamp_topo_destroy(llamp_topo_t *t) {
  if (!t) return;
  for (uint32_t i = 0; i < t->nhost; i++) free(t->host[i]);
  for (uint32_t i = 0; i < t->nlink; i++) free(t->link[i].name);
  free(t->host);
  free(t->link);
  free(t->route);
  free(t->rl);
  free(t->rank_host);
  llamp_map_free(&t->host_map);
  llamp_map_free(&t->link_map);
  llamp_map_free(&t->route_map);
  free(t);
}

/* Find `name` in a name map whose values index `names` (stride `stride`
 * bytes, the name pointer first); probes past hash collisions. */
static uint32_t *find_name(llamp_map_t *m, const char *name, uint64_t *key,
                           const char *(*name_of)(const llamp_topo_t *, uint32_t),
                           const llamp_topo_t *t) {
  uint64_t h = name_hash(name);
  for (;;) {
    uint32_t *v = llamp_map_find(m, h);
    if (!v || strcmp(name_of(t, *v), name) == 0) {
      *key = h;
      return v;
    }
    h = h + 1 == LLAMP_MAP_EMPTY ? 0 : h + 1;
  }
}

int64_t llamp_topo_host(llamp_topo_t *t, const char *name) {
  uint64_t key;
  uint32_t *v = find_name(&t->host_map, name, &key, llamp_topo_host_name, t);
  if (v) return *v;
  if (t->nhost == t->hcap) {
    uint32_t cap = t->hcap ? 2 * t->hcap : 16;
    char **nh = realloc(t->host, cap * sizeof *nh);
    if (!nh) return -1;
    t->host = nh;
    t->hcap = cap;
  }
  if (!(t->host[t->nhost] = strdup(name))) return -1;
  if (llamp_map_put(&t->host_map, key, t->nhost)) return -1;
  return t->nhost++;
}

int64_t llamp_topo_link(llamp_topo_t *t, const char *name, double latency, double bandwidth,
                        int shared) {
  uint64_t key;
  uint32_t *v = find_name(&t->link_map, name, &key, llamp_topo_link_name, t);
  if (v) return *v;
  if (t->nlink == t->lcap) {
    uint32_t cap = t->lcap ? 2 * t->lcap : 64;
    link_t *nl = realloc(t->link, cap * sizeof *nl);
    if (!nl) return -1;
    t->link = nl;
    t->lcap = cap;
  }
  link_t *l = &t->link[t->nlink];
  if (!(l->name = strdup(name))) return -1;
  l->lat = latency;
  l->bw = bandwidth;
  l->shared = shared;
  l->cls = -1;
  l->kind = link_kind_of(name);
  if (llamp_map_put(&t->link_map, key, t->nlink)) return -1;
  return t->nlink++;
}

int llamp_topo_set_route(llamp_topo_t *t, uint32_t a, uint32_t b, const uint32_t *links, size_t n,
                         char *err, size_t errlen) {
  if (a >= t->nhost || b >= t->nhost) {
    seterr(err, errlen, "route %u -> %u: no such host (%u hosts)", a, b, t->nhost);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    if (links[i] >= t->nlink) {
      seterr(err, errlen, "route %u -> %u: no link %u (%u links)", a, b, links[i], t->nlink);
      return -1;
    }
  uint64_t key = (uint64_t)a << 32 | b;
  if (llamp_map_find(&t->route_map, key)) {
    seterr(err, errlen, "route %u -> %u given twice", a, b);
    return -1;
  }
  if (t->nroute == t->rcap) {
    uint32_t cap = t->rcap ? 2 * t->rcap : 256;
    route_t *nr = realloc(t->route, cap * sizeof *nr);
    if (!nr) goto oom;
    t->route = nr;
    t->rcap = cap;
  }
  if (t->nrl + n > t->rlcap) {
    size_t cap = t->rlcap ? 2 * t->rlcap : 1024;
    while (cap < t->nrl + n) cap *= 2;
    uint32_t *nl = realloc(t->rl, cap * sizeof *nl);
    if (!nl) goto oom;
    t->rl = nl;
    t->rlcap = cap;
  }
  if (n) memcpy(t->rl + t->nrl, links, n * sizeof *links); /* a route to oneself may be empty (rl NULL) */
  t->route[t->nroute] = (route_t){a, b, (uint32_t)t->nrl, (uint32_t)n};
  t->nrl += n;
  if (llamp_map_put(&t->route_map, key, t->nroute)) goto oom;
  t->nroute++;
  return 0;
oom:
  seterr(err, errlen, "out of memory for the routes");
  return -1;
}

int llamp_topo_set_ranks(llamp_topo_t *t, uint32_t P, const uint32_t *host_of_rank, char *err,
                         size_t errlen) {
  uint32_t *r = malloc((P ? P : 1) * sizeof *r);
  if (!r) {
    seterr(err, errlen, "out of memory");
    return -1;
  }
  for (uint32_t i = 0; i < P; i++) {
    if (host_of_rank[i] >= t->nhost) {
      free(r);
      seterr(err, errlen, "rank %u: no host %u (%u hosts)", i, host_of_rank[i], t->nhost);
      return -1;
    }
    r[i] = host_of_rank[i];
  }
  free(t->rank_host);
  t->rank_host = r;
  t->P = P;
  return 0;
}

static int class_index(llamp_topo_t *t, const char *name) {
  for (uint32_t c = 0; c < t->ncls; c++)
    if (!strcmp(t->cls[c], name)) return (int)c;
  if (t->ncls == LLAMP_TOPO_MAX_CLASSES) return -1;
  snprintf(t->cls[t->ncls], sizeof t->cls[0], "%s", name);
  return (int)t->ncls++;
}

int llamp_topo_classify(llamp_topo_t *t, char *err, size_t errlen) {
  const int max_level = LLAMP_TOPO_MAX_CLASSES - 2;
  int *level = malloc((t->nlink ? t->nlink : 1) * sizeof *level);
  uint32_t *hops = malloc((t->nrl ? t->nrl : 1) * sizeof *hops);
  if (!level || !hops) {
    free(level);
    free(hops);
    seterr(err, errlen, "out of memory");
    return -1;
  }
  for (uint32_t l = 0; l < t->nlink; l++) level[l] = max_level;
  for (uint32_t r = 0; r < t->nroute; r++) {
    size_t n = 0;
    for (uint32_t i = 0; i < t->route[r].n; i++) {
      uint32_t l = t->rl[t->route[r].off + i];
      if (t->link[l].kind == 0 || t->link[l].kind == 3) hops[n++] = l;
    }
    for (size_t i = 0; i < n; i++) {
      int lv = (int)(i < n - 1 - i ? i : n - 1 - i);
      if (lv < level[hops[i]]) level[hops[i]] = lv;
    }
  }
  t->ncls = 0;
  int rc = 0;
  for (uint32_t l = 0; l < t->nlink && !rc; l++) {
    const char *nm = t->link[l].name;
    char buf[24];
    if (t->link[l].kind == 2) snprintf(buf, sizeof buf, "loopback");
    else if (t->link[l].kind == 1) snprintf(buf, sizeof buf, "limiter");
    else if (!strncmp(nm, "local_link", 10)) snprintf(buf, sizeof buf, "terminal");
    else if (!strncmp(nm, "green_link", 10) || !strncmp(nm, "black_link", 10))
      snprintf(buf, sizeof buf, "intra");
    else if (!strncmp(nm, "blue_link", 9)) snprintf(buf, sizeof buf, "inter");
    else snprintf(buf, sizeof buf, "level%d", level[l]);
    int c = class_index(t, buf);
    if (c < 0) {
      seterr(err, errlen, "more than %d link classes (link %s)", LLAMP_TOPO_MAX_CLASSES, nm);
      rc = -1;
    }
    t->link[l].cls = c;
  }
  free(level);
  free(hops);
  return rc;
}

/* ---- file ----------------------------------------------------------------------- */

int llamp_topo_write(const llamp_topo_t *t, const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "w");
  if (!f) {
    seterr(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    return -1;
  }
  fprintf(f, "llamp-routes 1\n# %u hosts, %u links, %u routes, %u ranks (docs/topology.md)\n",
          t->nhost, t->nlink, t->nroute, t->P);
  if (t->subset) fputs("subset\n", f);
  if (t->tcp_gamma > 0 || t->crosstraffic) fprintf(f, "flow %.17g %d\n", t->tcp_gamma, t->crosstraffic);
  for (uint32_t c = 0; c < t->ncls; c++) fprintf(f, "class %u %s\n", c, t->cls[c]);
  for (uint32_t h = 0; h < t->nhost; h++) fprintf(f, "host %u %s\n", h, t->host[h]);
  for (uint32_t l = 0; l < t->nlink; l++)
    fprintf(f, "link %u %.17g %.17g %d %d %s\n", l, t->link[l].lat, t->link[l].bw,
            t->link[l].shared, t->link[l].cls, t->link[l].name);
  for (uint32_t r = 0; r < t->P; r++) fprintf(f, "rank %u %u\n", r, t->rank_host[r]);
  for (uint32_t r = 0; r < t->nroute; r++) {
    fprintf(f, "route %u %u", t->route[r].a, t->route[r].b);
    for (uint32_t i = 0; i < t->route[r].n; i++) fprintf(f, " %u", t->rl[t->route[r].off + i]);
    fputc('\n', f);
  }
  if (fclose(f) != 0) {
    seterr(err, errlen, "%s: write failed", path);
    return -1;
  }
  return 0;
}

llamp_topo_t *llamp_topo_read(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) {
    seterr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  llamp_topo_t *t = llamp_topo_create();
  char *line = NULL, e2[300];
  size_t cap = 0;
  uint64_t ln = 0;
  uint32_t *ranks = NULL, nranks = 0, rcap = 0, *links = NULL, lcap = 0;
  if (!t) goto oom;
  while (getline(&line, &cap, f) > 0) {
    ln++;
    char *s = line;
    s[strcspn(s, "\r\n")] = 0;
    if (ln == 1) {
      if (strcmp(s, "llamp-routes 1") != 0) {
        seterr(err, errlen, "%s:1: expected 'llamp-routes 1', found '%.40s'", path, s);
        goto fail;
      }
      continue;
    }
    if (!*s || *s == '#') continue;
    char word[16], name[1024];
    unsigned idx, a, b;
    int used = 0;
    if (sscanf(s, "%15s%n", word, &used) != 1) continue;
    char *rest = s + used;
    if (!strcmp(word, "subset")) {
      t->subset = 1;
    } else if (!strcmp(word, "flow")) {
      double gamma;
      int cross, end = 0;
      if (sscanf(rest, "%lf %d %n", &gamma, &cross, &end) != 2 || rest[end] || !(gamma >= 0 && gamma <= 1e30) ||
          (cross != 0 && cross != 1)) {
        seterr(err, errlen, "%s:%llu: expected 'flow TCP_GAMMA CROSSTRAFFIC' (bytes 0 .. 1e30, 0 or 1)", path,
               (unsigned long long)ln);
        goto fail;
      }
      llamp_topo_set_flow(t, gamma, cross);
    } else if (!strcmp(word, "class")) {
      if (sscanf(rest, "%u %23s", &idx, name) != 2 || strlen(name) > 23 || idx != t->ncls || t->ncls == LLAMP_TOPO_MAX_CLASSES) {
        seterr(err, errlen, "%s:%llu: expected 'class %u NAME' (at most %d classes)", path,
               (unsigned long long)ln, t->ncls, LLAMP_TOPO_MAX_CLASSES);
        goto fail;
      }
      snprintf(t->cls[t->ncls++], sizeof t->cls[0], "%s", name);
    } else if (!strcmp(word, "host")) {
      if (sscanf(rest, "%u %1023s", &idx, name) != 2 || idx != t->nhost) {
        seterr(err, errlen, "%s:%llu: expected 'host %u NAME'", path, (unsigned long long)ln, t->nhost);
        goto fail;
      }
      if (llamp_topo_host(t, name) != (int64_t)idx) {
        seterr(err, errlen, "%s:%llu: host %s given twice", path, (unsigned long long)ln, name);
        goto fail;
      }
    } else if (!strcmp(word, "link")) {
      double lat, bw;
      int shared, cls;
      if (sscanf(rest, "%u %lf %lf %d %d %1023s", &idx, &lat, &bw, &shared, &cls, name) != 6 ||
          idx != t->nlink || !(lat >= 0 && lat <= 3600) || !(bw >= 1 && bw <= 1e20) || cls < -1 ||
          cls >= (int)t->ncls) {
        /* bounded so that sums of latencies and ratios of bandwidths stay finite */
        seterr(err, errlen,
               "%s:%llu: expected 'link %u LATENCY BANDWIDTH SHARED CLASS NAME' (latency 0 .. 3600 s, "
               "bandwidth 1 .. 1e20 B/s, class < %u)",
               path, (unsigned long long)ln, t->nlink, t->ncls);
        goto fail;
      }
      if (llamp_topo_link(t, name, lat, bw, shared) != (int64_t)idx) {
        seterr(err, errlen, "%s:%llu: link %s given twice", path, (unsigned long long)ln, name);
        goto fail;
      }
      t->link[idx].cls = cls;
    } else if (!strcmp(word, "rank")) {
      if (sscanf(rest, "%u %u", &idx, &a) != 2 || idx != nranks || a >= t->nhost) {
        seterr(err, errlen, "%s:%llu: expected 'rank %u HOST' with a host below %u", path,
               (unsigned long long)ln, nranks, t->nhost);
        goto fail;
      }
      if (nranks == rcap) {
        rcap = rcap ? 2 * rcap : 64;
        uint32_t *nr = realloc(ranks, rcap * sizeof *nr);
        if (!nr) goto oom;
        ranks = nr;
      }
      ranks[nranks++] = a;
    } else if (!strcmp(word, "route")) {
      int k = 0;
      if (sscanf(rest, "%u %u%n", &a, &b, &k) != 2) {
        seterr(err, errlen, "%s:%llu: expected 'route SRC DST LINK...'", path, (unsigned long long)ln);
        goto fail;
      }
      uint32_t n = 0;
      char *p = rest + k, *end;
      for (;;) {
        while (*p == ' ') p++;
        if (!*p) break;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || errno || v > UINT32_MAX || *p == '-') {
          seterr(err, errlen, "%s:%llu: route: expected a link index, found '%.20s'", path,
                 (unsigned long long)ln, p);
          goto fail;
        }
        if (n == lcap) {
          lcap = lcap ? 2 * lcap : 32;
          uint32_t *nl = realloc(links, lcap * sizeof *nl);
          if (!nl) goto oom;
          links = nl;
        }
        links[n++] = (uint32_t)v;
        p = end;
      }
      if (llamp_topo_set_route(t, a, b, links, n, e2, sizeof e2)) {
        seterr(err, errlen, "%s:%llu: %s", path, (unsigned long long)ln, e2);
        goto fail;
      }
    } else {
      seterr(err, errlen, "%s:%llu: unknown line '%s' (expected subset, flow, class, host, link, rank or route)",
             path, (unsigned long long)ln, word);
      goto fail;
    }
  }
  if (ln == 0) {
    seterr(err, errlen, "%s: empty file (expected 'llamp-routes 1')", path);
    goto fail;
  }
  for (uint32_t l = 0; l < t->nlink; l++)
    if (t->link[l].cls < 0) {
      seterr(err, errlen, "%s: link %s has no class", path, t->link[l].name);
      goto fail;
    }
  if (llamp_topo_set_ranks(t, nranks, ranks, e2, sizeof e2)) {
    seterr(err, errlen, "%s: %s", path, e2);
    goto fail;
  }
  free(line);
  free(ranks);
  free(links);
  fclose(f);
  return t;
oom:
  seterr(err, errlen, "%s: out of memory", path);
fail:
  free(line);
  free(ranks);
  free(links);
  fclose(f);
  llamp_topo_destroy(t);
  return NULL;
}

/* ---- reading ----------------------------------------------------------------------- */

uint32_t llamp_topo_num_hosts(const llamp_topo_t *t) { return t->nhost; }
uint32_t llamp_topo_num_links(const llamp_topo_t *t) { return t->nlink; }
uint32_t llamp_topo_num_ranks(const llamp_topo_t *t) { return t->P; }
uint32_t llamp_topo_num_classes(const llamp_topo_t *t) { return t->ncls; }
const char *llamp_topo_host_name(const llamp_topo_t *t, uint32_t h) {
  return h < t->nhost ? t->host[h] : NULL;
}
const char *llamp_topo_link_name(const llamp_topo_t *t, uint32_t l) {
  return l < t->nlink ? t->link[l].name : NULL;
}
int llamp_topo_link_shared(const llamp_topo_t *t, uint32_t l) {
  return l < t->nlink ? t->link[l].shared : 0;
}
const char *llamp_topo_class_name(const llamp_topo_t *t, uint32_t c) {
  return c < t->ncls ? t->cls[c] : NULL;
}
uint32_t llamp_topo_rank_host(const llamp_topo_t *t, uint32_t r) {
  return r < t->P ? t->rank_host[r] : UINT32_MAX;
}

const uint32_t *llamp_topo_route_links(const llamp_topo_t *t, uint32_t a, uint32_t b, size_t *n) {
  const uint32_t *v = llamp_map_find(&t->route_map, (uint64_t)a << 32 | b);
  if (!v) return NULL;
  static const uint32_t empty[1]; /* every route empty: no link array at all */
  *n = t->route[*v].n;
  return t->rl ? t->rl + t->route[*v].off : empty;
}

int llamp_topo_route(const llamp_topo_t *t, uint32_t a, uint32_t b, llamp_topo_route_t *out) {
  size_t n;
  const uint32_t *l = llamp_topo_route_links(t, a, b, &n);
  memset(out, 0, sizeof *out);
  out->bandwidth = INFINITY;
  if (!l) return -1;
  uint32_t backbones = 0;
  for (size_t i = 0; i < n; i++) {
    const link_t *k = &t->link[l[i]];
    out->latency += k->lat;
    if (k->bw < out->bandwidth) out->bandwidth = k->bw;
    if (k->cls >= 0 && k->kind != 1) out->per_class[k->cls]++;
    if (k->kind == 0 || k->kind == 3) out->links++;
    if (k->kind == 3) backbones++;
  }
  out->switches = out->links > 1 + backbones ? out->links - 1 - backbones : 0;
  size_t nb = 0;
  const uint32_t *back = t->crosstraffic ? llamp_topo_route_links(t, b, a, &nb) : NULL;
  if (back) { /* 5 % of the flow on each back-route link: 1.05 on a shared link of both */
    for (size_t i = 0; i < n; i++) {
      const link_t *k = &t->link[l[i]];
      if (!k->shared) continue;
      for (size_t j = 0; j < nb; j++)
        if (back[j] == l[i]) {
          out->bandwidth = fmin(out->bandwidth, k->bw / 1.05);
          break;
        }
    }
    for (size_t j = 0; j < nb; j++) {
      int on_route = 0;
      for (size_t i = 0; i < n && !on_route; i++) on_route = back[j] == l[i];
      if (!on_route) out->bandwidth = fmin(out->bandwidth, t->link[back[j]].bw / 0.05);
    }
  }
  if (t->tcp_gamma > 0 && out->latency > 0) out->bandwidth = fmin(out->bandwidth, t->tcp_gamma / (2 * out->latency));
  return 0;
}

int llamp_topo_routes_share(const llamp_topo_t *t, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  size_t n1, n2;
  const uint32_t *l1 = llamp_topo_route_links(t, a, b, &n1), *l2 = llamp_topo_route_links(t, c, d, &n2);
  if (!l1 || !l2) return 0;
  for (size_t i = 0; i < n1; i++)
    for (size_t j = 0; j < n2; j++)
      if (l1[i] == l2[j] && t->link[l1[i]].shared) return 1;
  return 0;
}

/* ---- the model --------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int llamp_topo_reference(const llamp_topo_t *t, const uint32_t *hr, uint32_t P,
                         llamp_topo_ref_t *out, char *err, size_t errlen) {
  if (!hr) hr = t->rank_host, P = t->P;
  memset(out, 0, sizeof *out);
  double Lmin = INFINITY, bwmax = 0, Lself = INFINITY, bwself = 0;
  /* distinct host pairs of the ranks */
  uint32_t *used = calloc(t->nhost ? t->nhost : 1, sizeof *used), nu = 0;
  uint32_t *hosts = malloc((t->nhost ? t->nhost : 1) * sizeof *hosts);
  if (!used || !hosts) {
    free(used);
    free(hosts);
    seterr(err, errlen, "out of memory");
    return -1;
  }
  for (uint32_t r = 0; r < P; r++)
    if (!used[hr[r]]++) hosts[nu++] = hr[r];
  /* a subset table: its routes between hosts of the ranks; else every pair */
  uint64_t npairs = t->subset ? t->nroute : (uint64_t)nu * nu;
  for (uint64_t k = 0; k < npairs; k++) {
    uint32_t a, b;
    if (t->subset) {
      a = t->route[k].a, b = t->route[k].b;
      if (!used[a] || !used[b]) continue;
    } else {
      a = hosts[k / nu], b = hosts[k % nu];
    }
    llamp_topo_route_t ro;
    /* a pair SimGrid cannot route (two hosts of a zone without routing):
     * no message of the run takes it */
    if (llamp_topo_route(t, a, b, &ro)) continue;
    if (a == b) {
      if (ro.latency < Lself) Lself = ro.latency;
      if (ro.bandwidth > bwself && isfinite(ro.bandwidth)) bwself = ro.bandwidth;
      continue;
    }
    if (ro.latency < Lmin) Lmin = ro.latency;
    if (ro.bandwidth > bwmax && isfinite(ro.bandwidth)) bwmax = ro.bandwidth;
  }
  free(hosts);
  if (!isfinite(Lmin)) { /* every rank on one host */
    Lmin = isfinite(Lself) ? Lself : 0;
    bwmax = bwself;
  }
  out->L0 = Lmin;
  out->G0 = bwmax > 0 ? 1 / bwmax : 0;
  /* the most common hop-link latency among the links of the routes used */
  double best = 0;
  size_t best_n = 0;
  double *lat = malloc((t->nlink ? t->nlink : 1) * sizeof *lat);
  size_t nl = 0;
  if (lat) {
    /* count over all hop links (each once) */
    nl = 0;
    for (uint32_t l = 0; l < t->nlink; l++)
      if (t->link[l].kind == 0 || t->link[l].kind == 3) lat[nl++] = t->link[l].lat;
    /* the mode, the smallest on a tie: sorted, in one pass (not pairwise: a
     * cluster of 4096 hosts has 8 k links) */
    qsort(lat, nl, sizeof *lat, cmp_double);
    for (size_t i = 0; i < nl;) {
      size_t j = i;
      while (j < nl && lat[j] == lat[i]) j++;
      if (j - i > best_n) best = lat[i], best_n = j - i;
      i = j;
    }
    free(lat);
  }
  free(used);
  out->l_wire0 = best;
  out->d_switch0 = 0;
  return 0;
}

void llamp_pairs_free(llamp_pairs_t *p) {
  if (!p) return;
  free(p->pair_kind);
  free(p->c0);
  free(p->coef);
  free(p->gscale);
  free(p->self_lat);
  free(p->self_G);
  free(p->rank_host);
  free(p->hpair_key);
  free(p->hpair_kind);
  free(p);
}

typedef struct {
  uint64_t key;
  uint32_t kind;
} hpair_t;

static int cmp_hpair(const void *a, const void *b) {
  uint64_t x = ((const hpair_t *)a)->key, y = ((const hpair_t *)b)->key;
  return (x > y) - (x < y);
}

llamp_pairs_t *llamp_topo_pairs(const llamp_topo_t *t, const uint32_t *hr, uint32_t P,
                                const llamp_topo_ref_t *ref, char *err, size_t errlen) {
  if (!hr) hr = t->rank_host, P = t->P;
  llamp_pairs_t *p = calloc(1, sizeof *p);
  if (!p) goto oom;
  /* parameters: l_wire, d_switch, then one per class used by a hop (and
   * loopback) */
  int class_param[LLAMP_TOPO_MAX_CLASSES];
  uint32_t K = 2;
  snprintf(p->name[0], sizeof p->name[0], "l_wire");
  snprintf(p->name[1], sizeof p->name[1], "d_switch");
  p->ref[0] = ref->l_wire0;
  p->ref[1] = ref->d_switch0;
  for (uint32_t c = 0; c < t->ncls; c++) {
    class_param[c] = -1;
    if (!strcmp(t->cls[c], "limiter")) continue;
    class_param[c] = (int)K;
    snprintf(p->name[K], sizeof p->name[0], "dl_%.20s", t->cls[c]);
    p->ref[K++] = 0;
  }
  p->ranks = P;
  p->num_params = K;
  p->L0 = ref->L0;
  p->G0 = ref->G0;
  /* sparse (per host pair present) for a subset table or many ranks: the
   * dense table is ranks x ranks */
  const int sparse = t->subset || P > LLAMP_TOPO_DENSE_MAX_RANKS;
  hpair_t *hp = NULL;
  uint8_t *used = NULL;
  if (sparse) {
    p->rank_host = malloc((P + 1) * sizeof *p->rank_host);
    used = calloc(t->nhost + 1, 1);
    hp = malloc(((size_t)t->nroute + 1) * sizeof *hp);
    if (!p->rank_host || !used || !hp) {
      free(used);
      free(hp);
      goto oom;
    }
    for (uint32_t i = 0; i < P; i++) used[p->rank_host[i] = hr[i]] = 1;
  } else {
    p->pair_kind = malloc(((size_t)P * P + 1) * sizeof *p->pair_kind);
  }
  p->self_lat = calloc(P + 1, sizeof *p->self_lat);
  p->self_G = calloc(P + 1, sizeof *p->self_G);
  if ((!sparse && !p->pair_kind) || !p->self_lat || !p->self_G) {
    free(used);
    free(hp);
    goto oom;
  }
  /* kinds per distinct host pair: the route decides everything */
  llamp_map_t seen, kinds;
  if (llamp_map_init(&kinds, 64)) {
    free(used);
    free(hp);
    goto oom;
  }
  if (llamp_map_init(&seen, 1024)) {
    llamp_map_free(&kinds);
    free(used);
    free(hp);
    goto oom;
  }
  size_t kcap = 0;
  uint64_t nhp = 0, total = sparse ? t->nroute : (uint64_t)P * P;
  for (uint64_t x = 0; x < total; x++) {
    uint32_t i = 0, j = 0, ha, hb;
    if (sparse) {
      ha = t->route[x].a, hb = t->route[x].b;
      if (!used[ha] || !used[hb]) continue;
    } else {
      i = (uint32_t)(x / P), j = (uint32_t)(x % P);
      ha = hr[i], hb = hr[j];
    }
    {
      uint64_t key = (uint64_t)ha << 32 | hb;
      uint32_t *v = llamp_map_find(&seen, key);
      if (v) {
        p->pair_kind[x] = *v; /* dense only: a subset table has each route once */
        continue;
      }
      llamp_topo_route_t ro;
      if (llamp_topo_route(t, ha, hb, &ro)) {
        /* no route (SimGrid could not route the pair either): the engine
         * refuses a message of such a pair, naming it */
        if (sparse) continue;
        if (llamp_map_put(&seen, key, UINT32_MAX)) {
          llamp_map_free(&seen);
          llamp_map_free(&kinds);
          goto oom;
        }
        p->pair_kind[x] = UINT32_MAX;
        continue;
      }
      double coef[LLAMP_MAX_XPARAMS] = {0};
      coef[0] = ro.links;
      coef[1] = ro.switches;
      for (uint32_t c = 0; c < t->ncls; c++)
        if (class_param[c] >= 0) coef[class_param[c]] = ro.per_class[c];
      double c0 = ro.latency - ref->L0;
      for (uint32_t x = 0; x < K; x++) c0 -= coef[x] * p->ref[x];
      double gs = isfinite(ro.bandwidth) && ref->G0 > 0 ? 1 / ro.bandwidth / ref->G0 : 0;
      /* the same kind as an earlier route with equal costs? */
      uint64_t h = 1469598103934665603ull;
      const unsigned char *bytes[3] = {(const void *)&c0, (const void *)&gs, (const void *)coef};
      const size_t lens[3] = {sizeof c0, sizeof gs, K * sizeof *coef};
      for (int q = 0; q < 3; q++)
        for (size_t z = 0; z < lens[q]; z++) h = (h ^ bytes[q][z]) * 1099511628211ull;
      uint32_t k = UINT32_MAX;
      for (;; h++) {
        if (h == LLAMP_MAP_EMPTY) h = 0;
        uint32_t *f = llamp_map_find(&kinds, h);
        if (!f) break;
        if (p->c0[*f] == c0 && p->gscale[*f] == gs &&
            !memcmp(p->coef + (size_t)*f * K, coef, K * sizeof *coef)) {
          k = *f;
          break;
        }
      }
      if (k == UINT32_MAX) {
        k = p->num_kinds;
        if (llamp_map_put(&kinds, h, k)) {
          llamp_map_free(&seen);
          llamp_map_free(&kinds);
          free(used);
          free(hp);
          goto oom;
        }
        if (p->num_kinds == kcap) {
          kcap = kcap ? 2 * kcap : 16;
          double *a = realloc(p->c0, kcap * sizeof *a);
          if (a) p->c0 = a;
          double *b = realloc(p->gscale, kcap * sizeof *b);
          if (b) p->gscale = b;
          double *c = realloc(p->coef, kcap * K * sizeof *c);
          if (c) p->coef = c;
          if (!a || !b || !c) {
            llamp_map_free(&seen);
            llamp_map_free(&kinds);
            free(used);
            free(hp);
            goto oom;
          }
        }
        p->c0[k] = c0;
        p->gscale[k] = gs;
        memcpy(p->coef + (size_t)k * K, coef, K * sizeof *coef);
        p->num_kinds++;
      }
      if (sparse) {
        hp[nhp++] = (hpair_t){key, k};
        continue;
      }
      if (llamp_map_put(&seen, key, k)) {
        llamp_map_free(&seen);
        llamp_map_free(&kinds);
        goto oom;
      }
      p->pair_kind[x] = k;
    }
  }
  llamp_map_free(&seen);
  llamp_map_free(&kinds);
  free(used);
  if (sparse) {
    qsort(hp, nhp, sizeof *hp, cmp_hpair);
    p->nhpairs = nhp;
    p->hpair_key = malloc((nhp + 1) * sizeof *p->hpair_key);
    p->hpair_kind = malloc((nhp + 1) * sizeof *p->hpair_kind);
    if (!p->hpair_key || !p->hpair_kind) {
      free(hp);
      goto oom;
    }
    for (uint64_t x = 0; x < nhp; x++) p->hpair_key[x] = hp[x].key, p->hpair_kind[x] = hp[x].kind;
    free(hp);
  }
  for (uint32_t i = 0; i < P; i++) { /* a message to oneself: its host's loopback, as constants */
    llamp_topo_route_t ro;
    if (llamp_topo_route(t, hr[i], hr[i], &ro)) continue; /* checked above (a subset: 0, as before routes) */
    p->self_lat[i] = ro.latency;
    p->self_G[i] = isfinite(ro.bandwidth) && ro.bandwidth > 0 ? 1 / ro.bandwidth : 0;
  }
  return p;
oom:
  seterr(err, errlen, "out of memory for the per-pair costs");
  llamp_pairs_free(p);
  return NULL;
}
