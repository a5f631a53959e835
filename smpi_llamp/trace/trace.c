/* trace.c - per-rank MPI call records: writer (memory chunks, spill file),
 * reader (writer memory + spill file, or a file), op names.
 *
 * Memory: records go into chunks (64 KiB growing to 4 MiB), 64 bytes each
 * plus their payload words, packed back to back; a record never straddles
 * two chunks, so the reader hands out pointers into the chunk.  No
 * allocation per record.
 *
 * File <dir>/rank-<r>.llt (little-endian, docs/trace.md):
 *   header (64 bytes)  magic "LLAMPTRC", version, byte-order mark, rank,
 *                      world size, record count (UINT64_MAX until the
 *                      writer is flushed), bytes of the record section,
 *                      offset / count / bytes of the name table, record
 *                      size, header checksum
 *   records            each a llamp_trace_rec_t (64 bytes) whose `reserved`
 *                      field holds a checksum of the record, its payload and
 *                      its index, followed by its payload words
 *   name table         per name: u32 length + bytes; then u32 checksum
 * A spill appends records after the last ones on file; a flush writes the
 * rest, the name table after them and the final header, and truncates. */
#define _XOPEN_SOURCE 700
#include "llamp_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(llamp_trace_rec_t) == 64, "trace records are 64 bytes");

#define LLT_MAGIC "LLAMPTRC"
#define LLT_VERSION 1u
#define LLT_BOM 0x01020304u
#define LLT_HEADER_BYTES 64u
#define LLT_INCOMPLETE UINT64_MAX
#define LLT_MAX_WORDS (1u << 28)
#define LLT_MAX_NAME 1024u
#define CHUNK_MIN ((size_t)64 << 10)
#define CHUNK_MAX ((size_t)4 << 20)

typedef struct {
  char magic[8];
  uint32_t version, byte_order, rank, world_size;
  uint64_t num_records, data_bytes, names_offset;
  uint32_t num_names, names_bytes, record_bytes, checksum;
} llt_header_t;
_Static_assert(sizeof(llt_header_t) == LLT_HEADER_BYTES, "header is 64 bytes");

typedef struct chunk {
  struct chunk *next;
  size_t used, cap; /* bytes of data */
  uint64_t nrec;
  uint64_t data[]; /* records and payloads, 8-byte aligned */
} chunk_t;

struct llamp_trace_writer {
  char path[4096];
  int has_dir;
  uint32_t rank, world;
  size_t spill_bytes;
  chunk_t *head, *tail, *spare;
  size_t next_chunk;
  uint64_t total;       /* records appended */
  uint64_t mem_first;   /* index of the first record held in memory */
  size_t mem_used;      /* bytes of records held in memory */
  size_t mem_alloc;     /* bytes of chunks allocated (held + spare) */
  /* file: records [0, file_records) are on file, file_bytes of them */
  int fd;
  uint64_t file_records, file_bytes;
  /* records [mem_first, file_records) are both in memory and on file (after
   * a flush); `released_bytes` = file bytes of records [0, mem_first). */
  uint64_t released_bytes;
  /* interned names */
  char *arena;
  size_t arena_len, arena_cap;
  uint32_t *name_off, *name_len;
  uint32_t nnames, names_cap;
  uint32_t *slots; /* id + 1, 0 = empty */
  uint32_t slot_mask;
  char err[512];
};

struct llamp_trace_reader {
  char path[4096];
  const llamp_trace_writer_t *w; /* names come from here when set */
  uint32_t rank, world;
  uint64_t index, total;
  /* file part: records [0, file_records) */
  int fd;
  uint64_t file_records, file_left; /* bytes of records still to read */
  int file_short;                   /* the file ends before its name table */
  unsigned char *buf;
  size_t buf_cap, buf_pos, buf_len;
  /* memory part */
  const chunk_t *chunk;
  size_t chunk_pos;
  /* names read from a file */
  char *names;
  uint32_t *name_off;
  uint32_t nnames;
};

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || !errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* ---- checksums ------------------------------------------------------------ */

static inline uint64_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

