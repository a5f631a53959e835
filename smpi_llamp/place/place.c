/* place.c - rank placement (llamp_place.h): one engine whose per-pair costs
 * are rewritten for each candidate mapping, and the swap heuristic of seed
 * 000 App. J on its per-pair sensitivities. */
#include "llamp_place.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct llamp_place {
  const llamp_graph_t *g;
  const llamp_topo_t *t;
  uint32_t P, H, C;
  double *HL, *HG; /* per host pair: route latency - L0, route time per byte / G0 */
  llamp_params_t p;
  /* one kind per ordered rank pair, so that a mapping only rewrites c0 and
   * gscale: the engine reads them at every evaluation */
  llamp_pairs_t q;
  llamp_engine_t *e;
};

static void seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

int llamp_place_reference(const llamp_topo_t *t, double *L0, double *G0, char *err, size_t errlen) {
  uint32_t H = llamp_topo_num_hosts(t);
  double lmin = INFINITY, bwmax = 0;
  for (uint32_t a = 0; a < H; a++)
    for (uint32_t b = 0; b < H; b++) {
      if (a == b && H > 1) continue;
      llamp_topo_route_t ro;
      if (llamp_topo_route(t, a, b, &ro)) {
        seterr(err, errlen, "the routes table has no route from host %s to host %s",
               llamp_topo_host_name(t, a), llamp_topo_host_name(t, b));
        return -1;
      }
      if (ro.latency < lmin) lmin = ro.latency;
      if (isfinite(ro.bandwidth) && ro.bandwidth > bwmax) bwmax = ro.bandwidth;
    }
  if (!H) {
    seterr(err, errlen, "the routes table has no host");
    return -1;
  }
  *L0 = lmin;
  *G0 = bwmax > 0 ? 1 / bwmax : 0;
  return 0;
}

void llamp_place_destroy(llamp_place_t *pl) {
  if (!pl) return;
  llamp_engine_destroy(pl->e);
  free(pl->HL);
  free(pl->HG);
  free(pl->q.pair_kind);
  free(pl->q.c0);
  free(pl->q.gscale);
  free(pl);
}

llamp_place_t *llamp_place_create(const llamp_graph_t *g, const llamp_params_t *p,
                                  const llamp_topo_t *t, uint32_t slots, char *err, size_t errlen) {
  uint32_t P = llamp_graph_num_ranks(g), H = llamp_topo_num_hosts(t);
  if (!H) {
    seterr(err, errlen, "the routes table has no host");
    return NULL;
  }
  if (!slots) slots = (P + H - 1) / H;
  if ((uint64_t)H * slots < P) {
    seterr(err, errlen, "%u ranks do not fit on %u hosts of %u places each", P, H, slots);
    return NULL;
  }
  double L0, G0;
  if (llamp_place_reference(t, &L0, &G0, err, errlen)) return NULL;
  llamp_place_t *pl = calloc(1, sizeof *pl);
  size_t hh = (size_t)H * H, pp = (size_t)P * P;
  if (!pl || !(pl->HL = malloc(hh * sizeof *pl->HL)) || !(pl->HG = malloc(hh * sizeof *pl->HG)) ||
      !(pl->q.pair_kind = malloc((pp ? pp : 1) * sizeof *pl->q.pair_kind)) ||
      !(pl->q.c0 = calloc(pp ? pp : 1, sizeof *pl->q.c0)) ||
      !(pl->q.gscale = calloc(pp ? pp : 1, sizeof *pl->q.gscale))) {
    llamp_place_destroy(pl);
    seterr(err, errlen, "out of memory for %u ranks on %u hosts", P, H);
    return NULL;
  }
  pl->g = g;
  pl->t = t;
  pl->P = P;
  pl->H = H;
  pl->C = slots;
  for (uint32_t a = 0; a < H; a++)
    for (uint32_t b = 0; b < H; b++) {
      llamp_topo_route_t ro;
      if (llamp_topo_route(t, a, b, &ro)) {
        seterr(err, errlen, "the routes table has no route from host %s to host %s",
               llamp_topo_host_name(t, a), llamp_topo_host_name(t, b));
        llamp_place_destroy(pl);
        return NULL;
      }
      pl->HL[(size_t)a * H + b] = ro.latency - L0;
      pl->HG[(size_t)a * H + b] = isfinite(ro.bandwidth) && G0 > 0 ? 1 / ro.bandwidth / G0 : 0;
    }
  pl->q.ranks = P;
  pl->q.num_params = 0;
  pl->q.num_kinds = (uint32_t)pp;
  pl->q.L0 = L0;
  pl->q.G0 = G0;
  for (size_t k = 0; k < pp; k++) pl->q.pair_kind[k] = (uint32_t)k;
  pl->p = *p;
  memset(pl->p.x, 0, sizeof pl->p.x);
  pl->p.pairs = &pl->q;
  if (!(pl->e = llamp_engine_create(g, &pl->p, err, errlen))) {
    llamp_place_destroy(pl);
    return NULL;
  }
  return pl;
}

