/* goal_write.c - llamp_graph_t -> GOAL text that LogGOPSim's txt2bin accepts.
 *
 * Output shape, per rank in rank order:
 *     rank R {
 *     l0: calc 5000
 *     l1: send 1024b to 1 tag 5
 *     l1 requires l0
 *     }
 * Operations come in posting order (llamp_graph_local_index) labelled
 * l<index>, every message has an explicit tag, and after the operations one
 * requires / irequires line per non-message in-edge.  Lines are formatted by
 * hand into a large buffer: fprintf per field would dominate on big graphs. */
#include "llamp_goal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  FILE *f;
  char *buf;
  size_t len, cap;
  int ioerr;
} out_t;

static void out_flush(out_t *o) {
  if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len) o->ioerr = 1;
  o->len = 0;
}

/* Make room for at least `need` more bytes (need <= cap). */
static inline void out_room(out_t *o, size_t need) {
  if (o->cap - o->len < need) out_flush(o);
}

static inline void out_str(out_t *o, const char *s) {
  size_t n = strlen(s);
  out_room(o, n);
  memcpy(o->buf + o->len, s, n);
  o->len += n;
}

static inline void out_u64(out_t *o, uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  out_room(o, (size_t)n);
  while (n) o->buf[o->len++] = tmp[--n];
}

static inline void out_i64(out_t *o, int64_t v) {
  if (v < 0) {
    out_str(o, "-");
    out_u64(o, (uint64_t)0 - (uint64_t)v);
  } else {
    out_u64(o, (uint64_t)v);
  }
}

static int write_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int write_fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* Round a non-negative finite value to an integer below `limit` (what the
 * reader accepts); -1 if it is negative, not finite or too large. */
static int to_count(double v, double limit, uint64_t *out) {
  if (!(v >= 0) || !isfinite(v)) return -1;
  double r = floor(v + 0.5);
  if (!(r < limit)) return -1;
  *out = (uint64_t)r;
  return 0;
}

#define SIZE_LIMIT 9007199254740994.0 /* sizes up to 2^53 bytes (next double) */
#define CALC_LIMIT 9223372036854775808.0 /* calc values below 2^63 */

/* Sort the vertices of every rank by posting order: order[first[r] + i] is
 * the vertex with local index i on rank r.  Fails if local indices are not
 * exactly 0..count-1 on some rank. */
static uint32_t *rank_order(const llamp_graph_t *g, uint64_t **first_out, char *err,
                            size_t errlen) {
  uint64_t n = llamp_graph_num_vertices(g);
  uint32_t R = llamp_graph_num_ranks(g);
  uint64_t *first = calloc((size_t)R + 1, sizeof *first);
  uint32_t *order = malloc((n ? n : 1) * sizeof *order);
  if (!first || !order || n > UINT32_MAX) {
    free(first);
    free(order);
    write_fail(err, errlen, "goal writer: out of memory for %llu vertices", (unsigned long long)n);
    return NULL;
  }
  for (uint64_t v = 0; v < n; v++) first[llamp_graph_rank(g, v) + 1]++;
  for (uint32_t r = 0; r < R; r++) first[r + 1] += first[r];
  memset(order, 0xff, n * sizeof *order);
  for (uint64_t v = 0; v < n; v++) {
    uint32_t r = llamp_graph_rank(g, v);
    uint64_t li = llamp_graph_local_index(g, v), cnt = first[r + 1] - first[r];
    if (li >= cnt || order[first[r] + li] != UINT32_MAX) {
      free(first);
      free(order);
      write_fail(err, errlen, "goal writer: vertex %llu has local index %llu on rank %u (%llu ops)",
                 (unsigned long long)v, (unsigned long long)li, r, (unsigned long long)cnt);
      return NULL;
    }
    order[first[r] + li] = (uint32_t)v;
  }
  *first_out = first;
  return order;
}

