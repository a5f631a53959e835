/* inject.c - the injector's runtime (llamp_inject.h): message headers,
 * request tracking, visibility times, probes, collectives as token
 * schedules.  One thread calls MPI at a time (as in the native capture). */
#define _GNU_SOURCE
#define LLAMP_INJECT_RUNTIME 1
#include "llamp_inject.h"

#include "llamp_coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

/* ---- the header every message carries ------------------------------------ */
typedef struct {
  int64_t t_ns;   /* sender's CLOCK_MONOTONIC when the send started */
  uint64_t bytes; /* nominal size (the model's s: the payload, or a token's) */
  int32_t src;    /* sender's world rank */
  uint32_t seq;   /* sender's message number (rendezvous acks) */
  int32_t flags;  /* IJ_F_RDV: the sender waits for the receiver's ack */
  int32_t pad;
} ij_hdr_t;
#define HDR ((int)sizeof(ij_hdr_t))
#define IJ_F_RDV 1

/* A request whose completion we detected this long after the previous
 * poll that saw it incomplete completed while nobody was looking: its
 * arrival time is taken as that previous poll (the earliest possible). */
#define POLL_GAP 5e-6

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static int64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- state ---------------------------------------------------------------- */
enum { IJ_SEND = 1, IJ_RECV = 2 };

typedef struct ij_msg { /* a message a probe took out of MPI (the stash) */
  struct ij_msg *next;
  MPI_Comm comm;
  int source, tag;
  char *data; /* header + payload */
  size_t n;
  double t_det, t_seen;
} ij_msg_t;

typedef struct ij_req {
  MPI_Request user, inner;
  unsigned char kind, persistent, active, greq, detected, detached, stash, cancelled;
  /* the message */
  void *ubuf;
  int ucount;
  MPI_Datatype utype;
  MPI_Comm comm;
  size_t ubytes; /* count * type size */
  int contig;
  char *bounce; /* header + payload, or NULL: the struct type path */
  size_t bounce_n;
  ij_hdr_t hdr;
  /* receive */
  double t_post, t_seen, visible;
  MPI_Status st;
  /* send */
  int mode, dest, tag;
  uint64_t nominal;
  MPI_Request ack;
  double ack_val;
  struct ij_req *dnext; /* detached list */
} ij_req_t;

static struct {
  int on, rank, size;
  llamp_inject_config_t cfg;
  llamp_coll_selection_t sel;
  MPI_Comm world; /* shadow of MPI_COMM_WORLD: acks and world tokens */
  int tag_ub;
  uint32_t seq;
  ij_msg_t *stash, **stash_tail;
  ij_req_t *detached;
  /* request table: open addressing on the user handle */
  ij_req_t **tab;
  size_t tab_cap, tab_n, tab_dead;
  /* shadows of user communicators (collective tokens) */
  struct { MPI_Comm comm, shadow; unsigned counter; } *shadows;
  int nshadows, capshadows;
  /* statistics */
  uint64_t delayed, waited_msgs, tokens, colls;
  double cdata_sum, cdata_after; /* collectives: entry -> data done; data done after the tokens */
  double waited, late_max, late_sum;
  /* the run report (LLAMP_INJECT_REPORT) */
  double t_span0, t_wait, probe;
  int in_coll; /* inside a collective: its time is counted once, there */
  MPI_Request cdata; /* inside a collective: MPICH's nonblocking counterpart (the data) */
  int cdata_rc;
  double sleep_margin; /* LLAMP_INJECT_SPIN: wake up this long before a visible time */
} S;

/* The blocking collective in progress (one at a time: one thread calls MPI). */
static struct {
  double t0;        /* entry (0: the injector is off) */
  int kind;
  llamp_coll_args_t a;
  uint64_t *cv, *rv; /* v-variants: a.counts, a.rcounts */
  MPI_Comm sh;
  int base;
} C;

#define DATA_SPIN 300e-6 /* s: a collective's data polled continuously this long after entry */
#define DATA_SLICE 20e-6 /* s: then every DATA_SLICE of sleep */
#define TAB_DEAD ((ij_req_t *)1)

