/* trace.c - per-rank MPI call records: writer (memory chunks, spill file),
 * reader (writer memory + spill file, or a file), op names.
 *
 * Records are stored encoded, not as 64-byte structs: an op byte, a byte
 * saying which fields differ from their usual value (flags 0, comm 0, peer
 * NO_PEER, tag -1, bytes 0, no request, status -1/-1, no payload), those
 * fields as LEB128 varints (signed ones zigzagged, the request as the
 * difference to the previous request), the two times as the zigzagged
 * difference of their IEEE bit patterns to the previous end time and to the
 * start time (exact for any double), and the payload: for completion-style
 * records (request, status) pairs with the request as a difference and the
 * status split into (source+1, completed) and tag; other payload words as
 * plain varints.  A 2-D halo record costs ~15 bytes instead of 64 + payload.
 * Decoding restores every field bit for bit (`reserved` reads back as 0).
 *
 * Memory: encoded records go into chunks (16 KiB doubling to 1 MiB); a
 * record never straddles two chunks and each chunk starts a fresh encoding
 * state, so chunks decode independently.  No allocation per record.
 *
 * File <dir>/rank-<r>.llt (little-endian, docs/trace.md):
 *   header (64 bytes)  magic "LLAMPTRC", version 2, byte-order mark, rank,
 *                      world size, record count (UINT64_MAX until the
 *                      writer is flushed), bytes of the block section,
 *                      offset / count / bytes of the name table, header
 *                      checksum
 *   blocks             one per chunk: magic "LLTB", record count, index of
 *                      its first record, data bytes, checksum (24 bytes),
 *                      then the chunk's encoded records
 *   name table         per name: u32 length + bytes; then u32 checksum
 * A spill appends the chunks held in memory as blocks after the last ones on
 * file and frees them; a flush writes the rest, the name table after them
 * and the final header, and truncates. */
#define _XOPEN_SOURCE 700
#include "llamp_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(llamp_trace_rec_t) == 64, "trace records are 64 bytes");
_Static_assert(LLAMP_OP_COUNT_ < 256, "op codes fit a byte");

#define LLT_MAGIC "LLAMPTRC"
#define LLT_VERSION 2u
#define LLT_BOM 0x01020304u
#define LLT_HEADER_BYTES 64u
#define LLT_BLOCK_MAGIC 0x42544c4cu /* "LLTB" */
#define LLT_BLOCK_HEADER 24u
#define LLT_INCOMPLETE UINT64_MAX
#define LLT_MAX_WORDS (1u << 28)
#define LLT_MAX_NAME 1024u
#define CHUNK_MIN ((size_t)16 << 10)
#define CHUNK_MAX ((size_t)1 << 20)
/* A follower sees a chunk's records every this many (the chunk's header
 * line is then written once, not at every record), when the writer opens
 * the next chunk, and at llamp_trace_writer_publish / flush. */
#define PUBLISH_EVERY 64u
/* Largest encoding of a record: fields and times, then 10 bytes a word. */
#define REC_MAX_FIXED 96u
#define REC_MAX_PER_WORD 10u

/* field mask bits */
enum {
  M_FLAGS = 0x01, M_COMM = 0x02, M_PEER = 0x04, M_TAG = 0x08,
  M_BYTES = 0x10, M_REQ = 0x20, M_STATUS = 0x40, M_WORDS = 0x80
};

typedef struct {
  char magic[8];
  uint32_t version, byte_order, rank, world_size;
  uint64_t num_records, data_bytes, names_offset;
  uint32_t num_names, names_bytes, reserved, checksum;
} llt_header_t;
_Static_assert(sizeof(llt_header_t) == LLT_HEADER_BYTES, "header is 64 bytes");

typedef struct {
  uint32_t magic, nrec;
  uint64_t first;
  uint32_t bytes, checksum;
} llt_block_t;
_Static_assert(sizeof(llt_block_t) == LLT_BLOCK_HEADER, "block header is 24 bytes");

typedef struct chunk {
  struct chunk *next;
  size_t used, cap; /* bytes of data */
  uint32_t nrec;
  uint32_t pub;     /* records a follower may decode (nrec, stored with release order) */
  int on_file;      /* written as a block (a flush keeps it in memory) */
  unsigned char data[];
} chunk_t;

/* Encoding state, reset at the start of every chunk / block. */
typedef struct {
  uint64_t prev_end; /* bit pattern of the previous record's t_end */
  uint64_t last_req;
} codec_t;

