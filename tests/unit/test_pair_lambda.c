/* Per-pair sensitivities (llamp_engine_pair_lambda, docs/topology.md):
 *
 * 1. hand-checked graphs: a token ring through three ranks with different
 *    pair latencies, two chains of which the longer is critical, an eager
 *    and a rendezvous message (3 latency terms: RTS, read request, data; 1
 *    with the direct protocol), a message to oneself (the diagonal);
 * 2. random trace-like graphs with random per-pair latencies: the entries
 *    sum to lambda_L, and each lies between the left and right finite
 *    differences of T in its own pair's latency;
 * 3. GLPK: the exported LP rewritten with one latency variable l_i_j per
 *    ordered rank pair (bounded below by L + the pair's latency); the
 *    reduced cost of each must equal the engine's entry.
 *
 * usage: test_pair_lambda [graphs [max_ops [seed]]]; exit 77 is never used:
 * without glpsol part 3 is skipped with a message. */
#define _POSIX_C_SOURCE 200809L
#include "llamp_test.h"
#include "test_lp_common.h"
#include "llamp_goal.h"

static const double US = 1e-6;

/* The entry of pair (i, j) (0 when absent). */
static double entry(const llamp_pair_lambda_t *v, size_t n, uint32_t i, uint32_t j, int bytes) {
  for (size_t k = 0; k < n; k++)
    if (v[k].src == i && v[k].dst == j) return bytes ? v[k].lambda_G : v[k].lambda_L;
  return 0;
}

/* Per-pair costs with one kind per ordered pair: lat[i * P + j] beyond L. */
typedef struct {
  llamp_pairs_t q;
  uint32_t kind[64 * 64];
  double c0[64 * 64], gs[64 * 64];
} pairs_t;

static void pairs_init(pairs_t *p, uint32_t P, const double *lat) {
  memset(&p->q, 0, sizeof p->q);
  p->q.ranks = P;
  p->q.num_kinds = P * P;
  p->q.pair_kind = p->kind;
  p->q.c0 = p->c0;
  p->q.gscale = p->gs;
  for (uint32_t k = 0; k < P * P; k++) {
    p->kind[k] = k;
    p->c0[k] = lat ? lat[k] : 0;
    p->gs[k] = 1;
  }
}

static llamp_graph_t *goal(const char *text) {
  llamp_goal_options_t o;
  llamp_goal_options_default(&o);
  char err[256];
  llamp_graph_t *g = llamp_goal_read_buffer(text, strlen(text), &o, err, sizeof err);
  if (!g) fprintf(stderr, "goal: %s\n", err);
  return g;
}