/* Checksum of record `index` (its `reserved` word excluded) and payload. */
static uint32_t rec_sum(const llamp_trace_rec_t *r, const uint64_t *payload, uint64_t index) {
  uint64_t w[8];
  memcpy(w, r, 64);
  w[7] &= 0xffffffffull; /* nwords stays, reserved goes */
  uint64_t h = mix64(index + 0x9e3779b97f4a7c15ull);
  for (int i = 0; i < 8; i++) h = (h ^ w[i]) * 0x100000001b3ull + (h >> 29);
  for (uint32_t i = 0; i < r->nwords; i++) h = (h ^ payload[i]) * 0x100000001b3ull + (h >> 29);
  h = mix64(h);
  return (uint32_t)(h ^ (h >> 32));
}

static uint32_t bytes_sum(const void *p, size_t n) {
  const unsigned char *s = p;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
  return h;
}

static uint32_t header_sum(const llt_header_t *h) { return bytes_sum(h, offsetof(llt_header_t, checksum)); }

/* ---- op names --------------------------------------------------------------- */

static const char *const op_names[LLAMP_OP_COUNT_] = {
    [LLAMP_OP_INIT] = "MPI_Init",
    [LLAMP_OP_FINALIZE] = "MPI_Finalize",
    [LLAMP_OP_SEND] = "MPI_Send",
    [LLAMP_OP_SSEND] = "MPI_Ssend",
    [LLAMP_OP_BSEND] = "MPI_Bsend",
    [LLAMP_OP_RSEND] = "MPI_Rsend",
    [LLAMP_OP_RECV] = "MPI_Recv",
    [LLAMP_OP_SENDRECV] = "MPI_Sendrecv",
    [LLAMP_OP_SENDRECV_REPLACE] = "MPI_Sendrecv_replace",
    [LLAMP_OP_PROBE] = "MPI_Probe",
    [LLAMP_OP_IPROBE] = "MPI_Iprobe",
    [LLAMP_OP_ISEND] = "MPI_Isend",
    [LLAMP_OP_ISSEND] = "MPI_Issend",
    [LLAMP_OP_IBSEND] = "MPI_Ibsend",
    [LLAMP_OP_IRSEND] = "MPI_Irsend",
    [LLAMP_OP_IRECV] = "MPI_Irecv",
    [LLAMP_OP_SEND_INIT] = "MPI_Send_init",
    [LLAMP_OP_RECV_INIT] = "MPI_Recv_init",
    [LLAMP_OP_START] = "MPI_Start",
    [LLAMP_OP_STARTALL] = "MPI_Startall",
    [LLAMP_OP_WAIT] = "MPI_Wait",
    [LLAMP_OP_WAITALL] = "MPI_Waitall",
    [LLAMP_OP_WAITANY] = "MPI_Waitany",
    [LLAMP_OP_WAITSOME] = "MPI_Waitsome",
    [LLAMP_OP_TEST] = "MPI_Test",
    [LLAMP_OP_TESTALL] = "MPI_Testall",
    [LLAMP_OP_TESTANY] = "MPI_Testany",
    [LLAMP_OP_TESTSOME] = "MPI_Testsome",
    [LLAMP_OP_REQUEST_FREE] = "MPI_Request_free",
    [LLAMP_OP_BARRIER] = "MPI_Barrier",
    [LLAMP_OP_BCAST] = "MPI_Bcast",
    [LLAMP_OP_REDUCE] = "MPI_Reduce",
    [LLAMP_OP_ALLREDUCE] = "MPI_Allreduce",
    [LLAMP_OP_GATHER] = "MPI_Gather",
    [LLAMP_OP_GATHERV] = "MPI_Gatherv",
    [LLAMP_OP_SCATTER] = "MPI_Scatter",
    [LLAMP_OP_SCATTERV] = "MPI_Scatterv",
    [LLAMP_OP_ALLGATHER] = "MPI_Allgather",
    [LLAMP_OP_ALLGATHERV] = "MPI_Allgatherv",
    [LLAMP_OP_ALLTOALL] = "MPI_Alltoall",
    [LLAMP_OP_ALLTOALLV] = "MPI_Alltoallv",
    [LLAMP_OP_REDUCE_SCATTER] = "MPI_Reduce_scatter",
    [LLAMP_OP_REDUCE_SCATTER_BLOCK] = "MPI_Reduce_scatter_block",
    [LLAMP_OP_SCAN] = "MPI_Scan",
    [LLAMP_OP_EXSCAN] = "MPI_Exscan",
    [LLAMP_OP_IBARRIER] = "MPI_Ibarrier",
    [LLAMP_OP_IBCAST] = "MPI_Ibcast",
    [LLAMP_OP_IREDUCE] = "MPI_Ireduce",
    [LLAMP_OP_IALLREDUCE] = "MPI_Iallreduce",
    [LLAMP_OP_IGATHER] = "MPI_Igather",
    [LLAMP_OP_IGATHERV] = "MPI_Igatherv",
    [LLAMP_OP_ISCATTER] = "MPI_Iscatter",
    [LLAMP_OP_ISCATTERV] = "MPI_Iscatterv",
    [LLAMP_OP_IALLGATHER] = "MPI_Iallgather",
    [LLAMP_OP_IALLGATHERV] = "MPI_Iallgatherv",
    [LLAMP_OP_IALLTOALL] = "MPI_Ialltoall",
    [LLAMP_OP_IALLTOALLV] = "MPI_Ialltoallv",
    [LLAMP_OP_IREDUCE_SCATTER] = "MPI_Ireduce_scatter",
    [LLAMP_OP_ISCAN] = "MPI_Iscan",
    [LLAMP_OP_IEXSCAN] = "MPI_Iexscan",
    [LLAMP_OP_COMM_SPLIT] = "MPI_Comm_split",
    [LLAMP_OP_COMM_DUP] = "MPI_Comm_dup",
    [LLAMP_OP_COMM_CREATE] = "MPI_Comm_create",
    [LLAMP_OP_COMM_FREE] = "MPI_Comm_free",
    [LLAMP_OP_UNMODELLED] = "(unmodelled)",
};

