/* goal_read.c - GOAL text -> llamp_graph_t.
 *
 * A hand-written single-pass parser over the whole input (mmap'ed for files).
 * Tokens are never copied: numbers are converted in place and labels are
 * remembered as offsets into the input, in a per-rank open-addressing hash
 * table that is emptied and reused for every rank.  Operations go straight
 * into the graph builder, which matches messages and checks the result in
 * llamp_builder_finish().  Parsed pages of a mapped file are given back to
 * the kernel as the parser moves on, so the input costs only a window of
 * RSS.  See docs/goal.md for the grammar and the error messages. */
#define _GNU_SOURCE /* madvise, MADV_* */
#include "llamp_goal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- options ------------------------------------------------------------ */

static const char *const unit_names[] = {"ps", "ns", "us", "ms", "s"};
static const double unit_per_second[] = {1e12, 1e9, 1e6, 1e3, 1.0};

void llamp_goal_options_default(llamp_goal_options_t *opt) {
  opt->time_unit = LLAMP_GOAL_NS;
  opt->source = NULL;
}

int llamp_goal_time_unit_parse(const char *name, llamp_goal_time_unit_t *out) {
  for (int i = 0; name && i <= LLAMP_GOAL_S; i++)
    if (strcmp(name, unit_names[i]) == 0) {
      *out = (llamp_goal_time_unit_t)i;
      return 0;
    }
  return -1;
}

const char *llamp_goal_time_unit_name(llamp_goal_time_unit_t unit) {
  return (unsigned)unit <= LLAMP_GOAL_S ? unit_names[unit] : "?";
}

double llamp_goal_time_unit_scale(llamp_goal_time_unit_t unit) {
  return (unsigned)unit <= LLAMP_GOAL_S ? unit_per_second[unit] : 1e9;
}

/* ---- character classes ---------------------------------------------------- */

enum { CC_ALPHA = 1, CC_DIGIT = 2, CC_UNDER = 4, CC_BLANK = 8 };
#define CC_IDENT (CC_ALPHA | CC_DIGIT | CC_UNDER)

static unsigned char cclass[256];

/* Fill the character class table once (idempotent, so a benign race). */
static void init_cclass(void) {
  if (cclass['a']) return;
  for (int c = 0; c < 256; c++) {
    unsigned char k = 0;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) k |= CC_ALPHA;
    if (c >= '0' && c <= '9') k |= CC_DIGIT;
    if (c == '_') k |= CC_UNDER;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') k |= CC_BLANK;
    cclass[c] = k;
  }
}

#define IS(c, k) (cclass[(unsigned char)(c)] & (k))

/* ---- per-rank label table ------------------------------------------------ */

/* Open addressing with linear probing, at most 3/4 full.  A slot holds
 * (offset of the label in the rank's text + 1) << 28 | 28 hash bits (0 =
 * empty), 32 more hash bits and the operation's index in the rank: 16 bytes,
 * and the text itself is never copied.  With 60 hash bits the label text is
 * compared (read again from the input) practically only on a true match, and
 * growing rehashes from the stored bits, so old input pages stay untouched. */
#define LBL_HBITS 28
#define LBL_HMASK ((1u << LBL_HBITS) - 1)
#define LBL_MAX_OFF ((1ull << (64 - LBL_HBITS)) - 2) /* 64 GiB of text per rank */
#define LBL_MIN_CAP 1024

typedef struct {
  uint64_t key;   /* (offset + 1) << LBL_HBITS | low hash bits; 0 = empty */
  uint32_t hi;    /* 32 more hash bits */
  uint32_t local; /* operation index within the rank */
} label_slot_t;

/* Most dependencies name recently defined labels: a small direct-mapped
 * cache of the last definitions answers them without touching the (possibly
 * huge) table.  Entries from earlier ranks are recognised by s < base. */
#define LBL_RECENT 1024
typedef struct {
  uint64_t h;
  const char *s;
  uint32_t len, local;
} label_recent_t;

typedef struct {
  label_slot_t *slot;
  size_t cap, count; /* cap: power of two, 0 before the first use */
  const char *base;  /* start of the current rank's text */
  const char *end;   /* end of the input */
  label_recent_t recent[LBL_RECENT];
} label_table_t;

/* 64-bit hash of a label: FNV-1a and a final avalanche (murmur3 fmix64). */
static uint64_t hash_label(const char *s, size_t len) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

/* Length of the identifier starting at s (s is inside [.., end)). */
static size_t ident_len(const char *s, const char *end) {
  const char *p = s;
  while (p < end && IS(*p, CC_IDENT)) p++;
  return (size_t)(p - s);
}

