/* LP export without a solver: the paper's running example written out, the
 * rendezvous and gap rows, error handling, and for random graphs
 *   - the CPLEX-LP and free-MPS files hold the same matrix, right-hand sides,
 *     objective and bounds (both parsed back here), and
 *   - solving the exported LP by a plain longest-path relaxation over its rows
 *     (parameters at their bounds) gives the engine's T.
 * glpsol is not needed (test_lp_glpk does the solver cross-check). */
#define _POSIX_C_SOURCE 200809L
#include "llamp_test.h"
#include "test_lp_common.h"

/* ---- reading the files back -------------------------------------------------- */

typedef struct {
  char row[32], col[32];
  double v;
} trip_t;

typedef struct {
  trip_t *t; /* matrix entries; row "obj" = objective */
  size_t n, cap;
  trip_t *rhs; /* col unused */
  size_t nr, rcap;
  trip_t *bnd; /* row = bound kind ("lo", "up", "fx"), col = variable */
  size_t nb, bcap;
  size_t rows;
  int maximize;
} lpfile_t;

static void add_trip(trip_t **a, size_t *n, size_t *cap, const char *row, const char *col,
                     double v) {
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 64;
    *a = realloc(*a, *cap * sizeof **a);
    if (!*a) abort();
  }
  trip_t *t = &(*a)[(*n)++];
  snprintf(t->row, sizeof t->row, "%s", row);
  snprintf(t->col, sizeof t->col, "%s", col);
  t->v = v;
}

static void lpfile_free(lpfile_t *f) {
  free(f->t);
  free(f->rhs);
  free(f->bnd);
  memset(f, 0, sizeof *f);
}

static int is_num(const char *s) {
  char *end;
  strtod(s, &end);
  return end != s && *end == 0;
}

/* A linear expression "a - 2 b + c" into entries of `row` (sign applied). */
static void parse_expr(lpfile_t *f, const char *row, char *tok, char **save, double side,
                       char **stop) {
  double sign = 1, coef = 1;
  for (; tok; tok = strtok_r(NULL, " \n", save)) {
    if (!strcmp(tok, ">=") || !strcmp(tok, "<=") || !strcmp(tok, "=")) {
      *stop = tok;
      return;
    }
    if (!strcmp(tok, "-")) sign = -1;
    else if (!strcmp(tok, "+")) sign = 1;
    else if (is_num(tok)) coef = strtod(tok, NULL);
    else {
      add_trip(&f->t, &f->n, &f->cap, row, tok, side * sign * coef);
      sign = coef = 1;
    }
  }
  *stop = NULL;
}

static int read_cplex(const char *path, lpfile_t *f) {
  FILE *in = fopen(path, "r");
  if (!in) return -1;
  memset(f, 0, sizeof *f);
  char line[4096];
  int sec = 0; /* 1 objective, 2 constraints, 3 bounds */
  while (fgets(line, sizeof line, in)) {
    if (line[0] == '\\') continue;
    if (!strncmp(line, "Minimize", 8) || !strncmp(line, "Maximize", 8)) {
      f->maximize = line[1] == 'a';
      sec = 1;
      continue;
    }
    if (!strncmp(line, "Subject To", 10)) {
      sec = 2;
      continue;
    }
    if (!strncmp(line, "Bounds", 6)) {
      sec = 3;
      continue;
    }
    if (!strncmp(line, "End", 3)) break;
    char *save = NULL, *tok = strtok_r(line, " \n", &save);
    if (!tok) continue;
    if (sec == 1 || sec == 2) {
      char name[32];
      snprintf(name, sizeof name, "%.*s", (int)strlen(tok) - 1, tok); /* "e12:" */
      if (sec == 2) f->rows++;
      char *stop = NULL;
      parse_expr(f, sec == 1 ? "obj" : name, strtok_r(NULL, " \n", &save), &save, 1, &stop);
      if (stop) {
        char *r = strtok_r(NULL, " \n", &save);
        add_trip(&f->rhs, &f->nr, &f->rcap, name, "", strtod(r, NULL));
      }
    } else if (sec == 3) {
      /* "x >= v", "x = v", "0 <= x <= v" */
      char *a = tok, *op = strtok_r(NULL, " \n", &save), *b = strtok_r(NULL, " \n", &save);
      if (is_num(a)) {
        char *op2 = strtok_r(NULL, " \n", &save), *c = strtok_r(NULL, " \n", &save);
        add_trip(&f->bnd, &f->nb, &f->bcap, "lo", b, strtod(a, NULL));
        (void)op2;
        add_trip(&f->bnd, &f->nb, &f->bcap, "up", b, strtod(c, NULL));
      } else {
        add_trip(&f->bnd, &f->nb, &f->bcap, !strcmp(op, "=") ? "fx" : "lo", a, strtod(b, NULL));
      }
    }
  }
  fclose(in);
  return 0;
}

