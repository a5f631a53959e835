/* netmodel.c - size-dependent message costs (llamp_netmodel.h): SimGrid's
 * piecewise settings parsed with SimGrid's semantics, and their values. */
#include "llamp_netmodel.h"
#include "llamp_units.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  /* one line, whatever the setting quoted (a model file's string may hold newlines) */
  if (err && errlen) llamp_units_one_line(err);
}

void llamp_netmodel_init(llamp_netmodel_t *m) {
  memset(m, 0, sizeof *m);
  m->envelope = 16;
}

/* The last piece starting at or below s (binary search: calibrated curves
 * have hundreds of pieces and every message of a graph is looked up). */
static unsigned piece_of(const llamp_netmodel_curve_t *c, double s) {
  unsigned lo = 0, hi = c->n - 1;
  while (lo < hi) {
    unsigned mid = (lo + hi + 1) / 2;
    if (c->seg[mid].from <= s) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

double llamp_netmodel_curve_eval(const llamp_netmodel_curve_t *c, double s, double absent) {
  if (!c->n) return absent;
  unsigned i = piece_of(c, s);
  return c->seg[i].offset + c->seg[i].per_byte * s;
}

/* A setting's text for an error message: long calibrated strings are cut. */
static const char *quote(const char *text, char *buf, size_t len) {
  if (strlen(text) < 80) return text;
  snprintf(buf, len, "%.60s...", text);
  return buf;
}

/* One parsed section of a SimGrid setting: threshold and up to 2 values. */
typedef struct {
  double thr, v[2];
  unsigned nv;
} section_t;

/* "T:V[:V...];..." -> sections sorted by threshold (SimGrid sorts them too);
 * values as times ("1us"; bare numbers in seconds, as xbt_parse_get_time). */
static int parse_sections(const char *text, const char *name, unsigned min_values, section_t *sec,
                          unsigned *count, char *err, size_t errlen) {
  static char buf[65536];
  char q[80];
  if (!text || strlen(text) >= sizeof buf) {
    seterr(err, errlen, "%s: %s", name, text ? "too long" : "missing");
    return -1;
  }
  snprintf(buf, sizeof buf, "%s", text);
  const char *qt = quote(text, q, sizeof q);
  unsigned n = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
    while (*t == ' ') t++;
    if (!*t) continue;
    if (n == LLAMP_NETMODEL_MAX_SEGS - 1) {
      seterr(err, errlen, "%s '%s': more than %d sections", name, qt, LLAMP_NETMODEL_MAX_SEGS - 1);
      return -1;
    }
    section_t *s = &sec[n];
    memset(s, 0, sizeof *s);
    char *save2 = NULL, *f = strtok_r(t, ":", &save2), *end;
    long thr = f ? strtol(f, &end, 10) : -1; /* f: NULL when the section is colons only */
    if (!f || end == f || *end || thr < 0) {
      seterr(err, errlen, "%s '%s': section %u: threshold '%s' (expected bytes, an integer >= 0)",
             name, qt, n + 1, f ? f : "");
      return -1;
    }
    s->thr = (double)thr;
    for (char *v = strtok_r(NULL, ":", &save2); v; v = strtok_r(NULL, ":", &save2)) {
      double x;
      char e2[200];
      int neg = *v == '-'; /* SimGrid takes negative offsets (calibrated pieces) */
      if (llamp_units_parse(v + neg, LLAMP_UNIT_TIME, "s", &x, e2, sizeof e2) || !isfinite(x)) {
        seterr(err, errlen, "%s '%s': section %u: value '%s' (expected a number)", name, qt, n + 1, v);
        return -1;
      }
      if (neg) x = -x;
      if (s->nv < 2) s->v[s->nv] = x;
      s->nv++; /* SimGrid ignores values past the ones it uses */
    }
    if (s->nv < min_values) {
      seterr(err, errlen, "%s '%s': section %u has %u value%s (expected %s)", name, qt, n + 1,
             s->nv, s->nv == 1 ? "" : "s",
             min_values == 2 ? "THRESHOLD:OFFSET:PER_BYTE" : "THRESHOLD:FACTOR");
      return -1;
    }
    n++;
  }
  if (!n) {
    seterr(err, errlen, "%s '%s': no section (expected THRESHOLD:VALUE;...)", name, qt);
    return -1;
  }
  for (unsigned i = 1; i < n; i++) { /* insertion sort, and no threshold twice */
    section_t x = sec[i];
    unsigned j = i;
    while (j > 0 && sec[j - 1].thr > x.thr) sec[j] = sec[j - 1], j--;
    sec[j] = x;
  }
  for (unsigned i = 1; i < n; i++)
    if (sec[i].thr == sec[i - 1].thr) {
      seterr(err, errlen, "%s '%s': threshold %.0f appears twice", name, qt, sec[i].thr);
      return -1;
    }
  *count = n;
  return 0;
}

/* SMPI (smpi_host.cpp): the section with the largest threshold below s,
 * the first section for s up to its threshold.  With integer sizes, a
 * section of threshold T holds from T + 1 on. */
int llamp_netmodel_parse_overhead(const char *text, const char *name, llamp_netmodel_curve_t *out,
                                  char *err, size_t errlen) {
  section_t sec[LLAMP_NETMODEL_MAX_SEGS];
  unsigned n;
  if (parse_sections(text, name, 2, sec, &n, err, errlen)) return -1;
  memset(out, 0, sizeof *out);
  for (unsigned i = 0; i < n; i++)
    out->seg[i] = (llamp_netmodel_seg_t){i ? sec[i].thr + 1 : 0, sec[i].v[0], sec[i].v[1]};
  out->n = n;
  return 0;
}

/* SMPI (network_smpi.cpp): on x = s + envelope, 1 up to the first
 * threshold, then the section with the largest threshold below x; a
 * section of threshold T holds for s >= T + 1 - envelope. */
int llamp_netmodel_parse_factor(const char *text, const char *name, double envelope,
                                llamp_netmodel_curve_t *out, char *err, size_t errlen) {
  section_t sec[LLAMP_NETMODEL_MAX_SEGS];
  unsigned n;
  if (parse_sections(text, name, 1, sec, &n, err, errlen)) return -1;
  memset(out, 0, sizeof *out);
  unsigned k = 0;
  if (sec[0].thr + 1 - envelope > 0) out->seg[k++] = (llamp_netmodel_seg_t){0, 1, 0};
  char q[80];
  for (unsigned i = 0; i < n; i++) {
    /* a latency factor may be 0 (no latency: SimGrid multiplies by it); a
     * bandwidth factor divides, so it must be > 0 */
    int zero_ok = strstr(name, "lat") != NULL;
    if (!(sec[i].v[0] > 0 || (zero_ok && sec[i].v[0] == 0))) {
      seterr(err, errlen, "%s '%s': factor %g for sizes above %.0f B (expected %s)", name,
             quote(text, q, sizeof q), sec[i].v[0], sec[i].thr, zero_ok ? ">= 0" : "> 0");
      return -1;
    }
    double from = sec[i].thr + 1 - envelope;
    if (from < 0) from = 0;
    if (k && out->seg[k - 1].from == from) k--; /* a later section wins from the same size */
    out->seg[k++] = (llamp_netmodel_seg_t){from, sec[i].v[0], 0};
  }
  out->n = k;
  return 0;
}

int llamp_netmodel_curve_check(const llamp_netmodel_curve_t *c, const char *name, int factor,
                               char *err, size_t errlen) {
  if (!c->n) return 0;
  if (c->seg[0].from != 0) {
    seterr(err, errlen, "%s: the first piece starts at %.0f B (expected from = 0)", name, c->seg[0].from);
    return -1;
  }
  for (unsigned i = 0; i < c->n; i++) {
    const llamp_netmodel_seg_t *s = &c->seg[i];
    if (i && !(s->from > c->seg[i - 1].from)) {
      seterr(err, errlen, "%s: piece %u starts at %.0f B, not after the previous one (%.0f B)", name,
             i + 1, s->from, c->seg[i - 1].from);
      return -1;
    }
    /* overheads: a piece may have a negative offset (calibrations match
     * short pieces at their middles); a negative cost is charged as 0, as
     * SMPI sleeps only positive times */
    if (!isfinite(s->offset) || !isfinite(s->per_byte) || (factor && s->per_byte < 0) ||
        (factor && !(s->offset > 0))) {
      seterr(err, errlen, "%s: piece %u (from %.0f B): %s", name, i + 1, s->from,
             factor ? "expected a factor > 0" : "expected finite offset and per_byte");
      return -1;
    }
  }
  return 0;
}

int llamp_netmodel_by_factors(const llamp_netmodel_t *m) {
  return m->lat_factor.n || m->bw_factor.n || !m->one_way.n;
}

double llamp_netmodel_route_c(const llamp_netmodel_t *m, double c, double route_lat) {
  if (!llamp_netmodel_by_factors(m)) return c;
  return m->L_ref > 0 ? c * route_lat / m->L_ref : 0;
}

void llamp_netmodel_message(const llamp_netmodel_t *m, double s, int eager,
                            llamp_netmodel_msg_t *out) {
  /* SMPI sleeps os / or only for messages it sends detached (eager), ois
   * in every MPI_Isend; a negative value sleeps nothing */
  out->cpu_send = eager ? fmax(0, llamp_netmodel_curve_eval(&m->o_send, s, 0)) : 0;
  out->cpu_recv = eager ? fmax(0, llamp_netmodel_curve_eval(&m->o_recv, s, 0)) : 0;
  out->cpu_isend = fmax(0, llamp_netmodel_curve_eval(&m->o_isend, s, 0));
  if (llamp_netmodel_by_factors(m)) {
    double lf = llamp_netmodel_curve_eval(&m->lat_factor, s, 1);
    double bf = llamp_netmodel_curve_eval(&m->bw_factor, s, 1);
    out->c = (lf - 1) * m->L_ref;
    out->k = (s + m->envelope) / bf;
  } else {
    const llamp_netmodel_curve_t *c = &m->one_way;
    unsigned i = piece_of(c, s);
    out->c = c->seg[i].offset - m->L_ref;
    if (m->G_ref > 0) {
      out->k = c->seg[i].per_byte * s / m->G_ref;
    } else { /* no bandwidth parameter to scale: a constant */
      out->c += c->seg[i].per_byte * s;
      out->k = 0;
    }
  }
}

void llamp_netmodel_vertex(const llamp_netmodel_t *m, int is_send, int nonblocking, double s, double S,
                           int sync, llamp_netmodel_vertex_t *out) {
  llamp_netmodel_msg_t x;
  llamp_netmodel_message(m, s, is_send ? s <= S || sync : s <= S && !sync, &x);
  out->c = x.c;
  out->k = x.k;
  out->start = 0;
  if (!is_send) out->cpu = x.cpu_recv;
  else if (nonblocking == 2) out->cpu = out->start = x.cpu_send; /* MPI_Start of a Send_init: os */
  else if (nonblocking) out->cpu = out->start = x.cpu_isend; /* SMPI sleeps ois inside MPI_Isend */
  else out->cpu = x.cpu_send;
}

static int curve_is(const llamp_netmodel_curve_t *c, double v) {
  for (unsigned i = 0; i < c->n; i++)
    if (c->seg[i].offset != v || c->seg[i].per_byte != 0) return 0;
  return 1;
}

int llamp_netmodel_is_trivial(const llamp_netmodel_t *m) {
  return curve_is(&m->o_send, 0) && curve_is(&m->o_isend, 0) && curve_is(&m->o_recv, 0) &&
         curve_is(&m->lat_factor, 1) && curve_is(&m->bw_factor, 1) && !m->one_way.n;
}
