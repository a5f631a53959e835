/* Helpers for the LP tests: a random trace-like DAG generator (builder API),
 * a glpsol runner and parser of its solution files, a scratch directory. */
#ifndef TEST_LP_COMMON_H
#define TEST_LP_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llamp_engine.h"
#include "llamp_graph.h"
#include "llamp_lp.h"

/* ---- random numbers (splitmix64) ---------------------------------------- */

typedef struct {
  uint64_t s;
} lp_rng_t;

static inline uint64_t lp_rng_u64(lp_rng_t *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static inline double lp_rng_unif(lp_rng_t *r) { return (lp_rng_u64(r) >> 11) * 0x1.0p-53; }
static inline uint32_t lp_rng_int(lp_rng_t *r, uint32_t n) { return (uint32_t)(lp_rng_u64(r) % n); }
static inline int lp_rng_chance(lp_rng_t *r, double p) { return lp_rng_unif(r) < p; }

/* ---- random trace-like graphs ---------------------------------------------- */

/* The builder wants each rank's program contiguous, so the generator first
 * records every rank's program (operations and dependencies by local index)
 * and then feeds the builder rank by rank. */
typedef struct {
  int kind;
  double value;
  int32_t peer, tag;
  int sync; /* a send's LLAMP_VERTEX_F_SYNC / ISEND flags */
} lp_op_t;
typedef struct {
  int64_t after, before; /* local indices */
  int kind;
} lp_dep_t;

typedef struct {
  lp_op_t *ops;
  size_t nops, ocap;
  lp_dep_t *deps;
  size_t ndeps, dcap;
  int64_t last;     /* op the next op of this rank follows (-1: none) */
  int last_nb;      /* 1: `last` was nonblocking -> irequires */
  int64_t *pending; /* nonblocking ops not waited for yet */
  size_t npending, pcap;
  int64_t *waitset; /* ops the next op must `require` (a wait) */
  size_t nwait, wcap;
} lp_rank_state_t;

static void *lp_grow(void *a, size_t *cap, size_t n, size_t elem) {
  if (n < *cap) return a;
  *cap = *cap ? 2 * *cap : 8;
  a = realloc(a, *cap * elem);
  if (!a) abort();
  return a;
}

static void lp_dep(lp_rank_state_t *st, int64_t after, int64_t before, int kind) {
  st->deps = lp_grow(st->deps, &st->dcap, st->ndeps, sizeof *st->deps);
  st->deps[st->ndeps++] = (lp_dep_t){after, before, kind};
}

/* Append an op to a rank, chained after its previous op and pending waits. */
/* Share of the waits that complete their receives as SMPI does: each
 * waited nonblocking receive's CPU time follows the rank's last operation
 * and the receive waited before it (LLAMP_EDGE_CPU); the operations after
 * such a receive's post follow the one before it, as the capture's.  0
 * leaves the generated graphs unchanged. */
static double lp_cpu_share = 0;

static void lp_op(lp_rank_state_t *st, int kind, double value, int32_t peer, int32_t tag,
                  int nonblocking) {
  st->ops = lp_grow(st->ops, &st->ocap, st->nops, sizeof *st->ops);
  int64_t v = (int64_t)st->nops;
  st->ops[st->nops++] = (lp_op_t){kind, value, peer, tag, 0};
  if (st->last >= 0)
    lp_dep(st, v, st->last, st->last_nb ? LLAMP_EDGE_IREQUIRES : LLAMP_EDGE_REQUIRES);
  for (size_t i = 0; i < st->nwait; i++) lp_dep(st, v, st->waitset[i], LLAMP_EDGE_REQUIRES);
  st->nwait = 0;
  if (!(lp_cpu_share > 0 && kind == LLAMP_VERTEX_RECV && nonblocking)) {
    st->last = v;
    st->last_nb = nonblocking;
  }
  if (nonblocking) {
    st->pending = lp_grow(st->pending, &st->pcap, st->npending, sizeof *st->pending);
    st->pending[st->npending++] = v;
  }
}

static void lp_wait(lp_rank_state_t *st, int64_t x) {
  st->waitset = lp_grow(st->waitset, &st->wcap, st->nwait, sizeof *st->waitset);
  st->waitset[st->nwait++] = x;
}

/* A message size: mostly small, some around and above S, a few 0-byte. */
static double lp_rand_size(lp_rng_t *r, double S) {
  double u = lp_rng_unif(r);
  if (u < 0.05) return 0;
  if (u < 0.10) return 1;
  double hi = S < 1e7 ? 4 * S : 1e6;
  return floor(exp(lp_rng_unif(r) * log(hi))) + 1;
}

/* A random graph: `nranks` ranks, about `nops` operations, created in one
 * global random order (every send immediately followed by its receive, so
 * every edge, rendezvous completion edges included, points forward in that
 * order and the graph is acyclic).  Blocking and nonblocking sends and
 * receives, waits on random subsets of pending requests, random tags.
 * `p_msg` is the share of messages among the steps (0.55 is trace-like). */
/* Share of the messages that a rank sends to itself (as an Isend, so that a
 * rendezvous does not deadlock); 0 leaves the generated graphs unchanged. */
static double lp_self_share = 0;
/* Share of the other messages whose send is synchronous (MPI_Ssend,
 * MPI_Issend: LLAMP_VERTEX_F_SYNC), and, independently, of those charged
 * as an MPI_Isend (LLAMP_VERTEX_F_ISEND), and of those charged os though
 * irequired (LLAMP_VERTEX_F_OS, an MPI_Start); 0 leaves the graphs unchanged. */
static double lp_sync_share = 0;

static inline llamp_graph_t *lp_random_graph(lp_rng_t *r, uint32_t nranks, uint64_t nops, double S,
                                      double p_msg, char *err, size_t errlen) {
  lp_rank_state_t *st = calloc(nranks, sizeof *st);
  if (!st) abort();
  for (uint32_t i = 0; i < nranks; i++) st[i].last = -1;
  for (uint64_t k = 0; k < nops; k++) {
    double u = lp_rng_unif(r);
    uint32_t rk = lp_rng_int(r, nranks);
    if (u < 0.3) { /* compute burst: 0..50 us, some zero */
      double d = lp_rng_chance(r, 0.1) ? 0 : lp_rng_unif(r) * 50e-6;
      lp_op(&st[rk], LLAMP_VERTEX_CALC, d, 0, 0, 0);
    } else if (u < 0.3 + p_msg) { /* a message */
      uint32_t dst = (rk + 1 + lp_rng_int(r, nranks - 1)) % nranks;
      double s = lp_rand_size(r, S);
      int32_t tag = (int32_t)lp_rng_int(r, 3);
      int snb = lp_rng_chance(r, 0.4), rnb = lp_rng_chance(r, 0.4);
      if (lp_self_share > 0 && lp_rng_chance(r, lp_self_share)) dst = rk, snb = 1;
      lp_op(&st[rk], LLAMP_VERTEX_SEND, s, (int32_t)dst, tag, snb);
      if (dst != rk && lp_sync_share > 0) {
        if (lp_rng_chance(r, lp_sync_share)) st[rk].ops[st[rk].nops - 1].sync |= LLAMP_VERTEX_F_SYNC;
        if (lp_rng_chance(r, lp_sync_share)) st[rk].ops[st[rk].nops - 1].sync |= LLAMP_VERTEX_F_ISEND;
        if (lp_rng_chance(r, lp_sync_share)) st[rk].ops[st[rk].nops - 1].sync |= LLAMP_VERTEX_F_OS;
      }
      lp_op(&st[dst], LLAMP_VERTEX_RECV, s, (int32_t)rk, tag, rnb);
    } else { /* a wait on a random subset of the pending requests */
      lp_rank_state_t *s = &st[rk];
      size_t keep = 0;
      int smpi = lp_cpu_share > 0 && lp_rng_chance(r, lp_cpu_share);
      int64_t prev = -1;
      for (size_t i = 0; i < s->npending; i++) {
        if (lp_rng_chance(r, 0.7)) {
          int64_t x = s->pending[i];
          lp_wait(s, x);
          if (smpi && s->ops[x].kind == LLAMP_VERTEX_RECV) {
            if (s->last >= 0 && s->last != x) lp_dep(s, x, s->last, LLAMP_EDGE_CPU);
            if (prev >= 0) lp_dep(s, x, prev, LLAMP_EDGE_CPU);
            prev = x;
          }
        } else s->pending[keep++] = s->pending[i];
      }
      s->npending = keep;
    }
  }
  /* finish: every rank waits for everything, then a last compute */
  for (uint32_t i = 0; i < nranks; i++) {
    for (size_t j = 0; j < st[i].npending; j++) lp_wait(&st[i], st[i].pending[j]);
    st[i].npending = 0;
    lp_op(&st[i], LLAMP_VERTEX_CALC, lp_rng_unif(r) * 20e-6, 0, 0, 0);
  }
  llamp_builder_t *b = llamp_builder_create(nranks, "random");
  if (!b) abort();
  int ok = 1;
  int64_t *id = NULL;
  size_t idcap = 0;
  for (uint32_t i = 0; i < nranks && ok; i++) {
    if (idcap < st[i].nops) {
      idcap = st[i].nops;
      id = realloc(id, idcap * sizeof *id);
      if (!id) abort();
    }
    for (size_t k = 0; k < st[i].nops && ok; k++) {
      lp_op_t *o = &st[i].ops[k];
      id[k] = llamp_builder_add(b, i, (llamp_vertex_kind_t)o->kind, o->value, o->peer, o->tag,
                                k + 1);
      ok = id[k] >= 0 && (!o->sync || llamp_builder_set_flags(b, id[k], (unsigned)o->sync) == 0);
    }
    for (size_t k = 0; k < st[i].ndeps && ok; k++) {
      lp_dep_t *d = &st[i].deps[k];
      ok = !llamp_builder_depend(b, id[d->after], id[d->before], (llamp_edge_kind_t)d->kind, 0);
    }
  }
  for (uint32_t i = 0; i < nranks; i++) {
    free(st[i].ops);
    free(st[i].deps);
    free(st[i].pending);
    free(st[i].waitset);
  }
  free(st);
  free(id);
  if (!ok) {
    snprintf(err, errlen, "builder: %s", llamp_builder_error(b));
    llamp_builder_destroy(b);
    return NULL;
  }
  return llamp_builder_finish(b, err, errlen);
}

/* Random LogGPS parameters (L random so ties are measure-zero). */
static inline void lp_random_params(lp_rng_t *r, llamp_params_t *p) {
  llamp_params_default(p);
  p->L = (0.05 + lp_rng_unif(r) * 10) * 1e-6;
  p->o = lp_rng_chance(r, 0.15) ? 0 : lp_rng_unif(r) * 5e-6;
  p->G = lp_rng_chance(r, 0.1) ? 0 : lp_rng_unif(r) * 1e-9;
  p->g = lp_rng_chance(r, 0.35) ? lp_rng_unif(r) * 8e-6 : 0;
  static const double Ss[] = {1024, 8192, 65536, 1e12};
  p->S = Ss[lp_rng_int(r, 4)];
  p->size_g_full = lp_rng_chance(r, 0.3);
  p->rndv_direct = lp_rng_chance(r, 0.3);
}

/* A random size-dependent cost model (llamp_netmodel.h) for sizes up to
 * about 4 S: SMPI-style strings (overheads, lat factors >= 1 so that no
 * transfer goes negative as L -> 0, bw factors), or a fitted one-way curve
 * (offsets >= L_ref); parsed by the library's parsers. */
static inline void lp_random_netmodel(lp_rng_t *r, llamp_netmodel_t *m, double S, double L, double G) {
  llamp_netmodel_init(m);
  m->L_ref = L;
  m->G_ref = G > 0 ? G : 1e-10;
  snprintf(m->source, sizeof m->source, "random");
  double hi = S < 1e7 ? 4 * S : 1e6;
  char buf[1024], err[256];
  const char *names[5] = {"os", "or", "ois", "lat", "bw"};
  llamp_netmodel_curve_t *cv[5] = {&m->o_send, &m->o_recv, &m->o_isend, &m->lat_factor, &m->bw_factor};
  int fitted = lp_rng_chance(r, 0.3);
  for (int c = 0; c < 5; c++) {
    if (lp_rng_chance(r, 0.15)) continue; /* absent */
    if (fitted && c >= 3) continue;
    int n = 1 + (int)lp_rng_int(r, 4);
    size_t len = 0;
    double thr = 0;
    for (int i = 0; i < n; i++) {
      if (c < 3)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%.0f:%.6g:%.6g", i ? ";" : "", thr,
                                lp_rng_unif(r) * 3e-6, lp_rng_chance(r, 0.5) ? lp_rng_unif(r) * 2e-10 : 0);
      else
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%.0f:%.6g", i ? ";" : "", thr,
                                c == 3 ? 1 + lp_rng_unif(r) * 3 : 0.2 + lp_rng_unif(r));
      thr += floor(exp(lp_rng_unif(r) * log(hi)));
    }
    int rc = c < 3 ? llamp_netmodel_parse_overhead(buf, names[c], cv[c], err, sizeof err)
                   : llamp_netmodel_parse_factor(buf, names[c], m->envelope, cv[c], err, sizeof err);
    if (rc) {
      fprintf(stderr, "lp_random_netmodel: %s\n", err);
      abort();
    }
  }
  if (fitted) {
    llamp_netmodel_curve_t *ow = &m->one_way;
    ow->n = 1 + (unsigned)lp_rng_int(r, 4);
    double from = 0;
    for (unsigned i = 0; i < ow->n; i++) {
      ow->seg[i] = (llamp_netmodel_seg_t){from, L * (1 + lp_rng_unif(r)), lp_rng_unif(r) * 2e-10};
      from += 1 + floor(exp(lp_rng_unif(r) * log(hi)));
    }
  }
}

