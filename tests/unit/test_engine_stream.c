/* Out of core: llamp_engine_stream_point against llamp_engine_point (bit for
 * bit, whole graph in the window and the smallest window that holds every
 * edge), its refusals, and the streaming writer against
 * llamp_graph_write_binary (byte-identical files). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llamp_engine.h"
#include "llamp_graph.h"
#include "llamp_synth.h"
#include "llamp_test.h"

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* the longest in-edge: the smallest window that holds the graph */
static uint64_t span(const llamp_graph_t *g) {
  llamp_graph_arrays_t a;
  llamp_graph_arrays(g, &a);
  uint64_t s = 0;
  for (uint64_t v = 0; v < a.n; v++)
    for (uint32_t i = a.in_beg[v]; i < a.in_end[v]; i++) {
      uint64_t u = a.in_src[i] & LLAMP_EDGE_SRC_MASK;
      if (v - u > s) s = v - u;
    }
  return s;
}

static int points_equal(const llamp_point_t *x, const llamp_point_t *y, const char *what) {
  int ok = same(x->T, y->T) && same(x->rho_L, y->rho_L) && same(x->rho_G, y->rho_G);
  for (int w = 0; w < LLAMP_NUM_PARAMS; w++)
    ok = ok && same(x->lambda[w], y->lambda[w]) && same(x->lambda_left[w], y->lambda_left[w]);
  if (!ok)
    fprintf(stderr, "%s: T %a / %a, lambda_L %a / %a, lambda_G %a / %a, lambda_o %a / %a\n", what, x->T, y->T,
            x->lambda[LLAMP_PARAM_L], y->lambda[LLAMP_PARAM_L], x->lambda[LLAMP_PARAM_G],
            y->lambda[LLAMP_PARAM_G], x->lambda[LLAMP_PARAM_O], y->lambda[LLAMP_PARAM_O]);
  return ok;
}

/* g written through the streaming writer from its arrays */
static int stream_copy(const llamp_graph_t *g, const char *path, char *err, size_t errlen) {
  llamp_graph_arrays_t a;
  llamp_graph_arrays(g, &a);
  uint32_t P = llamp_graph_num_ranks(g);
  uint64_t *first = calloc((size_t)P + 1, sizeof *first);
  llamp_graph_stream_t *s = llamp_graph_stream_create(path, P, a.n, a.m, llamp_graph_num_messages(g), err, errlen);
  if (!first || !s) {
    free(first);
    llamp_graph_stream_abort(s);
    return -1;
  }
  for (uint64_t v = 0; v < a.n; v++) {
    uint64_t pr = llamp_graph_partner(g, v), id = llamp_graph_id(g, v);
    first[a.rank[v]] = id - llamp_graph_local_index(g, v);
    if (llamp_graph_stream_vertex(s, a.kind[v], a.rank[v], a.value[v], llamp_graph_tag(g, v),
                                  pr == UINT64_MAX ? UINT32_MAX : (uint32_t)pr, (uint32_t)id,
                                  a.in_end[v] - a.in_beg[v], a.in_src + a.in_beg[v])) {
      llamp_graph_stream_abort(s);
      free(first);
      snprintf(err, errlen, "stream_vertex failed");
      return -1;
    }
  }
  first[P] = a.n;
  int rc = llamp_graph_stream_close(s, first, err, errlen);
  free(first);
  return rc;
}

static int files_equal(const char *x, const char *y) {
  FILE *f = fopen(x, "rb"), *h = fopen(y, "rb");
  int eq = f && h;
  while (eq) {
    int c = fgetc(f), d = fgetc(h);
    if (c != d) eq = 0;
    if (c == EOF) break;
  }
  if (f) fclose(f);
  if (h) fclose(h);
  return eq;
}

