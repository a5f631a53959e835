/* native_reqs.c - request keys for the capture under MPICH (native_reqs.h).
 * The outstanding builtin requests are few at any time (the sends a rank
 * has in flight), so they live in a small array searched linearly. */
#include "native_reqs.h"

#include <stdint.h>
#include <stdlib.h>

/* MPICH handle layout: bits 30-31 are the kind; 1 = builtin object. */
#define IS_BUILTIN(h) ((((uint32_t)(h)) >> 30) == 1u)
#define KEY_BASE 0x01000000u
#define KEY_MASK 0x00ffffffu

typedef struct {
  MPI_Request *slot; /* where the program received the handle */
  MPI_Request handle;
  MPI_Request key;
  uint64_t seq; /* creation order, for the oldest-first fallback */
} lw_t;

static struct {
  lw_t *v;
  size_t n, cap;
  uint64_t seq;
  uint32_t next;
  MPI_Request one;
  MPI_Request *keys;
  int *ent; /* per slot of the last keys() call: entry index or -1 */
  size_t kcap;
} R;

static void oom(void) {
  /* the capture cannot continue without its tables; PMPI_Abort is safe here */
  PMPI_Abort(MPI_COMM_WORLD, 1);
  abort();
}

static MPI_Request fresh_key(void) {
  uint32_t k = KEY_BASE | (R.next++ & KEY_MASK);
  return (MPI_Request)k;
}

MPI_Request *llamp_native_req_new(int ret, MPI_Request *slot) {
  if (ret != MPI_SUCCESS || !slot || !IS_BUILTIN(*slot)) return slot;
  size_t i;
  for (i = 0; i < R.n; i++) /* the slot held a request we never saw released */
    if (R.v[i].slot == slot) break;
  if (i == R.n) {
    if (R.n == R.cap) {
      size_t cap = R.cap ? 2 * R.cap : 64;
      lw_t *v = realloc(R.v, cap * sizeof *v);
      if (!v) oom();
      R.v = v;
      R.cap = cap;
    }
    R.n++;
  }
  R.v[i] = (lw_t){slot, *slot, fresh_key(), R.seq++};
  R.one = R.v[i].key;
  return &R.one;
}

MPI_Request *llamp_native_req_keys(int n, MPI_Request *reqs) {
  if (n < 0 || !reqs) n = 0;
  if ((size_t)n > R.kcap) {
    size_t cap = R.kcap ? R.kcap : 64;
    while (cap < (size_t)n) cap *= 2;
    MPI_Request *k = realloc(R.keys, cap * sizeof *k);
    if (!k) oom();
    R.keys = k;
    int *e = realloc(R.ent, cap * sizeof *e);
    if (!e) oom();
    R.ent = e;
    R.kcap = cap;
  }
  for (int i = 0; i < n; i++) {
    R.ent[i] = -1;
    R.keys[i] = reqs[i];
    if (!IS_BUILTIN(reqs[i])) continue;
    int found = -1;
    for (size_t j = 0; j < R.n && found < 0; j++)
      if (R.v[j].slot == &reqs[i] && R.v[j].handle == reqs[i]) found = (int)j;
    if (found < 0) /* copied elsewhere: the oldest key of this handle not taken yet */
      for (size_t j = 0; j < R.n; j++) {
        if (R.v[j].handle != reqs[i]) continue;
        int taken = 0;
        for (int k = 0; k < i && !taken; k++) taken = R.ent[k] == (int)j;
        if (!taken && (found < 0 || R.v[j].seq < R.v[found].seq)) found = (int)j;
      }
    R.ent[i] = found;
    R.keys[i] = found >= 0 ? R.v[found].key : fresh_key(); /* unknown: the capture counts it */
  }
  return R.keys;
}

void llamp_native_req_after(int n, const MPI_Request *reqs) {
  if (n < 0 || !reqs) return;
  /* entries whose slot no longer holds the builtin handle were completed or
   * freed; remove them (highest index first keeps the others' indices) */
  int changed = 0;
  for (int i = 0; i < n && (size_t)i < R.kcap; i++) {
    int j = R.ent[i];
    if (j < 0 || reqs[i] == R.v[j].handle) continue;
    R.v[j].slot = NULL; /* mark */
    changed = 1;
  }
  if (!changed) return;
  size_t w = 0;
  for (size_t j = 0; j < R.n; j++)
    if (R.v[j].slot) R.v[w++] = R.v[j];
  R.n = w;
}