struct llamp_trace_writer {
  /* first line: what every append reads and writes (the capture appends
   * right after a PMPI call that let the other ranks run: each line is a
   * cache miss; the path used to come first and put these 4 KiB away, on
   * two lines) */
  chunk_t *tail;
  unsigned char *cur, *lim; /* the tail's free bytes (its used and nrec are
                               written back by tail_sync: its header is not
                               touched per record) */
  codec_t enc;
  uint64_t total;   /* records appended */
  int64_t mem_left; /* bytes of encoded records before a spill (INT64_MAX: none) */
  uint32_t tail_nrec;
  int sealed; /* the tail chunk is on file: the next record starts a new one */
  size_t spill_bytes;
  uint32_t rank, world;
  chunk_t *head, *spare;
  size_t next_chunk;
  uint64_t mem_first; /* index of the first record held in memory */
  int has_dir;
  size_t mem_alloc;   /* bytes of chunks allocated (held + spare) */
  int fd;
  uint64_t file_records, file_bytes; /* on file: records, bytes of blocks */
  uint64_t released_bytes;           /* file bytes of records [0, mem_first) */
  /* interned names */
  char *arena;
  size_t arena_len, arena_cap;
  uint32_t *name_off, *name_len;
  uint32_t nnames, names_cap;
  uint32_t *slots; /* id + 1, 0 = empty */
  uint32_t slot_mask;
  pthread_mutex_t names_lock; /* a new name against a follower's copy of one */
  /* a follower (llamp_trace_follow): the chunks are one list it walks, the
   * ones a spill released (retired .. retired_tail) included until it has
   * passed them; first = the list's first chunk, follow_at = the chunk it
   * decodes (both stored with release order) */
  int followed;
  chunk_t *first, *follow_at, *retired, *retired_tail;
  char err[512];
  char path[4096];
};
_Static_assert(offsetof(struct llamp_trace_writer, sealed) < 64, "an append's fields in one line");

struct llamp_trace_reader {
  char path[4096];
  const llamp_trace_writer_t *w; /* names come from here when set */
  uint32_t rank, world;
  uint64_t index, total;
  /* file part: records [0, file_records), file_left bytes of blocks to read */
  int fd;
  uint64_t file_records, file_left;
  uint64_t file_avail; /* of file_left, the bytes on file (fewer when truncated) */
  int file_short;      /* the file ends before its name table */
  unsigned char *buf;
  size_t buf_cap;
  /* the block or chunk being decoded */
  const unsigned char *cur, *end;
  uint32_t left; /* records left in it */
  uint64_t block_first;
  codec_t dec;
  const chunk_t *chunk; /* next memory chunk */
  /* where reading starts (llamp_trace_reader_rewind) */
  uint64_t file_left0, file_avail0;
  const chunk_t *chunk0;
  int follow;           /* a follower: chunk is the one being decoded, left unused */
  uint32_t fdone;       /* its records decoded in chunk */
  char *name_copy;      /* a follower's copy of the name asked last */
  uint64_t *words;      /* decoded payload */
  size_t words_cap;
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

/* ---- checksums --------------------------------------------------------------- */

static uint32_t bytes_sum(const void *p, size_t n) {
  const unsigned char *s = p;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
  return h;
}

/* A fast 64-bit-word hash for blocks (a few GB/s). */
static uint32_t block_sum(const llt_block_t *b, const unsigned char *data) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ b->first ^ ((uint64_t)b->nrec << 32) ^ b->bytes;
  size_t n = b->bytes, i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, data + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ data[i]) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (uint32_t)(h ^ (h >> 32));
}

static uint32_t header_sum(const llt_header_t *h) { return bytes_sum(h, offsetof(llt_header_t, checksum)); }

/* ---- the record encoding -------------------------------------------------------- */