/* ---- glpsol ------------------------------------------------------------------ */

static inline int lp_have_glpsol(void) { return system("glpsol --version >/dev/null 2>&1") == 0; }

#define LP_MAX_COLS (5 + LLAMP_MAX_XPARAMS)
typedef struct {
  int status; /* 0 optimal, 1 infeasible, 2 unbounded, 3 other/undefined */
  double obj; /* objective, full precision */
  /* value and reduced cost ("Marginal") of the named columns of interest */
  double val[LP_MAX_COLS], dual[LP_MAX_COLS]; /* t, l, G, o, gap, extra ones (NAN if absent) */
  char status_text[64];
} lp_solution_t;

static const char *lp_cols[5] = {"t", "l", "G", "o", "gap"};

static inline int lp_glpsol_cols(const char *lp_path, llamp_lp_format_t fmt, const char *opts,
                                 const char *work, const char *const *cols, int ncols,
                                 lp_solution_t *sol);

/* glpsol with the columns t, l, G, o, gap of interest. */
static inline int lp_glpsol(const char *lp_path, llamp_lp_format_t fmt, const char *opts,
                            const char *work, lp_solution_t *sol) {
  return lp_glpsol_cols(lp_path, fmt, opts, work, lp_cols, 5, sol);
}

/* Run glpsol (with extra options `opts`, e.g. "--exact") on `lp_path` and parse the printable
 * (-o: status, column numbers -> names) and plain (-w: full-precision
 * values) solutions of the `ncols` (at most LP_MAX_COLS) named columns.
 * Returns 0, or -1 when glpsol failed to run. */