/* Smallest power-of-two capacity holding n labels at most 3/4 full. */
static size_t labels_cap_for(size_t n) {
  size_t cap = LBL_MIN_CAP;
  while (cap / 4 * 3 < n) cap *= 2;
  return cap;
}

/* A zeroed slot array.  Big tables are probed at random, one TLB miss per
 * access with 4 KiB pages, so they ask for transparent huge pages. */
static label_slot_t *labels_alloc(size_t cap) {
  label_slot_t *p = calloc(cap, sizeof *p);
  size_t bytes = cap * sizeof *p, page = (size_t)sysconf(_SC_PAGESIZE);
#ifdef MADV_HUGEPAGE
  if (p && bytes >= ((size_t)4 << 20)) {
    uintptr_t a = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    madvise((void *)a, ((uintptr_t)p + bytes - a) & ~(uintptr_t)(page - 1), MADV_HUGEPAGE);
  }
#else
  (void)bytes;
  (void)page;
#endif
  return p;
}

/* Empty the table for a rank whose text starts at `base`.  The clearing cost
 * stays proportional to the previous rank's labels: a table much larger than
 * that rank needed is replaced by a smaller one.  -1 on ENOMEM. */
static int labels_reset(label_table_t *t, const char *base) {
  t->base = base;
  if (t->count == 0) return 0;
  size_t need = labels_cap_for(t->count);
  t->count = 0;
  if (t->cap > 4 * need) {
    free(t->slot);
    t->slot = labels_alloc(need);
    t->cap = t->slot ? need : 0;
    return t->slot ? 0 : -1;
  }
  memset(t->slot, 0, t->cap * sizeof *t->slot);
  return 0;
}

static const char *labels_text(const label_table_t *t, size_t i) {
  return t->base + (t->slot[i].key >> LBL_HBITS) - 1;
}

/* Index of the slot holding label s[0..len) (hash h), or of the empty slot
 * where it would go.  The table must exist (cap > 0). */
static size_t labels_find(const label_table_t *t, const char *s, size_t len, uint64_t h) {
  size_t mask = t->cap - 1;
  uint32_t lo = (uint32_t)h & LBL_HMASK, hi = (uint32_t)(h >> 32);
  for (size_t i = lo & mask;; i = (i + 1) & mask) {
    const label_slot_t *e = &t->slot[i];
    if (e->key == 0) return i;
    if ((e->key & LBL_HMASK) != lo || e->hi != hi) continue;
    const char *q = labels_text(t, i);
    if ((size_t)(t->end - q) >= len && memcmp(q, s, len) == 0 &&
        (q + len == t->end || !IS(q[len], CC_IDENT)))
      return i;
  }
}

/* Double the table (or create it), rehashing from the stored hash bits. */
static int labels_grow(label_table_t *t) {
  size_t ocap = t->cap, ncap = ocap ? 2 * ocap : LBL_MIN_CAP;
  label_slot_t *old = t->slot, *nslot = labels_alloc(ncap);
  if (!nslot) return -1;
  for (size_t i = 0; i < ocap; i++) {
    if (!old[i].key) continue;
    size_t j = (old[i].key & LBL_HMASK) & (ncap - 1);
    while (nslot[j].key) j = (j + 1) & (ncap - 1);
    nslot[j] = old[i];
  }
  free(old);
  t->slot = nslot;
  t->cap = ncap;
  return 0;
}

/* Find a label of the current rank: 1 with its operation index (and where
 * it is defined, if `text` is given), 0 if it is not defined (yet). */
static int labels_lookup(const label_table_t *t, const char *s, size_t len, uint32_t *local,
                         const char **text) {
  uint64_t h = hash_label(s, len);
  const label_recent_t *r = &t->recent[h & (LBL_RECENT - 1)];
  if ((uintptr_t)r->s >= (uintptr_t)t->base && r->h == h && r->len == len && memcmp(r->s, s, len) == 0) {
    *local = r->local;
    if (text) *text = r->s;
    return 1;
  }
  if (!t->cap) return 0;
  size_t i = labels_find(t, s, len, h);
  if (!t->slot[i].key) return 0;
  *local = t->slot[i].local;
  if (text) *text = labels_text(t, i);
  return 1;
}

/* ---- parser state ---------------------------------------------------------- */