static void die(const char *fmt, const char *a)
{
  fprintf(stderr, "llamp-inject: rank %d: ", S.rank);
  fprintf(stderr, fmt, a);
  fputc('\n', stderr);
  PMPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

static size_t hslot(MPI_Request h, size_t cap)
{
  uint32_t x = (uint32_t)h * 2654435761u;
  return x & (cap - 1);
}

static void tab_put(ij_req_t *r);
static void tab_grow(void)
{
  ij_req_t **old = S.tab;
  size_t oc = S.tab_cap;
  S.tab_cap = oc ? oc * 2 : 256;
  if (S.tab_n * 4 < oc) S.tab_cap = oc; /* mostly tombstones: rehash at the same size */
  S.tab = calloc(S.tab_cap, sizeof *S.tab);
  if (!S.tab) die("%s", "out of memory (request table)");
  S.tab_n = S.tab_dead = 0;
  for (size_t i = 0; i < oc; i++)
    if (old[i] && old[i] != TAB_DEAD) tab_put(old[i]);
  free(old);
}
static void tab_put(ij_req_t *r)
{
  if ((S.tab_n + S.tab_dead + 1) * 2 > S.tab_cap) tab_grow();
  size_t i = hslot(r->user, S.tab_cap);
  while (S.tab[i] && S.tab[i] != TAB_DEAD) i = (i + 1) & (S.tab_cap - 1);
  if (S.tab[i] == TAB_DEAD) S.tab_dead--;
  S.tab[i] = r;
  S.tab_n++;
}
static ij_req_t *tab_get(MPI_Request h)
{
  if (!S.tab_n || h == MPI_REQUEST_NULL) return NULL;
  size_t i = hslot(h, S.tab_cap);
  while (S.tab[i]) {
    if (S.tab[i] != TAB_DEAD && S.tab[i]->user == h) return S.tab[i];
    i = (i + 1) & (S.tab_cap - 1);
  }
  return NULL;
}
static void tab_del(ij_req_t *r)
{
  size_t i = hslot(r->user, S.tab_cap);
  while (S.tab[i]) {
    if (S.tab[i] == r) {
      S.tab[i] = TAB_DEAD;
      S.tab_n--;
      S.tab_dead++;
      return;
    }
    i = (i + 1) & (S.tab_cap - 1);
  }
}

/* MPICH's builtin request (kind bits 01) is shared by every request that
 * completed inside its creating call: never a key of the table. */
static int builtin_handle(MPI_Request h) { return (((unsigned)h >> 30) & 3u) == 1u; }

static int gq_query(void *extra, MPI_Status *st)
{
  (void)extra;
  PMPI_Status_set_elements(st, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
static int gq_free(void *extra) { (void)extra; return MPI_SUCCESS; }
static int gq_cancel(void *extra, int done) { (void)extra; (void)done; return MPI_SUCCESS; }

/* Give r a user handle of its own and remember it. */
static void track(ij_req_t *r)
{
  r->user = r->inner;
  if (builtin_handle(r->inner) || tab_get(r->inner)) {
    PMPI_Grequest_start(gq_query, gq_free, gq_cancel, NULL, &r->user);
    r->greq = 1;
  }
  tab_put(r);
}

static ij_req_t *req_new(int kind)
{
  ij_req_t *r = calloc(1, sizeof *r);
  if (!r) die("%s", "out of memory (request)");
  r->kind = (unsigned char)kind;
  r->inner = r->user = r->ack = MPI_REQUEST_NULL;
  r->active = 1;
  return r;
}

static void req_free(ij_req_t *r)
{
  free(r->bounce);
  free(r);
}

/* ---- datatypes ---------------------------------------------------------- */
static void type_info(int count, MPI_Datatype type, size_t *bytes, int *contig)
{
  int sz = 0;
  MPI_Aint lb, ext, tlb, text;
  PMPI_Type_size(type, &sz);
  *bytes = (size_t)sz * (size_t)(count > 0 ? count : 0);
  PMPI_Type_get_extent(type, &lb, &ext);
  PMPI_Type_get_true_extent(type, &tlb, &text);
  *contig = tlb == 0 && text == sz && ext == sz;
}

/* A datatype of the header at `hdr` followed by count x type at buf
 * (absolute addresses, used with MPI_BOTTOM): no copy of the payload. */
static MPI_Datatype two_blocks(void *hdr, const void *buf, int count, MPI_Datatype type)
{
  int bl[2] = {HDR, count};
  MPI_Aint d[2];
  MPI_Datatype t[2] = {MPI_BYTE, type}, out;
  PMPI_Get_address(hdr, &d[0]);
  PMPI_Get_address((void *)buf, &d[1]);
  PMPI_Type_create_struct(2, bl, d, t, &out);
  PMPI_Type_commit(&out);
  return out;
}

/* ---- sends ---------------------------------------------------------------- */
static int ack_tag(uint32_t seq) { return S.tag_ub / 2 + (int)(seq % (uint32_t)(S.tag_ub / 2)); }

/* Fill r's header (and bounce copy) for a send starting now. */
static void send_stamp(ij_req_t *r)
{
  r->hdr.t_ns = now_ns();
  r->hdr.bytes = r->nominal;
  r->hdr.src = S.rank;
  r->hdr.seq = S.seq++;
  r->hdr.flags = r->nominal > S.cfg.S ? IJ_F_RDV : 0;
  if (r->bounce) {
    memcpy(r->bounce, &r->hdr, HDR);
    if (r->ubytes) {
      if (r->contig) memcpy(r->bounce + HDR, r->ubuf, r->ubytes);
      else {
        int pos = 0;
        PMPI_Pack(r->ubuf, r->ucount, r->utype, r->bounce + HDR, (int)r->ubytes, &pos, r->comm);
      }
    }
  }
  if (r->hdr.flags & IJ_F_RDV)
    PMPI_Irecv(&r->ack_val, 1, MPI_DOUBLE, MPI_ANY_SOURCE, ack_tag(r->hdr.seq), S.world, &r->ack);
}

static int post_send(ij_req_t *r, int persistent)
{
  MPI_Datatype t = MPI_BYTE;
  void *b = r->bounce;
  int n = (int)r->bounce_n, ret;
  if (!b) {
    t = two_blocks(&r->hdr, r->ubuf, r->ucount, r->utype);
    b = MPI_BOTTOM;
    n = 1;
  }
  if (persistent) {
    switch (r->mode) {
    case LLAMP_INJECT_SYNC: ret = PMPI_Ssend_init(b, n, t, r->dest, r->tag, r->comm, &r->inner); break;
    case LLAMP_INJECT_READY: ret = PMPI_Rsend_init(b, n, t, r->dest, r->tag, r->comm, &r->inner); break;
    default: ret = PMPI_Send_init(b, n, t, r->dest, r->tag, r->comm, &r->inner); break;
    }
  } else {
    switch (r->mode) {
    case LLAMP_INJECT_SYNC: ret = PMPI_Issend(b, n, t, r->dest, r->tag, r->comm, &r->inner); break;
    case LLAMP_INJECT_READY: ret = PMPI_Irsend(b, n, t, r->dest, r->tag, r->comm, &r->inner); break;
    default: ret = PMPI_Isend(b, n, t, r->dest, r->tag, r->comm, &r->inner); break;
    }
  }
  if (t != MPI_BYTE) PMPI_Type_free(&t);
  return ret;
}

static ij_req_t *make_send(int mode, const void *buf, int count, MPI_Datatype type, int dest,
                           int tag, MPI_Comm comm, int64_t nominal)
{
  ij_req_t *r = req_new(IJ_SEND);
  r->mode = mode;
  r->ubuf = (void *)buf;
  r->ucount = count;
  r->utype = type;
  r->dest = dest;
  r->tag = tag;
  r->comm = comm;
  type_info(count, type, &r->ubytes, &r->contig);
  r->nominal = nominal >= 0 ? (uint64_t)nominal : r->ubytes;
  /* a buffered send must not keep the user's buffer: always a copy */
  if (r->ubytes <= S.cfg.small || mode == LLAMP_INJECT_BUFFERED) {
    r->bounce_n = (size_t)HDR + r->ubytes;
    r->bounce = malloc(r->bounce_n);
    if (!r->bounce) die("%s", "out of memory (send buffer)");
  }
  return r;
}

/* Post a send; the request is tracked unless it completed at once with
 * nothing left to wait for (then *user gets MPICH's handle). */
static int isend_nominal(int mode, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm, MPI_Request *user, int64_t nominal)
{
  if (!S.on || dest == MPI_PROC_NULL) {
    if (mode == LLAMP_INJECT_SYNC) return PMPI_Issend(buf, count, type, dest, tag, comm, user);
    if (mode == LLAMP_INJECT_READY) return PMPI_Irsend(buf, count, type, dest, tag, comm, user);
    return PMPI_Isend(buf, count, type, dest, tag, comm, user);
  }
  ij_req_t *r = make_send(mode, buf, count, type, dest, tag, comm, nominal);
  send_stamp(r);
  int ret = post_send(r, 0);
  if (ret != MPI_SUCCESS) {
    if (r->ack != MPI_REQUEST_NULL) {
      PMPI_Cancel(&r->ack);
      PMPI_Request_free(&r->ack);
    }
    req_free(r);
    return ret;
  }
  int done = 0;
  if (r->ack == MPI_REQUEST_NULL) PMPI_Request_get_status(r->inner, &done, MPI_STATUS_IGNORE);
  if (done) {
    *user = r->inner;
    req_free(r); /* the data left (MPICH copied it): nothing to keep */
    return MPI_SUCCESS;
  }
  track(r);
  *user = r->user;
  return MPI_SUCCESS;
}

/* ---- receives ------------------------------------------------------------- */
static int match(const ij_msg_t *m, MPI_Comm comm, int source, int tag)
{
  return m->comm == comm && (source == MPI_ANY_SOURCE || source == m->source) &&
         (tag == MPI_ANY_TAG || tag == m->tag);
}

static ij_msg_t *stash_take(MPI_Comm comm, int source, int tag)
{
  for (ij_msg_t **p = &S.stash; *p; p = &(*p)->next)
    if (match(*p, comm, source, tag)) {
      ij_msg_t *m = *p;
      *p = m->next;
      if (!*p) S.stash_tail = p;
      return m;
    }
  return NULL;
}

static void from_stash(ij_req_t *r, ij_msg_t *m)
{
  r->stash = 1;
  r->detected = 0;
  r->bounce = m->data;
  r->bounce_n = m->n;
  r->t_seen = m->t_seen;
  memset(&r->st, 0, sizeof r->st);
  r->st.MPI_SOURCE = m->source;
  r->st.MPI_TAG = m->tag;
  r->st.MPI_ERROR = MPI_SUCCESS;
  PMPI_Status_set_elements_x(&r->st, MPI_BYTE, (MPI_Count)m->n);
  r->ack_val = m->t_det; /* the arrival time, for visible() */
  free(m);
}

static int post_recv(ij_req_t *r, int persistent)
{
  MPI_Datatype t = MPI_BYTE;
  void *b = r->bounce;
  int n = (int)r->bounce_n, ret;
  if (!b) {
    t = two_blocks(&r->hdr, r->ubuf, r->ucount, r->utype);
    b = MPI_BOTTOM;
    n = 1;
  }
  if (persistent) ret = PMPI_Recv_init(b, n, t, r->dest, r->tag, r->comm, &r->inner);
  else ret = PMPI_Irecv(b, n, t, r->dest, r->tag, r->comm, &r->inner);
  if (t != MPI_BYTE) PMPI_Type_free(&t);
  return ret;
}

static ij_req_t *make_recv(void *buf, int count, MPI_Datatype type, int source, int tag,
                           MPI_Comm comm)
{
  ij_req_t *r = req_new(IJ_RECV);
  r->ubuf = buf;
  r->ucount = count;
  r->utype = type;
  r->dest = source;
  r->tag = tag;
  r->comm = comm;
  type_info(count, type, &r->ubytes, &r->contig);
  if (r->ubytes <= S.cfg.small) {
    r->bounce_n = (size_t)HDR + r->ubytes;
    r->bounce = malloc(r->bounce_n);
    if (!r->bounce) die("%s", "out of memory (receive buffer)");
  }
  return r;
}

/* Start a receive: from the stash when a probe took a matching message out
 * of MPI already, else posted to MPI. */
static int start_recv(ij_req_t *r, int persistent_start)
{
  r->t_post = r->t_seen = now_s();
  r->detected = 0;
  r->cancelled = 0;
  r->active = 1;
  ij_msg_t *m = S.stash ? stash_take(r->comm, r->dest, r->tag) : NULL;
  if (m) {
    if (r->bounce && !r->stash) free(r->bounce);
    from_stash(r, m);
    return MPI_SUCCESS;
  }
  if (r->stash) { /* a persistent receive served from the stash before */
    free(r->bounce);
    r->bounce = NULL;
    r->stash = 0;
    if (r->ubytes <= S.cfg.small) {
      r->bounce_n = (size_t)HDR + r->ubytes;
      r->bounce = malloc(r->bounce_n);
    }
  }
  return persistent_start ? PMPI_Start(&r->inner) : post_recv(r, 0);
}

/* When a completed receive becomes visible (docs/model.md with L0 + dL). */
static void recv_visible(ij_req_t *r, double t_det)
{
  const ij_hdr_t *h = r->bounce ? (const ij_hdr_t *)r->bounce : &r->hdr;
  double ts = (double)h->t_ns * 1e-9;
  double A = t_det - r->t_seen <= POLL_GAP ? t_det : r->t_seen;
  if (r->stash) A = r->ack_val;
  double ready = r->t_post > ts ? r->t_post : ts;
  double X = A > ready ? A - ready : 0;
  double dl = llamp_inject_config_delay(&S.cfg, h->src, S.rank), v;
  if (h->flags & IJ_F_RDV) {
    double m = S.cfg.rdv == LLAMP_INJECT_RDV_RDMA ? ts + dl : ts;
    if (r->t_post > m) m = r->t_post;
    double release = m + dl + X; /* the sender's completion */
    v = m + (S.cfg.rdv == LLAMP_INJECT_RDV_RDMA ? 2 : 1) * dl + X;
    PMPI_Send(&release, 1, MPI_DOUBLE, h->src, ack_tag(h->seq), S.world);
  } else
    v = ts + dl + X;
  r->visible = v > A ? v : A;
  if (dl > 0) S.delayed++;
}

static int irecv_any(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request *user)
{
  if (!S.on || source == MPI_PROC_NULL) return PMPI_Irecv(buf, count, type, source, tag, comm, user);
  ij_req_t *r = make_recv(buf, count, type, source, tag, comm);
  int ret = start_recv(r, 0);
  if (ret != MPI_SUCCESS) {
    req_free(r);
    return ret;
  }
  if (r->stash) {
    PMPI_Grequest_start(gq_query, gq_free, gq_cancel, NULL, &r->user);
    r->greq = 1;
    tab_put(r);
  } else
    track(r);
  *user = r->user;
  return MPI_SUCCESS;
}

/* ---- completion ------------------------------------------------------------ */

/* 1 when r may complete now (its message is visible, its send released). */
static int check(ij_req_t *r, double now)
{
  if (!r->active) return 1;
  if (!r->detected) {
    int f = 1;
    if (!r->stash) {
      PMPI_Request_get_status(r->inner, &f, &r->st);
      if (!f) {
        r->t_seen = now;
        return 0;
      }
    }
    if (r->kind == IJ_RECV) {
      int c = 0;
      if (!r->stash) PMPI_Test_cancelled(&r->st, &c);
      r->cancelled = (unsigned char)c;
      if (c) r->visible = now;
      else recv_visible(r, now);
    } else if (r->ack != MPI_REQUEST_NULL) {
      PMPI_Test(&r->ack, &f, MPI_STATUS_IGNORE);
      if (!f) return 0;
      r->visible = r->ack_val > now ? r->ack_val : now;
    } else
      r->visible = now;
    r->detected = 1;
  }
  return now >= r->visible;
}

/* Complete r (check() said yes): free MPI's request, copy the payload,
 * write the user's status; r itself is freed unless persistent. */
static int finish(ij_req_t *r, MPI_Status *status, double now, double t_enter)
{
  MPI_Status st = r->st;
  int ret = MPI_SUCCESS;
  if (!r->active) { /* an inactive persistent request: an empty status */
    if (status != MPI_STATUS_IGNORE) {
      memset(status, 0, sizeof *status);
      status->MPI_SOURCE = MPI_ANY_SOURCE;
      status->MPI_TAG = MPI_ANY_TAG;
    }
    return MPI_SUCCESS;
  }
  if (r->active && !r->stash) {
    ret = PMPI_Wait(&r->inner, &st);
    if (r->persistent == 0) r->inner = MPI_REQUEST_NULL;
  }
  if (r->active && r->kind == IJ_RECV && !r->cancelled) {
    MPI_Count n = 0;
    if (r->stash) st = r->st;
    PMPI_Get_elements_x(&st, MPI_BYTE, &n);
    n -= HDR;
    if (n < 0) n = 0;
    if (r->bounce && n > 0) {
      size_t cp = (size_t)n;
      if (cp > r->ubytes) {
        cp = r->ubytes;
        ret = st.MPI_ERROR = MPI_ERR_TRUNCATE;
      }
      if (r->contig) memcpy(r->ubuf, r->bounce + HDR, cp);
      else {
        int pos = 0;
        PMPI_Unpack(r->bounce + HDR, (int)cp, &pos, r->ubuf, r->ucount, r->utype, r->comm);
      }
    }
    PMPI_Status_set_elements_x(&st, MPI_BYTE, n);
    if (r->visible > 0 && r->visible > t_enter) { /* we waited for it: how late we let go */
      double late = now - r->visible;
      if (late > S.late_max) S.late_max = late;
      S.late_sum += late;
      S.waited_msgs++;
    }
  }
  if (r->kind == IJ_SEND && r->ack != MPI_REQUEST_NULL) PMPI_Wait(&r->ack, MPI_STATUS_IGNORE);
  if (status != MPI_STATUS_IGNORE) *status = st;
  r->active = 0;
  if (r->greq) {
    MPI_Request u = r->user;
    PMPI_Grequest_complete(u);
    if (!r->detached) PMPI_Wait(&u, MPI_STATUS_IGNORE);
    else PMPI_Request_free(&u);
  }
  if (!r->persistent) {
    if (!r->detached) tab_del(r);
    req_free(r);
  }
  return ret;
}

/* Requests the program let go of (Bsend, Request_free): completed here. */
static void progress_detached(void)
{
  double t = now_s();
  for (ij_req_t **p = &S.detached; *p;) {
    ij_req_t *r = *p;
    if (check(r, t)) {
      *p = r->dnext;
      r->persistent = 0;
      finish(r, MPI_STATUS_IGNORE, t, t);
    } else
      p = &r->dnext;
  }
}

static void detach(ij_req_t *r)
{
  tab_del(r);
  r->detached = 1;
  r->dnext = S.detached;
  S.detached = r;
}

enum { DONE_ALL, DONE_ANY, DONE_SOME };

static MPI_Status *slot(MPI_Status *sts, int i)
{
  return sts == MPI_STATUSES_IGNORE || sts == MPI_STATUS_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
}

/* Every completion call: which requests may complete now (a tracked one
 * once visible; an untracked one when MPI says so), the earliest visible
 * first for Waitany/Testany; busy-waits (MPI keeps progressing) when
 * blocking. */
static int complete(int count, MPI_Request *reqs, MPI_Status *sts, int how, int blocking,
                    int *index, int *flag, int *indices)
{
  int ret = MPI_SUCCESS;
  double t0 = 0, t_enter = now_s();
  if (index) *index = MPI_UNDEFINED;
  for (;;) {
    double t = now_s();
    if (t0 == 0) t0 = t;
    else if (blocking && !S.in_coll) S.t_wait += t - t0, t0 = t;
    int pending = 0, nready = 0, best = -1, nactive = 0, undetected = 0;
    double bestv = 0, next = 0; /* next: the earliest visible time still ahead */
    for (int i = 0; i < count; i++) {
      if (reqs[i] == MPI_REQUEST_NULL) continue;
      ij_req_t *r = tab_get(reqs[i]);
      int ok;
      double v;
      if (r) {
        if (r->persistent && !r->active) continue;
        ok = check(r, t);
        v = r->visible;
      } else {
        int f = 0;
        MPI_Status tmp;
        PMPI_Request_get_status(reqs[i], &f, &tmp);
        /* an inactive persistent request completes at once with an empty
         * status: MPI treats it as null for any/some */
        ok = f;
        v = t;
      }
      nactive++;
      if (!ok) {
        pending++;
        if (r && r->detected) {
          if (next == 0 || r->visible < next) next = r->visible;
        } else
          undetected++;
        continue;
      }
      nready++;
      if (best < 0 || v < bestv) {
        best = i;
        bestv = v;
      }
    }
    if (how == DONE_ALL && pending == 0) {
      for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL) {
          if (slot(sts, i) != MPI_STATUS_IGNORE) {
            memset(&sts[i], 0, sizeof sts[i]);
            sts[i].MPI_SOURCE = MPI_ANY_SOURCE;
            sts[i].MPI_TAG = MPI_ANY_TAG;
          }
          continue;
        }
        ij_req_t *r = tab_get(reqs[i]);
        int rc;
        if (r) {
          int pers = r->persistent;
          rc = finish(r, slot(sts, i), t, t_enter);
          if (!pers) reqs[i] = MPI_REQUEST_NULL;
        } else
          rc = PMPI_Wait(&reqs[i], slot(sts, i));
        if (rc != MPI_SUCCESS) ret = rc;
      }
      if (flag) *flag = 1;
      return ret;
    }
    if (how == DONE_ANY && (best >= 0 || nactive == 0)) {
      if (flag) *flag = 1;
      if (best < 0) {
        if (index) *index = MPI_UNDEFINED;
        if (sts != MPI_STATUS_IGNORE) {
          memset(sts, 0, sizeof *sts);
          sts->MPI_SOURCE = MPI_ANY_SOURCE;
          sts->MPI_TAG = MPI_ANY_TAG;
        }
        return MPI_SUCCESS;
      }
      ij_req_t *r = tab_get(reqs[best]);
      if (r) {
        int pers = r->persistent;
        ret = finish(r, sts, t, t_enter);
        if (!pers) reqs[best] = MPI_REQUEST_NULL;
      } else
        ret = PMPI_Wait(&reqs[best], sts);
      *index = best;
      return ret;
    }
    if (how == DONE_SOME && (nready > 0 || nactive == 0)) {
      int k = 0;
      if (nactive == 0) {
        *index = MPI_UNDEFINED; /* outcount */
        return MPI_SUCCESS;
      }
      for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        ij_req_t *r = tab_get(reqs[i]);
        int rc;
        if (r) {
          if (r->persistent && !r->active) continue;
          if (!(r->detected && t >= r->visible)) continue;
          int pers = r->persistent;
          rc = finish(r, slot(sts, k), t, t_enter);
          if (!pers) reqs[i] = MPI_REQUEST_NULL;
        } else {
          int f = 0;
          PMPI_Request_get_status(reqs[i], &f, MPI_STATUS_IGNORE);
          if (!f) continue;
          rc = PMPI_Wait(&reqs[i], slot(sts, k));
        }
        if (rc != MPI_SUCCESS) ret = rc;
        indices[k++] = i;
      }
      *index = k;
      return ret;
    }
    if (!blocking) {
      if (flag) *flag = 0;
      if (how == DONE_SOME) *index = 0;
      progress_detached();
      return MPI_SUCCESS;
    }
    if (S.detached) progress_detached();
    /* A collective's data (MPICH's nonblocking collective) moves while its
     * tokens wait (MPICH progresses only inside MPI calls): polled
     * continuously for DATA_SPIN after the entry (a transfer needs both
     * sides polling), then, while the tokens only wait for their visible
     * time, every DATA_SLICE of sleep (the data waits for a late rank: a
     * rank spinning for long on a shared machine is woken up late
     * afterwards). */
    if (S.cdata != MPI_REQUEST_NULL) {
      int f = 0, rc = PMPI_Test(&S.cdata, &f, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) S.cdata_rc = rc, S.cdata = MPI_REQUEST_NULL;
      if (S.cdata != MPI_REQUEST_NULL) {
        double tn = now_s();
        if (!undetected && next > 0 && S.sleep_margin > 0 && tn - C.t0 > DATA_SPIN &&
            next - tn - S.sleep_margin > DATA_SLICE) {
          struct timespec ts = {0, (long)(DATA_SLICE * 1e9)};
          nanosleep(&ts, NULL);
        }
        continue;
      }
      S.cdata_sum += now_s() - C.t0;
    }
    /* Only waiting for visibility: sleep until shortly before it instead
     * of spinning (a spinning rank on a shared machine is preempted for
     * whole time slices; a sleeping one gives the CPU back early). */
    if (!undetected && next > 0 && S.sleep_margin > 0) {
      double left = next - now_s() - S.sleep_margin;
      if (left > S.sleep_margin) {
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        nanosleep(&ts, NULL);
      }
    }
  }
}