/* One operation line "l<i>: ..." for vertex v. */
static int write_op(out_t *o, const llamp_graph_t *g, uint64_t v, uint64_t li, double scale,
                    char *err, size_t errlen) {
  uint64_t amount;
  llamp_vertex_kind_t kind = llamp_graph_kind(g, v);
  double value = llamp_graph_value(g, v);
  out_str(o, "l");
  out_u64(o, li);
  if (kind == LLAMP_VERTEX_CALC) {
    if (to_count(value * scale, CALC_LIMIT, &amount))
      return write_fail(err, errlen, "goal writer: calc duration %g s of vertex %llu not writable",
                        value, (unsigned long long)v);
    out_str(o, ": calc ");
    out_u64(o, amount);
  } else {
    if (to_count(value, SIZE_LIMIT, &amount))
      return write_fail(err, errlen, "goal writer: message size %g of vertex %llu not writable",
                        value, (unsigned long long)v);
    out_str(o, kind == LLAMP_VERTEX_SEND ? ": send " : ": recv ");
    out_u64(o, amount);
    out_str(o, kind == LLAMP_VERTEX_SEND ? "b to " : "b from ");
    /* the resolved peer: a receive posted with ANY_SOURCE is written with the
     * source it matched, which re-matches the same send (docs/goal.md) */
    out_i64(o, llamp_graph_peer(g, v));
    out_str(o, " tag ");
    out_i64(o, llamp_graph_tag(g, v));
    unsigned f = llamp_graph_flags(g, v);
    if (f & LLAMP_VERTEX_F_SYNC) out_str(o, " sync");
    if (f & LLAMP_VERTEX_F_ISEND) out_str(o, " isend");
    if (f & LLAMP_VERTEX_F_OS) out_str(o, " os");
  }
  out_str(o, "\n");
  return 0;
}

int llamp_goal_write_stream(const llamp_graph_t *g, FILE *f, const llamp_goal_options_t *opt,
                            char *err, size_t errlen) {
  llamp_goal_options_t defaults;
  if (!opt) {
    llamp_goal_options_default(&defaults);
    opt = &defaults;
  }
  if ((unsigned)opt->time_unit > LLAMP_GOAL_S)
    return write_fail(err, errlen, "goal writer: invalid time unit %d", (int)opt->time_unit);
  double scale = llamp_goal_time_unit_scale(opt->time_unit);
  uint64_t *first = NULL;
  uint32_t *order = rank_order(g, &first, err, errlen);
  if (!order) return -1;
  out_t o = {f, malloc(1 << 20), 0, 1 << 20, 0};
  int rc = 0;
  if (!o.buf) {
    rc = write_fail(err, errlen, "goal writer: out of memory");
    goto done;
  }
  uint32_t R = llamp_graph_num_ranks(g);
  out_str(&o, "num_ranks ");
  out_u64(&o, R);
  out_str(&o, "\n");
  for (uint32_t r = 0; r < R && rc == 0; r++) {
    out_str(&o, "rank ");
    out_u64(&o, r);
    out_str(&o, " {\n");
    for (uint64_t i = first[r]; i < first[r + 1] && rc == 0; i++)
      rc = write_op(&o, g, order[i], i - first[r], scale, err, errlen);
    for (uint64_t i = first[r]; i < first[r + 1] && rc == 0; i++) {
      uint64_t v = order[i], e0, e1;
      llamp_graph_in_edges(g, v, &e0, &e1);
      for (uint64_t e = e0; e < e1; e++) {
        llamp_edge_kind_t k = llamp_graph_edge_kind(g, e);
        if (k == LLAMP_EDGE_MESSAGE) continue;
        uint64_t u = llamp_graph_edge_source(g, e);
        if (llamp_graph_rank(g, u) != r) {
          rc = write_fail(err, errlen, "goal writer: dependency %llu -> %llu crosses ranks",
                          (unsigned long long)u, (unsigned long long)v);
          break;
        }
        out_str(&o, "l");
        out_u64(&o, i - first[r]);
        out_str(&o, k == LLAMP_EDGE_IREQUIRES ? " irequires l" : k == LLAMP_EDGE_CPU ? " cpurequires l" : " requires l");
        out_u64(&o, llamp_graph_local_index(g, u));
        out_str(&o, "\n");
      }
    }
    out_str(&o, "}\n");
  }
  if (rc == 0) {
    out_flush(&o);
    if (fflush(f) != 0) o.ioerr = 1;
    if (o.ioerr) rc = write_fail(err, errlen, "goal writer: write error: %s", strerror(errno));
  }
done:
  free(o.buf);
  free(order);
  free(first);
  return rc;
}

int llamp_goal_write(const llamp_graph_t *g, const char *path, const llamp_goal_options_t *opt,
                     char *err, size_t errlen) {
  FILE *f = fopen(path, "w");
  if (!f) return write_fail(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
  char inner[512] = "";
  int rc = llamp_goal_write_stream(g, f, opt, inner, sizeof inner);
  if (fclose(f) != 0 && rc == 0)
    rc = write_fail(inner, sizeof inner, "write error: %s", strerror(errno));
  if (rc) {
    write_fail(err, errlen, "%s: %s", path,
               strncmp(inner, "goal writer: ", 13) == 0 ? inner + 13 : inner);
    remove(path);
  }
  return rc;
}