const char *llamp_trace_op_name(llamp_trace_op_t op) {
  if ((int)op <= 0 || op >= LLAMP_OP_COUNT_ || !op_names[op]) return "(invalid)";
  return op_names[op];
}

/* ---- writer ------------------------------------------------------------------- */

static void werr(llamp_trace_writer_t *w, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->err, sizeof w->err, fmt, ap);
  va_end(ap);
}

llamp_trace_writer_t *llamp_trace_writer_create(const char *dir, uint32_t rank,
                                                uint32_t world_size, size_t spill_bytes,
                                                char *err, size_t errlen) {
  if (world_size == 0 || rank >= world_size) {
    seterr(err, errlen, "trace writer: rank %u out of range (world size %u)", rank, world_size);
    return NULL;
  }
  if (spill_bytes && (!dir || !*dir)) {
    seterr(err, errlen, "trace writer: rank %u: spilling needs a directory", rank);
    return NULL;
  }
  if (dir && *dir) {
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
      seterr(err, errlen, "%s: not a directory (trace spill directory)", dir);
      return NULL;
    }
  }
  llamp_trace_writer_t *w = calloc(1, sizeof *w);
  if (!w) {
    seterr(err, errlen, "trace writer: out of memory");
    return NULL;
  }
  w->rank = rank;
  w->world = world_size;
  w->spill_bytes = spill_bytes;
  w->fd = -1;
  w->next_chunk = CHUNK_MIN;
  if (dir && *dir) {
    int n = snprintf(w->path, sizeof w->path, "%s/rank-%u.llt", dir, rank);
    if (n < 0 || (size_t)n >= sizeof w->path) {
      seterr(err, errlen, "%s: directory name too long", dir);
      free(w);
      return NULL;
    }
    w->has_dir = 1;
  }
  return w;
}

const char *llamp_trace_writer_error(const llamp_trace_writer_t *w) {
  return w ? w->err : "no trace writer";
}

size_t llamp_trace_writer_memory(const llamp_trace_writer_t *w) {
  size_t m = w->mem_alloc + w->arena_cap + (size_t)w->names_cap * 8u;
  if (w->slots) m += ((size_t)w->slot_mask + 1) * 4u;
  return m;
}

static chunk_t *chunk_new(llamp_trace_writer_t *w, size_t need) {
  size_t cap = w->next_chunk;
  if (w->spill_bytes && cap > w->spill_bytes + 64) cap = w->spill_bytes < 4096 ? 4096 : w->spill_bytes;
  if (cap < need) cap = need;
  chunk_t *c;
  if (w->spare && w->spare->cap >= cap && need <= w->spare->cap) {
    c = w->spare;
    w->spare = NULL;
  } else {
    c = malloc(sizeof *c + cap);
    if (!c) return NULL;
    c->cap = cap;
    w->mem_alloc += sizeof *c + cap;
    if (w->next_chunk < CHUNK_MAX) w->next_chunk *= 2;
  }
  c->next = NULL;
  c->used = 0;
  c->nrec = 0;
  return c;
}