/* ---- probes ------------------------------------------------------------------ */

/* Take every message matching (source, tag, comm) that MPI holds into the
 * stash (its header must be read to know when it becomes visible). */
static void pull(int source, int tag, MPI_Comm comm, double t_entry)
{
  for (;;) {
    int f = 0;
    MPI_Message msg;
    MPI_Status st;
    PMPI_Improbe(source, tag, comm, &f, &msg, &st);
    if (!f) return;
    MPI_Count n = 0;
    PMPI_Get_elements_x(&st, MPI_BYTE, &n);
    ij_msg_t *m = calloc(1, sizeof *m);
    if (!m) die("%s", "out of memory (probe)");
    m->data = malloc(n > 0 ? (size_t)n : 1);
    if (!m->data) die("%s", "out of memory (probe)");
    PMPI_Mrecv(m->data, (int)n, MPI_BYTE, &msg, &st);
    double t = now_s();
    m->comm = comm;
    m->source = st.MPI_SOURCE;
    m->tag = st.MPI_TAG;
    m->n = (size_t)n;
    m->t_det = t - t_entry <= POLL_GAP ? t : t_entry;
    m->t_seen = t_entry;
    *S.stash_tail = m;
    S.stash_tail = &m->next;
  }
}

/* A stashed message's envelope is visible at t_send + dL (+ the transfer
 * seen): what Probe/Iprobe report. */