typedef struct {
  const char *buf, *p, *end;
  uint64_t line;
  const char *source;
  char *err;
  size_t errlen;

  llamp_builder_t *b;
  uint32_t num_ranks;
  int have_num_ranks;
  uint64_t *rank_seen; /* bitset */
  double calc_div;     /* calc value / calc_div = seconds */

  /* current rank */
  uint32_t rank;
  uint64_t rank_line; /* line of its `rank R {` */
  int64_t rank_base;  /* builder id of its first operation */
  uint32_t rank_ops;
  label_table_t labels;

  /* first dependency on a label not defined (yet): reported at the rank's end
   * or before any later error, as "unknown" or "used before its definition" */
  const char *pend_s;
  size_t pend_len;
  uint64_t pend_line;

  /* mmap'ed input: pages before `released` were dropped from the RSS */
  int mapped;
  const char *released;
} goal_parser_t;

#define MAX_SIZE_VALUE (1ull << 53) /* exactly representable as a double */
#define MAX_RANKS (1u << 30)         /* the builder's limit */

/* Line number (1-based) of position s, by counting newlines: error path only. */
static uint64_t line_of(const goal_parser_t *P, const char *s) {
  uint64_t line = 1;
  const char *q = P->buf;
  while (q < s && (q = memchr(q, '\n', (size_t)(s - q))) != NULL) {
    line++;
    q++;
  }
  return line;
}

/* Write "FILE:LINE: message" into the error buffer; returns -1. */
static int vfail_line(goal_parser_t *P, uint64_t line, const char *fmt, va_list ap) {
  if (!P->err || P->errlen == 0) return -1;
  int n = snprintf(P->err, P->errlen, "%s:%llu: ", P->source, (unsigned long long)line);
  if (n >= 0 && (size_t)n < P->errlen) vsnprintf(P->err + n, P->errlen - (size_t)n, fmt, ap);
  return -1;
}

static int fail_line(goal_parser_t *P, uint64_t line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail_line(P, line, fmt, ap);
  va_end(ap);
  return -1;
}

/* Report the pending undefined-label error, resolved against the labels
 * defined so far in the rank. */
static int fail_pending(goal_parser_t *P) {
  uint32_t local;
  const char *def;
  int len = P->pend_len > 64 ? 64 : (int)P->pend_len;
  const char *s = P->pend_s;
  P->pend_s = NULL;
  if (labels_lookup(&P->labels, s, P->pend_len, &local, &def))
    return fail_line(P, P->pend_line, "label `%.*s` used before its definition (line %llu)", len,
                     s, (unsigned long long)line_of(P, def));
  return fail_line(P, P->pend_line, "unknown label `%.*s` in rank %u", len, s, P->rank);
}

/* Report an error at `line`, unless an earlier one is pending (that one is
 * reported instead, so the first error in the file wins). */
static int fail_at(goal_parser_t *P, uint64_t line, const char *fmt, ...) {
  if (P->pend_s) return fail_pending(P);
  va_list ap;
  va_start(ap, fmt);
  vfail_line(P, line, fmt, ap);
  va_end(ap);
  return -1;
}

/* The same at the current line. */
static int fail(goal_parser_t *P, const char *fmt, ...) {
  if (P->pend_s) return fail_pending(P);
  va_list ap;
  va_start(ap, fmt);
  vfail_line(P, P->line, fmt, ap);
  va_end(ap);
  return -1;
}

/* Copy the builder's message: it already starts with "SOURCE:LINE:". */
static int fail_builder(goal_parser_t *P) {
  if (P->err && P->errlen) snprintf(P->err, P->errlen, "%s", llamp_builder_error(P->b));
  return -1;
}

/* A short description of what stands at the cursor, for "found X" messages. */
static const char *found(const goal_parser_t *P, char *buf, size_t len) {
  const char *p = P->p;
  if (p >= P->end) return "end of file";
  if (*p == '\n') return "end of line";
  size_t n = IS(*p, CC_IDENT) ? ident_len(p, P->end) : 1;
  if (n > 32) n = 32;
  if (IS(*p, CC_IDENT) || (*p > ' ' && *p < 127))
    snprintf(buf, len, "`%.*s`", (int)n, p);
  else
    snprintf(buf, len, "byte 0x%02x", (unsigned char)*p);
  return buf;
}

/* ---- lexing ------------------------------------------------------------------ */

/* Skip blanks and comments, stopping at a newline (not consumed) or at a
 * token.  Newlines inside block comments are counted.  -1 on an unterminated
 * block comment.  skip_blank() handles the common single-space case inline. */