static int write_all(int fd, const void *p, size_t n) {
  const char *s = p;
  while (n) {
    ssize_t k = write(fd, s, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    s += k;
    n -= (size_t)k;
  }
  return 0;
}

static int pwrite_all(int fd, const void *p, size_t n, off_t off) {
  const char *s = p;
  while (n) {
    ssize_t k = pwrite(fd, s, n, off);
    if (k < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    s += k;
    n -= (size_t)k;
    off += k;
  }
  return 0;
}

static void fill_header(const llamp_trace_writer_t *w, llt_header_t *h, uint64_t nrec,
                        uint64_t data_bytes, uint64_t names_off, uint32_t names_bytes) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, LLT_MAGIC, 8);
  h->version = LLT_VERSION;
  h->byte_order = LLT_BOM;
  h->rank = w->rank;
  h->world_size = w->world;
  h->num_records = nrec;
  h->data_bytes = data_bytes;
  h->names_offset = names_off;
  h->num_names = names_off ? w->nnames : 0;
  h->names_bytes = names_bytes;
  h->record_bytes = sizeof(llamp_trace_rec_t);
  h->checksum = header_sum(h);
}

static int open_file(llamp_trace_writer_t *w) {
  if (w->fd >= 0) return 0;
  if (!w->has_dir) {
    werr(w, "trace writer: rank %u has no directory to write to", w->rank);
    return -1;
  }
  w->fd = open(w->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (w->fd < 0) {
    werr(w, "%s: cannot create: %s", w->path, strerror(errno));
    return -1;
  }
  llt_header_t h;
  fill_header(w, &h, LLT_INCOMPLETE, 0, 0, 0);
  if (write_all(w->fd, &h, sizeof h)) {
    werr(w, "%s: write failed: %s", w->path, strerror(errno));
    return -1;
  }
  return 0;
}

/* Write the records [file_records, total) that sit in memory to the file
 * (checksumming them in place), after the records already there. */
static int write_pending(llamp_trace_writer_t *w) {
  if (open_file(w)) return -1;
  uint64_t idx = w->mem_first;
  off_t off = (off_t)(LLT_HEADER_BYTES + w->released_bytes);
  for (chunk_t *c = w->head; c; c = c->next) {
    unsigned char *p = (unsigned char *)c->data, *end = p + c->used, *from = NULL;
    off_t from_off = 0;
    while (p < end) {
      llamp_trace_rec_t *r = (llamp_trace_rec_t *)p;
      size_t sz = 64u + (size_t)r->nwords * 8u;
      if (idx >= w->file_records) {
        if (!from) {
          from = p;
          from_off = off;
        }
        r->reserved = rec_sum(r, (const uint64_t *)(p + 64), idx);
      }
      p += sz;
      off += (off_t)sz;
      idx++;
    }
    if (from && pwrite_all(w->fd, from, (size_t)(end - from), from_off)) {
      werr(w, "%s: write failed: %s", w->path, strerror(errno));
      return -1;
    }
  }
  w->file_bytes = (uint64_t)off - LLT_HEADER_BYTES;
  w->file_records = w->total;
  return 0;
}

static void release_memory(llamp_trace_writer_t *w) {
  chunk_t *keep = NULL;
  for (chunk_t *c = w->head; c;) {
    chunk_t *n = c->next;
    if (!keep && c->cap <= CHUNK_MAX) {
      keep = c;
    } else {
      w->mem_alloc -= sizeof *c + c->cap;
      free(c);
    }
    c = n;
  }
  if (keep) {
    if (w->spare) {
      w->mem_alloc -= sizeof *w->spare + w->spare->cap;
      free(w->spare);
    }
    w->spare = keep;
  }
  w->head = w->tail = NULL;
  w->released_bytes += w->mem_used;
  w->mem_used = 0;
  w->mem_first = w->total;
}

static int spill(llamp_trace_writer_t *w) {
  if (write_pending(w)) return -1;
  release_memory(w);
  return 0;
}

int llamp_trace_append(llamp_trace_writer_t *w, const llamp_trace_rec_t *rec,
                       const uint64_t *payload) {
  if (rec->op == 0 || rec->op >= LLAMP_OP_COUNT_) {
    werr(w, "trace writer: rank %u record %llu: invalid op %u", w->rank,
         (unsigned long long)w->total, rec->op);
    return -1;
  }
  if (rec->nwords > LLT_MAX_WORDS || (rec->nwords && !payload)) {
    werr(w, "trace writer: rank %u record %llu: %s with %u payload words%s", w->rank,
         (unsigned long long)w->total, llamp_trace_op_name((llamp_trace_op_t)rec->op),
         rec->nwords, rec->nwords > LLT_MAX_WORDS ? " (too many)" : " but no payload");
    return -1;
  }
  size_t sz = 64u + (size_t)rec->nwords * 8u;
  chunk_t *c = w->tail;
  if (!c || c->cap - c->used < sz) {
    chunk_t *n = chunk_new(w, sz);
    if (!n) {
      werr(w, "trace writer: rank %u: out of memory after %llu records", w->rank,
           (unsigned long long)w->total);
      return -1;
    }
    if (c)
      c->next = n;
    else
      w->head = n;
    w->tail = c = n;
  }
  unsigned char *p = (unsigned char *)c->data + c->used;
  memcpy(p, rec, 64);
  ((llamp_trace_rec_t *)p)->reserved = 0;
  if (rec->nwords) memcpy(p + 64, payload, (size_t)rec->nwords * 8u);
  c->used += sz;
  c->nrec++;
  w->mem_used += sz;
  w->total++;
  if (w->spill_bytes && w->mem_used > w->spill_bytes) return spill(w);
  return 0;
}

static uint32_t name_hash(const char *s, size_t n) { return bytes_sum(s, n); }

int32_t llamp_trace_intern_name(llamp_trace_writer_t *w, const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > LLT_MAX_NAME) {
    werr(w, "trace writer: function name of %zu characters (1..%u allowed)", n, LLT_MAX_NAME);
    return -1;
  }
  uint32_t h = name_hash(name, n);
  if (w->slots) {
    for (uint32_t i = h & w->slot_mask;; i = (i + 1) & w->slot_mask) {
      uint32_t s = w->slots[i];
      if (!s) break;
      uint32_t id = s - 1;
      if (w->name_len[id] == n && !memcmp(w->arena + w->name_off[id], name, n)) return (int32_t)id;
    }
  }
  /* new name */
  if (w->nnames >= (1u << 24)) {
    werr(w, "trace writer: too many distinct function names");
    return -1;
  }
  if (w->nnames == w->names_cap) {
    uint32_t cap = w->names_cap ? w->names_cap * 2 : 16;
    uint32_t *o = realloc(w->name_off, cap * sizeof *o);
    if (!o) goto oom;
    w->name_off = o;
    uint32_t *l = realloc(w->name_len, cap * sizeof *l);
    if (!l) goto oom;
    w->name_len = l;
    w->names_cap = cap;
  }
  if (w->arena_len + n + 1 > w->arena_cap) {
    size_t cap = w->arena_cap ? w->arena_cap : 512;
    while (cap < w->arena_len + n + 1) cap *= 2;
    char *a = realloc(w->arena, cap);
    if (!a) goto oom;
    w->arena = a;
    w->arena_cap = cap;
  }
  if (!w->slots || (w->nnames + 1) * 2 > w->slot_mask + 1) {
    uint32_t size = w->slots ? (w->slot_mask + 1) * 2 : 64;
    uint32_t *s = calloc(size, sizeof *s);
    if (!s) goto oom;
    for (uint32_t id = 0; id < w->nnames; id++) {
      uint32_t i = name_hash(w->arena + w->name_off[id], w->name_len[id]) & (size - 1);
      while (s[i]) i = (i + 1) & (size - 1);
      s[i] = id + 1;
    }
    free(w->slots);
    w->slots = s;
    w->slot_mask = size - 1;
  }
  uint32_t id = w->nnames++;
  w->name_off[id] = (uint32_t)w->arena_len;
  w->name_len[id] = (uint32_t)n;
  memcpy(w->arena + w->arena_len, name, n + 1);
  w->arena_len += n + 1;
  uint32_t i = h & w->slot_mask;
  while (w->slots[i]) i = (i + 1) & w->slot_mask;
  w->slots[i] = id + 1;
  return (int32_t)id;
oom:
  werr(w, "trace writer: out of memory interning '%s'", name);
  return -1;
}