static double msg_visible(const ij_msg_t *m)
{
  if (m->n < (size_t)HDR) return 0;
  const ij_hdr_t *h = (const ij_hdr_t *)m->data;
  double ts = (double)h->t_ns * 1e-9;
  double dl = llamp_inject_config_delay(&S.cfg, h->src, S.rank);
  double X = m->t_det > (m->t_seen > ts ? m->t_seen : ts) ? m->t_det - (m->t_seen > ts ? m->t_seen : ts) : 0;
  double v = ts + dl + X;
  return v > m->t_det ? v : m->t_det;
}

static int iprobe_once(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status,
                       double t_entry)
{
  pull(source, tag, comm, t_entry);
  double t = now_s();
  *flag = 0;
  int blocked[64], nb = 0; /* sources whose first message is not visible yet */
  for (ij_msg_t *m = S.stash; m; m = m->next) {
    if (!match(m, comm, source, tag)) continue;
    int skip = 0;
    for (int i = 0; i < nb; i++) skip |= blocked[i] == m->source;
    if (skip) continue;
    if (msg_visible(m) <= t) {
      *flag = 1;
      if (status != MPI_STATUS_IGNORE) {
        memset(status, 0, sizeof *status);
        status->MPI_SOURCE = m->source;
        status->MPI_TAG = m->tag;
        status->MPI_ERROR = MPI_SUCCESS;
        PMPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)(m->n - (size_t)HDR));
      }
      return MPI_SUCCESS;
    }
    if (nb < 64) blocked[nb++] = m->source;
  }
  return MPI_SUCCESS;
}