static int skip_blank_slow(goal_parser_t *P) {
  const char *p = P->p, *end = P->end;
  for (;;) {
    while (p < end && IS(*p, CC_BLANK)) p++;
    if (p + 1 < end && p[0] == '/' && p[1] == '/') {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      p = nl ? nl : end;
      break;
    }
    if (p + 1 < end && p[0] == '/' && p[1] == '*') {
      uint64_t open_line = P->line;
      p += 2;
      for (;;) {
        if (p + 1 >= end) {
          P->p = end;
          return fail_at(P, open_line, "unterminated /* comment");
        }
        if (p[0] == '*' && p[1] == '/') break;
        if (*p == '\n') P->line++;
        p++;
      }
      p += 2;
      continue;
    }
    break;
  }
  P->p = p;
  return 0;
}

static inline int skip_blank(goal_parser_t *P) {
  const char *p = P->p;
  while (p < P->end && *p == ' ') p++;
  P->p = p;
  if (p < P->end && (IS(*p, CC_BLANK) || *p == '/')) return skip_blank_slow(P);
  return 0;
}

/* Skip blanks, comments and newlines. */
static int skip_space(goal_parser_t *P) {
  for (;;) {
    if (skip_blank(P)) return -1;
    if (P->p < P->end && *P->p == '\n') {
      P->line++;
      P->p++;
      continue;
    }
    return 0;
  }
}

/* Lex an identifier at the cursor: returns its length (0 if none). */
static size_t lex_ident(goal_parser_t *P, const char **s) {
  const char *p = P->p;
  if (p >= P->end || !IS(*p, CC_ALPHA)) return 0;
  *s = p;
  p++;
  while (p < P->end && IS(*p, CC_IDENT)) p++;
  P->p = p;
  return (size_t)(p - *s);
}

#define KW(s, len, lit) ((len) == sizeof(lit) - 1 && memcmp((s), lit, sizeof(lit) - 1) == 0)

static int at_word_end(const goal_parser_t *P) {
  return P->p >= P->end || !IS(*P->p, CC_IDENT);
}

/* Parse an integer for `what` after optional blanks.  Accepts -1 only if
 * minus_one is set (then *out = -1); other negatives, values above max and
 * malformed numbers are errors.  If `word` is set the number must end at a
 * word boundary (i.e. not run into letters). */
static int lex_int(goal_parser_t *P, const char *what, int minus_one, uint64_t max, int word,
                   int64_t *out) {
  char fb[48];
  if (skip_blank(P)) return -1;
  const char *p = P->p, *end = P->end;
  int neg = 0;
  if (p < end && *p == '-') {
    neg = 1;
    p++;
  }
  if (p >= end || !IS(*p, CC_DIGIT)) {
    if (neg) P->p = p;
    return fail(P, "expected an integer for the %s, found %s", what, found(P, fb, sizeof fb));
  }
  uint64_t v = 0;
  int overflow = 0;
  for (; p < end && IS(*p, CC_DIGIT); p++) {
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) overflow = 1;
    v = v * 10 + d;
  }
  const char *start = P->p;
  P->p = p;
  if (word && !at_word_end(P))
    return fail(P, "malformed integer for the %s: `%.*s`", what,
                (int)((p - start) + (ident_len(p, end) > 16 ? 16 : ident_len(p, end))), start);
  if (neg) {
    if (minus_one && v == 1 && !overflow) {
      *out = -1;
      return 0;
    }
    return fail(P, "negative %s `%.*s` (%s)", what, (int)(p - start > 24 ? 24 : p - start), start,
                minus_one ? "only -1 = any is allowed" : "must be >= 0");
  }
  if (overflow || v > max)
    return fail(P, "%s `%.*s` too large (at most %llu)", what,
                (int)(p - start > 24 ? 24 : p - start), start, (unsigned long long)max);
  *out = (int64_t)v;
  return 0;
}

/* Expect a keyword `kw` (after blanks). */
static int expect_kw(goal_parser_t *P, const char *kw, const char *after) {
  char fb[48];
  if (skip_blank(P)) return -1;
  const char *s;
  const char *save = P->p;
  size_t n = lex_ident(P, &s);
  if (n == strlen(kw) && memcmp(s, kw, n) == 0) return 0;
  P->p = save;
  return fail(P, "expected `%s` %s, found %s", kw, after, found(P, fb, sizeof fb));
}

/* After a statement only blanks, a comment, a newline, `}` or EOF may follow. */
static int expect_eol(goal_parser_t *P, const char *what) {
  char fb[48];
  if (skip_blank(P)) return -1;
  if (P->p >= P->end || *P->p == '\n' || *P->p == '}') return 0;
  return fail(P, "expected end of line after %s, found %s", what, found(P, fb, sizeof fb));
}

