/* libFuzzer harness for the what-if variants file (whatif/whatif.c:
 * llamp_whatif_read_variants; the same parser reads --variant).
 *
 * (A spec naming an existing file is a platform file: the reader stats
 * each spec, and opens nothing.)
 *
 * Oracle: failure gives a one-line message; variants read have a name and
 * a spec, options in pairs (families only), finite wire/switch times >= 0,
 * and the base/shift comparison of each with the first gives finite
 * changes. */
#include "fuzz_util.h"

#include <math.h>

#include "llamp_whatif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64], err[2048] = "";
  int fd = fuzz_memfile(data, size, path, sizeof path);
  llamp_whatif_variant_t *vs = NULL;
  size_t n = 0;
  if (llamp_whatif_read_variants(path, &vs, &n, err, sizeof err) == 0) {
    if (n == 0) abort();
    for (size_t i = 0; i < n; i++) {
      const llamp_whatif_variant_t *v = &vs[i];
      if (!v->name || !v->spec || !v->name[0] || !v->spec[0]) abort();
      if (v->nopts % 2 || (v->is_file && v->nopts)) abort();
      if (!isfinite(v->wire) || !isfinite(v->sw) || v->wire < 0 || v->sw < 0) abort();
      if (strchr(v->name, '\n')) abort();
      double dw, ds;
      if (llamp_whatif_is_shift(&vs[0], v, &dw, &ds) && (!isfinite(dw) || !isfinite(ds))) abort();
    }
  } else
    fuzz_check_error(err);
  for (size_t i = 0; i < n; i++) llamp_whatif_variant_free(&vs[i]);
  free(vs);
  close(fd);
  return 0;
}