/* ---- the entry points --------------------------------------------------------- */

static const char *env(const char *k) { return getenv(k); }

int llamp_inject_init(int *argc, char ***argv, int required, int *provided)
{
  int ret = required < 0 ? PMPI_Init(argc, argv) : PMPI_Init_thread(argc, argv, required, provided);
  if (ret != MPI_SUCCESS) return ret;
  PMPI_Comm_rank(MPI_COMM_WORLD, &S.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &S.size);
  char err[512] = "";
  if (!llamp_inject_config_load(&S.cfg, S.size, env, err, sizeof err) &&
      llamp_coll_parse_selection(S.cfg.coll_spec, &S.sel, err + 19, sizeof err - 19))
    memcpy(err, "LLAMP_INJECT_COLL: ", 19);
  if (err[0]) {
    /* every rank reads the same settings: each stops alone (no MPI_Abort,
     * whose kill could swallow the message), rank 0 says why */
    if (S.rank == 0) fprintf(stderr, "llamp-inject: %s\n", err);
    PMPI_Finalize();
    exit(1);
  }
  if (required >= MPI_THREAD_MULTIPLE && provided && *provided == MPI_THREAD_MULTIPLE && S.rank == 0)
    fprintf(stderr, "llamp-inject: MPI_THREAD_MULTIPLE: the injector assumes one thread calls MPI "
                    "at a time\n");
  PMPI_Comm_dup(MPI_COMM_WORLD, &S.world);
  int *ub, f = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &f);
  S.tag_ub = f && *ub > 0 ? *ub : 32767;
  S.stash_tail = &S.stash;
  S.cdata = MPI_REQUEST_NULL;
  S.sleep_margin = 50e-6;
  const char *spin = getenv("LLAMP_INJECT_SPIN");
  if (spin && *spin) S.sleep_margin = strcmp(spin, "always") ? atof(spin) * 1e-6 : 0;
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* nanosleep wakes up on time */
  S.on = 1;
  if (getenv("LLAMP_INJECT_REPORT")) { /* the noise probe: a fixed busy loop */
    volatile double x = 1.0;
    double t = now_s();
    for (long i = 0; i < 500000; i++) x = x * 1.0000001 + 1e-9;
    S.probe = now_s() - t;
  }
  S.t_span0 = now_s();
  return ret;
}

