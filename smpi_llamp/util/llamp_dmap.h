/* llamp_dmap.h - a dense map: nonzero uintptr keys -> fixed-size values,
 * kept in two arrays of the same order, [0, n).  Lookups scan the keys
 * while there are at most LLAMP_DMAP_SCAN of them; past that a hash index of
 * positions (linear probing, backward-shift deletion) joins them.  Erasing
 * moves the last entry into the hole.
 *
 * Made for the capture's live requests: a rank has a few (a halo's 8) and
 * looks them up right after a PMPI call that let the other ranks run, so
 * every line a lookup touches is a cache miss.  Dense keys are one or two
 * lines; the hash map they replaced spread 8 requests over 8 lines of a
 * 2 KiB table.  Out of memory: insert returns NULL and the map is unchanged. */
#ifndef LLAMP_DMAP_H
#define LLAMP_DMAP_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_map.h"

#define LLAMP_DMAP_SCAN 16u

typedef struct { /* 40 bytes: a user can keep it in one cache line with its neighbours */
  uintptr_t *key; /* [0, n) */
  char *val;      /* [0, n), vsize bytes each */
  uint32_t *slot; /* position + 1, 0 = empty; NULL while no index */
  uint32_t n, cap;
  uint32_t vsize, mask;
} llamp_dmap_t;

static inline void llamp_dmap_init(llamp_dmap_t *m, uint32_t vsize) {
  memset(m, 0, sizeof *m);
  m->vsize = vsize;
}

static inline void *llamp_dmap_at(const llamp_dmap_t *m, uint32_t pos) { return m->val + (size_t)pos * m->vsize; }

/* The index slot holding key k, or the empty slot where it would go. */
static inline uint32_t *llamp_dmap_slot_(const llamp_dmap_t *m, uintptr_t k) {
  for (size_t i = llamp_map_hash(k) & m->mask;; i = (i + 1) & m->mask)
    if (!m->slot[i] || m->key[m->slot[i] - 1] == k) return &m->slot[i];
}

/* An index for the present keys with room for 4x the capacity; -1 out of memory. */
static inline int llamp_dmap_index_(llamp_dmap_t *m) {
  size_t cap = 64;
  while (cap < 4 * (size_t)m->cap) cap *= 2;
  if (cap > (size_t)UINT32_MAX + 1) return -1;
  uint32_t *s = calloc(cap, sizeof *s);
  if (!s) return -1;
  free(m->slot);
  m->slot = s;
  m->mask = (uint32_t)(cap - 1);
  for (uint32_t p = 0; p < m->n; p++) *llamp_dmap_slot_(m, m->key[p]) = p + 1;
  return 0;
}

/* k's value, NULL when absent (or k == 0). */
static inline void *llamp_dmap_find(const llamp_dmap_t *m, uintptr_t k) {
  if (!k) return NULL;
  if (m->slot) {
    uint32_t s = *llamp_dmap_slot_(m, k);
    return s ? llamp_dmap_at(m, s - 1) : NULL;
  }
  for (uint32_t p = 0; p < m->n; p++)
    if (m->key[p] == k) return llamp_dmap_at(m, p);
  return NULL;
}

/* k's value, added zeroed when absent; NULL when out of memory (or k == 0). */
static inline void *llamp_dmap_insert(llamp_dmap_t *m, uintptr_t k) {
  void *v = llamp_dmap_find(m, k);
  if (v || !k) return v;
  if (m->n == m->cap) {
    if (m->cap >= (1u << 29)) return NULL; /* the index's 4x must fit 32 bits */
    uint32_t cap = m->cap ? 2 * m->cap : LLAMP_DMAP_SCAN;
    uintptr_t *key = realloc(m->key, cap * sizeof *key);
    if (!key) return NULL;
    m->key = key;
    char *val = realloc(m->val, (size_t)cap * m->vsize);
    if (!val) return NULL;
    m->val = val;
    uint32_t old = m->cap;
    m->cap = cap;
    if (m->slot && llamp_dmap_index_(m)) { /* the old index still serves */
      m->cap = old;
      return NULL;
    }
  }
  if (!m->slot && m->n + 1 > LLAMP_DMAP_SCAN && llamp_dmap_index_(m)) return NULL;
  uint32_t p = m->n++;
  m->key[p] = k;
  v = llamp_dmap_at(m, p);
  memset(v, 0, m->vsize);
  if (m->slot) *llamp_dmap_slot_(m, k) = p + 1;
  return v;
}

/* Remove the entry whose value is v (from find or insert). */
static inline void llamp_dmap_erase(llamp_dmap_t *m, void *v) {
  uint32_t p = (uint32_t)(((char *)v - m->val) / m->vsize), last = m->n - 1;
  if (m->slot) { /* free p's slot, shifting its cluster back; then last's slot says p */
    size_t i = (size_t)(llamp_dmap_slot_(m, m->key[p]) - m->slot);
    m->slot[i] = 0;
    for (size_t j = (i + 1) & m->mask; m->slot[j]; j = (j + 1) & m->mask) {
      size_t home = llamp_map_hash(m->key[m->slot[j] - 1]) & m->mask;
      if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
        m->slot[i] = m->slot[j];
        m->slot[j] = 0;
        i = j;
      }
    }
    if (p != last) *llamp_dmap_slot_(m, m->key[last]) = p + 1;
  }
  if (p != last) {
    m->key[p] = m->key[last];
    memcpy(v, llamp_dmap_at(m, last), m->vsize);
  }
  m->n = last;
}

static inline void llamp_dmap_free(llamp_dmap_t *m) {
  free(m->key);
  free(m->val);
  free(m->slot);
  uint32_t vsize = m->vsize;
  memset(m, 0, sizeof *m);
  m->vsize = vsize;
}

#endif
