/* Every single-byte change of a small .llg or .llt file is an error, never a
 * graph or trace read back with different contents: each byte of each file
 * below is replaced by every other value (or, for the larger trace, flipped
 * bit by bit and inverted), and the reader must fail with a one-line message.
 * The files are the fuzz seeds (tests/data/fuzz): `llamp convert` and
 * `llamp generate` outputs and traces of small captures, one of them
 * spilled block by block. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "llamp_graph.h"
#include "llamp_test.h"
#include "llamp_trace.h"

static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static unsigned char buf[1 << 16];
  *n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return buf;
}

/* 1: the file at `path` reads back whole; 0: a one-line error. */
static int read_llg(const char *path) {
  char err[512] = "";
  llamp_graph_t *g = llamp_graph_read_binary(path, err, sizeof err);
  if (g) {
    llamp_graph_destroy(g);
    return 1;
  }
  CHECK(err[0] && !strchr(err, '\n'));
  return 0;
}

static int read_llt(const char *path) {
  char err[512] = "";
  llamp_trace_reader_t *r = llamp_trace_reader_open(path, err, sizeof err);
  if (!r) {
    CHECK(err[0] && !strchr(err, '\n'));
    return 0;
  }
  llamp_trace_rec_t rec;
  const uint64_t *pl;
  int k;
  while ((k = llamp_trace_next(r, &rec, &pl, err, sizeof err)) == 1) {
  }
  llamp_trace_reader_destroy(r);
  if (k < 0) CHECK(err[0] && !strchr(err, '\n'));
  return k == 0;
}

/* Change every byte of `file` by each xor mask in masks[0..nm-1] (all 255
 * when nm == 0); count the changes the reader accepts. */
static void flip_all(const char *file, int (*reader)(const char *), const unsigned char *masks, int nm) {
  size_t n;
  const unsigned char *orig = slurp(file, &n);
  CHECK(orig && n > 0);
  if (!orig || !n) return;
  int fd = memfd_create("flip", MFD_CLOEXEC);
  CHECK(fd >= 0);
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  CHECK(pwrite(fd, orig, n, 0) == (ssize_t)n);
  CHECK(reader(path) == 1); /* the file itself is valid */
  unsigned long tried = 0, accepted = 0;
  for (size_t i = 0; i < n; i++) {
    for (int m = 0; m < (nm ? nm : 255); m++) {
      unsigned char b = orig[i] ^ (nm ? masks[m] : (unsigned char)(m + 1));
      CHECK(pwrite(fd, &b, 1, (off_t)i) == 1);
      tried++;
      if (reader(path)) {
        if (accepted++ < 5) fprintf(stderr, "%s: byte %zu changed to 0x%02x: accepted\n", file, i, b);
      }
    }
    CHECK(pwrite(fd, orig + i, 1, (off_t)i) == 1);
  }
  close(fd);
  printf("%s: %zu bytes, %lu changes, %lu accepted\n", file, n, tried, accepted);
  CHECK(accepted == 0);
}

int main(void) {
  static const unsigned char bits[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff};
  int nb = getenv("LLAMP_FLIP_ALL") ? 0 : 9; /* every value there too (~40 s) */
  flip_all("data/fuzz/llg/paper_example.llg", read_llg, NULL, 0);
  flip_all("data/fuzz/llg/random.llg", read_llg, NULL, 0);
  flip_all("data/fuzz/llg/paper_example-v4.llg", read_llg, NULL, 0);
  flip_all("data/fuzz/llg/random-v4.llg", read_llg, NULL, 0);
  flip_all("data/fuzz/llt/paper-r1.llt", read_llt, NULL, 0);
  flip_all("data/fuzz/llt/self-1rank.llt", read_llt, NULL, 0);
  flip_all("data/fuzz/llt/all_calls-spill-r1.llt", read_llt, bits, nb);
  flip_all("data/fuzz/llt/all_calls-r0.llt", read_llt, bits, nb);
  return llamp_test_failures ? 1 : 0;
}