/* ---- statements ------------------------------------------------------------- */

/* Drop already parsed pages of an mmap'ed file from the RSS (they stay in the
 * page cache and fault back in if an old label is compared again). */
static void release_input(goal_parser_t *P) {
  const size_t chunk = (size_t)16 << 20;
  if (!P->mapped || (size_t)(P->p - P->released) < 2 * chunk) return;
  const char *upto = P->p - chunk;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uintptr_t a = (uintptr_t)P->released, z = (uintptr_t)upto & ~(uintptr_t)(page - 1);
  if (z > a) {
    madvise((void *)a, z - a, MADV_DONTNEED);
    P->released = (const char *)z;
  }
}

/* One operation: `send|recv|calc ...` after its keyword (and optional label).
 * Adds it to the builder and records the label. */
static int parse_op(goal_parser_t *P, llamp_vertex_kind_t kind, const char *label,
                    size_t label_len) {
  char fb[48];
  uint64_t line = P->line;
  int64_t size = 0, peer = 0, tag = 0, ignored;
  label_table_t *t = &P->labels;
  uint64_t h = 0;
  if (label) { /* start fetching the label's slot while the line is parsed */
    h = hash_label(label, label_len);
    if (t->cap) __builtin_prefetch(&t->slot[(h & LBL_HMASK) & (t->cap - 1)], 1);
  }
  double value;
  int is_msg = kind != LLAMP_VERTEX_CALC, have_tag = 0, have_cpu = 0, have_nic = 0, vflags = 0;

  if (is_msg) {
    const char *kw = kind == LLAMP_VERTEX_SEND ? "to" : "from";
    if (lex_int(P, "size", 0, MAX_SIZE_VALUE, 0, &size)) return -1;
    if (skip_blank(P)) return -1;
    if (P->p >= P->end || *P->p != 'b')
      return fail(P, "expected `b` after the size, found %s", found(P, fb, sizeof fb));
    P->p++;
    if (!at_word_end(P)) {
      P->p--;
      return fail(P, "expected `b` after the size, found %s", found(P, fb, sizeof fb));
    }
    if (expect_kw(P, kw, "after the size")) return -1;
    const char *what = kind == LLAMP_VERTEX_SEND ? "destination rank" : "source rank";
    if (lex_int(P, what, kind == LLAMP_VERTEX_RECV, INT32_MAX, 1, &peer)) return -1;
    if (peer >= (int64_t)P->num_ranks)
      return fail(P, "%s %lld out of range (num_ranks %u)", what, (long long)peer, P->num_ranks);
    value = (double)size;
  } else {
    if (lex_int(P, "calc duration", 0, INT64_MAX, 1, &size)) return -1;
    value = (double)size / P->calc_div;
  }

  /* options: tag (messages), cpu, nic (messages), sync, isend and os (sends:
   * a synchronous send, LLAMP_VERTEX_F_SYNC; charged as an MPI_Isend,
   * LLAMP_VERTEX_F_ISEND; as a blocking send though irequired,
   * LLAMP_VERTEX_F_OS); cpu and nic are ignored */
  for (;;) {
    if (skip_blank(P)) return -1;
    if (P->p >= P->end || *P->p == '\n' || *P->p == '}') break;
    const char *w;
    size_t n = lex_ident(P, &w);
    if (is_msg && KW(w, n, "tag") && !have_tag) {
      have_tag = 1;
      if (lex_int(P, "tag", kind == LLAMP_VERTEX_RECV, INT32_MAX, 1, &tag)) return -1;
    } else if (KW(w, n, "cpu") && !have_cpu) {
      have_cpu = 1;
      if (lex_int(P, "cpu", 0, UINT32_MAX, 1, &ignored)) return -1;
    } else if (is_msg && KW(w, n, "nic") && !have_nic) {
      have_nic = 1;
      if (lex_int(P, "nic", 0, UINT32_MAX, 1, &ignored)) return -1;
    } else if (kind == LLAMP_VERTEX_SEND && KW(w, n, "sync") && !(vflags & LLAMP_VERTEX_F_SYNC)) {
      vflags |= LLAMP_VERTEX_F_SYNC;
    } else if (kind == LLAMP_VERTEX_SEND && KW(w, n, "isend") && !(vflags & LLAMP_VERTEX_F_ISEND)) {
      vflags |= LLAMP_VERTEX_F_ISEND;
    } else if (kind == LLAMP_VERTEX_SEND && KW(w, n, "os") && !(vflags & LLAMP_VERTEX_F_OS)) {
      vflags |= LLAMP_VERTEX_F_OS;
    } else {
      const char *why = "unexpected";
      if (n) {
        P->p = w;
        int known = KW(w, n, "tag") || KW(w, n, "cpu") || KW(w, n, "nic") || KW(w, n, "sync") || KW(w, n, "isend") ||
                    KW(w, n, "os");
        why = known ? "repeated or misplaced option" : "unknown keyword";
      }
      return fail(P, "%s %s: expected %s or end of line", why, found(P, fb, sizeof fb),
                  kind == LLAMP_VERTEX_SEND ? "`tag`, `cpu`, `nic`, `sync`, `isend`, `os`" : is_msg ? "`tag`, `cpu`, `nic`" : "`cpu`");
    }
  }

  if (P->rank_ops == UINT32_MAX) return fail(P, "too many operations in rank %u", P->rank);
  if (label) {
    if ((uint64_t)(label - t->base) > LBL_MAX_OFF)
      return fail_at(P, line, "rank %u: a rank block longer than 64 GiB is not supported", P->rank);
    if (t->count + 1 > t->cap / 4 * 3 && labels_grow(t))
      return fail_at(P, line, "out of memory");
    size_t slot = labels_find(t, label, label_len, h);
    label_slot_t *e = &t->slot[slot];
    if (e->key)
      return fail_at(P, line, "duplicate label `%.*s` in rank %u (first defined at line %llu)",
                     (int)(label_len > 64 ? 64 : label_len), label, P->rank,
                     (unsigned long long)line_of(P, labels_text(t, slot)));
    e->key = ((uint64_t)(label - t->base + 1) << LBL_HBITS) | (h & LBL_HMASK);
    e->hi = (uint32_t)(h >> 32);
    e->local = P->rank_ops;
    label_recent_t *r = &t->recent[h & (LBL_RECENT - 1)];
    r->h = h;
    r->s = label;
    r->len = (uint32_t)label_len;
    r->local = P->rank_ops;
    t->count++;
  }
  if (!P->pend_s) { /* after an error is certain, only keep scanning */
    int64_t id = llamp_builder_add(P->b, P->rank, kind, value, (int32_t)peer, (int32_t)tag, line);
    if (id < 0 || (vflags && llamp_builder_set_flags(P->b, id, (unsigned)vflags))) return fail_builder(P);
    if (P->rank_ops == 0) P->rank_base = id;
    if (id != P->rank_base + (int64_t)P->rank_ops)
      return fail_at(P, line, "internal error: builder ids are not contiguous within rank %u",
                     P->rank);
  }
  P->rank_ops++;
  return 0;
}

