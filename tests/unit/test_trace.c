/* Trace writer / reader: round trips through memory only, spill + memory,
 * a flushed file (also appended to after a flush), and truncated or
 * corrupted files, which must fail with one line naming the file and the
 * record. */
#define _XOPEN_SOURCE 700
#include "llamp_trace.h"
#include "llamp_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A deterministic pseudo-random record i (payload of i % 7 words on some). */
static void make_rec(uint64_t i, llamp_trace_rec_t *r, uint64_t *payload) {
  memset(r, 0, sizeof *r);
  uint64_t x = i * 0x9e3779b97f4a7c15ull + 12345;
  r->op = (uint16_t)(1 + x % (LLAMP_OP_COUNT_ - 1));
  r->flags = (uint16_t)(x >> 20 & 1);
  r->comm = (uint32_t)(x >> 32 & 3);
  r->peer = (int32_t)(x >> 8 & 15) - 2;
  r->tag = (int32_t)(x >> 12 & 255) - 1;
  r->bytes = x >> 40;
  r->t_start = (double)i * 1e-6;
  r->t_end = (double)i * 1e-6 + 0.5e-6;
  r->req = (x & 1) ? LLAMP_TRACE_NO_REQ : i;
  r->status_source = (int32_t)(x >> 16 & 7) - 1;
  r->status_tag = -1;
  r->nwords = (x >> 24 & 3) == 0 ? (uint32_t)(i % 7) : 0;
  for (uint32_t k = 0; k < r->nwords; k++) payload[k] = i * 1000 + k;
}

/* Read everything from r and compare with make_rec(0..n-1). */
static int check_reader(llamp_trace_reader_t *r, uint64_t n) {
  char err[512];
  llamp_trace_rec_t got, want;
  uint64_t pw[8];
  const uint64_t *pl;
  uint64_t i = 0;
  int rc, bad = 0;
  while ((rc = llamp_trace_next(r, &got, &pl, err, sizeof err)) == 1) {
    make_rec(i, &want, pw);
    if (memcmp(&got, &want, sizeof got) != 0 ||
        (want.nwords && memcmp(pl, pw, want.nwords * 8u) != 0)) {
      if (!bad) fprintf(stderr, "record %llu differs\n", (unsigned long long)i);
      bad = 1;
    }
    i++;
  }
  if (rc < 0) fprintf(stderr, "unexpected error: %s\n", err);
  if (i != n) fprintf(stderr, "read %llu records, expected %llu\n", (unsigned long long)i,
                      (unsigned long long)n);
  return rc == 0 && i == n && !bad;
}

static llamp_trace_writer_t *fill_writer(const char *dir, size_t spill, uint64_t n) {
  char err[512];
  llamp_trace_writer_t *w = llamp_trace_writer_create(dir, 3, 8, spill, err, sizeof err);
  if (!w) {
    fprintf(stderr, "%s\n", err);
    return NULL;
  }
  llamp_trace_rec_t r;
  uint64_t pw[8];
  for (uint64_t i = 0; i < n; i++) {
    make_rec(i, &r, pw);
    if (llamp_trace_append(w, &r, pw)) {
      fprintf(stderr, "append: %s\n", llamp_trace_writer_error(w));
      break;
    }
  }
  return w;
}

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int copy_file(const char *from, const char *to, long keep, long flip_at) {
  FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
  if (!f || !g) return -1;
  long i = 0;
  int c;
  while ((c = fgetc(f)) != EOF && (keep < 0 || i < keep)) {
    if (i == flip_at) c ^= 0x10;
    fputc(c, g);
    i++;
  }
  fclose(f);
  fclose(g);
  return 0;
}

/* Open `path` and read to the end; returns the first error message (or "")
 * in err. */
static int read_all(const char *path, char *err, size_t errlen) {
  err[0] = 0;
  llamp_trace_reader_t *r = llamp_trace_reader_open(path, err, errlen);
  if (!r) return -1;
  llamp_trace_rec_t rec;
  const uint64_t *pl;
  int rc;
  while ((rc = llamp_trace_next(r, &rec, &pl, err, errlen)) == 1) {
  }
  llamp_trace_reader_destroy(r);
  return rc;
}