static inline uint64_t zz(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzz(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

static inline unsigned char *put(unsigned char *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (unsigned char)v;
  return p;
}

/* Read a varint; NULL when it runs past `end` or overflows 64 bits. */
static inline const unsigned char *get(const unsigned char *p, const unsigned char *end, uint64_t *v) {
  if (p < end && *p < 0x80) {
    *v = *p;
    return p + 1;
  }
  uint64_t x = 0;
  for (int s = 0; s < 64; s += 7) {
    if (p >= end) return NULL;
    unsigned char b = *p++;
    if (s == 63 && b > 1) return NULL;
    x |= (uint64_t)(b & 0x7f) << s;
    if (!(b & 0x80)) {
      *v = x;
      return p;
    }
  }
  return NULL;
}

static inline uint64_t dbits(double d) {
  uint64_t b;
  memcpy(&b, &d, 8);
  return b;
}
static inline double bitsd(uint64_t b) {
  double d;
  memcpy(&d, &b, 8);
  return d;
}

/* Records whose payload is (request, status) pairs. */
static inline int pair_payload(unsigned op) {
  return (op >= LLAMP_OP_WAIT && op <= LLAMP_OP_REQUEST_FREE) || op == LLAMP_OP_STARTALL;
}

static unsigned char *encode(codec_t *c, unsigned char *p, const llamp_trace_rec_t *r,
                             const uint64_t *pl) {
  unsigned char *mask = p + 1;
  unsigned m = 0;
  p[0] = (unsigned char)r->op;
  p += 2;
  if (r->flags) m |= M_FLAGS, p = put(p, r->flags);
  if (r->comm) m |= M_COMM, p = put(p, r->comm);
  if (r->peer != LLAMP_TRACE_NO_PEER) m |= M_PEER, p = put(p, zz(r->peer));
  if (r->tag != -1) m |= M_TAG, p = put(p, zz(r->tag));
  if (r->bytes) m |= M_BYTES, p = put(p, r->bytes);
  if (r->req != LLAMP_TRACE_NO_REQ) {
    m |= M_REQ;
    p = put(p, zz((int64_t)(r->req - c->last_req)));
    c->last_req = r->req;
  }
  if (r->status_source != -1 || r->status_tag != -1) {
    m |= M_STATUS;
    p = put(p, zz(r->status_source));
    p = put(p, zz(r->status_tag));
  }
  uint64_t ts = dbits(r->t_start), te = dbits(r->t_end);
  p = put(p, zz((int64_t)(ts - c->prev_end)));
  p = put(p, zz((int64_t)(te - ts)));
  c->prev_end = te;
  if (r->nwords) {
    m |= M_WORDS;
    p = put(p, r->nwords);
    uint32_t i = 0;
    if (pair_payload(r->op)) {
      uint64_t lr = c->last_req;
      for (; i + 1 < r->nwords; i += 2) {
        uint64_t s = pl[i + 1];
        p = put(p, zz((int64_t)(pl[i] - lr)));
        lr = pl[i];
        p = put(p, ((((s >> 32) + 1) & 0x7fffffffu) << 1) | (s >> 63));
        p = put(p, zz((int32_t)(uint32_t)s));
      }
    }
    for (; i < r->nwords; i++) p = put(p, pl[i]);
  }
  *mask = (unsigned char)m;
  return p;
}

/* A varint with at least 10 readable bytes at p (no bounds checks). */
static inline const unsigned char *get_fast(const unsigned char *p, uint64_t *v) {
  uint64_t b = *p++;
  if (b < 0x80) {
    *v = b;
    return p;
  }
  uint64_t x = b & 0x7f;
  int s = 7;
  for (;;) {
    b = *p++;
    x |= (b & 0x7f) << s;
    if (b < 0x80) break;
    s += 7;
    if (s > 63) return NULL;
  }
  if (s == 63 && b > 1) return NULL;
  *v = x;
  return p;
}

/* Decode one record's fields into *r (nwords set, payload not read).  NULL
 * on corrupt data.  A head has 2 bytes and at most 12 varints of at most 10
 * bytes each, also when a value is not written the shortest way (which the
 * decoder accepts, so REC_MAX_FIXED, the writer's bound, is not enough): with
 * HEAD_FAST_BYTES left no varint needs a bounds check. */
#define HEAD_FAST_BYTES (2 + 12 * 10)
static const unsigned char *decode_head(codec_t *c, const unsigned char *p, const unsigned char *end,
                                        llamp_trace_rec_t *r) {
  if (end - p < 2) return NULL;
  const int fast = end - p >= (ptrdiff_t)HEAD_FAST_BYTES;
#define GET(v) (fast ? get_fast(p, &(v)) : get(p, end, &(v)))
  unsigned op = p[0], m = p[1];
  if (op == 0 || op >= LLAMP_OP_COUNT_) return NULL;
  r->op = (uint16_t)op;
  r->flags = 0;
  r->comm = 0;
  r->peer = LLAMP_TRACE_NO_PEER;
  r->tag = -1;
  r->bytes = 0;
  r->req = LLAMP_TRACE_NO_REQ;
  r->status_source = r->status_tag = -1;
  r->nwords = 0;
  r->reserved = 0;
  p += 2;
  uint64_t v;
  if (m & (M_FLAGS | M_COMM | M_PEER | M_TAG)) {
    if (m & M_FLAGS) {
      if (!(p = GET(v)) || v > UINT16_MAX) return NULL;
      r->flags = (uint16_t)v;
    }
    if (m & M_COMM) {
      if (!(p = GET(v)) || v > UINT32_MAX) return NULL;
      r->comm = (uint32_t)v;
    }
    if (m & M_PEER) {
      if (!(p = GET(v)) || v > UINT32_MAX) return NULL;
      r->peer = (int32_t)unzz(v);
    }
    if (m & M_TAG) {
      if (!(p = GET(v)) || v > UINT32_MAX) return NULL;
      r->tag = (int32_t)unzz(v);
    }
  }
  if (m & M_BYTES) {
    if (!(p = GET(v))) return NULL;
    r->bytes = v;
  }
  if (m & M_REQ) {
    if (!(p = GET(v))) return NULL;
    r->req = c->last_req + (uint64_t)unzz(v);
    c->last_req = r->req;
  }
  if (m & M_STATUS) {
    if (!(p = GET(v)) || v > UINT32_MAX) return NULL;
    r->status_source = (int32_t)unzz(v);
    if (!(p = GET(v)) || v > UINT32_MAX) return NULL;
    r->status_tag = (int32_t)unzz(v);
  }
  if (!(p = GET(v))) return NULL;
  uint64_t ts = c->prev_end + (uint64_t)unzz(v);
  if (!(p = GET(v))) return NULL;
  uint64_t te = ts + (uint64_t)unzz(v);
  r->t_start = bitsd(ts);
  r->t_end = bitsd(te);
  c->prev_end = te;
  if (m & M_WORDS) {
    /* every word takes at least one byte */
    if (!(p = GET(v)) || v == 0 || v > LLT_MAX_WORDS || v > (uint64_t)(end - p)) return NULL;
    r->nwords = (uint32_t)v;
  }
#undef GET
  return p;
}

static const unsigned char *decode_words(const codec_t *c, const unsigned char *p,
                                         const unsigned char *end, const llamp_trace_rec_t *r,
                                         uint64_t *w) {
  uint32_t i = 0;
  uint64_t v;
  if (pair_payload(r->op)) {
    uint64_t lr = c->last_req;
    for (; i + 1 < r->nwords; i += 2) {
      if (!(p = get(p, end, &v))) return NULL;
      w[i] = lr + (uint64_t)unzz(v);
      lr = w[i];
      uint64_t sc, tg;
      if (!(p = get(p, end, &sc)) || sc > UINT32_MAX || !(p = get(p, end, &tg)) || tg > UINT32_MAX)
        return NULL;
      uint64_t src = ((sc >> 1) - 1) & 0x7fffffffu;
      w[i + 1] = ((sc & 1) << 63) | (src << 32) | (uint32_t)(int32_t)unzz(tg);
    }
  }
  for (; i < r->nwords; i++)
    if (!(p = get(p, end, &w[i]))) return NULL;
  return p;
}

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
    [LLAMP_OP_WIN_CREATE] = "MPI_Win_create",
    [LLAMP_OP_WIN_FREE] = "MPI_Win_free",
    [LLAMP_OP_WIN_FENCE] = "MPI_Win_fence",
    [LLAMP_OP_RMA_PUT] = "MPI_Put",
    [LLAMP_OP_RMA_GET] = "MPI_Get",
    [LLAMP_OP_RMA_ACC] = "MPI_Accumulate",
    [LLAMP_OP_RMA_GET_ACC] = "MPI_Get_accumulate",
    [LLAMP_OP_RMA_CAS] = "MPI_Compare_and_swap",
    [LLAMP_OP_WIN_LOCK] = "MPI_Win_lock",
    [LLAMP_OP_WIN_UNLOCK] = "MPI_Win_unlock",
    [LLAMP_OP_WIN_LOCK_ALL] = "MPI_Win_lock_all",
    [LLAMP_OP_WIN_UNLOCK_ALL] = "MPI_Win_unlock_all",
    [LLAMP_OP_WIN_FLUSH] = "MPI_Win_flush",
    [LLAMP_OP_WIN_FLUSH_ALL] = "MPI_Win_flush_all",
    [LLAMP_OP_WIN_FLUSH_LOCAL] = "MPI_Win_flush_local",
    [LLAMP_OP_WIN_FLUSH_LOCAL_ALL] = "MPI_Win_flush_local_all",
    [LLAMP_OP_WIN_POST] = "MPI_Win_post",
    [LLAMP_OP_WIN_START] = "MPI_Win_start",
    [LLAMP_OP_WIN_COMPLETE] = "MPI_Win_complete",
    [LLAMP_OP_WIN_WAIT] = "MPI_Win_wait",
};

const char *llamp_trace_op_name(llamp_trace_op_t op) {
  if ((int)op <= 0 || op >= LLAMP_OP_COUNT_ || !op_names[op]) return "(invalid)";
  return op_names[op];
}

/* ---- writer ------------------------------------------------------------------- */

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
  llamp_trace_writer_t *w = aligned_alloc(64, (sizeof *w + 63) / 64 * 64); /* its first line as laid out */
  if (!w) {
    seterr(err, errlen, "trace writer: out of memory");
    return NULL;
  }
  memset(w, 0, sizeof *w);
  w->rank = rank;
  w->world = world_size;
  w->spill_bytes = spill_bytes;
  w->mem_left = spill_bytes ? (int64_t)spill_bytes : INT64_MAX;
  w->fd = -1;
  w->next_chunk = CHUNK_MIN;
  pthread_mutex_init(&w->names_lock, NULL);
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
  size_t m = sizeof *w + w->mem_alloc + w->arena_cap + (size_t)w->names_cap * 8u;
  if (w->slots) m += ((size_t)w->slot_mask + 1) * 4u;
  return m;
}