uint64_t llamp_trace_records(const llamp_trace_writer_t *w) { return w->total; }

int llamp_trace_writer_flush(llamp_trace_writer_t *w, char *err, size_t errlen) {
  if (write_pending(w)) goto fail;
  /* the name table */
  size_t tbytes = 4;
  for (uint32_t i = 0; i < w->nnames; i++) tbytes += 4u + w->name_len[i];
  unsigned char *t = malloc(tbytes);
  if (!t) {
    werr(w, "%s: out of memory", w->path);
    goto fail;
  }
  size_t k = 0;
  for (uint32_t i = 0; i < w->nnames; i++) {
    uint32_t len = w->name_len[i];
    memcpy(t + k, &len, 4);
    memcpy(t + k + 4, w->arena + w->name_off[i], len);
    k += 4u + len;
  }
  uint32_t sum = bytes_sum(t, k);
  memcpy(t + k, &sum, 4);
  uint64_t names_off = LLT_HEADER_BYTES + w->file_bytes;
  llt_header_t h;
  fill_header(w, &h, w->total, w->file_bytes, names_off, (uint32_t)tbytes);
  int bad = pwrite_all(w->fd, t, tbytes, (off_t)names_off) ||
            ftruncate(w->fd, (off_t)(names_off + tbytes)) || pwrite_all(w->fd, &h, sizeof h, 0);
  free(t);
  if (bad) {
    werr(w, "%s: write failed: %s", w->path, strerror(errno));
    goto fail;
  }
  return 0;
fail:
  seterr(err, errlen, "%s", w->err);
  return -1;
}