int llamp_inject_finalize(void)
{
  if (S.on) {
    double span = now_s() - S.t_span0;
    while (S.detached) progress_detached();
    const char *rep = getenv("LLAMP_INJECT_REPORT");
    if (rep && *rep) {
      double v[4] = {span, span - S.t_wait, S.probe, (double)S.delayed}, mx[4], mn[4];
      PMPI_Reduce(v, mx, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      PMPI_Reduce(v, mn, 4, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
      double tot = 0;
      PMPI_Reduce(&v[3], &tot, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (S.rank == 0) {
        FILE *f = fopen(rep, "w");
        if (!f) fprintf(stderr, "llamp-inject: LLAMP_INJECT_REPORT: cannot write '%s'\n", rep);
        else {
          fprintf(f, "span_max %.9g\nspan_min %.9g\ncompute_max %.9g\ncompute_min %.9g\n"
                     "probe_max %.9g\nprobe_min %.9g\ndelayed %.0f\nranks %d\n",
                  mx[0], mn[0], mx[1], mn[1], mx[2], mn[2], tot, S.size);
          fclose(f);
        }
      }
    }
    S.on = 0;
    if (S.cfg.verbose) {
      fprintf(stderr,
              "llamp-inject: rank %d: %llu messages delayed, %llu collectives as %llu tokens; "
              "release after visible: mean %.3f us, max %.3f us; collective data done %.3f us "
              "after entry, %.3f us after the tokens (means)\n",
              S.rank, (unsigned long long)S.delayed, (unsigned long long)S.colls,
              (unsigned long long)S.tokens,
              S.waited_msgs ? S.late_sum / (double)S.waited_msgs * 1e6 : 0.0, S.late_max * 1e6,
              S.colls ? S.cdata_sum / (double)S.colls * 1e6 : 0.0,
              S.colls ? S.cdata_after / (double)S.colls * 1e6 : 0.0);
      for (unsigned i = 0; i < llamp_inject_num_names; i++)
        if (llamp_inject_counts[i])
          fprintf(stderr, "llamp-inject: rank %d: not injected: %s x %llu\n", S.rank,
                  llamp_inject_names[i], (unsigned long long)llamp_inject_counts[i]);
    }
    for (int i = 0; i < S.nshadows; i++) PMPI_Comm_free(&S.shadows[i].shadow);
    S.nshadows = 0;
    PMPI_Comm_free(&S.world);
    llamp_inject_config_free(&S.cfg);
  }
  return PMPI_Finalize();
}

int llamp_inject_isend(int mode, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request)
{
  return isend_nominal(mode, buf, count, type, dest, tag, comm, request, -1);
}

int llamp_inject_send(int mode, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm)
{
  MPI_Request r;
  int ret = isend_nominal(mode, buf, count, type, dest, tag, comm, &r, -1);
  if (ret != MPI_SUCCESS) return ret;
  if (mode == LLAMP_INJECT_BUFFERED) { /* returns at once: finished later */
    ij_req_t *q = tab_get(r);
    if (q) detach(q);
    else if (r != MPI_REQUEST_NULL) PMPI_Wait(&r, MPI_STATUS_IGNORE);
    return MPI_SUCCESS;
  }
  return complete(1, &r, MPI_STATUS_IGNORE, DONE_ALL, 1, NULL, NULL, NULL);
}

int llamp_inject_irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
  return irecv_any(buf, count, type, source, tag, comm, request);
}

int llamp_inject_recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                      MPI_Status *status)
{
  MPI_Request r;
  int ret = irecv_any(buf, count, type, source, tag, comm, &r);
  if (ret != MPI_SUCCESS) return ret;
  return complete(1, &r, status, DONE_ALL, 1, NULL, NULL, NULL);
}

int llamp_inject_send_init(int mode, const void *buf, int count, MPI_Datatype type, int dest,
                           int tag, MPI_Comm comm, MPI_Request *request)
{
  if (!S.on || dest == MPI_PROC_NULL) {
    if (mode == LLAMP_INJECT_SYNC) return PMPI_Ssend_init(buf, count, type, dest, tag, comm, request);
    if (mode == LLAMP_INJECT_READY) return PMPI_Rsend_init(buf, count, type, dest, tag, comm, request);
    if (mode == LLAMP_INJECT_BUFFERED) return PMPI_Bsend_init(buf, count, type, dest, tag, comm, request);
    return PMPI_Send_init(buf, count, type, dest, tag, comm, request);
  }
  /* the buffered mode's copy is our bounce buffer, filled at each start */
  ij_req_t *r = make_send(mode == LLAMP_INJECT_BUFFERED ? LLAMP_INJECT_STD : mode, buf, count, type,
                          dest, tag, comm, -1);
  if (mode == LLAMP_INJECT_BUFFERED && !r->bounce) {
    r->bounce_n = (size_t)HDR + r->ubytes;
    r->bounce = malloc(r->bounce_n);
  }
  r->persistent = 1;
  r->active = 0;
  int ret = post_send(r, 1);
  if (ret != MPI_SUCCESS) {
    req_free(r);
    return ret;
  }
  r->user = r->inner;
  tab_put(r);
  *request = r->user;
  return MPI_SUCCESS;
}

int llamp_inject_recv_init(void *buf, int count, MPI_Datatype type, int source, int tag,
                           MPI_Comm comm, MPI_Request *request)
{
  if (!S.on || source == MPI_PROC_NULL)
    return PMPI_Recv_init(buf, count, type, source, tag, comm, request);
  ij_req_t *r = make_recv(buf, count, type, source, tag, comm);
  r->persistent = 1;
  r->active = 0;
  int ret = post_recv(r, 1);
  if (ret != MPI_SUCCESS) {
    req_free(r);
    return ret;
  }
  r->user = r->inner;
  tab_put(r);
  *request = r->user;
  return MPI_SUCCESS;
}

int llamp_inject_start(MPI_Request *request)
{
  ij_req_t *r = tab_get(*request);
  if (!r) return PMPI_Start(request);
  if (r->kind == IJ_SEND) {
    send_stamp(r);
    r->detected = 0;
    r->active = 1;
    return PMPI_Start(&r->inner);
  }
  return start_recv(r, 1);
}

int llamp_inject_startall(int count, MPI_Request *requests)
{
  for (int i = 0; i < count; i++) {
    int ret = llamp_inject_start(&requests[i]);
    if (ret != MPI_SUCCESS) return ret;
  }
  return MPI_SUCCESS;
}

int llamp_inject_sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                          void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                          MPI_Comm comm, MPI_Status *status)
{
  MPI_Request r[2];
  MPI_Status st[2];
  int ret = irecv_any(rbuf, rcount, rtype, source, rtag, comm, &r[0]);
  if (ret == MPI_SUCCESS) ret = isend_nominal(LLAMP_INJECT_STD, sbuf, scount, stype, dest, stag, comm, &r[1], -1);
  if (ret != MPI_SUCCESS) return ret;
  ret = complete(2, r, st, DONE_ALL, 1, NULL, NULL, NULL);
  if (status != MPI_STATUS_IGNORE) *status = st[0];
  return ret;
}

