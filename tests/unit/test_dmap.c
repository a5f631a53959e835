/* The dense map (llamp_dmap.h) against a plain list: random inserts, finds
 * and erases around the scan/index threshold and far above it, values kept
 * with their keys through the moves. */
#include <stdint.h>
#include <stdlib.h>

#include "llamp_dmap.h"
#include "llamp_test.h"

typedef struct {
  uint64_t id;
  uint32_t check;
} val_t;

#define MAXK 4096
static uintptr_t ref_key[MAXK];
static uint64_t ref_id[MAXK];
static uint32_t ref_n;

static int ref_pos(uintptr_t k) {
  for (uint32_t i = 0; i < ref_n; i++)
    if (ref_key[i] == k) return (int)i;
  return -1;
}

/* Every key of the reference is found with its value, the map holds no more. */
static void same(const llamp_dmap_t *m) {
  CHECK(m->n == ref_n);
  for (uint32_t i = 0; i < ref_n; i++) {
    val_t *v = llamp_dmap_find(m, ref_key[i]);
    CHECK(v && v->id == ref_id[i] && v->check == (uint32_t)(ref_key[i] * 2654435761u));
  }
}

/* A random walk whose live count drifts around `target`. */
static void walk(uint32_t target, int steps, unsigned seed, uintptr_t stride) {
  llamp_dmap_t m;
  llamp_dmap_init(&m, sizeof(val_t));
  srand(seed);
  ref_n = 0;
  uint64_t next = 1;
  uint32_t most = 0;
  for (int s = 0; s < steps; s++) {
    int r = rand() % 100;
    /* keys from a small pool, so erased handles come back (SMPI reuses them) */
    uintptr_t k = (uintptr_t)(1 + rand() % (int)(3 * target + 8)) * stride;
    int p = ref_pos(k);
    if (r < (ref_n < target ? 65 : 35)) { /* insert (an existing key returns its entry) */
      val_t *v = llamp_dmap_insert(&m, k);
      CHECK(v != NULL);
      if (!v) break;
      if (p < 0) {
        CHECK(v->id == 0 && v->check == 0);
        v->id = next;
        v->check = (uint32_t)(k * 2654435761u);
        ref_key[ref_n] = k;
        ref_id[ref_n++] = next++;
      } else {
        CHECK(v->id == ref_id[p]);
      }
    } else if (p >= 0) { /* erase */
      val_t *v = llamp_dmap_find(&m, k);
      CHECK(v != NULL);
      if (v) llamp_dmap_erase(&m, v);
      ref_key[p] = ref_key[ref_n - 1];
      ref_id[p] = ref_id[--ref_n];
    } else {
      CHECK(llamp_dmap_find(&m, k) == NULL);
    }
    if (m.n > most) most = m.n;
    if (s % 97 == 0) same(&m);
  }
  same(&m);
  /* an index exactly when the map ever held more than the scan limit; once made, it stays */
  CHECK((m.slot != NULL) == (most > LLAMP_DMAP_SCAN));
  /* empty it in insertion-independent order */
  while (ref_n) {
    uint32_t i = (uint32_t)rand() % ref_n;
    val_t *v = llamp_dmap_find(&m, ref_key[i]);
    CHECK(v && v->id == ref_id[i]);
    if (!v) break;
    llamp_dmap_erase(&m, v);
    ref_key[i] = ref_key[ref_n - 1];
    ref_id[i] = ref_id[--ref_n];
  }
  CHECK(m.n == 0);
  CHECK(llamp_dmap_find(&m, stride) == NULL);
  llamp_dmap_free(&m);
  CHECK(m.n == 0 && m.key == NULL && m.vsize == sizeof(val_t));
}

int main(void) {
  /* key 0 is never a key */
  llamp_dmap_t m;
  llamp_dmap_init(&m, sizeof(val_t));
  CHECK(llamp_dmap_insert(&m, 0) == NULL && m.n == 0);
  CHECK(llamp_dmap_find(&m, 0) == NULL);
  /* positions: dense, in insertion order, the last moves into a hole */
  for (uintptr_t k = 1; k <= 5; k++) ((val_t *)llamp_dmap_insert(&m, k * 16))->id = k;
  CHECK(m.n == 5 && m.key[0] == 16 && m.key[4] == 80 && m.slot == NULL);
  llamp_dmap_erase(&m, llamp_dmap_find(&m, 32));
  CHECK(m.n == 4 && m.key[1] == 80 && ((val_t *)llamp_dmap_at(&m, 1))->id == 5);
  /* the index arrives with the 17th key and answers the same */
  for (uintptr_t k = 6; k <= LLAMP_DMAP_SCAN + 1; k++) llamp_dmap_insert(&m, k * 16);
  CHECK(m.n == LLAMP_DMAP_SCAN && m.slot == NULL);
  llamp_dmap_insert(&m, 1000 * 16);
  CHECK(m.n == LLAMP_DMAP_SCAN + 1 && m.slot != NULL);
  CHECK(((val_t *)llamp_dmap_find(&m, 80))->id == 5 && llamp_dmap_find(&m, 32) == NULL);
  llamp_dmap_free(&m);

  walk(8, 20000, 1, 16);    /* a halo's few requests: scans only */
  walk(15, 20000, 2, 16);   /* around the threshold */
  walk(40, 40000, 3, 48);   /* a 26-neighbour exchange */
  walk(1500, 60000, 4, 16); /* thousands posted at once; the index grows */
  walk(600, 30000, 5, 1);   /* consecutive keys: the hash must still spread them */
  return llamp_test_failures ? 1 : 0;
}
