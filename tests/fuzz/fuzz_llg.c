/* libFuzzer harness for the binary graph reader (.llg, graph/binary.c).
 *
 * Oracle: the reader returns NULL with a one-line message, or a graph that
 * passes llamp_graph_check, writes back to the same bytes, and evaluates
 * (one engine pass) to a finite T. */
#include "fuzz_util.h"

#include <math.h>

#include "llamp_engine.h"
#include "llamp_graph.h"

/* The file's checksum (binary.c), recomputed so that mutations reach the
 * checks behind it; the raw input still tests the checksum itself.
 * Version 3: FNV-style over 8-byte words of everything after the 48-byte
 * header.  Version 4: the same mix in four lanes over each array (at the
 * offsets of layout4: 64-byte aligned after a 64-byte header), after the
 * header's first 40 bytes; the padding is outside it and must be zero). */
#define LLG_HEADER 48
static uint64_t mix(uint64_t h, const uint8_t *c, size_t len) {
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, c + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
  }
  for (; i < len; i++) h = (h ^ c[i]) * 0x100000001b3ULL;
  return h;
}
static uint64_t mix4(uint64_t h, const uint8_t *c, size_t len) {
  if (len < 32) return mix(h, c, len);
  uint64_t l[4] = {0xcbf29ce484222325ULL, 0xcbf29ce484222324ULL, 0xcbf29ce484222327ULL, 0xcbf29ce484222326ULL};
  size_t i = 0;
  for (; i + 32 <= len; i += 32)
    for (int k = 0; k < 4; k++) {
      uint64_t w;
      memcpy(&w, c + i + 8 * k, 8);
      l[k] = (l[k] ^ w) * 0x100000001b3ULL;
    }
  uint64_t d = mix(l[0], (const uint8_t *)&l[1], 8);
  d = mix(d, (const uint8_t *)&l[2], 8);
  d = mix(d, (const uint8_t *)&l[3], 8);
  d = mix(d, c + i, len - i);
  return mix(h, (const uint8_t *)&d, 8);
}
static void fix_checksum(uint8_t *d, size_t size) {
  uint32_t version, P;
  uint64_t n, m, h = 0xcbf29ce484222325ULL;
  memcpy(&version, d + 8, 4);
  if (version != 4) {
    memcpy(d + 40, &(uint64_t){mix(h, d + LLG_HEADER, size - LLG_HEADER)}, 8);
    return;
  }
  h = mix(h, d, 40); /* the header's fields before the checksum */
  memcpy(&P, d + 12, 4);
  memcpy(&n, d + 16, 8);
  memcpy(&m, d + 24, 8);
  if (n > size || m > size || P > size) return; /* the reader rejects the size */
  uint64_t bytes[9] = {n, 4 * n, 8 * n, 4 * n, 4 * n, 4 * n, 4 * (n + 1), 4 * m, 8 * ((uint64_t)P + 1)};
  uint64_t at = 64;
  for (int i = 0; i < 9; i++) {
    if (at + bytes[i] > size) return;
    h = mix4(h, d + at, bytes[i]);
    at = (at + bytes[i] + 63) / 64 * 64;
  }
  memcpy(d + 40, &h, 8);
}

static void one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  one(data, size);
  if (size >= LLG_HEADER) {
    uint8_t *fixed = malloc(size);
    memcpy(fixed, data, size);
    fix_checksum(fixed, size);
    if (memcmp(fixed, data, size) != 0) one(fixed, size);
    free(fixed);
  }
  return 0;
}

static void one(const uint8_t *data, size_t size) {
  char path[64], err[512] = "";
  int fd = fuzz_memfile(data, size, path, sizeof path);
  llamp_graph_t *g = llamp_graph_read_binary(path, err, sizeof err);
  close(fd);
  if (!g) {
    fuzz_check_error(err);
    return;
  }
  /* version 3 is read with the full checker; version 4 (mapped in place)
   * with the streaming bounds checks only, which make evaluation safe */
  uint32_t version;
  memcpy(&version, data + 8, 4);
  if (version == 3 && llamp_graph_check(g, err, sizeof err) != 0) abort();
  /* round trip: the same bytes (version 3 is written back as version 4) */
  if (version == 4) {
    fd = fuzz_memfile(NULL, 0, path, sizeof path);
    if (llamp_graph_write_binary(g, path, err, sizeof err) != 0) abort();
    off_t n = lseek(fd, 0, SEEK_END);
    uint8_t *back = malloc(size ? size : 1);
    if (n != (off_t)size || pread(fd, back, size, 0) != (ssize_t)size || memcmp(back, data, size) != 0)
      abort();
    free(back);
    close(fd);
  }
  /* a graph the checker accepts must be evaluable */
  if (llamp_graph_num_vertices(g) <= 4096) {
    llamp_params_t p;
    llamp_params_default(&p);
    llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
    if (e) {
      llamp_eval_t ev;
      if (llamp_engine_eval(e, &p, LLAMP_PARAM_L, &ev) == 0 && isnan(ev.T)) abort();
      llamp_engine_destroy(e);
    } else {
      fuzz_check_error(err);
    }
  }
  llamp_graph_destroy(g);
}