static inline int lp_glpsol_cols(const char *lp_path, llamp_lp_format_t fmt, const char *opts,
                                 const char *work, const char *const *cols, int ncols,
                                 lp_solution_t *sol) {
  char cmd[8192], opath[1100], wpath[1100], logp[1100];
  snprintf(opath, sizeof opath, "%s/sol.txt", work);
  snprintf(wpath, sizeof wpath, "%s/sol.raw", work);
  snprintf(logp, sizeof logp, "%s/glpsol.log", work);
  remove(opath);
  remove(wpath);
  snprintf(cmd, sizeof cmd, "glpsol %s %s '%s' -o '%s' -w '%s' >'%s' 2>&1", opts ? opts : "",
           fmt == LLAMP_LP_CPLEX ? "--lp" : "--freemps", lp_path, opath, wpath, logp);
  int rc = system(cmd);
  memset(sol, 0, sizeof *sol);
  sol->status = 3;
  sol->obj = NAN;
  for (int i = 0; i < LP_MAX_COLS; i++) sol->val[i] = sol->dual[i] = NAN;
  FILE *f = fopen(opath, "r");
  if (rc != 0 || !f) {
    if (f) fclose(f);
    FILE *lg = fopen(logp, "r");
    char line[512];
    fprintf(stderr, "glpsol failed (rc %d) on %s:\n", rc, lp_path);
    while (lg && fgets(line, sizeof line, lg)) fprintf(stderr, "  %s", line);
    if (lg) fclose(lg);
    return -1;
  }
  /* printable solution: status, and the numbers of our columns */
  char line[1024];
  int colno[LP_MAX_COLS] = {0}, in_cols = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "Status:", 7)) {
      char *s = line + 7;
      while (*s == ' ') s++;
      size_t len = strcspn(s, "\n");
      if (len >= sizeof sol->status_text) len = sizeof sol->status_text - 1;
      memcpy(sol->status_text, s, len);
      sol->status_text[len] = 0;
      if (!strncmp(s, "OPTIMAL", 7)) sol->status = 0;
      else if (strstr(s, "INFEASIBLE") || strstr(s, "EMPTY")) sol->status = 1;
      else if (strstr(s, "UNBOUNDED")) sol->status = 2;
    }
    if (strstr(line, "Column name")) in_cols = 1;
    if (!in_cols) continue;
    int no;
    char name[256];
    if (sscanf(line, "%d %255s", &no, name) == 2)
      for (int i = 0; i < ncols; i++)
        if (!strcmp(name, cols[i])) colno[i] = no;
  }
  fclose(f);
  /* with the presolver (glpsol's default) an infeasible or unbounded LP is
   * reported in the log only, the solution's status being UNDEFINED */
  if (sol->status == 3) {
    FILE *lg = fopen(logp, "r");
    while (lg && fgets(line, sizeof line, lg)) {
      if (strstr(line, "NO PRIMAL FEASIBLE SOLUTION")) sol->status = 1;
      else if (strstr(line, "UNBOUNDED") || strstr(line, "NO DUAL FEASIBLE SOLUTION"))
        sol->status = 2;
      if (sol->status != 3) {
        size_t len = strcspn(line, "\n");
        if (len >= sizeof sol->status_text) len = sizeof sol->status_text - 1;
        memcpy(sol->status_text, line, len);
        sol->status_text[len] = 0;
        break;
      }
    }
    if (lg) fclose(lg);
  }
  /* plain solution: full precision */
  f = fopen(wpath, "r");
  if (!f) return sol->status == 0 ? -1 : 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == 's') {
      char kind[8], p1[8], p2[8];
      int m, n;
      double obj;
      if (sscanf(line, "s %7s %d %d %7s %7s %lf", kind, &m, &n, p1, p2, &obj) == 6) sol->obj = obj;
    } else if (line[0] == 'j') {
      int j;
      char st[8];
      double prim, dual;
      if (sscanf(line, "j %d %7s %lf %lf", &j, st, &prim, &dual) == 4)
        for (int i = 0; i < ncols; i++)
          if (colno[i] == j) {
            sol->val[i] = prim;
            sol->dual[i] = dual;
          }
    }
  }
  fclose(f);
  return 0;
}

/* A scratch directory under $TMPDIR (or /tmp). */
static inline char *lp_scratch_dir(void) {
  const char *t = getenv("TMPDIR");
  static char path[1024];
  snprintf(path, sizeof path, "%s/llamp-lp-XXXXXX", t && *t ? t : "/tmp");
  return mkdtemp(path);
}

static inline void lp_scratch_cleanup(const char *dir) {
  static const char *names[] = {"sol.txt", "sol.raw", "glpsol.log", "a.lp", "a.mps", "b.lp",
                                "b.mps"};
  char p[1100];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, names[i]);
    remove(p);
  }
  rmdir(dir);
}

#endif