int llamp_inject_sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag,
                                  int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
  int n = 0;
  PMPI_Pack_size(count, type, comm, &n);
  char *tmp = malloc(n > 0 ? (size_t)n : 1);
  if (!tmp) die("%s", "out of memory (Sendrecv_replace)");
  int pos = 0;
  PMPI_Pack(buf, count, type, tmp, n, &pos, comm);
  MPI_Request r[2];
  MPI_Status st[2];
  int ret = irecv_any(buf, count, type, source, rtag, comm, &r[0]);
  if (ret == MPI_SUCCESS) ret = isend_nominal(LLAMP_INJECT_STD, tmp, pos, MPI_PACKED, dest, stag, comm, &r[1], -1);
  if (ret == MPI_SUCCESS) ret = complete(2, r, st, DONE_ALL, 1, NULL, NULL, NULL);
  free(tmp);
  if (status != MPI_STATUS_IGNORE) *status = st[0];
  return ret;
}

int llamp_inject_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
  if (!S.on || source == MPI_PROC_NULL) return PMPI_Iprobe(source, tag, comm, flag, status);
  return iprobe_once(source, tag, comm, flag, status, now_s());
}

int llamp_inject_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
  if (!S.on || source == MPI_PROC_NULL) return PMPI_Probe(source, tag, comm, status);
  int f = 0;
  double t = now_s(), t0 = t;
  for (;;) {
    iprobe_once(source, tag, comm, &f, status, t);
    if (f) {
      S.t_wait += now_s() - t0;
      return MPI_SUCCESS;
    }
    t = now_s();
    if (S.detached) progress_detached();
      }
}

int llamp_inject_wait(MPI_Request *request, MPI_Status *status)
{
  return complete(1, request, status, DONE_ALL, 1, NULL, NULL, NULL);
}
int llamp_inject_waitall(int count, MPI_Request *requests, MPI_Status *statuses)
{
  return complete(count, requests, statuses, DONE_ALL, 1, NULL, NULL, NULL);
}
int llamp_inject_waitany(int count, MPI_Request *requests, int *index, MPI_Status *status)
{
  return complete(count, requests, status, DONE_ANY, 1, index, NULL, NULL);
}
int llamp_inject_waitsome(int count, MPI_Request *requests, int *outcount, int *indices,
                          MPI_Status *statuses)
{
  return complete(count, requests, statuses, DONE_SOME, 1, outcount, NULL, indices);
}
int llamp_inject_test(MPI_Request *request, int *flag, MPI_Status *status)
{
  *flag = 0;
  return complete(1, request, status, DONE_ALL, 0, NULL, flag, NULL);
}
int llamp_inject_testall(int count, MPI_Request *requests, int *flag, MPI_Status *statuses)
{
  *flag = 0;
  return complete(count, requests, statuses, DONE_ALL, 0, NULL, flag, NULL);
}
int llamp_inject_testany(int count, MPI_Request *requests, int *index, int *flag,
                         MPI_Status *status)
{
  *flag = 0;
  return complete(count, requests, status, DONE_ANY, 0, index, flag, NULL);
}
int llamp_inject_testsome(int count, MPI_Request *requests, int *outcount, int *indices,
                          MPI_Status *statuses)
{
  return complete(count, requests, statuses, DONE_SOME, 0, outcount, NULL, indices);
}

