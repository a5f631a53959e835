/* llamp analyze --out-of-core: T and the λs of a graph larger than memory, in
 * one pass over its mapped file with a window of it in memory
 * (llamp_engine_stream_point; docs/graph.md, "Out of core"). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "llamp_report.h"

int analyze_out_of_core(const llamp_graph_t *g, const char *path, const llamp_params_t *p, uint64_t window,
                        const char *format, const char *out_path) {
  char err[1024];
  llamp_analysis_t a;
  memset(&a, 0, sizeof a);
  a.graph_name = path;
  a.ranks = llamp_graph_num_ranks(g);
  a.vertices = llamp_graph_num_vertices(g);
  a.edges = llamp_graph_num_edges(g);
  a.messages = llamp_graph_num_messages(g);
  a.params = *p;
  a.out_of_core = 1;
  stage_begin("evaluating out of core", "");
  if (llamp_engine_stream_point(g, p, window, &a.point, err, sizeof err)) die("%s: %s", path, err);
  stage_end();
  FILE *out = stdout;
  if (out_path && !(out = fopen(out_path, "w"))) die("%s: cannot write", out_path);
  if (strcmp(format, "json") == 0) llamp_report_json(out, &a);
  else llamp_report_text(out, &a);
  if (out != stdout && fclose(out) != 0) die("%s: write failed", out_path);
  return 0;
}