static void hand_checked(void) {
  char err[256];
  llamp_params_t p;
  llamp_params_default(&p);
  p.o = 0;
  p.G = 0;
  p.L = 1 * US;
  /* token ring 0 -> 1 -> 2 -> 0, twice: every pair twice on the path */
  llamp_graph_t *g = goal("num_ranks 3\n"
                          "rank 0 {\n a: send 8b to 1\n b: recv 8b from 2\n c: send 8b to 1\n"
                          " d: recv 8b from 2\n b requires a\n c requires b\n d requires c\n}\n"
                          "rank 1 {\n a: recv 8b from 0\n b: send 8b to 2\n c: recv 8b from 0\n"
                          " d: send 8b to 2\n b requires a\n c requires b\n d requires c\n}\n"
                          "rank 2 {\n a: recv 8b from 1\n b: send 8b to 0\n c: recv 8b from 1\n"
                          " d: send 8b to 0\n b requires a\n c requires b\n d requires c\n}\n");
  CHECK(g != NULL);
  if (!g) return;
  double lat[9] = {0, 1 * US, 0, 0, 0, 2 * US, 3 * US, 0, 0};
  pairs_t pq;
  pairs_init(&pq, 3, lat);
  p.pairs = &pq.q;
  llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(e != NULL);
  llamp_pair_lambda_t *v = NULL;
  size_t n = 0;
  CHECK(llamp_engine_pair_lambda(e, &p, &v, &n) == 0);
  /* o = G = 0: T = 2 x ((L + 1) + (L + 2) + (L + 3)) us = 18 us, the last
   * receive of rank 0 ending the run */
  llamp_eval_t r;
  CHECK(llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r) == 0);
  CHECK_CLOSE(r.T / US, 2 * (2 + 3 + 4), 1e-9);
  CHECK(n == 3);
  CHECK(entry(v, n, 0, 1, 0) == 2 && entry(v, n, 1, 2, 0) == 2 && entry(v, n, 2, 0, 0) == 2);
  CHECK(entry(v, n, 0, 1, 1) == 14); /* (s - 1) G: 7 bytes, twice */
  free(v);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);

  /* two chains: 0 -> 1 three times (3 x 1 us) against 2 -> 3 once after a
   * 2.5 us compute plus a 0.2 us route: the first is critical ... */
  const char *two = "num_ranks 4\n"
                    "rank 0 {\n a: send 0b to 1\n b: send 0b to 1\n c: send 0b to 1\n"
                    " b requires a\n c requires b\n}\n"
                    "rank 1 {\n a: recv 0b from 0\n b: recv 0b from 0\n c: recv 0b from 0\n"
                    " b requires a\n c requires b\n}\n"
                    "rank 2 {\n a: calc 2500\n b: send 0b to 3\n b requires a\n}\n"
                    "rank 3 {\n a: recv 0b from 2\n}\n";
  g = goal(two);
  CHECK(g != NULL);
  if (!g) return;
  double lat4[16] = {0};
  pairs_init(&pq, 4, lat4);
  p.pairs = &pq.q;
  p.L = 1 * US;
  pq.c0[2 * 4 + 3] = 0.2 * US;
  e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(llamp_engine_pair_lambda(e, &p, &v, &n) == 0);
  /* o = 0: rank 0's three sends all leave at 0 and arrive at 1 us; rank 2's
   * at 2.5 + 1 + 0.2 us: T = 3.7 us, one latency term of 2 -> 3 */
  CHECK(llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r) == 0);
  CHECK_CLOSE(r.T / US, 3.7, 1e-9);
  CHECK(n == 1 && entry(v, n, 2, 3, 0) == 1);
  free(v);
  /* o = 1 us: rank 0's sends end at 1, 2, 3 us, its last message is
   * received by 5 us; 2 -> 3 (no extra latency now): 2.5 + 1 + 1 + 1 = 5.5 us */
  p.o = 1 * US;
  pq.c0[2 * 4 + 3] = 0;
  llamp_engine_refresh_pairs(e);
  CHECK(llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r) == 0);
  CHECK_CLOSE(r.T / US, 5.5, 1e-9);
  CHECK(llamp_engine_pair_lambda(e, &p, &v, &n) == 0);
  CHECK(n == 1 && entry(v, n, 2, 3, 0) == 1);
  free(v);
  pq.c0[2 * 4 + 3] = 0;
  llamp_engine_refresh_pairs(e);
  p.o = 1 * US;
  p.L = 3 * US; /* rank 0: 3 sends (3 us) + L + recv o = 7 us; rank 2: 2.5 + 1 + 3 + 1 = 7.5 us */
  CHECK(llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r) == 0);
  CHECK_CLOSE(r.T / US, 7.5, 1e-9);
  pq.c0[0 * 4 + 1] = 1 * US; /* 0 -> 1 now costs 4 us: 3 + 4 + 1 = 8 us > 7.5 */
  llamp_engine_refresh_pairs(e);
  CHECK(llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r) == 0);
  CHECK_CLOSE(r.T / US, 8, 1e-9);
  CHECK(llamp_engine_pair_lambda(e, &p, &v, &n) == 0);
  CHECK(n == 1 && entry(v, n, 0, 1, 0) == 1);
  free(v);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);

  /* rendezvous: 0 -> 1 of 1 MiB above S = 64 KiB; RDMA read: RTS + read
   * request + data = 3 latency terms; direct: 1 */
  g = goal("num_ranks 2\nrank 0 {\n a: send 1048576b to 1\n}\nrank 1 {\n a: recv 1048576b from 0\n}\n");
  CHECK(g != NULL);
  if (!g) return;
  for (int direct = 0; direct < 2; direct++) {
    llamp_params_default(&p);
    p.S = 65536;
    p.rndv_direct = direct;
    pairs_init(&pq, 2, NULL);
    pq.c0[1] = 0.5 * US;
    p.pairs = &pq.q;
    e = llamp_engine_create(g, &p, err, sizeof err);
    CHECK(e != NULL);
    CHECK(llamp_engine_pair_lambda(e, &p, &v, &n) == 0);
    CHECK(n == 1 && entry(v, n, 0, 1, 0) == (direct ? 1 : 3));
    CHECK(entry(v, n, 0, 1, 1) == 1048575);
    CHECK(llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r) == 0);
    CHECK_NEAR(entry(v, n, 0, 1, 0), r.slope_right, 0);
    free(v);
    llamp_engine_destroy(e);
  }
  llamp_graph_destroy(g);

  /* a message to oneself: the diagonal, charged as the model charges it */
  g = goal("num_ranks 1\nrank 0 {\n a: send 8b to 0\n b: recv 8b from 0\n}\n");
  CHECK(g != NULL);
  if (!g) return;
  llamp_params_default(&p);
  e = llamp_engine_create(g, &p, err, sizeof err);
  CHECK(llamp_engine_pair_lambda(e, &p, &v, &n) == 0);
  CHECK(llamp_engine_eval(e, &p, LLAMP_PARAM_L, &r) == 0);
  CHECK(entry(v, n, 0, 0, 0) == r.slope_right);
  free(v);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
}

