/* contention.c - the observed contention model (docs/model.md, "Contention"):
 * each message of the DAG gets the duration SimGrid gave its transfer in
 * the emulated run (observe.cpp), sharing of links included.
 *
 * A transfer names its hosts, its bytes (payload + SMPI's 16-byte envelope)
 * and when it started and finished; a DAG message its ranks (hence hosts),
 * its payload and, from one pass of the DAG at the capture's parameters,
 * when its transfer starts (the receive's start for a message that starts
 * at its match, else the send's end).  Within each (source host,
 * destination host, bytes) group both are taken in start order and paired
 * in turn; where the group holds transfers the DAG does not have (SMPI's
 * own traffic) or messages SimGrid did not send, the nearer start wins. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"

typedef struct {
  uintptr_t src, dst;
  double bytes, start;
  uint64_t id; /* a transfer's index, or a receive's graph vertex */
} xfer_key_t;

static int key_cmp(const void *a, const void *b) {
  const xfer_key_t *x = a, *y = b;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
  if (x->bytes != y->bytes) return x->bytes < y->bytes ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int same_group(const xfer_key_t *x, const xfer_key_t *y) {
  return x->src == y->src && x->dst == y->dst && x->bytes == y->bytes;
}

int llamp_capture_observed_times(const llamp_graph_t *g, llamp_engine_t *e, const llamp_params_t *p,
                                 double *observed, uint64_t *matched, uint64_t *messages, char *err,
                                 size_t errlen) {
  *matched = *messages = 0;
  const sg_host_t *hosts;
  size_t nh = llamp_capture_session_hosts(&hosts);
  const llamp_capture_transfer_t *tr;
  size_t nt = llamp_capture_observed(&tr);
  uint64_t n = llamp_graph_num_vertices(g);
  for (uint64_t v = 0; v < n; v++) observed[v] = NAN;
  double *start = malloc((n ? n : 1) * sizeof *start);
  xfer_key_t *tk = malloc((nt ? nt : 1) * sizeof *tk);
  uint64_t nm = llamp_graph_num_messages(g);
  xfer_key_t *mk = malloc((nm ? nm : 1) * sizeof *mk);
  if (!start || !tk || !mk) {
    free(start), free(tk), free(mk);
    snprintf(err, errlen, "out of memory matching %zu transfers to the DAG's messages", nt);
    return -1;
  }
  if (llamp_engine_starts(e, p, start)) {
    free(start), free(tk), free(mk);
    snprintf(err, errlen, "the DAG's start times at the capture's parameters");
    return -1;
  }
  double leave = llamp_params_leave_max(p); /* above it a message starts at its match */
  size_t k = 0;
  for (uint64_t v = 0; v < n; v++) {
    if (llamp_graph_kind(g, v) != LLAMP_VERTEX_RECV) continue;
    uint64_t u = llamp_graph_partner(g, v);
    uint32_t rs = llamp_graph_rank(g, u), rd = llamp_graph_rank(g, v);
    int32_t tag = llamp_graph_tag(g, v);
    if (rs >= nh || rd >= nh || (tag >= LLAMP_TAG_NET_SELF && tag < LLAMP_TAG_NET_SELF_END)) continue;
    double s = llamp_graph_value(g, u), at = start[v];
    if (!(s > leave) && !(llamp_graph_flags(g, u) & LLAMP_VERTEX_F_SYNC)) { /* it leaves at the end of its send */
      llamp_affine_t c;
      llamp_engine_vertex_cost(e, u, &c);
      at = start[u] + c.c0 + c.nL * p->L + c.nG * p->G + c.no * p->o + c.ng * p->g;
    }
    mk[k++] = (xfer_key_t){(uintptr_t)hosts[rs], (uintptr_t)hosts[rd], s + 16, at, v};
  }
  size_t nk = k;
  for (size_t i = 0; i < nt; i++) tk[i] = (xfer_key_t){(uintptr_t)tr[i].src, (uintptr_t)tr[i].dst, tr[i].bytes, tr[i].start, i};
  qsort(mk, nk, sizeof *mk, key_cmp);
  qsort(tk, nt, sizeof *tk, key_cmp);
  size_t i = 0, j = 0;
  while (i < nk && j < nt) {
    int c = key_cmp(&(xfer_key_t){mk[i].src, mk[i].dst, mk[i].bytes, 0, 0}, &(xfer_key_t){tk[j].src, tk[j].dst, tk[j].bytes, 0, 0});
    if (c < 0) { i++; continue; } /* no transfer of this group left */
    if (c > 0) { j++; continue; }
    /* the group's ends */
    size_t ie = i, je = j;
    while (ie < nk && same_group(&mk[ie], &mk[i])) ie++;
    while (je < nt && same_group(&tk[je], &tk[j])) je++;
    while (i < ie && j < je) {
      size_t rm = ie - i, rt = je - j;
      if (rt > rm && j + 1 < je && fabs(tk[j + 1].start - mk[i].start) < fabs(tk[j].start - mk[i].start)) {
        j++; /* a transfer the DAG does not have */
        continue;
      }
      if (rm > rt && i + 1 < ie && fabs(tk[j].start - mk[i + 1].start) < fabs(tk[j].start - mk[i].start)) {
        i++; /* a message SimGrid did not send as a transfer of its own */
        continue;
      }
      const llamp_capture_transfer_t *t = &tr[tk[j].id];
      observed[mk[i].id] = t->finish - t->start;
      (*matched)++;
      i++, j++;
    }
    i = ie, j = je;
  }
  *messages = nk;
  if (getenv("LLAMP_DEBUG_OBSERVED")) { /* the groups whose counts differ */
    for (size_t a = 0, b = 0; a < nk || b < nt;) {
      int c = a == nk ? 1 : b == nt ? -1 : key_cmp(&(xfer_key_t){mk[a].src, mk[a].dst, mk[a].bytes, 0, 0},
                                                   &(xfer_key_t){tk[b].src, tk[b].dst, tk[b].bytes, 0, 0});
      size_t ae = a, be = b;
      if (c <= 0) while (ae < nk && same_group(&mk[ae], &mk[a])) ae++;
      if (c >= 0) while (be < nt && same_group(&tk[be], &tk[b])) be++;
      if (ae - a != be - b)
        fprintf(stderr, "observed: %g B %p -> %p: %zu messages, %zu transfers\n", c <= 0 ? mk[a].bytes : tk[b].bytes,
                (void *)(c <= 0 ? mk[a].src : tk[b].src), (void *)(c <= 0 ? mk[a].dst : tk[b].dst), ae - a, be - b);
      a = ae, b = be;
    }
  }
  free(start), free(tk), free(mk);
  return 0;
}
