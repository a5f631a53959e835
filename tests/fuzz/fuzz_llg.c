/* libFuzzer harness for the binary graph reader (.llg, graph/binary.c).
 *
 * Oracle: the reader returns NULL with a one-line message, or a graph that
 * passes llamp_graph_check, writes back to the same bytes, and evaluates
 * (one engine pass) to a finite T. */
#include "fuzz_util.h"

#include <math.h>

#include "llamp_engine.h"
#include "llamp_graph.h"
#include "llg_checksum.h"

/* The file's checksum is recomputed (llg_fix_checksum) so that mutations
 * reach the checks behind it; the raw input still tests the checksum itself. */
static void one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  one(data, size);
  if (size >= LLG_HEADER) {
    uint8_t *fixed = malloc(size);
    memcpy(fixed, data, size);
    llg_fix_checksum(fixed, size);
    if (memcmp(fixed, data, size) != 0) one(fixed, size);
    free(fixed);
  }
  return 0;
}

static void one(const uint8_t *data, size_t size) {
  char path[64], err[512] = "";
  int fd = fuzz_memfile(data, size, path, sizeof path);
  llamp_graph_t *g = llamp_graph_read_binary(path, err, sizeof err);
  close(fd);
  if (!g) {
    fuzz_check_error(err);
    return;
  }
  /* version 3 is read with the full checker; version 4 (mapped in place)
   * with the streaming bounds checks only, which make evaluation safe */
  uint32_t version;
  memcpy(&version, data + 8, 4);
  if (version == 3 && llamp_graph_check(g, err, sizeof err) != 0) abort();
  /* round trip: the same bytes (version 3 is written back as version 4) */
  if (version == 4) {
    fd = fuzz_memfile(NULL, 0, path, sizeof path);
    if (llamp_graph_write_binary(g, path, err, sizeof err) != 0) abort();
    off_t n = lseek(fd, 0, SEEK_END);
    uint8_t *back = malloc(size ? size : 1);
    if (n != (off_t)size || pread(fd, back, size, 0) != (ssize_t)size || memcmp(back, data, size) != 0)
      abort();
    free(back);
    close(fd);
  }
  /* a graph the checker accepts must be evaluable */
  if (llamp_graph_num_vertices(g) <= 4096) {
    llamp_params_t p;
    llamp_params_default(&p);
    llamp_engine_t *e = llamp_engine_create(g, &p, err, sizeof err);
    if (e) {
      llamp_eval_t ev;
      if (llamp_engine_eval(e, &p, LLAMP_PARAM_L, &ev) == 0 && isnan(ev.T)) abort();
      llamp_engine_destroy(e);
    } else {
      fuzz_check_error(err);
    }
  }
  llamp_graph_destroy(g);
}
