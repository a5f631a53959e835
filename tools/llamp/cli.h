/* cli.h - what the llamp subcommands share (llamp.c): the model options every
 * command takes, error exit, progress on stderr, graph loading. */
#ifndef LLAMP_CLI_H
#define LLAMP_CLI_H

#include <getopt.h>

#include "llamp_engine.h"
#include "llamp_goal.h"
#include "llamp_graph.h"
#include "llamp_netmodel.h"
#include "llamp_report.h"
#include "llamp_units.h"

typedef struct {
  llamp_params_t params;
  llamp_goal_options_t goal;
  const char *model_path; /* --model FILE: its network / smpi group */
  int set_L, set_G, set_S;  /* given as options: they win over the model file */
  double envelope;          /* --envelope BYTES (< 0: not given) */
  llamp_netmodel_t net;
} common_opts_t;

enum {
  OPT_L = 1000, OPT_O, OPT_SMALLG, OPT_G, OPT_S, OPT_BW_TERM, OPT_TIME_UNIT, OPT_RANGE, OPT_TOL,
  OPT_TOL_OF, OPT_BUDGET, OPT_SWEEP, OPT_WRT, OPT_PATH, OPT_FORMAT, OPT_OBJECTIVE, OPT_LIST,
  OPT_VERSION, OPT_TIMING, OPT_RNDV, OPT_COLL, OPT_REDUCE_COST, OPT_MIN_CALC, OPT_THREADS, OPT_MODEL, OPT_CLASSIFY, OPT_NIC,
  OPT_ROUTES, OPT_HOSTFILE, OPT_SET, OPT_PAIRS, OPT_PAIRS_CSV, OPT_SWEEP2, OPT_WRT2, OPT_ENVELOPE,
  OPT_OUT_OF_CORE, OPT_WINDOW
};

#define COMMON_LONG_OPTIONS                                                           \
  {"L", required_argument, 0, OPT_L}, {"o", required_argument, 0, OPT_O},             \
      {"g", required_argument, 0, OPT_SMALLG}, {"G", required_argument, 0, OPT_G},    \
      {"S", required_argument, 0, OPT_S}, {"bandwidth-term", required_argument, 0, OPT_BW_TERM}, \
      {"goal-time-unit", required_argument, 0, OPT_TIME_UNIT},                        \
      {"help", no_argument, 0, 'h'}, {"version", no_argument, 0, OPT_VERSION},           \
      {"timing", no_argument, 0, OPT_TIMING},                                          \
      {"rendezvous", required_argument, 0, OPT_RNDV}, {"model", required_argument, 0, OPT_MODEL}, \
      {"nic", no_argument, 0, OPT_NIC}, {"envelope", required_argument, 0, OPT_ENVELOPE}

extern const char *prog;
extern const char *params_help;

/* One line "llamp: ..." on stderr, exit 1. */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void bad_usage(const char *cmd) __attribute__((noreturn));
/* Stage messages on stderr, when a person is watching (or --timing). */
void stage_begin(const char *what, const char *name);
void stage_end(void);
double parse_unit(const char *opt, const char *text, llamp_unit_kind_t kind, const char *def);
/* Handle one shared option; returns 1 if it was one. */
int common_option(int c, common_opts_t *o);
void common_init(common_opts_t *o);
/* After the options: apply --model (its network/smpi group; the file's
 * reference L, G, S unless given as options). */
void common_finish(common_opts_t *o);
llamp_graph_t *load_graph(const char *path, const common_opts_t *o);
llamp_unit_kind_t param_unit(llamp_param_t w, const char **def);
/* "A:B" (or "A:B:STEP" when step != NULL) in the unit of parameter w. */
void parse_span(const char *opt, const char *text, llamp_param_t w, double *a, double *b,
                double *step);
llamp_param_t parse_param_name(const char *opt, const char *s);

/* The analysis of g at p before any pass (the graph's counts), and the
 * report of it in `format` (text, json, csv) to out_path or stdout. */
void analysis_init(llamp_analysis_t *a, const llamp_graph_t *g, const char *path, const llamp_params_t *p);
void report_write(const llamp_analysis_t *a, const char *format, const char *out_path);

/* Subcommands in files of their own. */
int cmd_plot(int argc, char **argv);
int cmd_classify(int argc, char **argv);
/* --classify / --at ANCHOR: here, e1g, e10g, qdr or BW@L (classify_cmd.c) */
void classify_anchor(const char *opt, const char *text, llamp_params_t *p);
int cmd_place(int argc, char **argv); /* place_cmd.c */
/* llamp analyze --out-of-core: report T and the lambdas (outofcore_cmd.c) */
int analyze_out_of_core(const llamp_graph_t *g, const char *path, const llamp_params_t *p, uint64_t window,
                        const char *format, const char *out_path);

#endif