static int read_mps(const char *path, lpfile_t *f) {
  FILE *in = fopen(path, "r");
  if (!in) return -1;
  memset(f, 0, sizeof *f);
  char line[4096];
  int sec = 0; /* 1 rows, 2 columns, 3 rhs, 4 bounds */
  while (fgets(line, sizeof line, in)) {
    if (line[0] == '*') continue;
    if (line[0] != ' ') {
      sec = !strncmp(line, "ROWS", 4)      ? 1
            : !strncmp(line, "COLUMNS", 7) ? 2
            : !strncmp(line, "RHS", 3)     ? 3
            : !strncmp(line, "BOUNDS", 6)  ? 4
                                           : 0;
      continue;
    }
    char a[64], b[64], c[64], d[64];
    int k = sscanf(line, "%63s %63s %63s %63s", a, b, c, d);
    if (sec == 1 && k == 2 && strcmp(a, "N")) f->rows++;
    else if (sec == 2 && k == 3) {
      double v = strtod(c, NULL);
      if (v != 0) add_trip(&f->t, &f->n, &f->cap, b, a, v);
    } else if (sec == 3 && k == 3)
      add_trip(&f->rhs, &f->nr, &f->rcap, b, "", strtod(c, NULL));
    else if (sec == 4 && k == 4)
      add_trip(&f->bnd, &f->nb, &f->bcap, !strcmp(a, "LO") ? "lo" : !strcmp(a, "UP") ? "up" : "fx",
               c, strtod(d, NULL));
  }
  fclose(in);
  return 0;
}

static int trip_cmp(const void *x, const void *y) {
  const trip_t *a = x, *b = y;
  int c = strcmp(a->row, b->row);
  if (c) return c;
  c = strcmp(a->col, b->col);
  if (c) return c;
  return (a->v > b->v) - (a->v < b->v);
}

/* Same entries up to order; zero right-hand sides may be omitted. */
static int same_trips(trip_t *a, size_t na, trip_t *b, size_t nb, int drop_zero) {
  if (drop_zero) {
    size_t k = 0;
    for (size_t i = 0; i < na; i++)
      if (a[i].v != 0) a[k++] = a[i];
    na = k;
    k = 0;
    for (size_t i = 0; i < nb; i++)
      if (b[i].v != 0) b[k++] = b[i];
    nb = k;
  }
  if (na != nb) return 0;
  qsort(a, na, sizeof *a, trip_cmp);
  qsort(b, nb, sizeof *b, trip_cmp);
  for (size_t i = 0; i < na; i++)
    if (trip_cmp(&a[i], &b[i])) return 0;
  return 1;
}

/* ---- solving an exported MIN_RUNTIME LP by relaxation -------------------------- */

static double var_value(const lpfile_t *f, const char *name) {
  for (size_t i = 0; i < f->nb; i++)
    if (!strcmp(f->bnd[i].col, name)) return f->bnd[i].v;
  return 0;
}

static int row_cmp(const void *x, const void *y) { return strcmp(((const trip_t *)x)->row, ((const trip_t *)y)->row); }

/* With the parameters at their lower bounds, every row reads
 * X_plus >= y_minus + const; min t = the longest path. */