/* A chunk with room for `need` bytes (the spare one if it fits). */
static chunk_t *chunk_new(llamp_trace_writer_t *w, size_t need) {
  if (w->spare && w->spare->cap >= need) {
    chunk_t *c = w->spare;
    w->spare = NULL;
    c->next = NULL;
    c->used = 0;
    c->nrec = c->pub = 0;
    c->on_file = 0;
    return c;
  }
  size_t cap = w->next_chunk;
  if (w->spill_bytes && cap > w->spill_bytes) cap = w->spill_bytes < CHUNK_MIN ? CHUNK_MIN : w->spill_bytes;
  if (cap < need) cap = need;
  chunk_t *c = malloc(sizeof *c + cap);
  if (!c) return NULL;
  c->cap = cap;
  w->mem_alloc += sizeof *c + cap;
  if (w->next_chunk < CHUNK_MAX) w->next_chunk *= 2;
  c->next = NULL;
  c->used = 0;
  c->nrec = c->pub = 0;
  c->on_file = 0;
  return c;
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
  if (pwrite_all(w->fd, &h, sizeof h, 0)) {
    werr(w, "%s: write failed: %s", w->path, strerror(errno));
    return -1;
  }
  return 0;
}

/* The tail chunk's header from the writer's fields, its records published
 * to a follower. */