uint32_t llamp_place_ranks(const llamp_place_t *pl) { return pl->P; }
uint32_t llamp_place_slots(const llamp_place_t *pl) { return pl->C; }

const char *llamp_place_start_name(llamp_place_start_t how) {
  return how == LLAMP_PLACE_BLOCK ? "block" : how == LLAMP_PLACE_ROUND_ROBIN ? "round-robin" : "random";
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int llamp_place_initial(const llamp_place_t *pl, llamp_place_start_t how, uint64_t seed,
                        uint32_t *hr) {
  uint32_t P = pl->P, H = pl->H, C = pl->C;
  if (how == LLAMP_PLACE_BLOCK) {
    for (uint32_t r = 0; r < P; r++) hr[r] = r / C;
  } else if (how == LLAMP_PLACE_ROUND_ROBIN) {
    for (uint32_t r = 0; r < P; r++) hr[r] = r % H;
  } else {
    size_t Q = (size_t)H * C;
    uint32_t *place = malloc(Q * sizeof *place);
    if (!place) return -1;
    for (size_t i = 0; i < Q; i++) place[i] = (uint32_t)(i / C);
    for (size_t i = 0; i < P; i++) { /* the first P of a Fisher-Yates shuffle */
      size_t j = i + (size_t)(splitmix(&seed) % (Q - i));
      uint32_t x = place[i];
      place[i] = place[j];
      place[j] = x;
      hr[i] = place[i];
    }
    free(place);
  }
  return 0;
}

/* Rewrite the per-pair costs for mapping hr (first P entries). */
static void set_mapping(llamp_place_t *pl, const uint32_t *hr) {
  uint32_t P = pl->P, H = pl->H;
  for (uint32_t i = 0; i < P; i++)
    for (uint32_t j = 0; j < P; j++) {
      size_t hk = (size_t)hr[i] * H + hr[j];
      pl->q.c0[(size_t)i * P + j] = pl->HL[hk];
      pl->q.gscale[(size_t)i * P + j] = pl->HG[hk];
    }
  llamp_engine_refresh_pairs(pl->e); /* the engine keeps its own copy of the costs */
}

static int check_mapping(const llamp_place_t *pl, const uint32_t *hr, char *err, size_t errlen) {
  uint32_t *used = calloc(pl->H, sizeof *used);
  if (!used) {
    seterr(err, errlen, "out of memory");
    return -1;
  }
  int rc = 0;
  for (uint32_t r = 0; r < pl->P && !rc; r++) {
    if (hr[r] >= pl->H) {
      seterr(err, errlen, "rank %u: host %u out of range (%u hosts)", r, hr[r], pl->H);
      rc = -1;
    } else if (++used[hr[r]] > pl->C) {
      seterr(err, errlen, "host %s has more than %u ranks", llamp_topo_host_name(pl->t, hr[r]), pl->C);
      rc = -1;
    }
  }
  free(used);
  return rc;
}

static int eval_T(llamp_place_t *pl, const uint32_t *hr, double *T) {
  llamp_eval_t r;
  set_mapping(pl, hr);
  if (llamp_engine_eval(pl->e, &pl->p, LLAMP_PARAM_L, &r)) return -1;
  *T = r.T;
  return 0;
}

int llamp_place_eval(llamp_place_t *pl, const uint32_t *hr, double *T, char *err, size_t errlen) {
  if (check_mapping(pl, hr, err, errlen)) return -1;
  if (eval_T(pl, hr, T)) {
    seterr(err, errlen, "out of memory during evaluation");
    return -1;
  }
  return 0;
}

int llamp_place_pair_lambda(llamp_place_t *pl, const uint32_t *hr, llamp_pair_lambda_t **out,
                            size_t *count, char *err, size_t errlen) {
  if (check_mapping(pl, hr, err, errlen)) return -1;
  set_mapping(pl, hr);
  if (llamp_engine_pair_lambda(pl->e, &pl->p, out, count)) {
    seterr(err, errlen, "out of memory while computing the per-pair sensitivities");
    return -1;
  }
  return 0;
}

/* ---- the swap heuristic ------------------------------------------------------------ */

typedef struct {
  double gain;
  uint32_t i, j; /* places (ranks; >= P: a free place) */
} cand_t;

static int cand_cmp(const void *a, const void *b) {
  const cand_t *x = a, *y = b;
  if (x->gain != y->gain) return x->gain > y->gain ? -1 : 1;
  if (x->i != y->i) return x->i < y->i ? -1 : 1;
  return x->j < y->j ? -1 : x->j > y->j;
}

/* The first-order change of T when places i and j swap hosts: over the
 * sensitivities incident to either (inc[] lists them per rank), lambda x
 * (cost under the swap - cost now). */
static double swap_delta(const llamp_place_t *pl, const uint32_t *hof, const llamp_pair_lambda_t *s,
                         const uint32_t *inc_off, const uint32_t *inc, uint32_t i, uint32_t j) {
  uint32_t P = pl->P, H = pl->H;
  double d = 0, G = pl->p.G;
  uint32_t hi = hof[i], hj = hof[j];
  for (int side = 0; side < 2; side++) {
    uint32_t x = side ? j : i, y = side ? i : j;
    if (x >= P) continue;
    for (uint32_t k = inc_off[x]; k < inc_off[x + 1]; k++) {
      const llamp_pair_lambda_t *e = &s[inc[k]];
      if (side && (e->src == y || e->dst == y)) continue; /* counted from i's side */
      uint32_t a0 = hof[e->src], b0 = hof[e->dst];
      uint32_t a1 = e->src == i ? hj : e->src == j ? hi : a0;
      uint32_t b1 = e->dst == i ? hj : e->dst == j ? hi : b0;
      size_t o = (size_t)a0 * H + b0, n = (size_t)a1 * H + b1;
      d += e->lambda_L * (pl->HL[n] - pl->HL[o]) + e->lambda_G * G * (pl->HG[n] - pl->HG[o]);
    }
  }
  return d;
}

int llamp_place_optimize(llamp_place_t *pl, uint32_t *hr, const llamp_place_opts_t *o,
                         llamp_place_result_t *res, char *err, size_t errlen) {
  memset(res, 0, sizeof *res);
  if (check_mapping(pl, hr, err, errlen)) return -1;
  uint32_t P = pl->P, H = pl->H, C = pl->C, Q = H * C;
  uint32_t tries = o && o->tries ? o->tries : 8, max_iters = o && o->max_iters ? o->max_iters : 100000;
  /* places: the ranks, then the free places of each host */
  uint32_t *hof = malloc((size_t)Q * sizeof *hof), *used = calloc(H, sizeof *used);
  uint32_t *inc_off = malloc(((size_t)P + 1) * sizeof *inc_off), *crit = malloc((size_t)P * sizeof *crit);
  uint8_t *is_crit = calloc(P ? P : 1, 1);
  uint32_t *inc = NULL;
  cand_t *cand = NULL;
  llamp_pair_lambda_t *s = NULL;
  size_t ncap = 0;
  int rc = -1;
  if (!hof || !used || !inc_off || !crit || !is_crit) goto oom;
  for (uint32_t r = 0; r < P; r++) used[hof[r] = hr[r]]++;
  for (uint32_t h = 0, q = P; h < H; h++)
    for (uint32_t k = used[h]; k < C; k++) hof[q++] = h;
  double T;
  if (eval_T(pl, hof, &T)) goto oom;
  res->T0 = T;
  res->evaluations = 1;
  for (uint32_t it = 0; it < max_iters; it++) {
    size_t ns = 0;
    free(s);
    s = NULL;
    if (llamp_engine_pair_lambda(pl->e, &pl->p, &s, &ns)) goto oom;
    res->iterations++;
    /* the sensitivities incident to each rank (a diagonal entry once) */
    memset(inc_off, 0, ((size_t)P + 1) * sizeof *inc_off);
    for (size_t k = 0; k < ns; k++) {
      inc_off[s[k].src + 1]++;
      if (s[k].dst != s[k].src) inc_off[s[k].dst + 1]++;
    }
    for (uint32_t r = 0; r < P; r++) inc_off[r + 1] += inc_off[r];
    free(inc);
    if (!(inc = malloc((inc_off[P] ? inc_off[P] : 1) * sizeof *inc))) goto oom;
    uint32_t ncrit = 0;
    for (uint32_t r = 0; r < P; r++) {
      is_crit[r] = inc_off[r + 1] > inc_off[r];
      if (is_crit[r]) crit[ncrit++] = r;
    }
    {
      uint32_t *fill = malloc(((size_t)P + 1) * sizeof *fill);
      if (!fill) goto oom;
      memcpy(fill, inc_off, ((size_t)P + 1) * sizeof *fill);
      for (size_t k = 0; k < ns; k++) {
        inc[fill[s[k].src]++] = (uint32_t)k;
        if (s[k].dst != s[k].src) inc[fill[s[k].dst]++] = (uint32_t)k;
      }
      free(fill);
    }
    /* every swap of a rank on the critical path with any other place */
    size_t nc = 0;
    for (uint32_t a = 0; a < ncrit; a++) {
      uint32_t i = crit[a];
      for (uint32_t j = 0; j < Q; j++) {
        if (j == i || hof[j] == hof[i] || (j < P && is_crit[j] && j < i)) continue;
        if (j >= P && j > P && hof[j] == hof[j - 1]) continue; /* one free place per host will do */
        double gain = -swap_delta(pl, hof, s, inc_off, inc, i, j);
        if (!(gain > 1e-12 * T)) continue;
        if (nc == ncap) {
          size_t cap = ncap ? 2 * ncap : 256;
          cand_t *nc2 = realloc(cand, cap * sizeof *nc2);
          if (!nc2) goto oom;
          cand = nc2;
          ncap = cap;
        }
        cand[nc++] = (cand_t){gain, i, j};
      }
    }
    if (!nc) break; /* no swap is predicted to gain */
    qsort(cand, nc, sizeof *cand, cand_cmp);
    int kept = 0;
    for (size_t c = 0; c < nc && c < tries && !kept; c++) {
      uint32_t i = cand[c].i, j = cand[c].j, x = hof[i];
      hof[i] = hof[j];
      hof[j] = x;
      double T2;
      if (eval_T(pl, hof, &T2)) goto oom;
      res->evaluations++;
      if (T2 < T - 1e-12 * T) {
        T = T2;
        kept = 1;
        res->swaps++;
      } else {
        hof[j] = hof[i];
        hof[i] = x;
        res->rejected++;
      }
    }
    if (o && o->progress) o->progress(o->ctx, it + 1, T, res->swaps);
    if (!kept) break;
  }
  memcpy(hr, hof, (size_t)P * sizeof *hr);
  set_mapping(pl, hr);
  res->T = T;
  rc = 0;
  goto out;
oom:
  seterr(err, errlen, "out of memory during placement");
out:
  free(hof);
  free(used);
  free(inc_off);
  free(crit);
  free(is_crit);
  free(inc);
  free(cand);
  free(s);
  return rc;
}

int llamp_place_write_hostfile(const llamp_place_t *pl, const uint32_t *hr, const char *path,
                               char *err, size_t errlen) {
  FILE *f = fopen(path, "w");
  if (!f) {
    seterr(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    return -1;
  }
  for (uint32_t r = 0; r < pl->P; r++) fprintf(f, "%s\n", llamp_topo_host_name(pl->t, hr[r]));
  if (fclose(f)) {
    seterr(err, errlen, "%s: write failed: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}
