/* Compact binary graph file: a fixed header, the frozen arrays verbatim
 * (little-endian hosts only, checked), and a 64-bit checksum.  Reading
 * validates every size before allocating and runs the invariant checker,
 * so a truncated or corrupted file is an error, never a partial graph. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"

static const char LLAMP_BIN_MAGIC[8] = {'L', 'L', 'A', 'M', 'P', 'G', 'R', '1'};

typedef struct {
  char magic[8];
  uint32_t version, num_ranks;
  uint64_t n, m, num_messages;
  uint64_t checksum;
} bin_header_t;

/* FNV-style 64-bit mix over 8-byte words (fast enough to run at load). */
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

typedef struct {
  void *ptr;
  size_t bytes;
} section_t;

static int sections(llamp_graph_t *g, section_t s[9]) {
  size_t n = g->n, m = g->m;
  s[0] = (section_t){g->kind, n};
  s[1] = (section_t){g->rank, 4 * n};
  s[2] = (section_t){g->value, 8 * n};
  s[3] = (section_t){g->tag, 4 * n};
  s[4] = (section_t){g->partner, 4 * n};
  s[5] = (section_t){g->topo, 4 * n};
  s[6] = (section_t){g->in_off, 4 * (n + 1)};
  s[7] = (section_t){g->in_src, 4 * m};
  s[8] = (section_t){g->rank_first, 8 * ((size_t)g->num_ranks + 1)};
  return 9;
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
  section_t s[9];
  int ns = sections((llamp_graph_t *)g, s);
  bin_header_t h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, LLAMP_BIN_MAGIC, 8);
  h.version = 3;
  h.num_ranks = g->num_ranks;
  h.n = g->n;
  h.m = g->m;
  h.num_messages = g->num_messages;
  uint64_t sum = 0xcbf29ce484222325ULL;
  for (int i = 0; i < ns; i++) sum = sum_bytes(sum, s[i].ptr, s[i].bytes);
  h.checksum = sum;
  int ok = fwrite(&h, sizeof h, 1, f) == 1;
  for (int i = 0; ok && i < ns; i++)
    ok = s[i].bytes == 0 || fwrite(s[i].ptr, 1, s[i].bytes, f) == s[i].bytes;
  if (fclose(f) != 0) ok = 0;
  if (!ok) {
    snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
    return -1;
  }
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

llamp_graph_t *llamp_graph_read_binary(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  bin_header_t h;
  llamp_graph_t *g = NULL;
  if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, LLAMP_BIN_MAGIC, 8) != 0) {
    snprintf(err, errlen, "%s: not an smpi-llamp binary graph (bad header)", path);
    goto fail;
  }
  if (h.version != 3) {
    snprintf(err, errlen, "%s: binary graph version %u, expected 3", path, h.version);
    goto fail;
  }
  if (fseek(f, 0, SEEK_END) != 0) goto io;
  long size = ftell(f);
  if (size < 0 || fseek(f, (long)sizeof h, SEEK_SET) != 0) goto io;
  if (h.num_ranks == 0 || h.num_ranks > (1u << 30) || h.n > (1ULL << 30) || h.m >= UINT32_MAX) {
    snprintf(err, errlen, "%s: header field out of range (ranks %u, vertices %llu, edges %llu)",
             path, h.num_ranks, (unsigned long long)h.n, (unsigned long long)h.m);
    goto fail;
  }
  uint64_t expect = sizeof h + h.n * 25 + 4 * (h.n + 1) + 4 * h.m + 8 * ((uint64_t)h.num_ranks + 1);
  if ((uint64_t)size != expect) {
    snprintf(err, errlen, "%s: file has %ld bytes, header promises %llu (truncated or corrupt)",
             path, size, (unsigned long long)expect);
    goto fail;
  }
  g = llamp_graph_alloc(h.num_ranks, h.n, h.m);
  if (!g) {
    snprintf(err, errlen, "%s: out of memory for %llu vertices", path, (unsigned long long)h.n);
    goto fail;
  }
  g->num_messages = h.num_messages;
  section_t s[9];
  int ns = sections(g, s);
  uint64_t sum = 0xcbf29ce484222325ULL;
  for (int i = 0; i < ns; i++) {
    if (s[i].bytes && fread(s[i].ptr, 1, s[i].bytes, f) != s[i].bytes) goto io;
    sum = sum_bytes(sum, s[i].ptr, s[i].bytes);
  }
  if (sum != h.checksum) {
    snprintf(err, errlen, "%s: checksum mismatch (corrupt file)", path);
    goto fail;
  }
  char cerr[256];
  if (llamp_graph_check(g, cerr, sizeof cerr)) {
    snprintf(err, errlen, "%s: invalid graph: %s", path, cerr);
    goto fail;
  }
  fclose(f);
  return g;
io:
  snprintf(err, errlen, "%s: read error or truncated file", path);
fail:
  llamp_graph_destroy(g);
  fclose(f);
  return NULL;
}