static void tail_sync(llamp_trace_writer_t *w) {
  chunk_t *c = w->tail;
  if (!c) return;
  c->used = (size_t)(w->cur - c->data);
  c->nrec = w->tail_nrec;
  __atomic_store_n(&c->pub, w->tail_nrec, __ATOMIC_RELEASE);
}

void llamp_trace_writer_publish(llamp_trace_writer_t *w) { tail_sync(w); }

/* Write the chunks not yet on file as blocks after the ones there. */
static int write_pending(llamp_trace_writer_t *w) {
  tail_sync(w);
  if (open_file(w)) return -1;
  uint64_t idx = w->mem_first;
  for (chunk_t *c = w->head; c; c = c->next) {
    if (!c->on_file && c->nrec) {
      llt_block_t b = {LLT_BLOCK_MAGIC, c->nrec, idx, (uint32_t)c->used, 0};
      b.checksum = block_sum(&b, c->data);
      off_t off = (off_t)(LLT_HEADER_BYTES + w->file_bytes);
      if (pwrite_all(w->fd, &b, sizeof b, off) ||
          pwrite_all(w->fd, c->data, c->used, off + (off_t)sizeof b)) {
        werr(w, "%s: write failed: %s", w->path, strerror(errno));
        return -1;
      }
      w->file_bytes += sizeof b + c->used;
      w->file_records += c->nrec;
      c->on_file = 1;
    }
    idx += c->nrec;
  }
  w->sealed = 1; /* the tail is on file: the next record opens a new chunk */
  return 0;
}

/* Free the released chunks a follower has passed. */
static void retired_free(llamp_trace_writer_t *w) {
  chunk_t *at = __atomic_load_n(&w->follow_at, __ATOMIC_ACQUIRE);
  if (!at) return; /* it has not started: it needs them all */
  while (w->retired && w->retired != at && w->retired != w->retired_tail) {
    chunk_t *n = w->retired->next;
    w->mem_alloc -= sizeof *w->retired + w->retired->cap;
    free(w->retired);
    w->retired = n;
  }
}

/* Drop the chunks (all on file), keeping one as the spare; with a follower,
 * retire them instead until it has read them. */
static void release_memory(llamp_trace_writer_t *w) {
  if (w->followed && w->head) {
    if (!w->retired) w->retired = w->head;
    w->retired_tail = w->tail;
    retired_free(w);
    w->head = w->tail = NULL;
    w->released_bytes = w->file_bytes;
    w->mem_left = (int64_t)w->spill_bytes;
    w->mem_first = w->total;
    return;
  }
  for (chunk_t *c = w->head; c;) {
    chunk_t *n = c->next;
    if (!w->spare && c->cap <= CHUNK_MAX) {
      w->spare = c;
    } else {
      w->mem_alloc -= sizeof *c + c->cap;
      free(c);
    }
    c = n;
  }
  w->head = w->tail = NULL;
  w->released_bytes = w->file_bytes;
  w->mem_left = (int64_t)w->spill_bytes;
  w->mem_first = w->total;
}

static uint64_t appended;