/* ---- GLPK with per-pair latency variables ---------------------------------------- */

/* The pair (sender's rank, receiver's rank) of the message of vertex x. */
static uint64_t pair_of(const llamp_graph_t *g, uint64_t x) {
  uint64_t px = llamp_graph_partner(g, x);
  int snd = llamp_graph_kind(g, x) == LLAMP_VERTEX_SEND;
  uint32_t P = llamp_graph_num_ranks(g);
  return (uint64_t)llamp_graph_rank(g, snd ? x : px) * P + llamp_graph_rank(g, snd ? px : x);
}

/* Rewrite the exporter's CPLEX LP: every `l` term becomes the l_i_j of the
 * message its row is about (rows e<edge> and c<edge>: the edge's source;
 * end<v>, done<v>: v), bounded below by L + lat(i, j).  used[k] = 1 for the
 * pairs that appear.  0, or -1 on a row it cannot place. */
static int rewrite_lp(const char *in, const char *out, const llamp_graph_t *g, double L,
                      const double *lat, uint8_t *used) {
  FILE *f = fopen(in, "r"), *o = fopen(out, "w");
  if (!f || !o) return -1;
  llamp_graph_arrays_t a;
  llamp_graph_arrays(g, &a);
  uint32_t P = llamp_graph_num_ranks(g);
  char line[8192];
  int in_bounds = 0, rc = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "Bounds", 6)) in_bounds = 1;
    if (in_bounds && !strncmp(line, " l >= ", 6)) {
      for (uint64_t k = 0; k < (uint64_t)P * P; k++)
        if (used[k]) fprintf(o, " l_%llu_%llu >= %.17g\n", (unsigned long long)(k / P),
                             (unsigned long long)(k % P), (L + lat[k]) * 1e6);
      continue;
    }
    if (line[0] == '\\') { /* a comment */
      fputs(line, o);
      continue;
    }
    char *lt = in_bounds ? NULL : strstr(line, " l ");
    if (!lt) lt = in_bounds ? NULL : strstr(line, " l\n");
    if (!lt) {
      fputs(line, o);
      continue;
    }
    /* the row's message */
    char name[32];
    unsigned long long id;
    if (sscanf(line, " %31[a-z]%llu:", name, &id) != 2) {
      rc = -1;
      break;
    }
    uint64_t x;
    if (!strcmp(name, "e") || !strcmp(name, "c")) x = a.in_src[id] & LLAMP_EDGE_SRC_MASK;
    else if (!strcmp(name, "end") || !strcmp(name, "done")) x = id;
    else {
      rc = -1;
      break;
    }
    uint64_t k = pair_of(g, x);
    used[k] = 1;
    fprintf(o, "%.*s l_%llu_%llu%s", (int)(lt - line), line, (unsigned long long)(k / P),
            (unsigned long long)(k % P), lt + 2);
  }
  fclose(f);
  fclose(o);
  return rc;
}