/* `a requires b` / `a irequires b` / `a cpurequires b` (the first label already lexed). */
static int parse_dep(goal_parser_t *P, const char *a, size_t alen, llamp_edge_kind_t kind) {
  char fb[48];
  uint64_t line = P->line;
  const char *bl;
  if (skip_blank(P)) return -1;
  size_t blen = lex_ident(P, &bl);
  if (!blen)
    return fail(P, "expected a label after `%s`, found %s",
                kind == LLAMP_EDGE_REQUIRES ? "requires" : kind == LLAMP_EDGE_CPU ? "cpurequires" : "irequires",
                found(P, fb, sizeof fb));
  if (expect_eol(P, "a dependency")) return -1;
  if (P->pend_s) return 0;
  uint32_t la = 0, lb = 0;
  const char *miss = NULL;
  if (!labels_lookup(&P->labels, a, alen, &la, NULL))
    miss = a;
  else if (!labels_lookup(&P->labels, bl, blen, &lb, NULL))
    miss = bl;
  if (miss) {
    P->pend_s = miss;
    P->pend_len = miss == a ? alen : blen;
    P->pend_line = line;
    return 0;
  }
  if (llamp_builder_depend(P->b, P->rank_base + la, P->rank_base + lb, kind, line))
    return fail_builder(P);
  return 0;
}

