/* The trace writer when memory or the disk runs out while it spills
 * (linked with -Wl,--wrap=malloc,--wrap=pwrite by tests/faults.cmake, which
 * turns failures on here): the append fails with one line naming the rank,
 * the record count and the cause; the file then holds the blocks written
 * before, and the reader says how many records that is. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llamp_test.h"
#include "llamp_trace.h"

static int fail_malloc, fail_pwrite; /* while set, the calls fail */
static long pwrites;

void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_malloc(size_t n) {
  if (fail_malloc) {
    errno = ENOMEM;
    return NULL;
  }
  return __real_malloc(n);
}
ssize_t __real_pwrite(int fd, const void *p, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *p, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *p, size_t n, off_t off) {
  pwrites++;
  if (fail_pwrite) {
    /* a full disk: part of the data, then ENOSPC */
    if (n > 8 && fail_pwrite == 1) {
      fail_pwrite = 2;
      return __real_pwrite(fd, p, n / 2, off);
    }
    errno = ENOSPC;
    return -1;
  }
  return __real_pwrite(fd, p, n, off);
}

static void rec_of(uint64_t i, llamp_trace_rec_t *r) {
  memset(r, 0, sizeof *r);
  r->op = LLAMP_OP_SEND;
  r->peer = (int32_t)(i % 7);
  r->tag = 1;
  r->bytes = 8 + i;
  r->t_start = (double)i * 1e-6;
  r->t_end = r->t_start + 1e-7;
  r->req = LLAMP_TRACE_NO_REQ;
  r->status_source = r->status_tag = -1;
}

/* Append until the first failure (at most n); the records appended. */
static uint64_t append_until_failure(llamp_trace_writer_t *w, uint64_t first, uint64_t n) {
  llamp_trace_rec_t r;
  for (uint64_t i = first; i < first + n; i++) {
    rec_of(i, &r);
    if (llamp_trace_append(w, &r, NULL)) return i - first;
  }
  return n;
}

/* The reader's message for the file at path. */
static void reader_message(const char *path, char *err, size_t len) {
  err[0] = 0;
  llamp_trace_reader_t *r = llamp_trace_reader_open(path, err, len);
  CHECK(r == NULL);
  if (r) llamp_trace_reader_destroy(r);
}

int main(void) {
  char dir[] = "/tmp/llamp-trace-faults-XXXXXX", path[600], err[1024], want[1024];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/rank-2.llt", dir);

  /* out of memory: with a 256 KiB spill threshold the writer fills chunks
   * of 16 to 128 KiB, spills, keeps one as the spare and allocates the
   * others again (a threshold below the first chunk would reuse the spare
   * forever and never allocate); past 30000 records every allocation fails */
  llamp_trace_writer_t *w = llamp_trace_writer_create(dir, 2, 4, 256 << 10, err, sizeof err);
  CHECK(w != NULL);
  CHECK(append_until_failure(w, 0, 30000) == 30000);
  fail_malloc = 1;
  uint64_t more = append_until_failure(w, 10000, 100000);
  fail_malloc = 0;
  /* the spare chunk holds up to the next spill; then a new chunk is needed */
  CHECK(more < 100000);
  snprintf(want, sizeof want, "trace writer: rank 2: out of memory after %llu records",
           (unsigned long long)(30000 + more));
  CHECK(strcmp(llamp_trace_writer_error(w), want) == 0);
  printf("out of memory: %s\n", llamp_trace_writer_error(w));
  uint64_t on_file = llamp_trace_records(w);
  CHECK(on_file == 30000 + more);
  reader_message(path, err, sizeof err);
  printf("reader: %s\n", err);
  CHECK(strstr(err, "incomplete trace: rank 2 of 4 stopped before MPI_Finalize") != NULL);
  /* the records spilled before the failure are on file; memory held the
   * rest (under 256 KiB: ~20000 records) */
  unsigned long long got = 0;
  const char *p = strstr(err, "); ");
  CHECK(p && sscanf(p, "); %llu records on file", &got) == 1);
  CHECK(got > 0 && got < 30000 + more && got + 25000 >= 30000 + more);
  llamp_trace_writer_destroy(w);

  /* disk full: after 20000 records, every write fails (the first one half
   * done, as a full file system does) */
  w = llamp_trace_writer_create(dir, 2, 4, 4096, err, sizeof err);
  CHECK(w != NULL);
  CHECK(append_until_failure(w, 0, 20000) == 20000);
  fail_pwrite = 1;
  more = append_until_failure(w, 20000, 100000);
  CHECK(more < 1000);
  printf("disk full: %s\n", llamp_trace_writer_error(w));
  snprintf(want, sizeof want, "%s: write failed: %s", path, strerror(ENOSPC));
  CHECK(strcmp(llamp_trace_writer_error(w), want) == 0);
  CHECK(llamp_trace_writer_flush(w, err, sizeof err) == -1);
  CHECK(strcmp(err, want) == 0);
  fail_pwrite = 0;
  reader_message(path, err, sizeof err);
  printf("reader: %s\n", err);
  CHECK(strstr(err, "incomplete trace: rank 2 of 4 stopped before MPI_Finalize") != NULL);
  p = strstr(err, "); ");
  CHECK(p && sscanf(p, "); %llu records on file", &got) == 1);
  CHECK(got > 0 && got <= 20000 && got + 400 >= 20000);
  llamp_trace_writer_destroy(w);
  CHECK(pwrites > 0);

  unlink(path);
  rmdir(dir);
  return llamp_test_failures ? 1 : 0;
}
