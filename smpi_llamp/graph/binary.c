/* Compact binary graph file: a fixed header, the frozen arrays verbatim
 * (little-endian hosts only, checked), and a 64-bit checksum.
 *
 * Version 4 (written): the locality layout (vertices in topological order),
 * the checksum covering the header's fields too, the padding zero,
 * every array at a 64-byte aligned offset, so reading maps the file and
 * points the graph into it: no per-event parsing or copying.  Reading runs
 * the checksum (four independent lanes: memory speed) and the streaming
 * bounds checks (every source before its vertex, kinds, ranks, partners,
 * values), so a truncated, corrupted or crafted file is an error, never an
 * out-of-bounds access.  The full invariant checker (random accesses:
 * seconds on 10^8 events) is llamp_graph_check, run when the graph is built.
 *
 * Version 5 (written when a vertex has flags): version 4 and a tenth array,
 * the vertex flags (LLAMP_VERTEX_F_*, one byte a vertex).
 *
 * Version 3 (read only): builder order plus a topological index array; it
 * is read into memory, checked, and renumbered into the locality layout. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph_internal.h"

static const char LLAMP_BIN_MAGIC[8] = {'L', 'L', 'A', 'M', 'P', 'G', 'R', '1'};
#define BIN_VERSION 4
#define BIN_VERSION_FLAGS 5
#define BIN_ALIGN 64

typedef struct {
  char magic[8];
  uint32_t version, num_ranks;
  uint64_t n, m, num_messages;
  uint64_t checksum;
} bin_header_t;

/* version 4: the same fields, padded so that the first array is aligned */
typedef struct {
  bin_header_t h;
  unsigned char pad[BIN_ALIGN - sizeof(bin_header_t)];
} bin_header4_t;

/* FNV-style 64-bit mix over 8-byte words (version 3). */
static uint64_t sum_bytes(uint64_t h, const void *p, size_t len) {
  const unsigned char *c = p;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, c + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
  }
  for (; i < len; i++) h = (h ^ c[i]) * 0x100000001b3ULL;
  return h;
}

/* Version 4: the same mix in four independent lanes over 32-byte blocks
 * (one multiply chain is latency-bound at ~2 GB/s; four reach memory
 * speed).  The lanes start from constants and fold into a digest of the
 * array alone, then mixed into h: every step is a bijection of the state
 * that came before, so a change anywhere (one word, or the header summed
 * before) always changes the sum.  (Lanes seeded from h cancelled when
 * folded: h ^ (h ^ 1).) */
typedef struct {
  uint64_t l[4];
  size_t done; /* bytes summed: a multiple of 32 */
} lanes_t;

static void lanes_init(lanes_t *s) {
  s->l[0] = 0xcbf29ce484222325ULL;
  for (int k = 1; k < 4; k++) s->l[k] = s->l[0] ^ (uint64_t)k;
  s->done = 0;
}

/* the whole 32-byte blocks of c's first `upto` bytes not summed yet */
static void lanes_feed(lanes_t *s, const unsigned char *c, size_t upto) {
  uint64_t l0 = s->l[0], l1 = s->l[1], l2 = s->l[2], l3 = s->l[3];
  size_t i = s->done, end = upto - upto % 32;
  for (; i < end; i += 32) {
    uint64_t w[4];
    memcpy(w, c + i, 32);
    l0 = (l0 ^ w[0]) * 0x100000001b3ULL;
    l1 = (l1 ^ w[1]) * 0x100000001b3ULL;
    l2 = (l2 ^ w[2]) * 0x100000001b3ULL;
    l3 = (l3 ^ w[3]) * 0x100000001b3ULL;
  }
  s->l[0] = l0, s->l[1] = l1, s->l[2] = l2, s->l[3] = l3;
  if (end > s->done) s->done = end;
}

/* The array's digest once all len bytes are fed: the lanes folded, then the
 * tail; mixed into h (an array under 32 bytes is summed into h directly). */