static double relax_solve(lpfile_t *f) {
  qsort(f->t, f->n, sizeof *f->t, row_cmp);
  qsort(f->rhs, f->nr, sizeof *f->rhs, row_cmp);
  double par[4];
  static const char *pn[4] = {"l", "G", "o", "gap"};
  for (int k = 0; k < 4; k++) par[k] = var_value(f, pn[k]);
  /* rows: (plus index, minus index or -1, constant) ; variables y<n> -> n, t -> -2 */
  size_t nrows = 0, cap = 64;
  struct rr {
    long plus, minus;
    double c;
  } *rows = malloc(cap * sizeof *rows);
  long maxv = 0;
  for (size_t i = 0; i < f->n;) {
    size_t j = i;
    struct rr r = {-1, -1, 0};
    for (; j < f->n && !strcmp(f->t[j].row, f->t[i].row); j++) {
      const trip_t *e = &f->t[j];
      if (!strcmp(e->row, "obj")) continue;
      long idx = e->col[0] == 'y' ? atol(e->col + 1) : !strcmp(e->col, "t") ? -2 : -3;
      if (idx >= 0 && idx > maxv) maxv = idx;
      if (idx != -3) {
        if (e->v > 0) r.plus = idx;
        else r.minus = idx;
      } else {
        for (int k = 0; k < 4; k++)
          if (!strcmp(e->col, pn[k])) r.c += -e->v * par[k];
      }
    }
    if (strcmp(f->t[i].row, "obj")) {
      trip_t key;
      snprintf(key.row, sizeof key.row, "%s", f->t[i].row);
      trip_t *h = bsearch(&key, f->rhs, f->nr, sizeof *f->rhs, row_cmp);
      if (h) r.c += h->v;
      if (nrows == cap) rows = realloc(rows, (cap *= 2) * sizeof *rows);
      rows[nrows++] = r;
    }
    i = j;
  }
  double *y = calloc((size_t)maxv + 2, sizeof *y), t = 0;
  for (int changed = 1, it = 0; changed && it < 100000; it++) {
    changed = 0;
    for (size_t i = 0; i < nrows; i++) {
      double base = rows[i].minus >= 0 ? y[rows[i].minus] : rows[i].minus == -2 ? t : 0;
      double *dst = rows[i].plus == -2 ? &t : &y[rows[i].plus];
      if (base + rows[i].c > *dst + 1e-12 * fabs(*dst)) {
        *dst = base + rows[i].c;
        changed = 1;
      }
    }
  }
  free(rows);
  free(y);
  return t;
}

/* ---- fixed examples ------------------------------------------------------------ */

static llamp_graph_t *running_example(double s_bytes) {
  llamp_builder_t *b = llamp_builder_create(2, "running-example");
  int64_t a0 = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 0.1e-6, 0, 0, 1);
  int64_t s = llamp_builder_add(b, 0, LLAMP_VERTEX_SEND, s_bytes, 1, 0, 2);
  int64_t a1 = llamp_builder_add(b, 0, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 3);
  llamp_builder_depend(b, s, a0, LLAMP_EDGE_REQUIRES, 4);
  llamp_builder_depend(b, a1, s, LLAMP_EDGE_REQUIRES, 5);
  int64_t a2 = llamp_builder_add(b, 1, LLAMP_VERTEX_CALC, 0.5e-6, 0, 0, 6);
  int64_t r = llamp_builder_add(b, 1, LLAMP_VERTEX_RECV, s_bytes, 0, 0, 7);
  int64_t a3 = llamp_builder_add(b, 1, LLAMP_VERTEX_CALC, 1e-6, 0, 0, 8);
  llamp_builder_depend(b, r, a2, LLAMP_EDGE_REQUIRES, 9);
  llamp_builder_depend(b, a3, r, LLAMP_EDGE_REQUIRES, 10);
  char err[256];
  llamp_graph_t *g = llamp_builder_finish(b, err, sizeof err);
  if (!g) fprintf(stderr, "%s\n", err);
  return g;
}