int main(void) {
  char err[512];
  char dir[] = "/tmp/llamp-trace-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[600];
  snprintf(path, sizeof path, "%s/rank-3.llt", dir);
  const uint64_t N = 50000;

  /* op names */
  CHECK(strcmp(llamp_trace_op_name(LLAMP_OP_SEND), "MPI_Send") == 0);
  CHECK(strcmp(llamp_trace_op_name(LLAMP_OP_REDUCE_SCATTER_BLOCK), "MPI_Reduce_scatter_block") == 0);
  CHECK(strcmp(llamp_trace_op_name(LLAMP_OP_COMM_SPLIT), "MPI_Comm_split") == 0);
  CHECK(strcmp(llamp_trace_op_name((llamp_trace_op_t)999), "(invalid)") == 0);
  for (int op = 1; op < LLAMP_OP_COUNT_; op++)
    CHECK(strcmp(llamp_trace_op_name((llamp_trace_op_t)op), "(invalid)") != 0);

  /* bad arguments */
  CHECK(llamp_trace_writer_create(NULL, 8, 8, 0, err, sizeof err) == NULL);
  CHECK(llamp_trace_writer_create(NULL, 0, 8, 4096, err, sizeof err) == NULL);
  CHECK(strstr(err, "directory") != NULL);
  CHECK(llamp_trace_writer_create("/nonexistent-dir-llamp", 0, 8, 4096, err, sizeof err) == NULL);

  /* 1. memory only (no directory at all) */
  {
    llamp_trace_writer_t *w = fill_writer(NULL, 0, N);
    CHECK(w && llamp_trace_records(w) == N);
    int32_t a = llamp_trace_intern_name(w, "MPI_Comm_rank");
    int32_t b = llamp_trace_intern_name(w, "MPI_Get_count");
    CHECK(a == 0 && b == 1);
    CHECK(llamp_trace_intern_name(w, "MPI_Comm_rank") == 0);
    for (int i = 0; i < 200; i++) {
      char name[32];
      snprintf(name, sizeof name, "MPI_Fn%d", i);
      CHECK(llamp_trace_intern_name(w, name) == i + 2);
    }
    CHECK(llamp_trace_intern_name(w, "MPI_Fn77") == 79);
    CHECK(llamp_trace_intern_name(w, "") == -1);
    /* bad op, missing payload */
    llamp_trace_rec_t bad;
    memset(&bad, 0, sizeof bad);
    CHECK(llamp_trace_append(w, &bad, NULL) == -1);
    bad.op = LLAMP_OP_WAITALL;
    bad.nwords = 2;
    CHECK(llamp_trace_append(w, &bad, NULL) == -1);
    CHECK(strstr(llamp_trace_writer_error(w), "payload") != NULL);
    CHECK(llamp_trace_records(w) == N);
    size_t mem = llamp_trace_writer_memory(w);
    CHECK(mem > N * 8 && mem < N * 64); /* records are stored encoded */
    llamp_trace_reader_t *r = llamp_trace_reader_from_writer(w, err, sizeof err);
    CHECK(r != NULL);
    if (r) {
      CHECK(llamp_trace_reader_rank(r) == 3 && llamp_trace_reader_world_size(r) == 8);
      CHECK(llamp_trace_reader_records(r) == N);
      CHECK(check_reader(r, N));
      /* rewound, the reader returns every record again */
      CHECK(llamp_trace_reader_rewind(r, err, sizeof err) == 0 && check_reader(r, N));
      CHECK(strcmp(llamp_trace_name(r, 1), "MPI_Get_count") == 0);
      CHECK(llamp_trace_name(r, 5000) == NULL && llamp_trace_name(r, -1) == NULL);
      llamp_trace_reader_destroy(r);
    }
    /* flushing needs a directory */
    CHECK(llamp_trace_writer_flush(w, err, sizeof err) == -1);
    llamp_trace_writer_destroy(w);
  }

  /* 2. spill + memory: a small threshold spills many times */
  {
    llamp_trace_writer_t *w = fill_writer(dir, 100000, N);
    CHECK(w != NULL);
    CHECK(llamp_trace_writer_memory(w) < 400000);
    CHECK(file_size(path) > 64);
    llamp_trace_reader_t *r = llamp_trace_reader_from_writer(w, err, sizeof err);
    CHECK(r && check_reader(r, N));
    /* rewound (file part and memory part), and rewound half way through */
    CHECK(r && llamp_trace_reader_rewind(r, err, sizeof err) == 0 && check_reader(r, N));
    if (r) {
      llamp_trace_rec_t rec;
      const uint64_t *pl;
      for (uint64_t i = 0; i < N / 2; i++) (void)llamp_trace_next(r, &rec, &pl, err, sizeof err);
      CHECK(llamp_trace_reader_rewind(r, err, sizeof err) == 0 && check_reader(r, N));
    }
    llamp_trace_reader_destroy(r);
    /* a second reader reads the same again */
    r = llamp_trace_reader_from_writer(w, err, sizeof err);
    CHECK(r && check_reader(r, N));
    llamp_trace_reader_destroy(r);
    /* the spill file alone is incomplete until flushed */
    CHECK(read_all(path, err, sizeof err) == -1);
    CHECK(strstr(err, "rank-3.llt: incomplete trace: rank 3 of 8 stopped before MPI_Finalize") && strstr(err, " records on file"));
    llamp_trace_writer_destroy(w);
  }

  /* 3. through a file: spill, flush, append more, flush again */
  {
    llamp_trace_writer_t *w = fill_writer(dir, 300000, N / 2);
    CHECK(w != NULL);
    CHECK(llamp_trace_intern_name(w, "MPI_Comm_rank") == 0);
    CHECK(llamp_trace_writer_flush(w, err, sizeof err) == 0);
    llamp_trace_reader_t *r = llamp_trace_reader_open(path, err, sizeof err);
    CHECK(r && check_reader(r, N / 2));
    CHECK(r && llamp_trace_reader_rewind(r, err, sizeof err) == 0 && check_reader(r, N / 2));
    llamp_trace_reader_destroy(r);
    /* the writer stays readable after the flush */
    r = llamp_trace_reader_from_writer(w, err, sizeof err);
    CHECK(r && check_reader(r, N / 2));
    llamp_trace_reader_destroy(r);
    llamp_trace_rec_t rec;
    uint64_t pw[8];
    for (uint64_t i = N / 2; i < N; i++) {
      make_rec(i, &rec, pw);
      CHECK(llamp_trace_append(w, &rec, pw) == 0);
    }
    CHECK(llamp_trace_intern_name(w, "MPI_Type_commit") == 1);
    r = llamp_trace_reader_from_writer(w, err, sizeof err);
    CHECK(r && check_reader(r, N));
    llamp_trace_reader_destroy(r);
    CHECK(llamp_trace_writer_flush(w, err, sizeof err) == 0);
    llamp_trace_writer_destroy(w);
    r = llamp_trace_reader_open(path, err, sizeof err);
    CHECK(r != NULL);
    if (r) {
      CHECK(llamp_trace_reader_rank(r) == 3 && llamp_trace_reader_world_size(r) == 8);
      CHECK(llamp_trace_reader_records(r) == N);
      CHECK(strcmp(llamp_trace_name(r, 0), "MPI_Comm_rank") == 0);
      CHECK(strcmp(llamp_trace_name(r, 1), "MPI_Type_commit") == 0);
      CHECK(llamp_trace_name(r, 2) == NULL);
      CHECK(check_reader(r, N));
      llamp_trace_reader_destroy(r);
    }
  }

  /* 4. memory only, flushed once at the end (no spill) */
  {
    llamp_trace_writer_t *w = fill_writer(dir, 0, 1000);
    CHECK(w && llamp_trace_writer_flush(w, err, sizeof err) == 0);
    llamp_trace_writer_destroy(w);
    llamp_trace_reader_t *r = llamp_trace_reader_open(path, err, sizeof err);
    CHECK(r && check_reader(r, 1000));
    llamp_trace_reader_destroy(r);
    /* an empty trace */
    w = fill_writer(dir, 0, 0);
    CHECK(w && llamp_trace_writer_flush(w, err, sizeof err) == 0);
    llamp_trace_writer_destroy(w);
    r = llamp_trace_reader_open(path, err, sizeof err);
    CHECK(r && check_reader(r, 0));
    llamp_trace_reader_destroy(r);
  }

  /* 5. truncated and corrupted files */
  {
    llamp_trace_writer_t *w = fill_writer(dir, 0, 1000);
    CHECK(w && llamp_trace_intern_name(w, "MPI_Foo") == 0);
    CHECK(llamp_trace_writer_flush(w, err, sizeof err) == 0);
    llamp_trace_writer_destroy(w);
    long size = file_size(path);
    char bad[700];
    snprintf(bad, sizeof bad, "%s/bad.llt", dir);
    CHECK(read_all(path, err, sizeof err) == 0);

    /* cut in the middle of the records: names the record where it ends */
    long cut = 64 + (size - 64) / 2;
    copy_file(path, bad, cut, -1);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "bad.llt: truncated at record ") && strstr(err, " of 1000"));
    unsigned long long at = 0;
    CHECK(sscanf(strstr(err, "record ") + 7, "%llu", &at) == 1 && at > 0 && at < 1000);
    CHECK(strchr(err, '\n') == NULL);
    /* cut right after the header, and inside a block header */
    copy_file(path, bad, 64, -1);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "bad.llt: truncated at record 0 of 1000") != NULL);
    copy_file(path, bad, 64 + 10, -1);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "bad.llt: truncated at record 0 of 1000") != NULL);
    /* cut inside the name table */
    copy_file(path, bad, size - 3, -1);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "bad.llt") && strstr(err, "name table"));
    /* cut inside the header */
    copy_file(path, bad, 30, -1);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "bad.llt") && strstr(err, "truncated header"));
    /* empty file */
    copy_file(path, bad, 0, -1);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "truncated header") != NULL);
    /* not a trace */
    FILE *f = fopen(bad, "wb");
    fputs("num_ranks 2\nrank 0 {\n}\nrank 1 {\n}\n" "0123456789012345678901234567890123456789", f);
    fclose(f);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "not an llamp trace") != NULL);
    /* a flipped bit in the header */
    copy_file(path, bad, -1, 17);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "corrupt header") != NULL);
    /* a flipped bit in the first block's header: its magic, its record
     * count (covered by the checksum) */
    copy_file(path, bad, -1, 64);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "bad.llt: record 0: corrupt block header") != NULL);
    copy_file(path, bad, -1, 64 + 4);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "bad.llt: record") != NULL);
    /* a flipped bit in the first block's records (its first record's times) */
    copy_file(path, bad, -1, 64 + 24 + 5);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "bad.llt: records 0..") && strstr(err, "checksum mismatch"));
    /* flipped bits anywhere in the block section are caught */
    int caught = 0, tries = 0;
    for (long off = 64; off < size - 40; off += 97, tries++) {
      copy_file(path, bad, -1, off);
      if (read_all(bad, err, sizeof err) == -1 && strstr(err, "bad.llt: record")) caught++;
    }
    CHECK(tries > 10 && caught == tries);
    /* a flipped bit in the name table */
    copy_file(path, bad, -1, size - 6);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "corrupt name table") != NULL);
    /* trailing garbage */
    copy_file(path, bad, -1, -1);
    f = fopen(bad, "ab");
    fputs("xx", f);
    fclose(f);
    CHECK(read_all(bad, err, sizeof err) == -1);
    CHECK(strstr(err, "unexpected bytes") != NULL);
    /* missing file */
    CHECK(read_all("/nonexistent-dir-llamp/rank-0.llt", err, sizeof err) == -1);
    CHECK(strstr(err, "cannot open") != NULL);
    unlink(bad);
  }
  unlink(path);
  rmdir(dir);
  TEST_DONE();
}