int main(void) {
  static const struct {
    const char *pattern, *params;
  } cases[] = {
      {"halo2d", "px=4,py=3,iters=5,bytes=4KiB,compute=20us"},
      {"halo3d", "px=3,py=2,pz=2,iters=4,bytes=1KiB,compute=5us"},
      {"wavefront", "px=4,py=4,sweeps=3"},
      {"allreduce_ring", "ranks=5,bytes=64KiB"},
      {"allreduce_recdoub", "ranks=6,bytes=8"},
      {"pingpong", "iters=7,bytes=100"},
      {"random", "ranks=5,ops=300,seed=3,compute=2us"},
      {"random", "ranks=7,ops=400,seed=11,compute=1us"},
  };
  char err[512], dir[] = "/tmp/llamp-stream-XXXXXX", a_path[600], b_path[600];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(a_path, sizeof a_path, "%s/a.llg", dir);
  snprintf(b_path, sizeof b_path, "%s/b.llg", dir);
  int compared = 0, windows = 0, files = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    llamp_graph_t *g = llamp_synth_graph(cases[c].pattern, cases[c].params, err, sizeof err);
    if (!g) {
      fprintf(stderr, "%s %s: %s\n", cases[c].pattern, cases[c].params, err);
      CHECK(0);
      continue;
    }
    /* the writer: the same file as llamp_graph_write_binary, and readable */
    CHECK(llamp_graph_write_binary(g, a_path, err, sizeof err) == 0);
    if (stream_copy(g, b_path, err, sizeof err)) {
      fprintf(stderr, "%s: %s\n", cases[c].pattern, err);
      CHECK(0);
    } else {
      CHECK(files_equal(a_path, b_path));
      llamp_graph_t *r = llamp_graph_read_binary(b_path, err, sizeof err);
      CHECK(r != NULL);
      llamp_graph_destroy(r);
      files++;
    }
    for (int variant = 0; variant < 3; variant++) {
      llamp_params_t p;
      llamp_params_default(&p);
      p.S = 1e18; /* every message eager */
      p.L = variant == 2 ? 0 : 1.5e-6 * (variant + 1);
      p.o = variant == 1 ? 0 : 0.7e-6;
      p.G = 0.05e-9 * (variant + 1);
      p.size_g_full = variant == 1;
      llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
      CHECK(e != NULL);
      if (!e) continue;
      llamp_point_t in, st;
      CHECK(llamp_engine_point(e, &p, &in) == 0);
      llamp_engine_destroy(e);
      if (llamp_engine_stream_point(g, &p, llamp_graph_num_vertices(g), &st, err, sizeof err)) {
        /* the random pattern may send to its own rank: refused, by name */
        CHECK(strstr(err, "to its own rank") != NULL && !strcmp(cases[c].pattern, "random"));
        continue;
      }
      CHECK(points_equal(&st, &in, cases[c].pattern));
      compared++;
      /* the smallest window that holds every edge gives the same; one less is refused */
      uint64_t w = span(g) + 1;
      CHECK(llamp_engine_stream_point(g, &p, w, &st, err, sizeof err) == 0);
      CHECK(points_equal(&st, &in, "smallest window"));
      /* windows are powers of two: the largest one not above the longest edge is too small */
      uint64_t small = 1;
      while (2 * small <= w - 1) small *= 2;
      CHECK(llamp_engine_stream_point(g, &p, small, &st, err, sizeof err) == -1);
      CHECK(strstr(err, "more than the window of") != NULL);
      windows++;
    }
    /* models it does not handle: refused */
    llamp_params_t q;
    llamp_params_default(&q);
    llamp_point_t st;
    q.nic = 1;
    CHECK(llamp_engine_stream_point(g, &q, 1 << 20, &st, err, sizeof err) == -1);
    CHECK(strstr(err, "eager messages only") != NULL);
    q.nic = 0;
    q.S = 0; /* every message rendezvous */
    if (llamp_graph_num_messages(g)) {
      CHECK(llamp_engine_stream_point(g, &q, 1 << 20, &st, err, sizeof err) == -1);
      CHECK(strstr(err, "above S") != NULL || strstr(err, "own rank") != NULL);
    }
    llamp_graph_destroy(g);
  }
  CHECK(compared >= 18);
  CHECK(files == 8);
  /* the writer refuses counts that differ from the announced ones, and removes the file */
  llamp_graph_stream_t *s = llamp_graph_stream_create(b_path, 1, 2, 0, 0, err, sizeof err);
  CHECK(s != NULL);
  if (s) {
    CHECK(llamp_graph_stream_vertex(s, LLAMP_VERTEX_CALC, 0, 1e-6, 0, UINT32_MAX, 0, 0, NULL) == 0);
    uint64_t first[2] = {0, 2};
    CHECK(llamp_graph_stream_close(s, first, err, sizeof err) == -1);
    CHECK(strstr(err, "1 vertices, 0 edges and 0 sends given, 2, 0 and 0 announced") != NULL);
    CHECK(access(b_path, F_OK) != 0);
  }
  unlink(a_path);
  rmdir(dir);
  printf("out of core: %d points bit for bit (%d also at the smallest window), %d files byte for byte\n",
         compared, windows, files);
  TEST_DONE();
}
