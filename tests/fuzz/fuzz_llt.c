/* libFuzzer harness for the trace reader (.llt, trace/trace.c) and, for
 * one-rank traces, the trace -> DAG stage (sched/sched.c).
 *
 * Oracle: reading fails with a one-line message, or every record decodes;
 * the records then survive a write/read round trip bit for bit, and the DAG
 * built from them either passes llamp_graph_check or fails with a one-line
 * message.  Each input runs twice: as given (the checksums must catch the
 * mutation) and with its checksums recomputed (to reach the decoder). */
#include "fuzz_util.h"

#include "llamp_graph.h"
#include "llamp_sched.h"
#include "llamp_trace.h"

#define LLT_HEADER 64u
#define LLT_BLOCK 24u

static uint32_t fnv32(const uint8_t *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
  return h;
}

/* trace.c's block_sum over the block header fields and data */
static uint32_t block_sum(uint32_t nrec, uint64_t first, uint32_t bytes, const uint8_t *data) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ first ^ ((uint64_t)nrec << 32) ^ bytes;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    memcpy(&w, data + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < bytes; i++) h = (h ^ data[i]) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (uint32_t)(h ^ (h >> 32));
}

static void fix_checksums(uint8_t *d, size_t size) {
  if (size < LLT_HEADER) return;
  uint64_t data_bytes, names_off;
  uint32_t names_bytes;
  memcpy(&data_bytes, d + 32, 8);
  memcpy(&names_off, d + 40, 8);
  memcpy(&names_bytes, d + 52, 4);
  for (uint64_t off = LLT_HEADER; off + LLT_BLOCK <= size && off - LLT_HEADER < data_bytes;) {
    uint32_t nrec, bytes;
    uint64_t first;
    memcpy(&nrec, d + off + 4, 4);
    memcpy(&first, d + off + 8, 8);
    memcpy(&bytes, d + off + 16, 4);
    if (bytes > size - off - LLT_BLOCK) break;
    uint32_t s = block_sum(nrec, first, bytes, d + off + LLT_BLOCK);
    memcpy(d + off + 20, &s, 4);
    off += LLT_BLOCK + bytes;
  }
  if (names_bytes >= 4 && names_off <= size && names_bytes <= size - names_off) {
    uint32_t s = fnv32(d + names_off, names_bytes - 4u);
    memcpy(d + names_off + names_bytes - 4, &s, 4);
  }
  uint32_t h = fnv32(d, 60);
  memcpy(d + 60, &h, 4);
}

static int same_rec(const llamp_trace_rec_t *a, const llamp_trace_rec_t *b) {
  return a->op == b->op && a->flags == b->flags && a->comm == b->comm && a->peer == b->peer &&
         a->tag == b->tag && a->bytes == b->bytes && !memcmp(&a->t_start, &b->t_start, 8) &&
         !memcmp(&a->t_end, &b->t_end, 8) && a->req == b->req &&
         a->status_source == b->status_source && a->status_tag == b->status_tag &&
         a->nwords == b->nwords;
}

static void one(const uint8_t *data, size_t size) {
  char path[64], err[512] = "";
  int fd = fuzz_memfile(data, size, path, sizeof path);
  llamp_trace_reader_t *r = llamp_trace_reader_open(path, err, sizeof err);
  if (!r) {
    fuzz_check_error(err);
    close(fd);
    return;
  }
  uint32_t world = llamp_trace_reader_world_size(r);
  if (llamp_trace_reader_rank(r) >= world) abort();
  llamp_trace_writer_t *w = llamp_trace_writer_create(NULL, llamp_trace_reader_rank(r), world, 0,
                                                      err, sizeof err);
  if (!w) abort();
  llamp_trace_rec_t rec;
  const uint64_t *pl;
  int k;
  uint64_t n = 0;
  while ((k = llamp_trace_next(r, &rec, &pl, err, sizeof err)) == 1) {
    if (llamp_trace_append(w, &rec, pl) != 0) abort();
    n++;
  }
  if (k < 0) fuzz_check_error(err);
  else if (n != llamp_trace_reader_records(r)) abort();
  llamp_trace_reader_destroy(r);
  if (k == 0) {
    /* round trip through a writer: the same records */
    llamp_trace_reader_t *a = llamp_trace_reader_open(path, err, sizeof err);
    llamp_trace_reader_t *b = llamp_trace_reader_from_writer(w, err, sizeof err);
    if (!a || !b) abort();
    llamp_trace_rec_t ra, rb;
    const uint64_t *pa, *pb;
    for (;;) {
      int ka = llamp_trace_next(a, &ra, &pa, err, sizeof err);
      int kb = llamp_trace_next(b, &rb, &pb, err, sizeof err);
      if (ka != kb || ka < 0) abort();
      if (ka == 0) break;
      if (!same_rec(&ra, &rb) || (ra.nwords && memcmp(pa, pb, ra.nwords * 8u) != 0)) abort();
    }
    llamp_trace_reader_destroy(a);
    llamp_trace_reader_destroy(b);
    /* one rank: the DAG */
    if (world == 1 && n <= 4096) {
      a = llamp_trace_reader_open(path, err, sizeof err);
      if (!a) abort();
      llamp_graph_t *g = llamp_sched_build(&a, 1, NULL, NULL, err, sizeof err);
      if (g) {
        if (llamp_graph_check(g, err, sizeof err) != 0) abort();
        llamp_graph_destroy(g);
      } else {
        fuzz_check_error(err);
      }
      llamp_trace_reader_destroy(a);
    }
  }
  llamp_trace_writer_destroy(w);
  close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  one(data, size);
  if (size >= LLT_HEADER) {
    uint8_t *fixed = malloc(size);
    memcpy(fixed, data, size);
    fix_checksums(fixed, size);
    if (memcmp(fixed, data, size) != 0) one(fixed, size);
    free(fixed);
  }
  return 0;
}
