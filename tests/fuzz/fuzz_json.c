/* libFuzzer harness for the JSON reader (json/json.c) and what reads its
 * trees back: a capture's report.json as a study sample
 * (study/study.c: llamp_study_read_sample, then node eviction) and as a
 * what-if run (whatif/whatif.c: llamp_whatif_read_run), and `llamp analyze
 * --format json` output as a what-if prediction
 * (llamp_whatif_read_prediction).
 *
 * Oracle: failure gives a one-line message; a parsed tree is walkable (every
 * member has a key, lines >= 1, sizes agree); what the readers accept is
 * finite (counts are whole numbers >= 0). */
#include "fuzz_util.h"

#include <math.h>

#include "llamp_json.h"
#include "llamp_study.h"
#include "llamp_whatif.h"

static size_t walk(const llamp_json_t *v, int depth) {
  if (!v || depth > 300 || llamp_json_line(v) < 1) abort();
  size_t nodes = 1, n = llamp_json_size(v);
  switch (llamp_json_type(v)) {
  case LLAMP_JSON_OBJECT:
    for (size_t i = 0; i < n; i++) {
      const char *k = llamp_json_key_at(v, i);
      if (!k) abort();
      nodes += walk(llamp_json_at(v, i), depth + 1);
      if (!llamp_json_get(v, k)) abort();
    }
    break;
  case LLAMP_JSON_ARRAY:
    for (size_t i = 0; i < n; i++) nodes += walk(llamp_json_at(v, i), depth + 1);
    if (llamp_json_at(v, n)) abort();
    break;
  case LLAMP_JSON_STRING:
    if (!llamp_json_string(v) || n) abort();
    break;
  case LLAMP_JSON_NUMBER: {
    double d;
    if (llamp_json_number(v, &d) || isnan(d) || n) abort();
    break;
  }
  case LLAMP_JSON_BOOL: {
    int b;
    if (llamp_json_bool(v, &b) || (b != 0 && b != 1) || n) abort();
    break;
  }
  case LLAMP_JSON_NULL:
    if (n) abort();
    break;
  default:
    abort();
  }
  return nodes;
}

static void must_be_finite(double v) {
  if (!isfinite(v)) {
    fprintf(stderr, "fuzz: a reader accepted %g\n", v);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[2048] = "";
  llamp_json_t *j = llamp_json_parse((const char *)data, size, "in.json", err, sizeof err);
  if (!j) {
    fuzz_check_error(err);
    return 0;
  }
  walk(j, 0);
  llamp_json_free(j);

  char path[64];
  int fd = fuzz_memfile(data, size, path, sizeof path);
  llamp_study_sample_t s;
  memset(&s, 0, sizeof s);
  if (llamp_study_read_sample(path, &s, err, sizeof err) == 0) {
    double v[] = {s.simulated, s.T, s.L0, s.lambda_L, s.rho_L};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) must_be_finite(v[i]);
    for (int k = 0; k < LLAMP_STUDY_NTOL; k++)
      if (!s.tol_unbounded[k]) must_be_finite(s.tol_dL[k]);
    for (uint32_t r = 0; s.path_share && r < s.ranks; r++) must_be_finite(s.path_share[r]);
    for (size_t h = 0; h < s.nhosts; h++) must_be_finite(s.host_scale[h]);
    for (int q = 0; q < LLAMP_STUDY_NQ; q++) {
      double x;
      if (llamp_study_value(&s, (llamp_study_quantity_t)q, &x) == 0) must_be_finite(x);
    }
    const char **list, **ev;
    if (llamp_study_evict(&s, 1, &list, &ev, err, sizeof err) == 0) {
      for (size_t r = 0; r < s.nrank_hosts; r++)
        if (!list[r]) abort();
      free(list);
      free(ev);
    } else
      fuzz_check_error(err);
  } else
    fuzz_check_error(err);
  llamp_study_sample_free(&s);

  llamp_whatif_result_t r;
  memset(&r, 0, sizeof r);
  if (llamp_whatif_read_run(path, &r, err, sizeof err) == 0) {
    must_be_finite(r.simulated);
    must_be_finite(r.own_T);
    must_be_finite(r.burst_time);
    for (size_t i = 0; i < r.ncauses; i++)
      if (!r.causes[i]) abort();
  } else
    fuzz_check_error(err);
  llamp_whatif_result_free(&r);

  double T, lL, lw, ls;
  if (llamp_whatif_read_prediction(path, &T, &lL, &lw, &ls, err, sizeof err) == 0) {
    must_be_finite(T);
    /* the slopes are optional (NaN when absent), never infinite */
    if (isinf(lL) || isinf(lw) || isinf(ls)) abort();
  } else
    fuzz_check_error(err);
  close(fd);
  return 0;
}