void llamp_trace_writer_destroy(llamp_trace_writer_t *w) {
  if (!w) return;
  for (chunk_t *c = w->head; c;) {
    chunk_t *n = c->next;
    free(c);
    c = n;
  }
  free(w->spare);
  if (w->fd >= 0) close(w->fd);
  free(w->arena);
  free(w->name_off);
  free(w->name_len);
  free(w->slots);
  free(w);
}

/* ---- reader ---------------------------------------------------------------------- */

static llamp_trace_reader_t *reader_new(const char *path) {
  llamp_trace_reader_t *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->fd = -1;
  snprintf(r->path, sizeof r->path, "%s", path);
  return r;
}

static int open_data(llamp_trace_reader_t *r, char *err, size_t errlen) {
  r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
  if (r->fd < 0) {
    seterr(err, errlen, "%s: cannot open: %s", r->path, strerror(errno));
    return -1;
  }
  r->buf_cap = (size_t)1 << 20;
  r->buf = malloc(r->buf_cap);
  if (!r->buf) {
    seterr(err, errlen, "%s: out of memory", r->path);
    return -1;
  }
  if (lseek(r->fd, LLT_HEADER_BYTES, SEEK_SET) < 0) {
    seterr(err, errlen, "%s: cannot seek: %s", r->path, strerror(errno));
    return -1;
  }
  return 0;
}

llamp_trace_reader_t *llamp_trace_reader_from_writer(llamp_trace_writer_t *w, char *err,
                                                     size_t errlen) {
  llamp_trace_reader_t *r = reader_new(w->has_dir ? w->path : "(memory)");
  if (!r) {
    seterr(err, errlen, "trace reader: out of memory");
    return NULL;
  }
  r->w = w;
  r->rank = w->rank;
  r->world = w->world;
  r->total = w->total;
  r->file_records = w->mem_first;
  r->file_left = w->released_bytes;
  r->chunk = w->head;
  if (r->file_records) {
    if (open_data(r, err, errlen)) {
      llamp_trace_reader_destroy(r);
      return NULL;
    }
  }
  return r;
}

