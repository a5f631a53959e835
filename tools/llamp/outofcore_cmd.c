/* llamp analyze --out-of-core: T and the λs of a graph larger than memory, in
 * one pass over its mapped file with a window of it in memory
 * (llamp_engine_stream_point; docs/graph.md, "Out of core"). */
#include "cli.h"

int analyze_out_of_core(const llamp_graph_t *g, const char *path, const llamp_params_t *p, uint64_t window,
                        const char *format, const char *out_path) {
  char err[1024];
  llamp_analysis_t a;
  analysis_init(&a, g, path, p);
  a.out_of_core = 1;
  stage_begin("evaluating out of core", "");
  if (llamp_engine_stream_point(g, p, window, &a.point, err, sizeof err)) die("%s: %s", path, err);
  stage_end();
  report_write(&a, format, out_path);
  return 0;
}