/* glpsol on `path`: the objective and the reduced cost of every column l_i_j. */
static int solve(const char *path, const char *opts, const char *work, uint32_t P, double *obj,
                 double *dual) {
  char cmd[4096], opath[1100], wpath[1100];
  snprintf(opath, sizeof opath, "%s/sol.txt", work);
  snprintf(wpath, sizeof wpath, "%s/sol.raw", work);
  snprintf(cmd, sizeof cmd, "glpsol %s --lp '%s' -o '%s' -w '%s' >/dev/null 2>&1", opts, path, opath,
           wpath);
  if (system(cmd) != 0) return -1;
  FILE *f = fopen(opath, "r");
  if (!f) return -1;
  char line[1024];
  int in_cols = 0, optimal = 0;
  size_t ncol = 0;
  int64_t *colpair = NULL; /* column number -> pair, -1: not an l_i_j */
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "Status:", 7) && strstr(line, "OPTIMAL")) optimal = 1;
    if (strstr(line, "Column name")) in_cols = 1;
    int no;
    char nm[256];
    unsigned i, j;
    if (in_cols && sscanf(line, "%d %255s", &no, nm) == 2 && no > 0) {
      if ((size_t)no >= ncol) {
        size_t nc = (size_t)no * 2 + 16;
        colpair = realloc(colpair, nc * sizeof *colpair);
        for (size_t k = ncol; k < nc; k++) colpair[k] = -1;
        ncol = nc;
      }
      if (sscanf(nm, "l_%u_%u", &i, &j) == 2) colpair[no] = (int64_t)i * P + j;
    }
  }
  fclose(f);
  f = fopen(wpath, "r");
  if (!f || !optimal) {
    if (f) fclose(f);
    free(colpair);
    return -1;
  }
  while (fgets(line, sizeof line, f)) {
    char st[8], k1[8], k2[8];
    int m, n, j;
    double pv, dv, ob;
    if (line[0] == 's' && sscanf(line, "s %7s %d %d %7s %7s %lf", st, &m, &n, k1, k2, &ob) == 6) *obj = ob;
    else if (line[0] == 'j' && sscanf(line, "j %d %7s %lf %lf", &j, st, &pv, &dv) == 4 &&
             (size_t)j < ncol && colpair[j] >= 0)
      dual[colpair[j]] = dv;
  }
  fclose(f);
  free(colpair);
  return 0;
}

