/* The .llg file's layout and checksum (smpi_llamp/graph/binary.c), written
 * again for tests that change a file's bytes and want the checks behind the
 * checksum to see the change (fuzz_llg, test_graph_read).
 * Version 3: FNV-style over 8-byte words of everything after the 48-byte
 * header.  Version 4: the same mix in four lanes over each array (at the
 * offsets of llg_layout: 64-byte aligned after a 64-byte header), after the
 * header's first 40 bytes; the padding is outside it and must be zero. */
#ifndef LLG_CHECKSUM_H
#define LLG_CHECKSUM_H
#include <stdint.h>
#include <string.h>

#define LLG_HEADER 48
#define LLG_SECTIONS 9 /* kind, rank, value, tag, partner, id, in_off, in_src, rank_first */

static inline uint64_t llg_mix(uint64_t h, const uint8_t *c, size_t len) {
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, c + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
  }
  for (; i < len; i++) h = (h ^ c[i]) * 0x100000001b3ULL;
  return h;
}

static inline uint64_t llg_mix4(uint64_t h, const uint8_t *c, size_t len) {
  if (len < 32) return llg_mix(h, c, len);
  uint64_t l[4] = {0xcbf29ce484222325ULL, 0xcbf29ce484222324ULL, 0xcbf29ce484222327ULL, 0xcbf29ce484222326ULL};
  size_t i = 0;
  for (; i + 32 <= len; i += 32)
    for (int k = 0; k < 4; k++) {
      uint64_t w;
      memcpy(&w, c + i + 8 * k, 8);
      l[k] = (l[k] ^ w) * 0x100000001b3ULL;
    }
  uint64_t d = llg_mix(l[0], (const uint8_t *)&l[1], 8);
  d = llg_mix(d, (const uint8_t *)&l[2], 8);
  d = llg_mix(d, (const uint8_t *)&l[3], 8);
  d = llg_mix(d, c + i, len - i);
  return llg_mix(h, (const uint8_t *)&d, 8);
}

/* Version 4: each array's offset and size; the file's size. */
static inline uint64_t llg_layout(uint32_t P, uint64_t n, uint64_t m, uint64_t off[LLG_SECTIONS],
                                  uint64_t bytes[LLG_SECTIONS]) {
  uint64_t b[LLG_SECTIONS] = {n, 4 * n, 8 * n, 4 * n, 4 * n, 4 * n, 4 * (n + 1), 4 * m, 8 * ((uint64_t)P + 1)};
  uint64_t at = 64;
  for (int i = 0; i < LLG_SECTIONS; i++) {
    off[i] = at;
    bytes[i] = b[i];
    at = (at + b[i] + 63) / 64 * 64;
  }
  return at;
}

/* The checksum of the file's bytes written into its header (a file too
 * short for the sizes its header gives is left as it is: the reader rejects
 * its size). */
static inline void llg_fix_checksum(uint8_t *d, size_t size) {
  uint32_t version, P;
  uint64_t n, m, h = 0xcbf29ce484222325ULL;
  memcpy(&version, d + 8, 4);
  if (version != 4) {
    memcpy(d + 40, &(uint64_t){llg_mix(h, d + LLG_HEADER, size - LLG_HEADER)}, 8);
    return;
  }
  h = llg_mix(h, d, 40); /* the header's fields before the checksum */
  memcpy(&P, d + 12, 4);
  memcpy(&n, d + 16, 8);
  memcpy(&m, d + 24, 8);
  if (n > size || m > size || P > size) return; /* the reader rejects the size */
  uint64_t off[LLG_SECTIONS], bytes[LLG_SECTIONS];
  llg_layout(P, n, m, off, bytes);
  for (int i = 0; i < LLG_SECTIONS; i++) {
    if (off[i] + bytes[i] > size) return;
    h = llg_mix4(h, d + off[i], bytes[i]);
  }
  memcpy(d + 40, &h, 8);
}
#endif
