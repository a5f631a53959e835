/* Helpers shared by the libFuzzer harnesses (tests/fuzz.cmake).
 *
 * The file readers take a path: an input becomes an anonymous memory file
 * (memfd) opened by its /proc/self/fd name, so the reader runs exactly as on
 * disk without touching the file system. */
#ifndef LLAMP_FUZZ_UTIL_H
#define LLAMP_FUZZ_UTIL_H
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A memory file holding data; its path in `path`.  -1 on failure. */
static inline int fuzz_memfile(const uint8_t *data, size_t size, char *path, size_t len) {
  int fd = memfd_create("llamp-fuzz", MFD_CLOEXEC);
  if (fd < 0) abort();
  size_t done = 0;
  while (done < size) {
    ssize_t k = write(fd, data + done, size - done);
    if (k <= 0) abort();
    done += (size_t)k;
  }
  snprintf(path, len, "/proc/self/fd/%d", fd);
  return fd;
}

/* The error rule every reader follows: a non-empty message on one line. */
static inline void fuzz_check_error(const char *err) {
  if (getenv("LLAMP_FUZZ_VERBOSE")) fprintf(stderr, "error: %s\n", err); /* seeing what a seed does */
  if (err[0] == '\0' || strchr(err, '\n')) {
    fprintf(stderr, "fuzz: the error message is %s: [%s]\n", err[0] ? "not one line" : "empty", err);
    abort();
  }
}

/* A NUL-terminated copy of the input (for the text parsers). */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  memcpy(s, data, size);
  s[size] = 0;
  return s;
}
#endif