static uint64_t lanes_fold(uint64_t h, lanes_t *s, const unsigned char *c, size_t len) {
  if (len < 32) return sum_bytes(h, c, len);
  lanes_feed(s, c, len);
  uint64_t d = sum_bytes(s->l[0], &s->l[1], 8);
  d = sum_bytes(d, &s->l[2], 8);
  d = sum_bytes(d, &s->l[3], 8);
  d = sum_bytes(d, c + s->done, len - s->done);
  return sum_bytes(h, &d, 8);
}

static uint64_t sum_bytes4(uint64_t h, const void *p, size_t len, int drop) {
  const unsigned char *c = p;
  lanes_t s;
  lanes_init(&s);
  /* drop (a file larger than memory): in chunks of 256 MiB, the pages
   * summed so far leave the resident set */
  for (size_t chunk = (size_t)1 << 28, at = 0; drop && at < len;) {
    at = len - at > chunk ? at + chunk : len;
    lanes_feed(&s, c, at);
    llamp_graph_drop_range(c, s.done);
  }
  uint64_t sum = lanes_fold(h, &s, c, len);
  if (drop) llamp_graph_drop_range(c, len);
  return sum;
}

typedef struct {
  void *ptr;
  size_t bytes;
} section_t;

#define NSECT 9
#define NSECT_FLAGS 10 /* version 5: the flags after the ranks' first vertices */

/* The arrays in file order; version 3 has topo where version 4 has id;
 * the tenth, version 5's flags, is empty without them. */
static void sections(llamp_graph_t *g, void *sixth, section_t s[NSECT_FLAGS]) {
  size_t n = g->n, m = g->m;
  s[0] = (section_t){g->kind, n};
  s[1] = (section_t){g->rank, 4 * n};
  s[2] = (section_t){g->value, 8 * n};
  s[3] = (section_t){g->tag, 4 * n};
  s[4] = (section_t){g->partner, 4 * n};
  s[5] = (section_t){sixth, 4 * n};
  s[6] = (section_t){g->in_off, 4 * (n + 1)};
  s[7] = (section_t){g->in_src, 4 * m};
  s[8] = (section_t){g->rank_first, 8 * ((size_t)g->num_ranks + 1)};
  s[9] = (section_t){g->flags, g->flags ? n : 0};
}

static uint64_t align_up(uint64_t x) { return (x + BIN_ALIGN - 1) / BIN_ALIGN * BIN_ALIGN; }

/* File size of a version-4 graph (ns = NSECT) or a version-5 one (ns =
 * NSECT_FLAGS) and each array's offset. */
static uint64_t layout4(uint32_t P, uint64_t n, uint64_t m, uint64_t *off, int ns) {
  uint64_t bytes[NSECT_FLAGS] = {n, 4 * n, 8 * n, 4 * n, 4 * n, 4 * n, 4 * (n + 1), 4 * m, 8 * ((uint64_t)P + 1), n};
  uint64_t at = sizeof(bin_header4_t);
  for (int i = 0; i < ns; i++) {
    off[i] = at;
    at = align_up(at + bytes[i]);
  }
  return at;
}

/* A version-4 header of these counts, checksum not yet set. */
static bin_header4_t header4(uint32_t num_ranks, uint64_t n, uint64_t m, uint64_t num_messages, uint32_t version) {
  bin_header4_t h;
  memset(&h, 0, sizeof h);
  memcpy(h.h.magic, LLAMP_BIN_MAGIC, 8);
  h.h.version = version;
  h.h.num_ranks = num_ranks;
  h.h.n = n;
  h.h.m = m;
  h.h.num_messages = num_messages;
  return h;
}

/* The file's checksum: the header's fields, then each array (version 4;
 * drop: see sum_bytes4). */
static uint64_t checksum4(const bin_header_t *h, const section_t *s, int drop, int ns) {
  uint64_t sum = sum_bytes(0xcbf29ce484222325ULL, h, offsetof(bin_header_t, checksum));
  for (int i = 0; i < ns; i++) sum = sum_bytes4(sum, s[i].ptr, s[i].bytes, drop);
  return sum;
}