int llamp_inject_request_free(MPI_Request *request)
{
  ij_req_t *r = tab_get(*request);
  if (!r) return PMPI_Request_free(request);
  if (r->persistent && !r->active) { /* an inactive persistent request */
    tab_del(r);
    PMPI_Request_free(&r->inner);
    req_free(r);
  } else {
    r->persistent = 0; /* completes in the background, then goes */
    detach(r);
  }
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

/* ---- collectives: the DAG's algorithm as header-only tokens ------------------------- */

typedef struct {
  MPI_Comm sh;
  int base;
  MPI_Request *reqs;
  int n, cap;
  char tok[1];
} tok_ctx_t;

static int tok_post(tok_ctx_t *c, int peer, uint64_t bytes, int tag, int send)
{
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    MPI_Request *n = realloc(c->reqs, sizeof *n * (size_t)c->cap);
    if (!n) return -1;
    c->reqs = n;
  }
  int t = c->base + tag;
  S.tokens += send;
  if (send)
    return isend_nominal(LLAMP_INJECT_STD, c->tok, 0, MPI_BYTE, peer, t, c->sh, &c->reqs[c->n++],
                         (int64_t)bytes) != MPI_SUCCESS;
  return irecv_any(c->tok, 0, MPI_BYTE, peer, t, c->sh, &c->reqs[c->n++]) != MPI_SUCCESS;
}
static int tok_send(void *ctx, int peer, uint64_t bytes, int tag) { return tok_post(ctx, peer, bytes, tag, 1); }
static int tok_recv(void *ctx, int peer, uint64_t bytes, int tag) { return tok_post(ctx, peer, bytes, tag, 0); }
static int tok_round(void *ctx)
{
  tok_ctx_t *c = ctx;
  int ret = complete(c->n, c->reqs, MPI_STATUSES_IGNORE, DONE_ALL, 1, NULL, NULL, NULL);
  c->n = 0;
  return ret != MPI_SUCCESS;
}

static int shadow_of(MPI_Comm comm, MPI_Comm *sh)
{
  for (int i = 0; i < S.nshadows; i++)
    if (S.shadows[i].comm == comm) {
      *sh = S.shadows[i].shadow;
      return (int)(S.shadows[i].counter++ % (unsigned)(S.tag_ub / 8));
    }
  if (S.nshadows == S.capshadows) {
    S.capshadows = S.capshadows ? 2 * S.capshadows : 8;
    void *n = realloc(S.shadows, sizeof *S.shadows * (size_t)S.capshadows);
    if (!n) die("%s", "out of memory (communicators)");
    S.shadows = n;
  }
  /* inside a collective call of comm: every member dups in the same order */
  MPI_Comm d;
  PMPI_Comm_dup(comm, &d);
  S.shadows[S.nshadows].comm = comm;
  S.shadows[S.nshadows].shadow = d;
  S.shadows[S.nshadows].counter = 1;
  S.nshadows++;
  *sh = d;
  return 0;
}

void llamp_inject_comm_free(MPI_Comm comm)
{
  for (int i = 0; i < S.nshadows; i++)
    if (S.shadows[i].comm == comm) {
      PMPI_Comm_free(&S.shadows[i].shadow);
      S.shadows[i] = S.shadows[--S.nshadows];
      return;
    }
}


void llamp_inject_coll_end(void)
{
  S.in_coll = 0;
  if (C.t0 > 0) S.t_wait += now_s() - C.t0;
  C.t0 = 0;
}

int llamp_inject_coll_begin(int kind, MPI_Comm comm, int root, int count, MPI_Datatype type,
                            const int *counts, const int *rcounts)
{
  if (!S.on) return 0;
  C.t0 = now_s();
  S.in_coll = 1;
  if (!S.cfg.coll || comm == MPI_COMM_NULL) return 0;
  int inter = 0, size, rank, tsz = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return 0;
  PMPI_Comm_size(comm, &size);
  if (size < 2) return 0;
  PMPI_Comm_rank(comm, &rank);
  if (type != MPI_DATATYPE_NULL) PMPI_Type_size(type, &tsz);
  llamp_coll_args_t a = {0};
  a.size = size;
  a.rank = rank;
  a.root = root >= 0 && root < size ? root : 0;
  a.bytes = (uint64_t)(count > 0 ? count : 0) * (uint64_t)tsz;
  a.elem = (uint64_t)tsz;
  C.cv = C.rv = NULL;
  if ((kind == LLAMP_COLL_GATHERV || kind == LLAMP_COLL_SCATTERV) && rank != a.root) counts = NULL;
  /* v-variants: the per-rank sizes this rank knows (the root's arrays
   * only at the root; elsewhere its own block for every rank: the sizes
   * only decide eager or rendezvous of this rank's own tokens) */
  if (counts || kind == LLAMP_COLL_GATHERV || kind == LLAMP_COLL_SCATTERV ||
      kind == LLAMP_COLL_ALLGATHERV || kind == LLAMP_COLL_ALLTOALLV ||
      kind == LLAMP_COLL_REDUCE_SCATTER) {
    C.cv = malloc(sizeof *C.cv * (size_t)size);
    C.rv = malloc(sizeof *C.rv * (size_t)size);
    if (!C.cv || !C.rv) die("%s", "out of memory (collective)");
    for (int i = 0; i < size; i++) {
      C.cv[i] = counts ? (uint64_t)(counts[i] > 0 ? counts[i] : 0) * (uint64_t)tsz : a.bytes;
      C.rv[i] = rcounts ? (uint64_t)(rcounts[i] > 0 ? rcounts[i] : 0) * (uint64_t)tsz : C.cv[i];
    }
    a.counts = C.cv;
    a.rcounts = C.rv;
  }
  C.a = a;
  C.kind = kind;
  /* the shadow's dup (a collective on comm) before MPICH's nonblocking
   * collective starts on comm */
  C.base = shadow_of(comm, &C.sh) * 4;
  S.cdata = MPI_REQUEST_NULL;
  S.cdata_rc = MPI_SUCCESS;
  return 1;
}

MPI_Request *llamp_inject_coll_data(void) { return &S.cdata; }

int llamp_inject_coll_run(int rc)
{
  if (rc == MPI_SUCCESS) {
    tok_ctx_t c = {0};
    c.sh = C.sh;
    c.base = C.base;
    llamp_coll_emit_t e = {&c, tok_send, tok_recv, NULL, tok_round, NULL};
    char err[256];
    S.colls++;
    /* complete() keeps MPICH's collective progressing while the tokens
     * wait (it moves the data while the DAG's latencies elapse) */
    if (llamp_coll_run_selected(&S.sel, (llamp_coll_kind_t)C.kind, &C.a, &e, err, sizeof err))
      die("collective tokens: %s", err);
    free(c.reqs);
    rc = S.cdata_rc;
    if (S.cdata != MPI_REQUEST_NULL) {
      double t = now_s();
      int r = PMPI_Wait(&S.cdata, MPI_STATUS_IGNORE);
      if (rc == MPI_SUCCESS) rc = r;
      S.cdata_after += now_s() - t;
      S.cdata_sum += now_s() - C.t0;
    }
  }
  free(C.cv);
  free(C.rv);
  C.cv = C.rv = NULL;
  llamp_inject_coll_end();
  return rc;
}

void llamp_inject_not_injected(unsigned index) { llamp_inject_counts[index]++; }

void llamp_inject_unsupported(const char *name)
{
  if (!S.on) return;
  die("%s is not supported by the injector (its messages would carry the injector's header "
      "unseen); run without llamp-inject",
      name);
}