/* The statements of one rank block, up to and including its `}`. */
static int parse_rank_body(goal_parser_t *P) {
  char fb[48];
  if (labels_reset(&P->labels, P->p)) return fail(P, "out of memory");
  P->rank_ops = 0;
  P->rank_base = -1;
  for (;;) {
    if (skip_space(P)) return -1;
    if (P->p >= P->end) {
      uint64_t line = P->line;
      if (P->end > P->buf && P->end[-1] == '\n') line--;
      if (P->pend_s) return fail_pending(P);
      return fail_at(P, line, "unexpected end of file: expected `}` to close rank %u (opened at line %llu)",
                     P->rank, (unsigned long long)P->rank_line);
    }
    if (*P->p == '}') {
      P->p++;
      if (P->pend_s) return fail_pending(P);
      return 0;
    }
    const char *w;
    size_t n = lex_ident(P, &w);
    if (!n) return fail(P, "expected a statement or `}`, found %s", found(P, fb, sizeof fb));
    if (KW(w, n, "send")) {
      if (parse_op(P, LLAMP_VERTEX_SEND, NULL, 0)) return -1;
    } else if (KW(w, n, "recv")) {
      if (parse_op(P, LLAMP_VERTEX_RECV, NULL, 0)) return -1;
    } else if (KW(w, n, "calc")) {
      if (parse_op(P, LLAMP_VERTEX_CALC, NULL, 0)) return -1;
    } else if (KW(w, n, "rank") || KW(w, n, "num_ranks")) {
      P->p = w;
      return fail(P, "expected `}` to close rank %u (opened at line %llu), found %s", P->rank,
                  (unsigned long long)P->rank_line, found(P, fb, sizeof fb));
    } else {
      /* a label: `w: op` or `w requires|irequires x` */
      if (skip_blank(P)) return -1;
      if (P->p < P->end && *P->p == ':') {
        P->p++;
        if (skip_blank(P)) return -1;
        const char *k;
        size_t kn = lex_ident(P, &k);
        llamp_vertex_kind_t kind;
        if (KW(k, kn, "send"))
          kind = LLAMP_VERTEX_SEND;
        else if (KW(k, kn, "recv"))
          kind = LLAMP_VERTEX_RECV;
        else if (KW(k, kn, "calc"))
          kind = LLAMP_VERTEX_CALC;
        else {
          if (kn) P->p = k;
          return fail(P, "expected `send`, `recv` or `calc` after `%.*s:`, found %s",
                      (int)(n > 64 ? 64 : n), w, found(P, fb, sizeof fb));
        }
        if (parse_op(P, kind, w, n)) return -1;
      } else {
        const char *k;
        const char *save = P->p;
        size_t kn = lex_ident(P, &k);
        if (KW(k, kn, "requires")) {
          if (parse_dep(P, w, n, LLAMP_EDGE_REQUIRES)) return -1;
        } else if (KW(k, kn, "irequires")) {
          if (parse_dep(P, w, n, LLAMP_EDGE_IREQUIRES)) return -1;
        } else if (KW(k, kn, "cpurequires")) {
          if (parse_dep(P, w, n, LLAMP_EDGE_CPU)) return -1;
        } else if (kn == 0) {
          P->p = w;
          return fail(P, "unknown keyword %s: expected `send`, `recv`, `calc`, `LABEL:` or "
                         "`LABEL requires|irequires|cpurequires LABEL`", found(P, fb, sizeof fb));
        } else {
          P->p = save;
          return fail(P, "expected `:`, `requires`, `irequires` or `cpurequires` after label `%.*s`, found %s",
                      (int)(n > 64 ? 64 : n), w, found(P, fb, sizeof fb));
        }
      }
    }
    release_input(P);
  }
}

/* The whole file: `num_ranks N` then rank blocks, in any order, each once. */
static int parse_file(goal_parser_t *P) {
  char fb[48];
  for (;;) {
    if (skip_space(P)) return -1;
    if (P->p >= P->end) break;
    const char *w;
    size_t n = lex_ident(P, &w);
    if (KW(w, n, "num_ranks")) {
      int64_t v;
      if (P->have_num_ranks) {
        P->p = w;
        return fail(P, "`num_ranks` given twice");
      }
      if (lex_int(P, "number of ranks", 0, MAX_RANKS, 1, &v)) return -1;
      if (v < 1) return fail(P, "num_ranks must be at least 1");
      if (expect_eol(P, "`num_ranks N`")) return -1;
      P->num_ranks = (uint32_t)v;
      P->have_num_ranks = 1;
      P->rank_seen = calloc(((size_t)v + 63) / 64, sizeof(uint64_t));
      P->b = P->rank_seen ? llamp_builder_create(P->num_ranks, P->source) : NULL;
      if (!P->b) return fail(P, "out of memory for %u ranks", P->num_ranks);
    } else if (KW(w, n, "rank")) {
      int64_t r;
      if (!P->have_num_ranks) {
        P->p = w;
        return fail(P, "missing `num_ranks`: expected `num_ranks N` before the first rank block");
      }
      uint64_t line = P->line;
      if (lex_int(P, "rank", 0, INT32_MAX, 1, &r)) return -1;
      if (r >= (int64_t)P->num_ranks)
        return fail(P, "rank %lld out of range (num_ranks %u)", (long long)r, P->num_ranks);
      if (P->rank_seen[r / 64] >> (r % 64) & 1)
        return fail(P, "duplicate block for rank %lld", (long long)r);
      P->rank_seen[r / 64] |= 1ull << (r % 64);
      if (skip_space(P)) return -1;
      if (P->p >= P->end || *P->p != '{')
        return fail(P, "expected `{` after `rank %lld`, found %s", (long long)r,
                    found(P, fb, sizeof fb));
      P->p++;
      P->rank = (uint32_t)r;
      P->rank_line = line;
      if (parse_rank_body(P)) return -1;
    } else if (n) {
      P->p = w;
      return fail(P, "expected `num_ranks` or `rank` (statements belong in a rank block), found %s",
                  found(P, fb, sizeof fb));
    } else {
      return fail(P, "expected `num_ranks` or `rank`, found %s", found(P, fb, sizeof fb));
    }
  }
  if (!P->have_num_ranks) {
    uint64_t line = P->line;
    if (P->end > P->buf && P->end[-1] == '\n') line--;
    return fail_at(P, line ? line : 1, "missing `num_ranks`: the input has no `num_ranks N` line");
  }
  return 0;
}

