/* llamp_map.h - a uint64 -> uint32 open-addressing hash map (linear
 * probing, backward-shift deletion), shared by the modules that need one.
 * Key UINT64_MAX is reserved.  Sizes are powers of two; the table doubles at
 * 3/4 load.  init/put/upsert return -1 / NULL when out of memory. */
#ifndef LLAMP_MAP_H
#define LLAMP_MAP_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint64_t *keys;
  uint32_t *vals;
  uint64_t mask, used;
} llamp_map_t;

#define LLAMP_MAP_EMPTY UINT64_MAX

/* MurmurHash3's full 64-bit finaliser: every key bit reaches the low bits
 * that index the table.  (With one multiply, keys (pair, tag) that differ in
 * a high bit and a low one collided: linear probing then ran long clusters,
 * 60 % of the DAG build of a collective-heavy trace.) */
static inline uint64_t llamp_map_hash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

static inline int llamp_map_init(llamp_map_t *m, uint64_t size) {
  m->keys = malloc(size * sizeof *m->keys);
  m->vals = malloc(size * sizeof *m->vals);
  if (!m->keys || !m->vals) return -1;
  memset(m->keys, 0xff, size * sizeof *m->keys);
  m->mask = size - 1;
  m->used = 0;
  return 0;
}

static inline void llamp_map_free(llamp_map_t *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

static inline void llamp_map_clear(llamp_map_t *m) {
  if (m->used) memset(m->keys, 0xff, (m->mask + 1) * sizeof *m->keys);
  m->used = 0;
}

static inline uint32_t *llamp_map_find(const llamp_map_t *m, uint64_t key) {
  for (uint64_t i = llamp_map_hash(key) & m->mask;; i = (i + 1) & m->mask) {
    if (m->keys[i] == key) return &m->vals[i];
    if (m->keys[i] == LLAMP_MAP_EMPTY) return NULL;
  }
}

static inline int llamp_map_put(llamp_map_t *m, uint64_t key, uint32_t val) {
  if ((m->used + 1) * 4 > (m->mask + 1) * 3) {
    llamp_map_t n;
    if (llamp_map_init(&n, (m->mask + 1) * 2)) return -1;
    for (uint64_t i = 0; i <= m->mask; i++) {
      if (m->keys[i] == LLAMP_MAP_EMPTY) continue;
      uint64_t j = llamp_map_hash(m->keys[i]) & n.mask;
      while (n.keys[j] != LLAMP_MAP_EMPTY) j = (j + 1) & n.mask;
      n.keys[j] = m->keys[i];
      n.vals[j] = m->vals[i];
    }
    n.used = m->used;
    llamp_map_free(m);
    *m = n;
  }
  uint64_t i = llamp_map_hash(key) & m->mask;
  while (m->keys[i] != LLAMP_MAP_EMPTY && m->keys[i] != key) i = (i + 1) & m->mask;
  if (m->keys[i] == LLAMP_MAP_EMPTY) m->used++;
  m->keys[i] = key;
  m->vals[i] = val;
  return 0;
}

/* Find key, or insert it with value val: a pointer to its value, *found
 * saying which; NULL when out of memory. */
static inline uint32_t *llamp_map_upsert(llamp_map_t *m, uint64_t key, uint32_t val, int *found) {
  if ((m->used + 1) * 4 > (m->mask + 1) * 3) {
    uint32_t *p = llamp_map_find(m, key);
    if (p) {
      *found = 1;
      return p;
    }
    if (llamp_map_put(m, key, val)) return NULL;
    *found = 0;
    return llamp_map_find(m, key);
  }
  uint64_t i = llamp_map_hash(key) & m->mask;
  while (m->keys[i] != LLAMP_MAP_EMPTY) {
    if (m->keys[i] == key) {
      *found = 1;
      return &m->vals[i];
    }
    i = (i + 1) & m->mask;
  }
  m->keys[i] = key;
  m->vals[i] = val;
  m->used++;
  *found = 0;
  return &m->vals[i];
}

/* The slot holding key, or UINT64_MAX. */
static inline uint64_t llamp_map_slot(const llamp_map_t *m, uint64_t key) {
  for (uint64_t i = llamp_map_hash(key) & m->mask;; i = (i + 1) & m->mask) {
    if (m->keys[i] == key) return i;
    if (m->keys[i] == LLAMP_MAP_EMPTY) return UINT64_MAX;
  }
}

/* Delete the entry in slot i (backward shift: an entry further on moves
 * into the hole when its home slot is not cyclically after the hole). */
static inline void llamp_map_del_slot(llamp_map_t *m, uint64_t i) {
  uint64_t j = i;
  for (;;) {
    j = (j + 1) & m->mask;
    if (m->keys[j] == LLAMP_MAP_EMPTY) break;
    uint64_t home = llamp_map_hash(m->keys[j]) & m->mask;
    if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
      m->keys[i] = m->keys[j];
      m->vals[i] = m->vals[j];
      i = j;
    }
  }
  m->keys[i] = LLAMP_MAP_EMPTY;
  m->used--;
}

/* Remove key; returns 1 and its value in *val if it was there. */
static inline int llamp_map_take(llamp_map_t *m, uint64_t key, uint32_t *val) {
  for (uint64_t i = llamp_map_hash(key) & m->mask;; i = (i + 1) & m->mask) {
    if (m->keys[i] == key) {
      if (val) *val = m->vals[i];
      llamp_map_del_slot(m, i);
      return 1;
    }
    if (m->keys[i] == LLAMP_MAP_EMPTY) return 0;
  }
}

static inline void llamp_map_del(llamp_map_t *m, uint64_t key) { llamp_map_take(m, key, NULL); }


/* The smallest power of two holding `expect` entries at half load (>= 16). */
static inline uint64_t llamp_map_size_for(uint64_t expect) {
  uint64_t cap = 16;
  while (cap < 2 * expect) cap <<= 1;
  return cap;
}
#endif