/* Read exactly n bytes at offset off; returns bytes read (short at EOF). */
static size_t pread_full(int fd, void *p, size_t n, off_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t k = pread(fd, (char *)p + got, n - got, off + (off_t)got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  return got;
}

llamp_trace_reader_t *llamp_trace_reader_open(const char *path, char *err, size_t errlen) {
  llamp_trace_reader_t *r = reader_new(path);
  if (!r) {
    seterr(err, errlen, "%s: out of memory", path);
    return NULL;
  }
  if (open_data(r, err, errlen)) goto fail;
  llt_header_t h;
  struct stat st;
  if (fstat(r->fd, &st) != 0) {
    seterr(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
    goto fail;
  }
  size_t got = pread_full(r->fd, &h, sizeof h, 0);
  if (got >= 8 && memcmp(h.magic, LLT_MAGIC, 8) != 0) {
    seterr(err, errlen, "%s: not an llamp trace file (bad magic)", path);
    goto fail;
  }
  if (got < sizeof h) {
    seterr(err, errlen, "%s: truncated header (%zu of %u bytes)", path, got, LLT_HEADER_BYTES);
    goto fail;
  }
  if (h.byte_order != LLT_BOM) {
    seterr(err, errlen, "%s: written on a machine of the other byte order", path);
    goto fail;
  }
  if (h.version != LLT_VERSION) {
    seterr(err, errlen, "%s: trace format version %u, this build reads version %u", path, h.version,
           LLT_VERSION);
    goto fail;
  }
  if (h.checksum != header_sum(&h) || h.record_bytes != sizeof(llamp_trace_rec_t) ||
      h.world_size == 0 || h.rank >= h.world_size) {
    seterr(err, errlen, "%s: corrupt header", path);
    goto fail;
  }
  if (h.num_records == LLT_INCOMPLETE) {
    seterr(err, errlen, "%s: incomplete trace (the writer was never flushed)", path);
    goto fail;
  }
  if (h.names_offset != LLT_HEADER_BYTES + h.data_bytes || h.names_bytes < 4 ||
      h.data_bytes / 64 < h.num_records) {
    seterr(err, errlen, "%s: corrupt header (inconsistent sizes)", path);
    goto fail;
  }
  r->rank = h.rank;
  r->world = h.world_size;
  r->total = r->file_records = h.num_records;
  r->file_left = h.data_bytes;
  uint64_t want = h.names_offset + h.names_bytes;
  if ((uint64_t)st.st_size < want) {
    /* Truncated: read the records that are there and fail at the cut. */
    r->file_short = 1;
  } else if ((uint64_t)st.st_size > want) {
    seterr(err, errlen, "%s: %llu unexpected bytes after the name table (corrupt file)", path,
           (unsigned long long)((uint64_t)st.st_size - want));
    goto fail;
  } else {
    unsigned char *t = malloc(h.names_bytes);
    r->names = malloc(h.names_bytes);
    r->name_off = malloc(((size_t)h.num_names + 1) * sizeof *r->name_off);
    if (!t || !r->names || !r->name_off) {
      free(t);
      seterr(err, errlen, "%s: out of memory reading the name table", path);
      goto fail;
    }
    int bad = pread_full(r->fd, t, h.names_bytes, (off_t)h.names_offset) != h.names_bytes;
    uint32_t sum;
    if (!bad) {
      memcpy(&sum, t + h.names_bytes - 4, 4);
      bad = sum != bytes_sum(t, h.names_bytes - 4);
    }
    size_t k = 0, o = 0;
    for (uint32_t i = 0; !bad && i < h.num_names; i++) {
      uint32_t len;
      if (k + 4 > h.names_bytes - 4u) {
        bad = 1;
        break;
      }
      memcpy(&len, t + k, 4);
      if (len == 0 || len > LLT_MAX_NAME || k + 4 + len > h.names_bytes - 4u) {
        bad = 1;
        break;
      }
      r->name_off[i] = (uint32_t)o;
      memcpy(r->names + o, t + k + 4, len);
      r->names[o + len] = 0;
      o += len + 1;
      k += 4u + len;
    }
    if (!bad && k != h.names_bytes - 4u) bad = 1;
    free(t);
    if (bad) {
      seterr(err, errlen, "%s: corrupt name table", path);
      goto fail;
    }
    r->nnames = h.num_names;
  }
  return r;
fail:
  llamp_trace_reader_destroy(r);
  return NULL;
}

uint32_t llamp_trace_reader_rank(const llamp_trace_reader_t *r) { return r->rank; }
uint32_t llamp_trace_reader_world_size(const llamp_trace_reader_t *r) { return r->world; }
uint64_t llamp_trace_reader_records(const llamp_trace_reader_t *r) { return r->total; }

/* Make at least n bytes available at buf + buf_pos; returns bytes available
 * (less than n at the end of the file). */
static size_t fill(llamp_trace_reader_t *r, size_t n) {
  size_t have = r->buf_len - r->buf_pos;
  if (have >= n) return have;
  if (r->buf_pos) {
    memmove(r->buf, r->buf + r->buf_pos, have);
    r->buf_pos = 0;
    r->buf_len = have;
  }
  if (n > r->buf_cap) {
    size_t cap = r->buf_cap;
    while (cap < n) cap *= 2;
    unsigned char *b = realloc(r->buf, cap);
    if (!b) return have;
    r->buf = b;
    r->buf_cap = cap;
  }
  while (r->buf_len < n) {
    ssize_t k = read(r->fd, r->buf + r->buf_len, r->buf_cap - r->buf_len);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    r->buf_len += (size_t)k;
  }
  return r->buf_len;
}

static int next_from_file(llamp_trace_reader_t *r, llamp_trace_rec_t *rec,
                          const uint64_t **payload, char *err, size_t errlen) {
  unsigned long long idx = (unsigned long long)r->index;
  if (r->file_left < 64) {
    seterr(err, errlen, "%s: record %llu: record section ends early (corrupt file)", r->path, idx);
    return -1;
  }
  if (fill(r, 64) < 64) goto truncated;
  memcpy(rec, r->buf + r->buf_pos, 64);
  if (rec->op == 0 || rec->op >= LLAMP_OP_COUNT_) {
    seterr(err, errlen, "%s: record %llu: invalid op %u (corrupt file)", r->path, idx, rec->op);
    return -1;
  }
  uint64_t sz = 64u + (uint64_t)rec->nwords * 8u;
  if (rec->nwords > LLT_MAX_WORDS || sz > r->file_left) {
    seterr(err, errlen, "%s: record %llu: %u payload words run past the record section "
           "(corrupt file)", r->path, idx, rec->nwords);
    return -1;
  }
  if (fill(r, (size_t)sz) < sz) goto truncated;
  const unsigned char *p = r->buf + r->buf_pos;
  const uint64_t *pl = (const uint64_t *)(p + 64);
  if (rec->reserved != rec_sum(rec, pl, r->index)) {
    seterr(err, errlen, "%s: record %llu (%s): checksum mismatch (corrupt file)", r->path, idx,
           llamp_trace_op_name((llamp_trace_op_t)rec->op));
    return -1;
  }
  rec->reserved = 0;
  *payload = rec->nwords ? pl : NULL;
  r->buf_pos += (size_t)sz;
  r->file_left -= sz;
  r->index++;
  return 1;
truncated:
  seterr(err, errlen, "%s: truncated at record %llu of %llu", r->path, idx,
         (unsigned long long)r->file_records);
  return -1;
}

int llamp_trace_next(llamp_trace_reader_t *r, llamp_trace_rec_t *rec, const uint64_t **payload,
                     char *err, size_t errlen) {
  if (r->index >= r->total) {
    if (r->w) return 0;
    if (r->file_left) {
      seterr(err, errlen, "%s: %llu bytes after record %llu (corrupt file)", r->path,
             (unsigned long long)r->file_left, (unsigned long long)r->total);
      return -1;
    }
    if (r->file_short) {
      seterr(err, errlen, "%s: truncated in the name table (after record %llu)", r->path,
             (unsigned long long)r->total);
      return -1;
    }
    return 0;
  }
  if (r->index < r->file_records) return next_from_file(r, rec, payload, err, errlen);
  while (r->chunk && r->chunk_pos >= r->chunk->used) {
    r->chunk = r->chunk->next;
    r->chunk_pos = 0;
  }
  if (!r->chunk) {
    seterr(err, errlen, "%s: record %llu: the writer changed while being read", r->path,
           (unsigned long long)r->index);
    return -1;
  }
  const unsigned char *p = (const unsigned char *)r->chunk->data + r->chunk_pos;
  memcpy(rec, p, 64);
  rec->reserved = 0;
  *payload = rec->nwords ? (const uint64_t *)(p + 64) : NULL;
  r->chunk_pos += 64u + (size_t)rec->nwords * 8u;
  r->index++;
  return 1;
}

const char *llamp_trace_name(const llamp_trace_reader_t *r, int32_t id) {
  if (id < 0) return NULL;
  if (r->w) {
    if ((uint32_t)id >= r->w->nnames) return NULL;
    return r->w->arena + r->w->name_off[id];
  }
  if ((uint32_t)id >= r->nnames) return NULL;
  return r->names + r->name_off[id];
}

void llamp_trace_reader_destroy(llamp_trace_reader_t *r) {
  if (!r) return;
  if (r->fd >= 0) close(r->fd);
  free(r->buf);
  free(r->names);
  free(r->name_off);
  free(r);
}