/* Parse a buffer; `mapped` says whether parsed pages may be madvise'd away. */
static llamp_graph_t *read_buffer(const char *data, size_t len, int mapped,
                                  const llamp_goal_options_t *opt, const char *source, char *err,
                                  size_t errlen) {
  llamp_goal_options_t defaults;
  if (!opt) {
    llamp_goal_options_default(&defaults);
    opt = &defaults;
  }
  init_cclass();
  if (err && errlen) err[0] = '\0';
  if ((unsigned)opt->time_unit > LLAMP_GOAL_S) {
    if (err && errlen) snprintf(err, errlen, "%s: invalid time unit %d", source, (int)opt->time_unit);
    return NULL;
  }
  goal_parser_t P;
  memset(&P, 0, sizeof P);
  P.buf = P.p = P.released = data ? data : "";
  P.end = P.buf + (data ? len : 0);
  P.line = 1;
  P.source = source;
  P.err = err;
  P.errlen = errlen;
  P.mapped = mapped;
  P.calc_div = llamp_goal_time_unit_scale(opt->time_unit);
  P.labels.end = P.end;

  llamp_graph_t *g = NULL;
  int rc = parse_file(&P);
  free(P.labels.slot);
  free(P.rank_seen);
  if (rc == 0) {
    char berr[512];
    if (mapped) madvise((void *)P.released, (size_t)(P.end - P.released), MADV_DONTNEED);
    g = llamp_builder_finish(P.b, berr, sizeof berr);
    P.b = NULL;
    if (!g && err && errlen) snprintf(err, errlen, "%s", berr);
  }
  if (P.b) llamp_builder_destroy(P.b);
  return g;
}

llamp_graph_t *llamp_goal_read_buffer(const char *data, size_t len,
                                      const llamp_goal_options_t *opt, char *err,
                                      size_t errlen) {
  const char *source = opt && opt->source ? opt->source : "<buffer>";
  return read_buffer(data, len, 0, opt, source, err, errlen);
}

/* Map the file (or read it, if it cannot be mapped: pipes, /dev/stdin) and
 * parse it.  Errors opening or reading name the path. */
llamp_graph_t *llamp_goal_read(const char *path, const llamp_goal_options_t *opt, char *err,
                               size_t errlen) {
  const char *source = opt && opt->source ? opt->source : path;
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    if (err && errlen) snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      (uint64_t)st.st_size <= SIZE_MAX) {
    size_t len = (size_t)st.st_size;
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      close(fd);
      madvise(m, len, MADV_SEQUENTIAL);
      llamp_graph_t *g = read_buffer(m, len, 1, opt, source, err, errlen);
      munmap(m, len);
      return g;
    }
  }
  /* fallback: read everything */
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) break;
    if (len == cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + len, cap - len);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      if (err && errlen) snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
      free(buf);
      close(fd);
      return NULL;
    }
    if (r == 0) break;
    len += (size_t)r;
  }
  close(fd);
  if (!buf) {
    if (err && errlen) snprintf(err, errlen, "%s: out of memory reading the file", path);
    return NULL;
  }
  llamp_graph_t *g = read_buffer(buf, len, 0, opt, source, err, errlen);
  free(buf);
  return g;
}