/* The part of a file after its comment header. */
static char *slurp_body(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char *buf = calloc(1, 1 << 20);
  size_t n = fread(buf, 1, (1 << 20) - 1, f);
  buf[n] = 0;
  fclose(f);
  char *p = buf;
  while (*p == '\\' || *p == '*') p = strchr(p, '\n') + 1;
  memmove(buf, p, strlen(p) + 1);
  return buf;
}

static int contains(const char *hay, const char *needle) {
  int ok = strstr(hay, needle) != NULL;
  if (!ok) fprintf(stderr, "missing in LP text: %s", needle);
  return ok;
}

int main(int argc, char **argv) {
  long count = argc > 1 ? atol(argv[1]) : 150;
  char *dir = lp_scratch_dir();
  if (!dir) return 1;
  char work[1024], lp[1100], mps[1100], err[256];
  snprintf(work, sizeof work, "%s", dir);
  snprintf(lp, sizeof lp, "%s/a.lp", work);
  snprintf(mps, sizeof mps, "%s/a.mps", work);

  /* the paper's Eq. 6 (graph vertices by level, then builder id: 0 c0, 1 c2, 2 S, 3 c1,
   * 4 R, 5 c3) */
  llamp_params_t p;
  llamp_params_default(&p);
  p.o = 0;
  p.G = 5e-9;
  p.S = 1e9;
  p.L = 0.5e-6;
  llamp_graph_t *g = running_example(4);
  CHECK(g != NULL);
  CHECK(llamp_lp_write(g, &p, LLAMP_LP_CPLEX, LLAMP_LP_MIN_RUNTIME, 0, lp, err, sizeof err) == 0);
  char *body = slurp_body(lp);
  CHECK(body != NULL);
  if (body) {
    const char *expect = "Minimize\n obj: t\nSubject To\n"
                         " e0: y2 - y0 >= 0.1\n"
                         " e1: y3 - y2 - o >= 0\n"
                         " end3: t - y3 >= 1\n"
                         " e2: y4 - y2 - l - 3 G - o >= 0\n"
                         " e3: y4 - y1 >= 0.5\n"
                         " e4: y5 - y4 - o >= 0\n"
                         " end5: t - y5 >= 1\n"
                         "Bounds\n l >= 0.5\n G >= 0.005\n o >= 0\nEnd\n";
    if (strcmp(body, expect)) fprintf(stderr, "got:\n%s\nexpected:\n%s", body, expect);
    CHECK(strcmp(body, expect) == 0);
    free(body);
  }
  /* Fig. 6: maximise l under t <= 2 us */
  CHECK(llamp_lp_write(g, &p, LLAMP_LP_CPLEX, LLAMP_LP_MAX_LATENCY, 2e-6, lp, err, sizeof err) == 0);
  body = slurp_body(lp);
  if (body) {
    CHECK(contains(body, "Maximize\n obj: l\n"));
    CHECK(contains(body, "Bounds\n l >= 0\n G = 0.005\n o = 0\n 0 <= t <= 2\nEnd\n"));
    free(body);
  }
  CHECK(llamp_lp_write(g, &p, LLAMP_LP_MPS, LLAMP_LP_MAX_LATENCY, 2e-6, mps, err, sizeof err) == 0);
  body = slurp_body(mps);
  if (body) {
    CHECK(contains(body, " l obj -1\n"));
    CHECK(contains(body, " UP BND t 2\n"));
    CHECK(contains(body, " FX BND G 0.005\n"));
    free(body);
  }
  /* the units line */
  FILE *f = fopen(lp, "r");
  char line[512] = "";
  if (f) {
    fgets(line, sizeof line, f);
    fgets(line, sizeof line, f);
    fclose(f);
  }
  CHECK(strstr(line, "UNITS: microseconds") != NULL);

  /* rendezvous (S = 2 B < 4 B): RTS row, receive cost 2l + 3G + o, completion rows;
   * size_g_full: 4 G */
  p.S = 2;
  CHECK(llamp_lp_write(g, &p, LLAMP_LP_CPLEX, LLAMP_LP_MIN_RUNTIME, 0, lp, err, sizeof err) == 0);
  body = slurp_body(lp);
  if (body) {
    CHECK(contains(body, " e1: y3 - y2 - o >= 0\n"));     /* end(S) */
    CHECK(contains(body, " c1: y3 - y4 - l - 3 G >= 0\n")); /* data read: recv start + l + 3G */
    CHECK(contains(body, " e2: y4 - y2 - l - o >= 0\n"));   /* RTS */
    CHECK(contains(body, " done4: t - y4 - l - 3 G >= 0\n"));
    CHECK(contains(body, " e4: y5 - y4 - 2 l - 3 G - o >= 0\n"));
    free(body);
  }
  p.size_g_full = 1;
  CHECK(llamp_lp_write(g, &p, LLAMP_LP_CPLEX, LLAMP_LP_MIN_RUNTIME, 0, lp, err, sizeof err) == 0);
  body = slurp_body(lp);
  if (body) {
    CHECK(contains(body, " e4: y5 - y4 - 2 l - 4 G - o >= 0\n"));
    free(body);
  }
  p.size_g_full = 0;
  p.S = 1e9;

  /* errors */
  llamp_params_t bad = p;
  bad.L = -1;
  CHECK(llamp_lp_write(g, &bad, LLAMP_LP_CPLEX, LLAMP_LP_MIN_RUNTIME, 0, lp, err, sizeof err) == -1);
  CHECK(strstr(err, "non-negative") != NULL);
  bad = p;
  bad.G = NAN;
  CHECK(llamp_lp_write(g, &bad, LLAMP_LP_MPS, LLAMP_LP_MIN_RUNTIME, 0, lp, err, sizeof err) == -1);
  CHECK(llamp_lp_write(g, &p, LLAMP_LP_CPLEX, LLAMP_LP_MAX_LATENCY, NAN, lp, err, sizeof err) == -1);
  CHECK(strstr(err, "t_max") != NULL);
  CHECK(llamp_lp_write(g, &p, LLAMP_LP_CPLEX, LLAMP_LP_MAX_LATENCY, -1, lp, err, sizeof err) == -1);
  CHECK(llamp_lp_write(g, &p, (llamp_lp_format_t)7, LLAMP_LP_MIN_RUNTIME, 0, lp, err, sizeof err) == -1);
  CHECK(llamp_lp_write(g, &p, LLAMP_LP_CPLEX, (llamp_lp_objective_t)7, 0, lp, err, sizeof err) == -1);
  CHECK(llamp_lp_write(g, &p, LLAMP_LP_CPLEX, LLAMP_LP_MIN_RUNTIME, 0, "/nonexistent-dir/x.lp", err,
                       sizeof err) == -1);
  CHECK(strstr(err, "/nonexistent-dir/x.lp") != NULL);
  CHECK(llamp_lp_write(g, &p, LLAMP_LP_CPLEX, LLAMP_LP_MIN_RUNTIME, 0, NULL, err, sizeof err) == -1);
  llamp_lp_format_t fm;
  CHECK(llamp_lp_format_parse("mps", &fm) == 0 && fm == LLAMP_LP_MPS);
  CHECK(llamp_lp_format_parse("lp", &fm) == 0 && fm == LLAMP_LP_CPLEX);
  CHECK(llamp_lp_format_parse("xls", &fm) == -1);
  CHECK(!strcmp(llamp_lp_format_name(LLAMP_LP_MPS), "mps"));
  llamp_graph_destroy(g);

  /* two blocking rendezvous sends facing each other: a deadlock, refused as the engine does */
  {
    llamp_builder_t *b = llamp_builder_create(2, "deadlock");
    int64_t s0 = llamp_builder_add(b, 0, LLAMP_VERTEX_SEND, 1000, 1, 0, 1);
    int64_t r0 = llamp_builder_add(b, 0, LLAMP_VERTEX_RECV, 1000, 1, 0, 2);
    llamp_builder_depend(b, r0, s0, LLAMP_EDGE_REQUIRES, 3);
    int64_t s1 = llamp_builder_add(b, 1, LLAMP_VERTEX_SEND, 1000, 0, 0, 4);
    int64_t r1 = llamp_builder_add(b, 1, LLAMP_VERTEX_RECV, 1000, 0, 0, 5);
    llamp_builder_depend(b, r1, s1, LLAMP_EDGE_REQUIRES, 6);
    llamp_graph_t *dg = llamp_builder_finish(b, err, sizeof err);
    CHECK(dg != NULL);
    llamp_params_t q = p;
    q.S = 100;
    remove(lp);
    CHECK(llamp_lp_write(dg, &q, LLAMP_LP_CPLEX, LLAMP_LP_MIN_RUNTIME, 0, lp, err, sizeof err) == -1);
    CHECK(strstr(err, "cyclic") != NULL);
    CHECK(access(lp, F_OK) != 0); /* no partial file left */
    q.S = 1e6; /* eager: fine */
    CHECK(llamp_lp_write(dg, &q, LLAMP_LP_CPLEX, LLAMP_LP_MIN_RUNTIME, 0, lp, err, sizeof err) == 0);
    llamp_graph_destroy(dg);
  }

  /* random graphs: LP == MPS, and the LP's longest path == engine T */
  long same = 0, solved = 0;
  double worst = 0;
  for (long id = 0; id < count; id++) {
    lp_rng_t r = {0xC0FFEEu + (uint64_t)id * 7919u};
    llamp_params_t q;
    lp_random_params(&r, &q);
    g = lp_random_graph(&r, 2 + lp_rng_int(&r, 5), 4 + lp_rng_int(&r, 60), q.S, 0.55, err,
                        sizeof err);
    if (!g) {
      fprintf(stderr, "graph %ld: %s\n", id, err);
      llamp_test_failures++;
      continue;
    }
    llamp_lp_objective_t obj = id % 3 == 2 ? LLAMP_LP_MAX_LATENCY : LLAMP_LP_MIN_RUNTIME;
    CHECK(llamp_lp_write(g, &q, LLAMP_LP_CPLEX, obj, 1e-3, lp, err, sizeof err) == 0);
    CHECK(llamp_lp_write(g, &q, LLAMP_LP_MPS, obj, 1e-3, mps, err, sizeof err) == 0);
    lpfile_t A, B;
    CHECK(read_cplex(lp, &A) == 0);
    CHECK(read_mps(mps, &B) == 0);
    /* MPS writes max l as min -l */
    if (obj == LLAMP_LP_MAX_LATENCY)
      for (size_t i = 0; i < B.n; i++)
        if (!strcmp(B.t[i].row, "obj")) B.t[i].v = -B.t[i].v;
    int ok = A.rows == B.rows && same_trips(A.t, A.n, B.t, B.n, 0) &&
             same_trips(A.rhs, A.nr, B.rhs, B.nr, 1) && same_trips(A.bnd, A.nb, B.bnd, B.nb, 1);
    if (!ok) fprintf(stderr, "graph %ld: the LP and MPS files differ (rows %zu / %zu)\n", id, A.rows, B.rows);
    CHECK(ok);
    same += ok;
    if (obj == LLAMP_LP_MIN_RUNTIME) {
      llamp_engine_t *e = llamp_engine_create(g, &q, err, sizeof err);
      llamp_eval_t ev;
      CHECK(e && llamp_engine_eval(e, &q, LLAMP_PARAM_L, &ev) == 0);
      double t = relax_solve(&A), T = ev.T * 1e6;
      double rel = fabs(t - T) / fmax(T, 1e-3);
      if (rel > worst) worst = rel;
      if (rel > 1e-9) fprintf(stderr, "graph %ld: LP longest path %.15g us, engine %.15g us\n", id, t, T);
      CHECK(rel <= 1e-9);
      solved++;
      llamp_engine_destroy(e);
    }
    lpfile_free(&A);
    lpfile_free(&B);
    llamp_graph_destroy(g);
  }
  printf("%ld random graphs: LP and MPS identical in %ld; %ld LPs solved by relaxation, max rel. "
         "difference to the engine %.3g\n",
         count, same, solved, worst);
  lp_scratch_cleanup(work);
  TEST_DONE();
}