int main(int argc, char **argv) {
  long graphs = argc > 1 ? atol(argv[1]) : 40, max_ops = argc > 2 ? atol(argv[2]) : 160;
  uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 11;
  hand_checked();
  int glpk = lp_have_glpsol();
  if (!glpk) fprintf(stderr, "glpsol not found: the GLPK part is skipped\n");
  char *work = glpk ? lp_scratch_dir() : NULL;
  long glpk_ok = 0, fd_checks = 0;
  for (long gi = 0; gi < graphs; gi++) {
    lp_rng_t r = {seed * 1000003u + (uint64_t)gi};
    uint32_t P = 2 + lp_rng_int(&r, 7);
    llamp_params_t p;
    lp_random_params(&r, &p);
    char err[256];
    llamp_graph_t *g = lp_random_graph(&r, P, 20 + lp_rng_int(&r, (uint32_t)max_ops), p.S, 0.55,
                                       err, sizeof err);
    if (!g) {
      fprintf(stderr, "graph %ld: %s\n", gi, err);
      llamp_test_failures++;
      continue;
    }
    double lat[64 * 64];
    for (uint32_t k = 0; k < P * P; k++) lat[k] = lp_rng_unif(&r) * 3 * US;
    pairs_t pq;
    pairs_init(&pq, P, lat);
    p.pairs = &pq.q;
    llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
    if (!e) { /* a rendezvous cycle: the random graph's, skipped as in test_lp_glpk */
      llamp_graph_destroy(g);
      continue;
    }
    llamp_pair_lambda_t *v = NULL;
    size_t n = 0;
    llamp_eval_t ev;
    CHECK(llamp_engine_pair_lambda(e, &p, &v, &n) == 0);
    CHECK(llamp_engine_eval(e, &p, LLAMP_PARAM_L, &ev) == 0);
    double sum = 0;
    for (size_t k = 0; k < n; k++) sum += v[k].lambda_L;
    CHECK_NEAR(sum, ev.slope_right, 1e-12);
    for (size_t k = 1; k < n; k++) CHECK(v[k - 1].src < v[k].src || (v[k - 1].src == v[k].src && v[k - 1].dst < v[k].dst));
    /* each entry between its pair's one-sided finite differences */
    double h = 1e-13;
    for (uint32_t k = 0; k < P * P; k++) {
      double x = entry(v, n, k / P, k % P, 0), Tp, Tm;
      pq.c0[k] = lat[k] + h; /* the engine keeps a copy: refreshed after each change */
      llamp_engine_refresh_pairs(e);
      CHECK(llamp_engine_eval(e, &p, LLAMP_PARAM_L, &ev) == 0);
      Tp = ev.T;
      pq.c0[k] = lat[k] - h;
      llamp_engine_refresh_pairs(e);
      CHECK(llamp_engine_eval(e, &p, LLAMP_PARAM_L, &ev) == 0);
      Tm = ev.T;
      pq.c0[k] = lat[k];
      llamp_engine_refresh_pairs(e);
      CHECK(llamp_engine_eval(e, &p, LLAMP_PARAM_L, &ev) == 0);
      double right = (Tp - ev.T) / h, left = (ev.T - Tm) / h, tol = 1e-3 * fmax(1, x) + 1e-14 * ev.T / h;
      if (!(x <= right + tol && x >= left - tol)) {
        fprintf(stderr, "graph %ld pair %u->%u: entry %g outside [%g, %g]\n", gi, k / P, k % P, x,
                left, right);
        llamp_test_failures++;
      }
      fd_checks++;
    }
    if (glpk) {
      char a_path[1100], b_path[1100];
      snprintf(a_path, sizeof a_path, "%s/a.lp", work);
      snprintf(b_path, sizeof b_path, "%s/b.lp", work);
      uint8_t used[64 * 64] = {0};
      double dual[64 * 64], obj = NAN;
      llamp_params_t flat = p; /* the export refuses per-pair costs: rewrite_lp adds them */
      flat.pairs = NULL;
      CHECK(llamp_lp_write(g, &flat, LLAMP_LP_CPLEX, LLAMP_LP_MIN_RUNTIME, 0, a_path, err, sizeof err) == 0);
      CHECK(rewrite_lp(a_path, b_path, g, p.L, lat, used) == 0);
      int ok = 0;
      for (int attempt = 0; attempt < 2 && !ok; attempt++) {
        for (uint32_t k = 0; k < P * P; k++) dual[k] = 0;
        if (solve(b_path, attempt ? "--exact" : "", work, P, &obj, dual)) continue;
        ok = fabs(obj - ev.T * 1e6) <= 1e-6 * fmax(1, ev.T * 1e6);
        for (uint32_t k = 0; k < P * P && ok; k++)
          ok = fabs(dual[k] - entry(v, n, k / P, k % P, 0)) <= 1e-6 * fmax(1, fabs(dual[k]));
      }
      if (!ok) {
        fprintf(stderr, "graph %ld (%u ranks): GLPK T %.9g us, engine %.9g us; per-pair duals:\n", gi, P,
                obj, ev.T * 1e6);
        for (uint32_t k = 0; k < P * P; k++)
          if (dual[k] != 0 || entry(v, n, k / P, k % P, 0) != 0)
            fprintf(stderr, "  %u->%u GLPK %g engine %g\n", k / P, k % P, dual[k], entry(v, n, k / P, k % P, 0));
        llamp_test_failures++;
      } else {
        glpk_ok++;
      }
    }
    free(v);
    llamp_engine_destroy(e);
    llamp_graph_destroy(g);
  }
  if (work) lp_scratch_cleanup(work);
  printf("per-pair sensitivities: %ld graphs, %ld finite-difference checks, %ld GLPK agreements\n",
         graphs, fd_checks, glpk_ok);
  TEST_DONE();
}