uint64_t llamp_trace_records_appended(void) { return __atomic_load_n(&appended, __ATOMIC_RELAXED); }

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
  size_t need = REC_MAX_FIXED + (size_t)rec->nwords * REC_MAX_PER_WORD;
  chunk_t *c = w->tail;
  if (!c || w->sealed || (size_t)(w->lim - w->cur) < need) {
    tail_sync(w); /* its last records published before the next chunk is linked */
    chunk_t *n = chunk_new(w, need);
    if (!n) {
      werr(w, "trace writer: rank %u: out of memory after %llu records", w->rank,
           (unsigned long long)w->total);
      return -1;
    }
    if (c) {
      __atomic_store_n(&c->next, n, __ATOMIC_RELEASE);
    } else {
      w->head = n;
      if (w->retired_tail) /* after a spill: the follower goes on from the released chunks */
        __atomic_store_n(&w->retired_tail->next, n, __ATOMIC_RELEASE);
      else if (!w->first)
        __atomic_store_n(&w->first, n, __ATOMIC_RELEASE);
    }
    w->tail = c = n;
    w->cur = n->data;
    w->lim = n->data + n->cap;
    w->tail_nrec = 0;
    w->sealed = 0;
    memset(&w->enc, 0, sizeof w->enc);
  }
  unsigned char *p = w->cur;
  size_t sz = (size_t)(encode(&w->enc, p, rec, payload) - p);
  w->cur = p + sz;
  if (++w->tail_nrec % PUBLISH_EVERY == 0) /* a plain store on x86 */
    __atomic_store_n(&c->pub, w->tail_nrec, __ATOMIC_RELEASE);
  w->total++;
  /* one writer thread under SMPI's contexts: load + store, not a locked add */
  __atomic_store_n(&appended, __atomic_load_n(&appended, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
  if ((w->mem_left -= (int64_t)sz) < 0) {
    if (write_pending(w)) return -1;
    release_memory(w);
  }
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
  pthread_mutex_lock(&w->names_lock);
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
  pthread_mutex_unlock(&w->names_lock);
  return (int32_t)id;
oom:
  pthread_mutex_unlock(&w->names_lock);
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
  for (chunk_t *c = w->retired ? w->retired : w->head; c;) { /* the retired ones lead to the head */
    chunk_t *n = c->next;
    free(c);
    c = n;
  }
  free(w->spare);
  pthread_mutex_destroy(&w->names_lock);
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
  tail_sync(w);
  r->w = w;
  r->rank = w->rank;
  r->world = w->world;
  r->total = w->total;
  r->file_records = w->mem_first;
  r->file_left = r->file_avail = w->released_bytes;
  r->chunk = r->chunk0 = w->head;
  r->file_left0 = r->file_left;
  r->file_avail0 = r->file_avail;
  if (r->file_records && open_data(r, err, errlen)) {
    llamp_trace_reader_destroy(r);
    return NULL;
  }
  return r;
}

/* Read up to n bytes at offset off (fewer at the end of the file). */
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

static size_t read_full(int fd, void *p, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t k = read(fd, (char *)p + got, n - got);
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
  if (h.checksum != header_sum(&h) || h.world_size == 0 || h.rank >= h.world_size) {
    seterr(err, errlen, "%s: corrupt header", path);
    goto fail;
  }
  if (h.num_records == LLT_INCOMPLETE) {
    /* what a run that stopped early left: the blocks spilled so far */
    uint64_t nrec = 0, off = LLT_HEADER_BYTES;
    llt_block_t b;
    while (pread_full(r->fd, &b, sizeof b, (off_t)off) == sizeof b && b.magic == LLT_BLOCK_MAGIC &&
           b.first == nrec && b.bytes <= (uint64_t)st.st_size - off - sizeof b) {
      nrec += b.nrec;
      off += sizeof b + b.bytes;
    }
    seterr(err, errlen,
           "%s: incomplete trace: rank %u of %u stopped before MPI_Finalize (the run was interrupted "
           "or died); %llu records on file, the rest of the rank's calls are missing",
           path, h.rank, h.world_size, (unsigned long long)nrec);
    goto fail;
  }
  if (h.names_offset != LLT_HEADER_BYTES + h.data_bytes || h.names_bytes < 4 ||
      h.data_bytes / 2 < h.num_records || (uint64_t)h.num_names * 5u > h.names_bytes - 4u) {
    seterr(err, errlen, "%s: corrupt header (inconsistent sizes)", path);
    goto fail;
  }
  r->rank = h.rank;
  r->world = h.world_size;
  r->total = r->file_records = h.num_records;
  r->file_left = h.data_bytes;
  /* a truncated file: blocks claiming more bytes than it has get no buffer that large */
  r->file_avail = (uint64_t)st.st_size - LLT_HEADER_BYTES < h.data_bytes
                    ? (uint64_t)st.st_size - LLT_HEADER_BYTES
                    : h.data_bytes;
  r->file_left0 = r->file_left;
  r->file_avail0 = r->file_avail;
  uint64_t want = h.names_offset + h.names_bytes;
  if ((uint64_t)st.st_size < want) {
    r->file_short = 1; /* truncated: read what is there and fail at the cut */
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

/* Load the next block of the file and check it. */
static int next_block(llamp_trace_reader_t *r, char *err, size_t errlen) {
  unsigned long long idx = (unsigned long long)r->index;
  llt_block_t b;
  if (r->file_left < sizeof b) {
    seterr(err, errlen, "%s: record %llu: block section ends early (corrupt file)", r->path, idx);
    return -1;
  }
  size_t got = read_full(r->fd, &b, sizeof b);
  if (got < sizeof b) goto truncated;
  if (b.magic != LLT_BLOCK_MAGIC || b.first != r->index || b.nrec == 0 ||
      b.bytes > r->file_left - sizeof b || b.nrec > r->file_records - r->index ||
      b.bytes < 2u * (uint64_t)b.nrec /* every record takes 2 bytes or more */) {
    seterr(err, errlen, "%s: record %llu: corrupt block header", r->path, idx);
    return -1;
  }
  /* what the file has of the block (all of it unless truncated) */
  uint64_t avail = r->file_avail > sizeof b ? r->file_avail - sizeof b : 0;
  size_t have = (size_t)(b.bytes < avail ? b.bytes : avail);
  if (!have) goto truncated;
  if (have > r->buf_cap) {
    size_t cap = r->buf_cap ? r->buf_cap : ((size_t)1 << 16);
    while (cap < have) cap *= 2;
    unsigned char *nb = realloc(r->buf, cap);
    if (!nb) {
      seterr(err, errlen, "%s: record %llu: out of memory", r->path, idx);
      return -1;
    }
    r->buf = nb;
    r->buf_cap = cap;
  }
  got = read_full(r->fd, r->buf, have);
  if (got < b.bytes) {
    /* name the record where the data stops */
    const unsigned char *p = r->buf, *end = r->buf + got;
    codec_t c = {0, 0};
    llamp_trace_rec_t rec;
    uint64_t k = 0;
    while (k < b.nrec && (p = decode_head(&c, p, end, &rec)) != NULL) {
      if (rec.nwords) {
        uint64_t *w = malloc((size_t)rec.nwords * 8u);
        p = w ? decode_words(&c, p, end, &rec, w) : NULL;
        free(w);
        if (!p) break;
      }
      k++;
    }
    idx += k;
    goto truncated;
  }
  if (block_sum(&b, r->buf) != b.checksum) {
    seterr(err, errlen, "%s: records %llu..%llu: checksum mismatch (corrupt file)", r->path, idx,
           idx + b.nrec - 1);
    return -1;
  }
  r->file_left -= sizeof b + b.bytes;
  r->file_avail -= sizeof b + b.bytes;
  r->cur = r->buf;
  r->end = r->buf + b.bytes;
  r->left = b.nrec;
  r->block_first = r->index;
  memset(&r->dec, 0, sizeof r->dec);
  return 0;
truncated:
  seterr(err, errlen, "%s: truncated at record %llu of %llu", r->path, idx,
         (unsigned long long)r->file_records);
  return -1;
}

/* The record at r->cur (its payload into r->words); r->cur moves past it.
 * 0 / -1 (out of memory, or an encoding that does not decode). */
static int decode_record(llamp_trace_reader_t *r, llamp_trace_rec_t *rec, char *err, size_t errlen) {
  const unsigned char *p = decode_head(&r->dec, r->cur, r->end, rec);
  if (p && rec->nwords) {
    if (rec->nwords > r->words_cap) {
      size_t cap = r->words_cap ? r->words_cap : 64;
      while (cap < rec->nwords) cap *= 2;
      uint64_t *nw = realloc(r->words, cap * 8u);
      if (!nw) {
        seterr(err, errlen, "%s: record %llu: out of memory", r->path, (unsigned long long)r->index);
        return -1;
      }
      r->words = nw;
      r->words_cap = cap;
    }
    p = decode_words(&r->dec, p, r->end, rec, r->words);
  }
  if (!p) {
    seterr(err, errlen, "%s: record %llu: corrupt record encoding", r->path, (unsigned long long)r->index);
    return -1;
  }
  r->cur = p;
  return 0;
}

llamp_trace_reader_t *llamp_trace_follow(llamp_trace_writer_t *w, char *err, size_t errlen) {
  if (w->followed || w->total) {
    seterr(err, errlen, "trace follower: rank %u's writer %s", w->rank,
           w->followed ? "has a follower already" : "has records already");
    return NULL;
  }
  llamp_trace_reader_t *r = reader_new(w->has_dir ? w->path : "(memory)");
  if (!r) {
    seterr(err, errlen, "trace reader: out of memory");
    return NULL;
  }
  r->w = w;
  r->rank = w->rank;
  r->world = w->world;
  r->follow = 1;
  w->followed = 1;
  return r;
}

/* A follower's next record: the published ones of its chunk, then the next
 * chunk once the writer has linked one (it publishes every record of a
 * chunk before linking the next). */
static int follow_next(llamp_trace_reader_t *r, llamp_trace_rec_t *rec, char *err, size_t errlen) {
  llamp_trace_writer_t *w = (llamp_trace_writer_t *)r->w;
  const chunk_t *c = r->chunk;
  if (!c) {
    if (!(c = __atomic_load_n(&w->first, __ATOMIC_ACQUIRE))) return 0;
    goto enter;
  }
  while (r->fdone == __atomic_load_n(&c->pub, __ATOMIC_ACQUIRE)) {
    const chunk_t *n = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE);
    if (!n) return 0;
    if (r->fdone != __atomic_load_n(&c->pub, __ATOMIC_ACQUIRE)) break; /* published before the link */
    c = n;
  enter:
    r->chunk = c;
    __atomic_store_n(&w->follow_at, (chunk_t *)c, __ATOMIC_RELEASE); /* the ones before may go */
    r->cur = c->data;
    r->end = c->data + c->cap; /* the published records lie within */
    r->fdone = 0;
    memset(&r->dec, 0, sizeof r->dec);
  }
  if (decode_record(r, rec, err, errlen)) return -1;
  r->fdone++;
  r->index++;
  r->total = r->index;
  return 1;
}

int llamp_trace_next(llamp_trace_reader_t *r, llamp_trace_rec_t *rec, const uint64_t **payload,
                     char *err, size_t errlen) {
  if (r->follow) {
    int rc = follow_next(r, rec, err, errlen);
    *payload = rc == 1 && rec->nwords ? r->words : NULL;
    return rc;
  }
  if (r->left == 0) {
    if (r->cur != r->end) {
      seterr(err, errlen, "%s: %zu stray bytes after record %llu (corrupt file)", r->path,
             (size_t)(r->end - r->cur), (unsigned long long)r->index - 1);
      return -1;
    }
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
    if (r->index < r->file_records) {
      if (next_block(r, err, errlen)) return -1;
    } else {
      while (r->chunk && r->chunk->nrec == 0) r->chunk = r->chunk->next;
      if (!r->chunk) {
        seterr(err, errlen, "%s: record %llu: the writer changed while being read", r->path,
               (unsigned long long)r->index);
        return -1;
      }
      r->cur = r->chunk->data;
      r->end = r->chunk->data + r->chunk->used;
      r->left = r->chunk->nrec;
      r->chunk = r->chunk->next;
      memset(&r->dec, 0, sizeof r->dec);
    }
  }
  if (decode_record(r, rec, err, errlen)) return -1;
  *payload = rec->nwords ? r->words : NULL;
  r->left--;
  r->index++;
  return 1;
}

int llamp_trace_reader_rewind(llamp_trace_reader_t *r, char *err, size_t errlen) {
  if (r->follow) {
    seterr(err, errlen, "%s: a follower cannot go back", r->path);
    return -1;
  }
  if (r->fd >= 0 && lseek(r->fd, LLT_HEADER_BYTES, SEEK_SET) < 0) {
    seterr(err, errlen, "%s: cannot seek: %s", r->path, strerror(errno));
    return -1;
  }
  r->index = 0;
  r->left = 0;
  r->cur = r->end = NULL;
  r->block_first = 0;
  memset(&r->dec, 0, sizeof r->dec);
  r->file_left = r->file_left0;
  r->file_avail = r->file_avail0;
  r->chunk = r->chunk0;
  return 0;
}

const char *llamp_trace_name(const llamp_trace_reader_t *r, int32_t id) {
  if (id < 0) return NULL;
  if (r->follow) { /* a copy: the writer may be growing its table */
    llamp_trace_writer_t *w = (llamp_trace_writer_t *)r->w;
    llamp_trace_reader_t *f = (llamp_trace_reader_t *)r;
    const char *name = NULL;
    pthread_mutex_lock(&w->names_lock);
    if ((uint32_t)id < w->nnames && (f->name_copy || (f->name_copy = malloc(LLT_MAX_NAME + 1)))) {
      memcpy(f->name_copy, w->arena + w->name_off[id], w->name_len[id] + 1);
      name = f->name_copy;
    }
    pthread_mutex_unlock(&w->names_lock);
    return name;
  }
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
  free(r->words);
  free(r->names);
  free(r->name_off);
  free(r->name_copy);
  free(r);
}

/* ---- communicator members as runs ------------------------------------------------------------ */

void llamp_trace_runs_push(llamp_trace_run_t *runs, uint32_t *nruns, uint32_t w) {
  if (*nruns) {
    llamp_trace_run_t *r = &runs[*nruns - 1];
    if (r->count == 1) {
      r->stride = (int32_t)((int64_t)w - (int64_t)r->first);
      r->count = 2;
      return;
    }
    if ((int64_t)r->first + (int64_t)r->stride * r->count == (int64_t)w) {
      r->count++;
      return;
    }
  }
  llamp_trace_run_t *n = &runs[*nruns];
  n->index = *nruns ? runs[*nruns - 1].index + runs[*nruns - 1].count : 0;
  n->first = w;
  n->stride = 0;
  n->count = 1;
  (*nruns)++;
}

uint32_t llamp_trace_runs_world(const llamp_trace_run_t *runs, uint32_t nruns, uint32_t i) {
  uint32_t lo = 0, hi = nruns; /* the last run with index <= i */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (runs[mid].index <= i) lo = mid;
    else hi = mid;
  }
  const llamp_trace_run_t *r = &runs[lo];
  return (uint32_t)((int64_t)r->first + (int64_t)r->stride * (int64_t)(i - r->index));
}

int64_t llamp_trace_runs_index(const llamp_trace_run_t *runs, uint32_t nruns, uint32_t w) {
  for (uint32_t k = 0; k < nruns; k++) {
    const llamp_trace_run_t *r = &runs[k];
    int64_t d = (int64_t)w - (int64_t)r->first;
    if (r->stride == 0) {
      if (d == 0) return r->index;
      continue;
    }
    if (d % r->stride) continue;
    int64_t j = d / r->stride;
    if (j >= 0 && j < (int64_t)r->count) return (int64_t)r->index + j;
  }
  return -1;
}