static int little_endian(void) {
  uint16_t x = 1;
  unsigned char c;
  memcpy(&c, &x, 1);
  return c == 1;
}

int llamp_graph_write_binary(const llamp_graph_t *g, const char *path, char *err, size_t errlen) {
  if (!little_endian()) {
    snprintf(err, errlen, "%s: binary graphs are little-endian only", path);
    return -1;
  }
  FILE *f = fopen(path, "wb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
    return -1;
  }
  section_t s[NSECT_FLAGS];
  sections((llamp_graph_t *)g, g->id, s);
  int ns = g->flags ? NSECT_FLAGS : NSECT;
  uint64_t off[NSECT_FLAGS];
  layout4(g->num_ranks, g->n, g->m, off, ns);
  bin_header4_t h = header4(g->num_ranks, g->n, g->m, g->num_messages, g->flags ? BIN_VERSION_FLAGS : BIN_VERSION);
  h.h.checksum = checksum4(&h.h, s, 0, ns);
  static const unsigned char zeros[BIN_ALIGN];
  int ok = fwrite(&h, sizeof h, 1, f) == 1;
  uint64_t at = sizeof h;
  for (int i = 0; ok && i < ns; i++) {
    ok = fwrite(zeros, 1, off[i] - at, f) == off[i] - at;
    ok = ok && (s[i].bytes == 0 || fwrite(s[i].ptr, 1, s[i].bytes, f) == s[i].bytes);
    at = off[i] + s[i].bytes;
  }
  if (ok) ok = fwrite(zeros, 1, align_up(at) - at, f) == align_up(at) - at;
  if (fclose(f) != 0) ok = 0;
  if (!ok) {
    snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* ---- streaming writer ----------------------------------------------------- */

static int header_ranges(const bin_header_t *h, const char *path, char *err, size_t errlen);

#define STREAM_BUF (1u << 20)

struct llamp_graph_stream {
  char *path;
  int fd, failed;
  uint32_t num_ranks;
  uint64_t n, m, num_messages, off[NSECT], file_bytes;
  uint64_t nv, ne, sends; /* given so far */
  unsigned char *buf[NSECT - 1]; /* every array but rank_first */
  size_t fill[NSECT - 1];
  uint64_t written[NSECT - 1];
};

static int stream_flush(llamp_graph_stream_t *s, int i) {
  size_t done = 0;
  while (done < s->fill[i]) {
    ssize_t w = pwrite(s->fd, s->buf[i] + done, s->fill[i] - done, (off_t)(s->off[i] + s->written[i] + done));
    if (w <= 0) {
      if (w < 0 && errno == EINTR) continue;
      return -1;
    }
    done += (size_t)w;
  }
  s->written[i] += done;
  s->fill[i] = 0;
  return 0;
}

static int stream_put(llamp_graph_stream_t *s, int i, const void *p, size_t bytes) {
  if (s->fill[i] + bytes > STREAM_BUF && stream_flush(s, i)) return -1;
  memcpy(s->buf[i] + s->fill[i], p, bytes);
  s->fill[i] += bytes;
  return 0;
}

void llamp_graph_stream_abort(llamp_graph_stream_t *s) {
  if (!s) return;
  if (s->fd >= 0) close(s->fd);
  if (s->path) unlink(s->path);
  for (int i = 0; i < NSECT - 1; i++) free(s->buf[i]);
  free(s->path);
  free(s);
}

llamp_graph_stream_t *llamp_graph_stream_create(const char *path, uint32_t num_ranks, uint64_t n,
                                                uint64_t m, uint64_t num_messages, char *err,
                                                size_t errlen) {
  bin_header_t h = {.num_ranks = num_ranks, .n = n, .m = m};
  if (!little_endian()) {
    snprintf(err, errlen, "%s: binary graphs are little-endian only", path);
    return NULL;
  }
  if (header_ranges(&h, path, err, errlen)) return NULL;
  llamp_graph_stream_t *s = calloc(1, sizeof *s);
  if (!s || !(s->path = strdup(path))) {
    free(s);
    snprintf(err, errlen, "%s: out of memory", path);
    return NULL;
  }
  s->fd = -1;
  for (int i = 0; i < NSECT - 1; i++)
    if (!(s->buf[i] = malloc(STREAM_BUF))) {
      snprintf(err, errlen, "%s: out of memory", path);
      free(s->path);
      s->path = NULL; /* nothing written yet: nothing to remove */
      llamp_graph_stream_abort(s);
      return NULL;
    }
  s->num_ranks = num_ranks;
  s->n = n;
  s->m = m;
  s->num_messages = num_messages;
  s->file_bytes = layout4(num_ranks, n, m, s->off, NSECT);
  /* the padding stays the zeros of a file extended by ftruncate */
  s->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (s->fd < 0 || ftruncate(s->fd, (off_t)s->file_bytes) != 0) {
    snprintf(err, errlen, "%s: cannot create a %llu-byte file: %s", path, (unsigned long long)s->file_bytes,
             strerror(errno));
    llamp_graph_stream_abort(s);
    return NULL;
  }
  return s;
}

int llamp_graph_stream_vertex(llamp_graph_stream_t *s, unsigned kind, uint32_t rank, double value,
                              int32_t tag, uint32_t partner, uint32_t id, uint32_t nin,
                              const uint32_t *in_src) {
  if (s->failed) return -1;
  uint8_t k = (uint8_t)kind;
  uint32_t at = (uint32_t)s->ne;
  if (s->nv >= s->n || s->ne + nin > s->m || kind > LLAMP_VERTEX_RECV) s->failed = 1;
  else if (stream_put(s, 0, &k, 1) || stream_put(s, 1, &rank, 4) || stream_put(s, 2, &value, 8) ||
           stream_put(s, 3, &tag, 4) || stream_put(s, 4, &partner, 4) || stream_put(s, 5, &id, 4) ||
           stream_put(s, 6, &at, 4) || (nin && stream_put(s, 7, in_src, 4 * (size_t)nin)))
    s->failed = 2;
  s->nv++;
  s->ne += nin;
  s->sends += kind == LLAMP_VERTEX_SEND;
  return s->failed ? -1 : 0;
}

int llamp_graph_stream_close(llamp_graph_stream_t *s, const uint64_t *rank_first, char *err,
                             size_t errlen) {
  uint32_t end = (uint32_t)s->ne;
  if (s->failed == 1) {
    snprintf(err, errlen, "%s: more vertices or edges than announced, or a vertex kind above %d", s->path,
             LLAMP_VERTEX_RECV);
    llamp_graph_stream_abort(s);
    return -1;
  }
  if (!s->failed && (s->nv != s->n || s->ne != s->m || s->sends != s->num_messages)) {
    snprintf(err, errlen, "%s: %llu vertices, %llu edges and %llu sends given, %llu, %llu and %llu announced",
             s->path, (unsigned long long)s->nv, (unsigned long long)s->ne, (unsigned long long)s->sends,
             (unsigned long long)s->n, (unsigned long long)s->m, (unsigned long long)s->num_messages);
    llamp_graph_stream_abort(s);
    return -1;
  }
  int ok = !s->failed && stream_put(s, 6, &end, 4) == 0;
  for (int i = 0; ok && i < NSECT - 1; i++) ok = stream_flush(s, i) == 0;
  size_t rf = 8 * ((size_t)s->num_ranks + 1);
  ok = ok && pwrite(s->fd, rank_first, rf, (off_t)s->off[8]) == (ssize_t)rf;
  /* the checksum over the header's fields and the arrays, as written */
  bin_header4_t h = header4(s->num_ranks, s->n, s->m, s->num_messages, BIN_VERSION);
  void *map = ok ? mmap(NULL, s->file_bytes, PROT_READ, MAP_SHARED, s->fd, 0) : MAP_FAILED;
  if (map != MAP_FAILED) {
    uint64_t bytes[NSECT] = {s->n, 4 * s->n, 8 * s->n, 4 * s->n, 4 * s->n, 4 * s->n, 4 * (s->n + 1), 4 * s->m, rf};
    section_t sec[NSECT];
    for (int i = 0; i < NSECT; i++) sec[i] = (section_t){(unsigned char *)map + s->off[i], bytes[i]};
    madvise(map, s->file_bytes, MADV_SEQUENTIAL);
    h.h.checksum = checksum4(&h.h, sec, 1, NSECT); /* pages summed leave: a file larger than memory */
    munmap(map, s->file_bytes);
    ok = pwrite(s->fd, &h, sizeof h, 0) == (ssize_t)sizeof h;
  } else {
    ok = 0;
  }
  if (close(s->fd) != 0) ok = 0;
  s->fd = -1;
  if (!ok) {
    snprintf(err, errlen, "%s: write failed: %s", s->path, strerror(errno));
    llamp_graph_stream_abort(s);
    return -1;
  }
  free(s->path);
  s->path = NULL;
  llamp_graph_stream_abort(s);
  return 0;
}

int llamp_graph_is_binary(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char m[8];
  int yes = fread(m, 1, 8, f) == 8 && memcmp(m, LLAMP_BIN_MAGIC, 8) == 0;
  fclose(f);
  return yes;
}

static int header_ranges(const bin_header_t *h, const char *path, char *err, size_t errlen) {
  if (h->num_ranks == 0 || h->num_ranks > (1u << 30) || h->n > LLAMP_MAX_VERTICES ||
      h->m >= UINT32_MAX) {
    snprintf(err, errlen, "%s: header field out of range (ranks %u, vertices %llu, edges %llu)",
             path, h->num_ranks, (unsigned long long)h->n, (unsigned long long)h->m);
    return -1;
  }
  return 0;
}

/* Version 3: read into memory, check, renumber into the locality layout. */
static llamp_graph_t *read_v3(FILE *f, const bin_header_t *h, uint64_t size, const char *path,
                              char *err, size_t errlen) {
  llamp_graph_t *g = NULL;
  uint32_t *topo = NULL, *level = NULL, *pos = NULL;
  uint64_t expect = sizeof *h + h->n * 25 + 4 * (h->n + 1) + 4 * h->m + 8 * ((uint64_t)h->num_ranks + 1);
  if (size != expect) {
    snprintf(err, errlen, "%s: file has %llu bytes, header promises %llu (truncated or corrupt)",
             path, (unsigned long long)size, (unsigned long long)expect);
    return NULL;
  }
  g = llamp_graph_alloc(h->num_ranks, h->n, h->m);
  topo = malloc((h->n ? h->n : 1) * 4);
  if (!g || !topo) {
    snprintf(err, errlen, "%s: out of memory for %llu vertices", path, (unsigned long long)h->n);
    goto fail;
  }
  free(g->id); /* set by the relayout */
  g->id = NULL;
  g->num_messages = h->num_messages;
  section_t s[NSECT_FLAGS];
  sections(g, topo, s);
  uint64_t sum = 0xcbf29ce484222325ULL;
  for (int i = 0; i < NSECT; i++) {
    if (s[i].bytes && fread(s[i].ptr, 1, s[i].bytes, f) != s[i].bytes) {
      snprintf(err, errlen, "%s: read error or truncated file", path);
      goto fail;
    }
    sum = sum_bytes(sum, s[i].ptr, s[i].bytes);
  }
  if (sum != h->checksum) {
    snprintf(err, errlen, "%s: checksum mismatch (corrupt file)", path);
    goto fail;
  }
  /* the old checker's rules: topo a permutation that every edge respects */
  uint64_t n = g->n;
  pos = malloc((n ? n : 1) * 4);
  level = malloc((n + 1) * 4); /* the relayout's offsets after */
  if (!pos || !level) {
    snprintf(err, errlen, "%s: out of memory for %llu vertices", path, (unsigned long long)n);
    goto fail;
  }
  for (uint64_t v = 0; v < n; v++) pos[v] = LLAMP_NONE32;
  for (uint64_t i = 0; i < n; i++) {
    if (topo[i] >= n || pos[topo[i]] != LLAMP_NONE32) goto bad;
    pos[topo[i]] = (uint32_t)i;
  }
  if (g->in_off[0] != 0 || g->in_off[n] != g->m) goto bad;
  for (uint64_t i = 0; i < n; i++) {
    uint32_t v = topo[i], lv = 0;
    if (g->in_off[v + 1] < g->in_off[v] || g->in_off[v + 1] > g->m) goto bad;
    for (uint32_t e = g->in_off[v]; e < g->in_off[v + 1]; e++) {
      uint32_t u = g->in_src[e] & LLAMP_EDGE_SRC_MASK;
      if (u >= n || pos[u] >= i) goto bad;
      if (level[u] + 1 > lv) lv = level[u] + 1;
    }
    level[v] = lv;
  }
  for (uint64_t v = 0; v < n; v++) {
    if (g->partner[v] != LLAMP_NONE32 && g->partner[v] >= n) goto bad;
    /* the relayout indexes its rank blocks by rank (found by fuzz_llg) */
    if (g->rank[v] >= g->num_ranks) {
      snprintf(err, errlen, "%s: invalid graph: vertex %llu has rank %u of %u", path, (unsigned long long)v,
               g->rank[v], g->num_ranks);
      goto fail;
    }
  }
  free(pos);
  free(topo);
  pos = topo = NULL;
  int rl = llamp_graph_relayout(g, level, 0);
  level = NULL; /* consumed either way */
  if (rl) {
    snprintf(err, errlen, "%s: out of memory for %llu vertices", path, (unsigned long long)n);
    goto fail;
  }
  char cerr[256];
  if (llamp_graph_check(g, cerr, sizeof cerr)) {
    snprintf(err, errlen, "%s: invalid graph: %s", path, cerr);
    goto fail;
  }
  return g;
bad:
  snprintf(err, errlen, "%s: invalid graph: topological order or edge offsets broken", path);
fail:
  free(topo);
  free(pos);
  free(level);
  llamp_graph_destroy(g);
  return NULL;
}

/* Reading a version-4 file in two halves, chunk by chunk: each thread sums
 * its arrays and checks them while they are in cache, so each page of the
 * file is touched once, by one thread (on this VM a page's first touch in a
 * process costs about 1 us, more than reading it).  Half 0: values, edge
 * offsets and edges; half 1: kinds, ranks, tags, partners, ids and the
 * ranks' first vertices (16-17 bytes a vertex each on the halos). */
#define READ_CHUNK 8192 /* vertices: both halves' arrays of a chunk fit in L2 */

typedef struct {
  const llamp_graph_t *g;
  const section_t *s;
  int half;
  int bad; /* a check failed: the reader runs the sequential checks for the message */
  uint64_t reach, sends, self;
  int ns; /* NSECT, or NSECT_FLAGS with the flags */
  lanes_t lanes[NSECT_FLAGS];
} read_half_t;

static int half_of(int section) { return section == 2 || section == 6 || section == 7 ? 0 : 1; }

static void *read_half_run(void *arg) {
  read_half_t *j = arg;
  const llamp_graph_t *g = j->g;
  const section_t *s = j->s;
  uint64_t n = g->n;
#define FEED(i, upto) lanes_feed(&j->lanes[i], s[i].ptr, (upto))
  for (int i = 0; i < j->ns; i++) lanes_init(&j->lanes[i]);
  for (uint64_t v0 = 0, v1; v0 < n && !j->bad; v0 = v1) {
    v1 = n - v0 > READ_CHUNK ? v0 + READ_CHUNK : n;
    if (j->half == 0) {
      FEED(2, 8 * v1);
      FEED(6, 4 * v1);
      if (llamp_graph_bounds_offsets(g, v0, v1) < v1) { /* before in_src is read by them */
        j->bad = 1;
        break;
      }
      FEED(7, 4 * (size_t)g->in_off[v1]);
      j->bad = llamp_graph_bounds_edges(g, v0, v1, &j->reach) < v1 || llamp_graph_bounds_values(g, v0, v1);
    } else {
      FEED(0, v1);
      FEED(1, 4 * v1);
      FEED(3, 4 * v1);
      FEED(4, 4 * v1);
      FEED(5, 4 * v1);
      if (j->ns > NSECT) FEED(9, v1);
      j->bad = llamp_graph_bounds_vertices(g, v0, v1, &j->sends, &j->self) < v1;
    }
  }
  for (int i = 0; i < j->ns && !j->bad; i++) /* (a bad file is read again for its message) */
    if (half_of(i) == j->half) FEED(i, s[i].bytes);
#undef FEED
  return NULL;
}

/* The checksum and the bounds checks of a mapped version-4 file on two
 * threads.  0: *sum is the file's checksum and every check passed (the
 * graph's reach and self messages are set); -1: a check failed or the
 * offsets' ends are wrong, nothing is known (the caller checks again one
 * pass at a time, for the error's message). */
static int read_halves(llamp_graph_t *g, const bin_header_t *h, const section_t *s, uint64_t *sum, int ns) {
  if (llamp_graph_bounds_ends(g, NULL, 0)) return -1;
  read_half_t half[2] = {{g, s, 0, 0, 0, 0, 0, ns, {{{0}, 0}}}, {g, s, 1, 0, 0, 0, 0, ns, {{{0}, 0}}}};
  pthread_t other;
  if (pthread_create(&other, NULL, read_half_run, &half[1]) == 0) {
    read_half_run(&half[0]);
    pthread_join(other, NULL);
  } else {
    read_half_run(&half[0]);
    read_half_run(&half[1]);
  }
  if (half[0].bad || half[1].bad || half[1].sends != g->num_messages) return -1;
  uint64_t x = sum_bytes(0xcbf29ce484222325ULL, h, offsetof(bin_header_t, checksum));
  for (int i = 0; i < ns; i++) x = lanes_fold(x, &half[half_of(i)].lanes[i], s[i].ptr, s[i].bytes);
  *sum = x;
  llamp_graph_bounds_found(g, half[0].reach, half[1].self);
  return 0;
}

llamp_graph_t *llamp_graph_read_binary(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  bin_header_t h;
  llamp_graph_t *g = NULL;
  struct stat st;
  void *map = MAP_FAILED;
  if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, LLAMP_BIN_MAGIC, 8) != 0) {
    snprintf(err, errlen, "%s: not an smpi-llamp binary graph (bad header)", path);
    goto out;
  }
  if (h.version != 3 && h.version != BIN_VERSION && h.version != BIN_VERSION_FLAGS) {
    snprintf(err, errlen, "%s: binary graph version %u, expected 3, %d or %d", path, h.version, BIN_VERSION,
             BIN_VERSION_FLAGS);
    goto out;
  }
  if (fstat(fileno(f), &st) != 0) {
    snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
    goto out;
  }
  if (header_ranges(&h, path, err, errlen)) goto out;
  if (h.version == 3) {
    g = read_v3(f, &h, (uint64_t)st.st_size, path, err, errlen);
    goto out;
  }
  int ns = h.version == BIN_VERSION_FLAGS ? NSECT_FLAGS : NSECT;
  uint64_t off[NSECT_FLAGS];
  uint64_t expect = layout4(h.num_ranks, h.n, h.m, off, ns);
  if ((uint64_t)st.st_size != expect) {
    snprintf(err, errlen, "%s: file has %llu bytes, header promises %llu (truncated or corrupt)",
             path, (unsigned long long)st.st_size, (unsigned long long)expect);
    goto out;
  }
  /* private and read-only: the page cache's pages are used in place */
  map = mmap(NULL, expect, PROT_READ, MAP_PRIVATE, fileno(f), 0);
  if (map == MAP_FAILED) {
    snprintf(err, errlen, "%s: cannot map: %s", path, strerror(errno));
    goto out;
  }
  if (!(g = calloc(1, sizeof *g))) {
    snprintf(err, errlen, "%s: out of memory", path);
    goto out;
  }
  unsigned char *base = map;
  g->map = map;
  g->map_len = expect;
  map = MAP_FAILED;
  g->num_ranks = h.num_ranks;
  g->n = h.n;
  g->m = h.m;
  g->num_messages = h.num_messages;
  g->kind = base + off[0];
  g->rank = (uint32_t *)(void *)(base + off[1]);
  g->value = (double *)(void *)(base + off[2]);
  g->tag = (int32_t *)(void *)(base + off[3]);
  g->partner = (uint32_t *)(void *)(base + off[4]);
  g->id = (uint32_t *)(void *)(base + off[5]);
  g->in_off = (uint32_t *)(void *)(base + off[6]);
  g->in_src = (uint32_t *)(void *)(base + off[7]);
  g->rank_first = (uint64_t *)(void *)(base + off[8]);
  if (ns == NSECT_FLAGS) g->flags = base + off[9];
  section_t s[NSECT_FLAGS];
  sections(g, g->id, s);
  /* after the checks every page is dropped from this process's resident
   * set (the page cache keeps them): the arrays a caller never touches (ids,
   * tags, partners for the engine) then do not count in its peak memory */
  madvise(base, expect, MADV_SEQUENTIAL);
  /* pages read from disk now come in 2 MiB folios, mapped whole: on this
   * VM a 4 KiB page's first touch costs ~1 us, a file of 0.33 GB ~0.1 s */
  madvise(base, expect, MADV_HUGEPAGE);
  /* a file over half the memory: each pass's pages leave as it goes */
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  g->map_big = pages > 0 && psize > 0 && expect > (uint64_t)pages * (uint64_t)psize / 2;
  /* the checksum and the bounds checks in two halves (read_halves); a file
   * over half the memory one pass at a time, each pass's pages leaving as it
   * goes; the sequential checks also when a half finds an error, whose
   * message names the first offender of the first check that fails (after a
   * checksum's mismatch, reported first) */
  uint64_t sum = 0;
  int bounds_rc = 0, bounds_done = !g->map_big && read_halves(g, &h, s, &sum, ns) == 0;
  char cerr[256];
  if (!bounds_done) sum = checksum4(&h, s, g->map_big, ns);
  if (sum != h.checksum) {
    snprintf(err, errlen, "%s: checksum mismatch (corrupt file)", path);
    goto bad;
  }
  /* the padding is outside the checksum: zero, so that no byte of a file
   * can change without an error */
  for (int i = 0; i <= ns; i++) {
    uint64_t from = i ? off[i - 1] + s[i - 1].bytes : sizeof h, to = i < ns ? off[i] : expect;
    for (uint64_t b = from; b < to; b++)
      if (base[b]) {
        snprintf(err, errlen, "%s: non-zero padding at byte %llu (corrupt file)", path, (unsigned long long)b);
        goto bad;
      }
  }
  if (!bounds_done) bounds_rc = llamp_graph_check_bounds(g, cerr, sizeof cerr);
  if (bounds_rc) {
    snprintf(err, errlen, "%s: invalid graph: %s", path, cerr);
    goto bad;
  }
  madvise(base, expect, MADV_DONTNEED);
  madvise(base, expect, MADV_NORMAL);
  goto out;
bad:
  llamp_graph_destroy(g);
  g = NULL;
out:
  if (map != MAP_FAILED) munmap(map, expect);
  fclose(f);
  return g;
}
