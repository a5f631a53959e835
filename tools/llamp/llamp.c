/* llamp - command-line front end: analyze, export-lp, convert, generate, build.
 * Thin by design: parse options, call the library stages, print.
 * Conventions (hwloc style): --help to stdout and exit 0; errors to stderr as
 * one line and exit 1; --version everywhere. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "llamp_mem.h"
#include "llamp_coll.h"
#include "llamp_engine.h"
#include "llamp_goal.h"
#include "llamp_graph.h"
#include "llamp_lp.h"
#include "llamp_report.h"
#include "llamp_topo.h"
#include "llamp_sched.h"
#include "llamp_synth.h"
#include "llamp_trace.h"
#include "llamp_units.h"

#include "cli.h"

#ifndef LLAMP_VERSION
#define LLAMP_VERSION "0.1.0"
#endif

const char *prog = "llamp";

void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Stage messages on stderr, only when a person is watching. */
static int progress_on = -1;
static double stage_t0;
static int timing_on = 0; /* --timing: stage times on stderr even when not a terminal */
void stage_begin(const char *what, const char *name) {
  if (progress_on < 0) progress_on = isatty(2) || timing_on;
  stage_t0 = now();
  if (progress_on) fprintf(stderr, "%s: %s %s ...", prog, what, name ? name : "");
}
void stage_end(void) {
  if (progress_on > 0) fprintf(stderr, " %.2f s\n", now() - stage_t0);
}

/* --timing: the process's memory at the end of an analysis.  The heap is
 * never returned to the kernel (llamp_mem_keep_freed), so the anonymous
 * memory now is the peak of what the analysis allocated; the file-backed
 * part is the mapped graph, page cache the kernel may drop and read again. */
static void memory_report(void) {
  if (!timing_on) return;
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return;
  char line[256];
  double hwm = -1, anon = -1, file = -1;
  while (fgets(line, sizeof line, f)) {
    double kb;
    if (sscanf(line, "VmHWM: %lf kB", &kb) == 1) hwm = kb * 1024;
    else if (sscanf(line, "RssAnon: %lf kB", &kb) == 1) anon = kb * 1024;
    else if (sscanf(line, "RssFile: %lf kB", &kb) == 1) file = kb * 1024;
  }
  fclose(f);
  if (hwm >= 0 && anon >= 0 && file >= 0)
    fprintf(stderr, "%s: memory: peak RSS %.3g GB; at the end %.3g GB allocated (its peak), %.3g GB of the mapped graph file\n",
            prog, hwm / 1e9, anon / 1e9, file / 1e9);
}

/* ---- shared options ------------------------------------------------------------ */

/* common_opts_t, the option enum and COMMON_LONG_OPTIONS: cli.h */

const char *params_help =
    "Model parameters (suffixes accepted; a bare number uses the unit in brackets):\n"
    "  --L TIME        network latency L            [us]  default 3us\n"
    "  --o TIME        CPU overhead per message o   [us]  default 5us\n"
    "  --g TIME        gap between messages g (0 = not modelled) [us] default 0\n"
    "  --G PERBYTE     gap per byte G, or a bandwidth (10Gbps, 5GBps) [ns] default 0.018ns\n"
    "  --S SIZE        rendezvous threshold: s > S is rendezvous [B] default 256KiB\n"
    "  --bandwidth-term s-1|s   charge (s-1)*G (paper, LogGOPSim; default) or s*G\n"
    "  --rendezvous rdma-read|direct  messages above S: the paper's RDMA read (3 L,\n"
    "                  default) or SMPI's direct transfer once both sides are posted (1 L)\n"
    "  --model FILE    size-dependent message costs from a model file's smpi (else\n"
    "                  network) group (docs/models.md); its reference latency,\n"
    "                  bandwidth and eager limit are L, G, S unless given above\n"
    "  --envelope SIZE bytes the network adds to every message (SMPI: 16): the\n"
    "                  bandwidth term becomes (s + SIZE)*G, as in a capture on a platform\n"
    "                  whose L and G it took (report.json params.size_dependent.envelope)\n"
    "  --nic           LogGP's NIC rule: a rank's consecutive messages leave its NIC (and\n"
    "                  its receives end, in their order at these parameters) at least\n"
    "                  g + (s-1)G apart; the rank goes on meanwhile (docs/model.md)\n"
    "  --goal-time-unit UNIT    unit of calc values in GOAL input (ps ns us ms s) default ns\n"
    "  --timing        print each stage's time on stderr (progress is shown on a terminal anyway)\n";

double parse_unit(const char *opt, const char *text, llamp_unit_kind_t kind, const char *def) {
  double v;
  char err[256];
  if (llamp_units_parse(text, kind, def, &v, err, sizeof err)) die("--%s: %s", opt, err);
  return v;
}

/* Handle one shared option; returns 1 if it was one. */
int common_option(int c, common_opts_t *o) {
  switch (c) {
  case OPT_L: o->params.L = parse_unit("L", optarg, LLAMP_UNIT_TIME, "us"); o->set_L = 1; return 1;
  case OPT_O: o->params.o = parse_unit("o", optarg, LLAMP_UNIT_TIME, "us"); return 1;
  case OPT_SMALLG: o->params.g = parse_unit("g", optarg, LLAMP_UNIT_TIME, "us"); return 1;
  case OPT_G: o->params.G = parse_unit("G", optarg, LLAMP_UNIT_PER_BYTE, "ns"); o->set_G = 1; return 1;
  case OPT_S: o->params.S = parse_unit("S", optarg, LLAMP_UNIT_BYTES, "B"); o->set_S = 1; return 1;
  case OPT_MODEL: o->model_path = optarg; return 1;
  case OPT_NIC: o->params.nic = 1; return 1;
  case OPT_ENVELOPE:
    o->envelope = parse_unit("envelope", optarg, LLAMP_UNIT_BYTES, "B");
    if (!(o->envelope <= 1e9)) die("--envelope: '%s' (expected 0 .. 1e9 bytes)", optarg);
    return 1;
  case OPT_BW_TERM:
    if (strcmp(optarg, "s-1") == 0) o->params.size_g_full = 0;
    else if (strcmp(optarg, "s") == 0) o->params.size_g_full = 1;
    else die("--bandwidth-term: '%s' (expected s-1 or s)", optarg);
    return 1;
  case OPT_TIME_UNIT:
    if (llamp_goal_time_unit_parse(optarg, &o->goal.time_unit))
      die("--goal-time-unit: '%s' (expected ps, ns, us, ms or s)", optarg);
    return 1;
  case OPT_VERSION: printf("llamp (smpi-llamp) %s\n", LLAMP_VERSION); exit(0);
  case OPT_TIMING: timing_on = 1; progress_on = 1; return 1;
  case OPT_RNDV:
    if (strcmp(optarg, "rdma-read") == 0) o->params.rndv_direct = 0;
    else if (strcmp(optarg, "direct") == 0) o->params.rndv_direct = 1;
    else die("--rendezvous: '%s' (expected rdma-read or direct)", optarg);
    return 1;
  }
  return 0;
}

void common_init(common_opts_t *o) {
  memset(o, 0, sizeof *o);
  llamp_params_default(&o->params);
  llamp_goal_options_default(&o->goal);
  o->envelope = -1;
}

/* After the options: --model's size-dependent costs; the file's reference
 * values are L0, G0 and its eager limit S unless given as options. */
void common_finish(common_opts_t *o) {
  if (!o->model_path && o->envelope >= 0) {
    /* the scalar model with SMPI's envelope: factors 1, no overheads, so
     * every message costs L + (s + envelope) G */
    llamp_netmodel_init(&o->net);
    o->net.envelope = o->envelope;
    o->net.L_ref = o->params.L;
    o->net.G_ref = o->params.G;
    snprintf(o->net.source, sizeof o->net.source, "--envelope %g", o->envelope);
    o->params.net = &o->net;
    return;
  }
  if (!o->model_path) return;
#ifdef LLAMP_HAVE_NETMODEL_FILE
  static llamp_netmodel_file_t f;
  char err[1024];
  if (llamp_netmodel_file_read(o->model_path, o->params.L, o->params.G, &f, err, sizeof err))
    die("%s", err);
  if (!f.have_model) die("%s: no smpi or network group (docs/models.md)", o->model_path);
  if (f.have_L && !o->set_L) o->params.L = f.L;
  if (f.have_G && !o->set_G) o->params.G = f.G;
  if (f.have_S && !o->set_S) o->params.S = f.S;
  o->net = f.model;
  if (o->envelope >= 0) o->net.envelope = o->envelope;
  o->params.net = &o->net;
#else
  die("--model: this llamp was built without libconfig");
#endif
}

llamp_graph_t *load_graph(const char *path, const common_opts_t *o) {
  char err[1024];
  int bin = llamp_graph_is_binary(path);
  if (bin < 0) die("%s: cannot open: %s", path, strerror(errno));
  stage_begin("reading", path);
  llamp_graph_t *g = bin ? llamp_graph_read_binary(path, err, sizeof err)
                         : llamp_goal_read(path, &o->goal, err, sizeof err);
  if (!g) {
    if (progress_on > 0) fputc('\n', stderr);
    die("%s", err);
  }
  stage_end();
  return g;
}

void bad_usage(const char *cmd) {
  fprintf(stderr, "%s: try '%s %s --help'\n", prog, prog, cmd);
  exit(1);
}

/* Unit kind and default suffix of a parameter's values on the command line. */
llamp_unit_kind_t param_unit(llamp_param_t w, const char **def) {
  *def = w == LLAMP_PARAM_G ? "ns" : "us";
  return w == LLAMP_PARAM_G ? LLAMP_UNIT_PER_BYTE : LLAMP_UNIT_TIME;
}

/* Parse "A:B" (or "A:B:STEP" when step != NULL) in the unit of parameter w. */
void parse_span(const char *opt, const char *text, llamp_param_t w, double *a, double *b,
                       double *step) {
  char f[3][64];
  const char *def;
  llamp_unit_kind_t kind = param_unit(w, &def);
  int n = sscanf(text, "%63[^:]:%63[^:]:%63s", f[0], f[1], f[2]);
  if (n != (step ? 3 : 2)) die("--%s: '%s' (expected %s)", opt, text, step ? "A:B:STEP" : "MIN:MAX");
  *a = parse_unit(opt, f[0], kind, def);
  *b = parse_unit(opt, f[1], kind, def);
  if (*b < *a) die("--%s: '%s' has MAX < MIN", opt, text);
  if (step) {
    /* a step is a difference of parameter values, so a bandwidth makes no sense */
    *step = parse_unit(opt, f[2], kind == LLAMP_UNIT_PER_BYTE ? LLAMP_UNIT_TIME : kind, def);
    if (!(*step > 0) || (*b - *a) / *step > 1e6)
      die("--%s: '%s' (expected STEP > 0 and at most 10^6 points)", opt, text);
  }
}

llamp_param_t parse_param_name(const char *opt, const char *s) {
  for (int w = 0; w < LLAMP_NUM_PARAMS; w++)
    if (strcmp(s, llamp_param_name((llamp_param_t)w)) == 0) return (llamp_param_t)w;
  die("--%s: unknown parameter '%s' (expected L, G, o or g)", opt, s);
  return LLAMP_PARAM_L;
}

/* A parameter by name: L, G, o, g, or an extra one of p's per-pair costs. */
static llamp_param_t resolve_param(const llamp_params_t *p, const char *opt, const char *s) {
  for (uint32_t w = 0; w < llamp_params_count(p); w++)
    if (strcmp(s, llamp_params_name(p, (llamp_param_t)w)) == 0) return (llamp_param_t)w;
  char list[400] = "L, G, o, g";
  for (uint32_t x = 0; p->pairs && x < p->pairs->num_params; x++)
    snprintf(list + strlen(list), sizeof list - strlen(list), ", %s", p->pairs->name[x]);
  die("--%s: unknown parameter '%s' (expected %s%s)", opt, s, list,
      p->pairs ? "" : "; the topology parameters need --routes");
}

/* The per-pair costs of a routes file for a graph of P ranks: the file's
 * placement, or the hostfile's; L and G from the platform unless given. */
static llamp_pairs_t *routes_pairs(const llamp_topo_t *t, const char *hostfile, llamp_params_t *p,
                                   int L_given, int G_given, uint32_t P) {
  char err[1024];
  uint32_t *hr = NULL;
  if (hostfile) {
    FILE *f = fopen(hostfile, "r");
    if (!f) die("%s: cannot open: %s", hostfile, strerror(errno));
    hr = malloc((P ? P : 1) * sizeof *hr);
    if (!hr) die("out of memory");
    char line[1024];
    uint32_t r = 0, ln = 0;
    while (fgets(line, sizeof line, f)) {
      ln++;
      line[strcspn(line, "\r\n")] = 0;
      char *colon = strchr(line, ':');
      long count = 1;
      if (colon) {
        *colon = 0;
        count = strtol(colon + 1, NULL, 10);
      }
      if (!line[0]) continue;
      uint32_t h = UINT32_MAX;
      for (uint32_t k = 0; k < llamp_topo_num_hosts(t); k++)
        if (!strcmp(llamp_topo_host_name(t, k), line)) h = k;
      if (h == UINT32_MAX) die("%s:%u: host '%s' is not in the routes file", hostfile, ln, line);
      for (long k = 0; k < count && r < P; k++) hr[r++] = h;
    }
    fclose(f);
    if (r < P) die("%s: %u hosts for %u ranks", hostfile, r, P);
  } else if (llamp_topo_num_ranks(t) != P) {
    die("the routes file has %u ranks, the graph %u", llamp_topo_num_ranks(t), P);
  }
  llamp_topo_ref_t ref;
  if (llamp_topo_reference(t, hr, P, &ref, err, sizeof err)) die("%s", err);
  if (!L_given) p->L = ref.L0;
  if (!G_given && ref.G0 > 0) p->G = ref.G0;
  llamp_pairs_t *q = llamp_topo_pairs(t, hr, P, &ref, err, sizeof err);
  if (!q) die("%s", err);
  free(hr);
  p->pairs = q;
  for (uint32_t x = 0; x < q->num_params; x++) p->x[x] = q->ref[x];
  return q;
}

/* --routes, --hostfile and --set, shared by analyze and export-lp. */
typedef struct {
  const char *routes_path, *hostfile;
  const char *sets[32];
  size_t nsets;
  int L_given, G_given;
  llamp_topo_t *topo;
  llamp_pairs_t *pairs;
} topo_opts_t;

#define TOPO_LONG_OPTIONS                                                                  \
  {"routes", required_argument, 0, OPT_ROUTES}, {"hostfile", required_argument, 0, OPT_HOSTFILE}, \
      {"set", required_argument, 0, OPT_SET}

/* Handle one topology option (and note --L / --G, which win over the
 * platform's); returns 1 if it was one. */
static int topo_option(int c, topo_opts_t *t) {
  t->L_given |= c == OPT_L;
  t->G_given |= c == OPT_G;
  switch (c) {
  case OPT_ROUTES: t->routes_path = optarg; return 1;
  case OPT_HOSTFILE: t->hostfile = optarg; return 1;
  case OPT_SET:
    if (t->nsets == 32) die("--set: at most 32");
    t->sets[t->nsets++] = optarg;
    return 1;
  }
  return 0;
}

/* After the graph is loaded: the routes' per-pair costs into p, then --set. */
static void topo_finish(topo_opts_t *t, llamp_params_t *p, const llamp_graph_t *g) {
  char err[1024];
  if (t->routes_path) {
    if (!(t->topo = llamp_topo_read(t->routes_path, err, sizeof err))) die("%s", err);
    t->pairs = routes_pairs(t->topo, t->hostfile, p, t->L_given, t->G_given, llamp_graph_num_ranks(g));
  } else if (t->hostfile) {
    die("--hostfile needs --routes");
  }
  for (size_t i = 0; i < t->nsets; i++) {
    const char *eq = strchr(t->sets[i], '=');
    if (!eq) die("--set: '%s' (expected NAME=VALUE)", t->sets[i]);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(eq - t->sets[i]), t->sets[i]);
    llamp_param_t w = resolve_param(p, "set", name);
    const char *def;
    llamp_unit_kind_t kind = param_unit(w, &def);
    llamp_params_set(p, w, parse_unit("set", eq + 1, kind, def));
  }
}

static void topo_free(topo_opts_t *t) {
  llamp_pairs_free(t->pairs);
  llamp_topo_destroy(t->topo);
}

/* ---- analyze ---------------------------------------------------------------------- */

void analysis_init(llamp_analysis_t *a, const llamp_graph_t *g, const char *path, const llamp_params_t *p) {
  memset(a, 0, sizeof *a);
  a->graph_name = path;
  a->ranks = llamp_graph_num_ranks(g);
  a->vertices = llamp_graph_num_vertices(g);
  a->edges = llamp_graph_num_edges(g);
  a->messages = llamp_graph_num_messages(g);
  a->params = *p;
}

void report_write(const llamp_analysis_t *a, const char *format, const char *out_path) {
  FILE *out = stdout;
  if (out_path && !(out = fopen(out_path, "w"))) die("%s: cannot write: %s", out_path, strerror(errno));
  if (strcmp(format, "json") == 0) llamp_report_json(out, a);
  else if (strcmp(format, "csv") == 0) llamp_report_csv(out, a);
  else llamp_report_text(out, a);
  if (out != stdout && fclose(out) != 0) die("%s: write failed", out_path);
}

static const char *analyze_help =
    "usage: llamp analyze GRAPH [options]\n"
    "Predict the runtime of an execution graph (GOAL text or llamp binary) under\n"
    "LogGPS and report its latency, bandwidth and overhead sensitivity.\n\n"
    "%s"
    "Analyses:\n"
    "  --range LMIN:LMAX   all critical latencies in the interval (exact)\n"
    "  --tolerance LIST    x %% tolerances, e.g. 1,2,5 (default 1,2,5), or none\n"
    "  --tolerance-of LIST parameters for the tolerances: L,G,o (default L)\n"
    "  --budget TMAX       largest L with T <= TMAX\n"
    "  --sweep A:B:STEP    T and λ over many values in one pass\n"
    "  --wrt NAME          parameter varied by --range and --sweep: L, G, o, or with\n"
    "                      --routes l_wire, d_switch, dl_CLASS (default L)\n"
    "  --sweep2 A:B:STEP   with --sweep: a 2-D sweep, T on the grid of both (one\n"
    "                      pass per 64 points), e.g. --wrt l_wire --wrt2 d_switch\n"
    "  --wrt2 NAME         the second parameter of --sweep2 (required with it)\n"
    "Topology (docs/topology.md):\n"
    "  --routes FILE       per-pair message costs from a routes file (a capture's\n"
    "                      routes.txt, or llamp-routes): every message costs its\n"
    "                      route; L and G default to the platform's (shortest route\n"
    "                      latency, largest bandwidth) and stay an offset and a scale\n"
    "  --hostfile FILE     with --routes: rank r runs on the host named on line r + 1\n"
    "                      (smpirun's format; a placement to evaluate)\n"
    "  --set NAME=VALUE    value of an extra parameter, e.g. --set d_switch=108ns\n"
    "  --pairs N           per-pair latency sensitivities λ_L^ij along the critical\n"
    "                      path: the N largest in the text report, all of them in\n"
    "                      JSON (\"pair_sensitivities\"; docs/topology.md)\n"
    "  --pairs-csv FILE    the ranks x ranks matrix of λ_L^ij as CSV (implies --pairs)\n"
    "  --critical-path     list the critical path's vertices\n"
    "  --classify ANCHOR   classes C1-C5 (llamp classify) at here (the model), e1g,\n"
    "                      e10g, qdr or BW@L; 19 more evaluations\n"
    "  --out-of-core       T and the λs only, in one pass over the graph file with a\n"
    "                      window of it in memory: graphs larger than memory (LogGP,\n"
    "                      eager messages; docs/graph.md)\n"
    "  --window N          vertices the --out-of-core pass holds (default 1048576;\n"
    "                      the longest in-edge must fit)\n"
    "  --format text|json|csv   output format (default text)\n"
    "  -o FILE             write the report to FILE instead of stdout\n";

static int cmd_analyze(int argc, char **argv) {
  common_opts_t co;
  common_init(&co);
  int want_path = 0, have_budget = 0;
  double range_lo = 0, range_hi = 0, budget = 0, sw_a = 0, sw_b = 0, sw_step = 0;
  const char *range_str = NULL, *sweep_str = NULL, *sweep2_str = NULL, *wrt2_str = NULL;
  double sw2_a = 0, sw2_b = 0, sw2_step = 0;
  double percents[32] = {1, 2, 5};
  size_t npercent = 3;
  int tol_of[LLAMP_NUM_PARAMS] = {1, 0, 0, 0};
  llamp_param_t wrt = LLAMP_PARAM_L;
  const char *format = "text", *out_path = NULL;
  const char *wrt_str = NULL, *tol_of_str = NULL;
  topo_opts_t to;
  memset(&to, 0, sizeof to);
  long pair_top = -1;                /* --pairs N (-1: not asked) */
  const char *pairs_csv = NULL;      /* --pairs-csv FILE */
  static struct option lo[] = {COMMON_LONG_OPTIONS,
                               {"pairs", required_argument, 0, OPT_PAIRS},
                               {"pairs-csv", required_argument, 0, OPT_PAIRS_CSV},
                               {"range", required_argument, 0, OPT_RANGE},
                               {"tolerance", required_argument, 0, OPT_TOL},
                               {"tolerance-of", required_argument, 0, OPT_TOL_OF},
                               {"budget", required_argument, 0, OPT_BUDGET},
                               {"sweep", required_argument, 0, OPT_SWEEP},
                               {"wrt", required_argument, 0, OPT_WRT},
                               {"sweep2", required_argument, 0, OPT_SWEEP2},
                               {"wrt2", required_argument, 0, OPT_WRT2},
                               {"critical-path", no_argument, 0, OPT_PATH},
                               {"format", required_argument, 0, OPT_FORMAT},
                               {"classify", required_argument, 0, OPT_CLASSIFY},
                               {"out-of-core", no_argument, 0, OPT_OUT_OF_CORE},
                               {"window", required_argument, 0, OPT_WINDOW},
                               TOPO_LONG_OPTIONS,
                               {0, 0, 0, 0}};
  const char *classify_at = NULL;
  int c, out_of_core = 0, tol_given = 0;
  uint64_t window = 1u << 20;
  optind = 1;
  while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
    if (topo_option(c, &to) || common_option(c, &co)) continue;
    switch (c) {
    case 'h': printf(analyze_help, params_help); return 0;
    case OPT_CLASSIFY: classify_at = optarg; break;
    case OPT_OUT_OF_CORE: out_of_core = 1; break;
    case OPT_WINDOW: {
      char *end;
      window = strtoull(optarg, &end, 10);
      if (*end || !window || optarg[0] == '-') die("--window: '%s' (expected a number of vertices > 0)", optarg);
      break;
    }
    case OPT_PAIRS: {
      char *end;
      pair_top = strtol(optarg, &end, 10);
      if (*end || pair_top < 0) die("--pairs: '%s' (expected a number of pairs >= 0)", optarg);
      break;
    }
    case OPT_PAIRS_CSV: pairs_csv = optarg; break;
    case 'o': out_path = optarg; break;
    case OPT_RANGE: range_str = optarg; break;
    case OPT_TOL: {
      npercent = 0;
      tol_given = 1;
      if (strcmp(optarg, "none") == 0) break; /* no tolerance search at all */
      char *dup = strdup(optarg), *save = NULL;
      for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        double x = strtod(t, &end);
        if (end == t || *end || !(x > 0) || npercent == 32)
          die("--tolerance: '%s' (expected up to 32 positive percentages, e.g. 1,2,5)", t);
        percents[npercent++] = x;
      }
      free(dup);
      if (!npercent) die("--tolerance: empty list");
      break;
    }
    case OPT_TOL_OF: tol_of_str = optarg; break;
    case OPT_BUDGET: budget = parse_unit("budget", optarg, LLAMP_UNIT_TIME, "us"); have_budget = 1; break;
    case OPT_SWEEP: sweep_str = optarg; break;
    case OPT_WRT: wrt_str = optarg; break;
    case OPT_SWEEP2: sweep2_str = optarg; break;
    case OPT_WRT2: wrt2_str = optarg; break;
    case OPT_PATH: want_path = 1; break;
    case OPT_FORMAT:
      if (strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "csv"))
        die("--format: '%s' (expected text, json or csv)", optarg);
      format = optarg;
      break;
    default: bad_usage("analyze");
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "%s: analyze needs exactly one GRAPH argument\n", prog);
    bad_usage("analyze");
  }
  const char *path = argv[optind];
  common_finish(&co);
  llamp_graph_t *g = load_graph(path, &co);
  /* from here on passes over gigabyte arrays, one after another (not while
   * building from a GOAL file: growing arrays would leave holes in a heap
   * that never shrinks) */
  llamp_mem_keep_freed();
  char err[1024];
  topo_finish(&to, &co.params, g);
  if (wrt_str) wrt = resolve_param(&co.params, "wrt", wrt_str);
  int tol_x[LLAMP_MAX_XPARAMS] = {0};
  if (tol_of_str) {
    memset(tol_of, 0, sizeof tol_of);
    char *dup = strdup(tol_of_str), *save = NULL;
    for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      llamp_param_t w = resolve_param(&co.params, "tolerance-of", t);
      if ((unsigned)w < LLAMP_NUM_PARAMS) tol_of[w] = 1;
      else tol_x[w - LLAMP_NUM_PARAMS] = 1;
    }
    free(dup);
  }
  if (range_str) parse_span("range", range_str, wrt, &range_lo, &range_hi, NULL);
  if (sweep_str) parse_span("sweep", sweep_str, wrt, &sw_a, &sw_b, &sw_step);
  llamp_param_t wrt2 = wrt;
  if (sweep2_str || wrt2_str) {
    if (!sweep2_str || !wrt2_str || !sweep_str)
      die("--sweep2 needs --sweep and --wrt2 (a 2-D sweep: --sweep A:B:STEP --wrt P1 --sweep2 C:D:STEP --wrt2 P2)");
    wrt2 = resolve_param(&co.params, "wrt2", wrt2_str);
    if (wrt2 == wrt) die("--wrt2: '%s' is the parameter of --wrt too (expected another one)", wrt2_str);
    parse_span("sweep2", sweep2_str, wrt2, &sw2_a, &sw2_b, &sw2_step);
  }
  if (out_of_core) {
    if (range_str || sweep_str || have_budget || pair_top >= 0 || pairs_csv || want_path || classify_at ||
        to.routes_path || (tol_given && npercent) || tol_of_str)
      die("--out-of-core gives T and the λs only: not with --range, --sweep, --budget, --tolerance, "
          "--pairs, --critical-path, --classify or --routes");
    if (strcmp(format, "csv") == 0) die("--out-of-core: --format text or json");
    analyze_out_of_core(g, path, &co.params, window, format, out_path);
    memory_report();
    topo_free(&to);
    llamp_graph_destroy(g);
    return 0;
  } else if (window != 1u << 20) {
    die("--window is for --out-of-core");
  }
  llamp_engine_t *e = llamp_engine_create(g, &co.params, err, sizeof err);
  if (!e) die("%s: %s", path, err);

  llamp_analysis_t a;
  analysis_init(&a, g, path, &co.params);
  stage_begin("evaluating", "");
  if (llamp_engine_point(e, &co.params, &a.point)) die("out of memory during evaluation");
  stage_end();
  double T0 = a.point.T;

  llamp_breakpoint_t *bps = NULL;
  /* the range's parametric pass (when its envelope stays small): its lines
   * also give the tolerances and the sweep inside the range, no further pass */
  llamp_line_t *range_lines = NULL;
  size_t range_nl = 0;
  if (range_str) {
    stage_begin("finding critical latencies", "");
    size_t nb = 0;
    if (llamp_engine_envelope(e, &co.params, wrt, range_lo, range_hi, 0, &range_lines, &range_nl) == 0) {
      a.breakpoint_evaluations = 1;
      if (llamp_engine_envelope_breakpoints(range_lines, range_nl, &bps, &nb)) die("out of memory");
    } else if (llamp_engine_breakpoints_es(e, &co.params, wrt, range_lo, range_hi, &bps, &nb,
                                           &a.breakpoint_evaluations)) {
      die("critical latency search failed (out of memory or no convergence)");
    }
    stage_end();
    llamp_report_slow_range(stderr, prog, llamp_params_name(&co.params, wrt), bps, nb, range_lo, range_hi,
                            now() - stage_t0, "--range LMIN:LMAX narrows it");
    a.have_range = 1;
    a.range_lo = range_lo;
    a.range_hi = range_hi;
    a.breakpoints = bps;
    a.num_breakpoints = nb;
  }
  llamp_tolerance_t *tols[LLAMP_NUM_PARAMS + LLAMP_MAX_XPARAMS] = {0};
  if (npercent) stage_begin("computing tolerances", "");
  for (uint32_t w = 0; w < llamp_params_count(&co.params) && npercent; w++) {
    if (w < LLAMP_NUM_PARAMS ? !tol_of[w] : !tol_x[w - LLAMP_NUM_PARAMS]) continue;
    tols[w] = calloc(npercent, sizeof **tols);
    if (!tols[w]) die("out of memory");
    /* T is convex in each parameter (a maximum of affine path lengths), so T(x)
     * >= T0 + slope*(x - x0) and no x% tolerance lies beyond x0 + x%*T0/slope:
     * one parametric pass over that interval gives every percentage. */
    llamp_param_t pw = (llamp_param_t)w;
    double x0 = llamp_params_get(&co.params, pw), maxp = 0;
    double slope = w < LLAMP_NUM_PARAMS ? a.point.lambda[w] : a.point.lambda_x[w - LLAMP_NUM_PARAMS];
    for (size_t i = 0; i < npercent; i++) maxp = fmax(maxp, percents[i]);
    llamp_line_t *lines = NULL;
    size_t nl = 0;
    double hi = slope > 0 ? x0 + (maxp / 100) * T0 / slope : 0;
    hi += fabs(hi) * 1e-9 + 1e-30;
    int in_range = range_lines && pw == wrt && x0 >= range_lo && hi <= range_hi;
    int have_env = slope > 0 && isfinite(hi) &&
                   (in_range || llamp_engine_envelope(e, &co.params, pw, x0, hi, 0, &lines, &nl) == 0);
    if (in_range) lines = range_lines, nl = range_nl;
    for (size_t i = 0; i < npercent; i++) {
      double x, tmax = (1 + percents[i] / 100) * T0;
      int unb = 0;
      if (!(have_env && llamp_engine_envelope_solve(lines, nl, x0, hi, tmax, &x) == 1) &&
          llamp_engine_budget(e, &co.params, pw, tmax, &x, &unb, NULL))
        die("tolerance search for %s failed", llamp_params_name(&co.params, pw));
      tols[w][i] = (llamp_tolerance_t){percents[i], x, unb};
    }
    if (!in_range) free(lines);
    if (w < LLAMP_NUM_PARAMS) a.tolerance[w] = tols[w];
    else a.tolerance_x[w - LLAMP_NUM_PARAMS] = tols[w];
  }
  a.num_tolerance = npercent;
  if (npercent) stage_end();
  if (have_budget) {
    double x;
    int unb;
    a.have_budget = 1;
    a.budget_T = budget;
    if (llamp_engine_budget(e, &co.params, LLAMP_PARAM_L, budget, &x, &unb, NULL)) a.budget_infeasible = 1;
    else {
      a.budget_unbounded = unb;
      a.budget_L = x;
    }
  }
  double *sx = NULL, *sT = NULL, *sl = NULL, *sx2 = NULL;
  if (sweep_str) {
    size_t k = (size_t)floor((sw_b - sw_a) / sw_step * (1 + 1e-12)) + 1;
    sx = malloc(k * sizeof *sx);
    sT = malloc(k * sizeof *sT);
    sl = malloc(k * sizeof *sl);
    if (!sx || !sT || !sl) die("out of memory for %zu sweep points", k);
    for (size_t i = 0; i < k; i++) sx[i] = sw_a + (double)i * sw_step;
    if (sweep2_str) { /* a 2-D sweep: k x k2 lanes */
      size_t k2 = (size_t)floor((sw2_b - sw2_a) / sw2_step * (1 + 1e-12)) + 1;
      if (k2 > SIZE_MAX / 16 / k) die("--sweep2: %zu x %zu points (too many)", k, k2);
      sx2 = malloc(k2 * sizeof *sx2);
      double *gT = malloc(k * k2 * sizeof *gT), *gl = malloc(k * k2 * sizeof *gl);
      if (!sx2 || !gT || !gl) die("out of memory for %zu x %zu sweep points", k, k2);
      for (size_t j = 0; j < k2; j++) sx2[j] = sw2_a + (double)j * sw2_step;
      free(sT);
      free(sl);
      sT = gT;
      sl = gl;
      stage_begin("sweeping", "(2-D)");
      if (llamp_engine_sweep_grid(e, &co.params, wrt, sx, k, wrt2, sx2, k2, sT, sl))
        die("out of memory during the 2-D sweep");
      stage_end();
      a.sweep2_x = sx2;
      a.num_sweep2 = k2;
      a.wrt2 = wrt2;
    } else {
      stage_begin("sweeping", "");
      if (range_lines && sx[0] >= range_lo && sx[k - 1] <= range_hi) {
        for (size_t i = 0; i < k; i++) llamp_engine_envelope_eval(range_lines, range_nl, sx[i], &sT[i], &sl[i]);
      } else if (llamp_engine_sweep(e, &co.params, wrt, sx, k, sT, sl)) {
        die("out of memory during the sweep");
      }
      stage_end();
    }
    a.sweep_x = sx;
    a.sweep_T = sT;
    a.sweep_lambda = sl;
    a.num_sweep = k;
  }
  a.wrt = wrt;
  llamp_pair_lambda_t *pair_lam = NULL;
  if (pair_top >= 0 || pairs_csv) { /* per-pair sensitivities (docs/topology.md) */
    size_t np = 0;
    if (llamp_engine_pair_lambda(e, &co.params, &pair_lam, &np)) die("per-pair sensitivities failed");
    a.pair_lambda = pair_lam;
    a.num_pair_lambda = np;
    a.pair_top = pair_top >= 0 ? (size_t)pair_top : 10;
    if (pairs_csv) {
      FILE *pf = fopen(pairs_csv, "w");
      if (!pf) die("%s: cannot create: %s", pairs_csv, strerror(errno));
      llamp_report_pairs_csv(pf, a.ranks, pair_lam, np, 0);
      if (fclose(pf)) die("%s: write failed", pairs_csv);
    }
  }
  uint64_t *path_v = NULL, plen = 0;
  uint32_t *pr = NULL;
  int *pk = NULL;
  double *by_rank = NULL;
  if (want_path) {
    if (llamp_engine_critical_path(e, &co.params, &path_v, &plen)) die("critical path failed");
    pr = malloc((plen ? plen : 1) * sizeof *pr);
    pk = malloc((plen ? plen : 1) * sizeof *pk);
    for (uint64_t i = 0; i < plen; i++) {
      pr[i] = llamp_graph_rank(g, path_v[i]);
      pk[i] = llamp_graph_kind(g, path_v[i]);
      path_v[i] = llamp_graph_id(g, path_v[i]); /* reported as builder ids: rank by rank, posting order */
    }
    a.path = path_v;
    a.path_len = plen;
    by_rank = calloc(a.ranks ? a.ranks : 1, sizeof *by_rank);
    if (!by_rank || llamp_engine_path_by_rank(e, &co.params, by_rank)) die("critical path failed");
    a.path_by_rank = by_rank;
    a.path_ranks = pr;
    a.path_kinds = pk;
  }
  llamp_classification_t cl;
  if (classify_at) {
    llamp_params_t at = co.params;
    classify_anchor("classify", classify_at, &at);
    stage_begin("classifying (19 evaluations)", "");
    if (llamp_classify(e, g, &at, NULL, &cl, err, sizeof err)) die("%s: %s", path, err);
    stage_end();
    a.classification = &cl;
  }
  report_write(&a, format, out_path);
  for (size_t w = 0; w < LLAMP_NUM_PARAMS + LLAMP_MAX_XPARAMS; w++) free(tols[w]);
  topo_free(&to);
  free(bps);
  free(range_lines);
  free(sx);
  free(sx2);
  free(sT);
  free(sl);
  free(path_v);
  free(pr);
  free(pair_lam);
  free(pk);
  free(by_rank);
  memory_report();
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  return 0;
}

/* ---- export-lp -------------------------------------------------------------------- */

static const char *export_help =
    "usage: llamp export-lp GRAPH -o FILE.lp|FILE.mps [options]\n"
    "Write the LLAMP linear program of GRAPH (CPLEX LP or free MPS, by extension).\n\n"
    "%s"
    "  --objective runtime|latency  min t (default) or max l (the --wrt parameter)\n"
    "                               subject to t <= --budget, the others fixed\n"
    "  --budget TMAX                runtime bound for --objective latency\n"
    "  --wrt NAME                   the parameter --objective latency maximises: L\n"
    "                               (default), G, o, g, or with --routes l_wire,\n"
    "                               d_switch, dl_CLASS\n"
    "Topology (docs/topology.md, docs/lp.md):\n"
    "  --routes FILE                per-pair message costs from a routes file: every\n"
    "                               message costs its route; the topology parameters\n"
    "                               are columns of the LP too\n"
    "  --hostfile FILE              with --routes: rank r's host on line r + 1\n"
    "  --set NAME=VALUE             value of a topology parameter, e.g. d_switch=300ns\n";

static int cmd_export(int argc, char **argv) {
  common_opts_t co;
  common_init(&co);
  const char *out_path = NULL;
  int latency_obj = 0, have_budget = 0;
  double budget = 0;
  const char *wrt_str = NULL;
  topo_opts_t to;
  memset(&to, 0, sizeof to);
  static struct option lo[] = {COMMON_LONG_OPTIONS,
                               {"objective", required_argument, 0, OPT_OBJECTIVE},
                               {"budget", required_argument, 0, OPT_BUDGET},
                               {"wrt", required_argument, 0, OPT_WRT},
                               TOPO_LONG_OPTIONS,
                               {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
    if (topo_option(c, &to) || common_option(c, &co)) continue;
    switch (c) {
    case 'h': printf(export_help, params_help); return 0;
    case 'o': out_path = optarg; break;
    case OPT_OBJECTIVE:
      if (strcmp(optarg, "runtime") == 0) latency_obj = 0;
      else if (strcmp(optarg, "latency") == 0) latency_obj = 1;
      else die("--objective: '%s' (expected runtime or latency)", optarg);
      break;
    case OPT_BUDGET: budget = parse_unit("budget", optarg, LLAMP_UNIT_TIME, "us"); have_budget = 1; break;
    case OPT_WRT: wrt_str = optarg; break;
    default: bad_usage("export-lp");
    }
  }
  if (optind != argc - 1 || !out_path) {
    fprintf(stderr, "%s: export-lp needs one GRAPH and -o FILE\n", prog);
    bad_usage("export-lp");
  }
  if (latency_obj && !have_budget) die("--objective latency needs --budget TMAX");
  size_t len = strlen(out_path);
  llamp_lp_format_t fmt;
  if (len > 3 && strcmp(out_path + len - 3, ".lp") == 0) fmt = LLAMP_LP_CPLEX;
  else if (len > 4 && strcmp(out_path + len - 4, ".mps") == 0) fmt = LLAMP_LP_MPS;
  else die("%s: unknown LP format (expected a .lp or .mps file name)", out_path);
  common_finish(&co);
  llamp_graph_t *g = load_graph(argv[optind], &co);
  char err[1024];
  topo_finish(&to, &co.params, g);
  llamp_param_t wrt = wrt_str ? resolve_param(&co.params, "wrt", wrt_str) : LLAMP_PARAM_L;
  uint32_t *chain = NULL;
  uint8_t *reads = NULL;
  double *ahead = NULL;
  if (co.params.nic) { /* the engine's receive order goes into the LP */
    llamp_engine_t *e = llamp_engine_create(g, &co.params, err, sizeof err);
    if (!e) die("%s: %s", argv[optind], err);
    uint64_t n1 = llamp_graph_num_vertices(g) + 1; /* and its bursts */
    chain = malloc(2 * n1 * sizeof *chain);
    reads = malloc(n1);
    ahead = malloc(3 * n1 * sizeof *ahead);
    if (!chain || !reads || !ahead) die("out of memory");
    llamp_engine_gap_chain(e, chain);
    llamp_engine_burst_sources(e, chain + n1);
    llamp_engine_burst_ahead(e, ahead, ahead + n1, ahead + 2 * n1); /* what queued before them */
    llamp_engine_chain_reads(e, reads); /* and which receives wait for the previous read */
    llamp_engine_destroy(e);
    co.params.gap_prev = chain;
    co.params.burst_from = chain + n1;
    co.params.ahead_bytes = ahead;
    co.params.ahead_count = ahead + n1;
    co.params.chain_bytes = ahead + 2 * n1;
    co.params.chain_reads = reads;
  }
  stage_begin("writing", out_path);
  if (llamp_lp_write_wrt(g, &co.params, fmt, latency_obj ? LLAMP_LP_MAX_LATENCY : LLAMP_LP_MIN_RUNTIME,
                         wrt, budget, out_path, err, sizeof err))
    die("%s", err);
  stage_end();
  free(chain);
  free(reads);
  free(ahead);
  topo_free(&to);
  llamp_graph_destroy(g);
  return 0;
}

/* ---- convert ---------------------------------------------------------------------- */

static int ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmd_convert(int argc, char **argv) {
  common_opts_t co;
  common_init(&co);
  static struct option lo[] = {COMMON_LONG_OPTIONS, {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    if (common_option(c, &co)) continue;
    if (c == 'h') {
      printf("usage: llamp convert IN OUT [--goal-time-unit UNIT]\n"
             "Convert between GOAL text and the llamp binary graph. The input format is\n"
             "detected from its content; OUT ending in .goal or .txt is written as GOAL,\n"
             "anything else as binary (.llg by convention).\n");
      return 0;
    }
    bad_usage("convert");
  }
  if (optind != argc - 2) {
    fprintf(stderr, "%s: convert needs IN and OUT\n", prog);
    bad_usage("convert");
  }
  common_finish(&co);
  llamp_graph_t *g = load_graph(argv[optind], &co);
  const char *out = argv[optind + 1];
  char err[1024];
  stage_begin("writing", out);
  int rc = (ends_with(out, ".goal") || ends_with(out, ".txt"))
               ? llamp_goal_write(g, out, &co.goal, err, sizeof err)
               : llamp_graph_write_binary(g, out, err, sizeof err);
  if (rc) die("%s", err);
  stage_end();
  llamp_graph_destroy(g);
  return 0;
}

/* ---- generate ---------------------------------------------------------------------- */

static int cmd_generate(int argc, char **argv) {
  const char *out = NULL;
  int i = 1;
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    printf("usage: llamp generate PATTERN [key=value ...] -o OUT\n"
           "       llamp generate --list | PATTERN --help\n"
           "Write a synthetic execution graph (GOAL text, or binary when OUT ends in .llg).\n"
           "Patterns:\n");
    llamp_synth_print_list(stdout);
    return argc < 2 ? 1 : 0;
  }
  if (strcmp(argv[1], "--list") == 0) {
    llamp_synth_print_list(stdout);
    return 0;
  }
  const char *pattern = argv[i++];
  char err[1024];
  char **params = calloc((size_t)argc, sizeof *params);
  int np = 0;
  for (; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      if (llamp_synth_print_help(pattern, stdout, err, sizeof err)) die("%s", err);
      return 0;
    } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
      out = argv[++i];
    } else if (strchr(argv[i], '=') && argv[i][0] != '-') {
      params[np++] = argv[i];
    } else {
      die("generate: unexpected argument '%s' (expected key=value or -o OUT)", argv[i]);
    }
  }
  if (!out) die("generate: missing -o OUT");
  llamp_synth_stats_t st;
  stage_begin("generating", out);
  if (ends_with(out, ".llg")) {
    llamp_graph_t *g = llamp_synth_build(pattern, np, params, &st, err, sizeof err);
    if (!g || llamp_graph_write_binary(g, out, err, sizeof err)) die("%s", err);
    llamp_graph_destroy(g);
  } else {
    uint64_t bytes = 0;
    if (llamp_synth_write_goal(pattern, np, params, out, &st, &bytes, err, sizeof err)) die("%s", err);
  }
  stage_end();
  fprintf(stderr, "%s: %s: %u ranks, %llu events, %llu messages\n", prog, out, st.num_ranks,
          (unsigned long long)st.ops, (unsigned long long)st.sends);
  free(params);
  return 0;
}

/* ---- build ------------------------------------------------------------------------- */

static const char *build_help =
    "usage: llamp build DIR [-o GRAPH] [options]\n"
    "Build the execution graph from the per-rank traces in DIR: rank-R.llt for\n"
    "R = 0 .. P-1, as llamp-trace writes them (or DIR/trace/ of an smpi_llamp-run\n"
    "output directory). Writes GRAPH (default DIR/graph.llg; GOAL text when it ends\n"
    "in .goal or .txt) and prints the counts, the MPI functions that were not\n"
    "modelled, and, from the rank-R.clock files of a native trace, the clock\n"
    "alignment and the measured MPI_Init..MPI_Finalize time.\n\n"
    "  -o GRAPH           output graph (default DIR/graph.llg)\n"
    "  --coll SPEC        collective algorithms, e.g. allreduce=ring,bcast=binomial\n"
    "                     (docs/collectives.md; default: each collective's default)\n"
    "  --reduce-cost X    seconds per byte reduced inside collectives (default 0)\n"
    "  --min-calc TIME    drop compute gaps shorter than TIME [us] (default 0: keep all)\n"
    "  --threads N        threads reading the traces: 1, 2, or 0 = two with two CPUs and\n"
    "                     65536 records or more (default 0; the graph is the same)\n"
    "  --goal-time-unit UNIT  unit of calc values in GOAL output (default ns)\n"
    "  --timing           stage times on stderr\n";

/* The highest R of the rank-R.llt files in dir, or -1 when there are none. */
static long max_rank_file(const char *dir) {
  DIR *d = opendir(dir);
  long max = -1;
  for (struct dirent *e; d && (e = readdir(d));) {
    unsigned x;
    char tail[8];
    if (sscanf(e->d_name, "rank-%u.ll%1[t]%1s", &x, tail, tail + 1) == 2 && (long)x > max) max = x;
  }
  if (d) closedir(d);
  return max;
}

/* The directory holding the rank-R.llt files: DIR itself or DIR/trace (SMPI
 * layout). */
static void trace_dir_of(const char *dir, char *out, size_t len) {
  DIR *d = opendir(dir);
  if (!d) die("%s: cannot open the trace directory: %s", dir, strerror(errno));
  closedir(d);
  if (max_rank_file(dir) >= 0) {
    snprintf(out, len, "%s", dir);
    return;
  }
  char p[4300];
  snprintf(p, sizeof p, "%s/trace", dir);
  if (max_rank_file(p) >= 0) {
    snprintf(out, len, "%s/trace", dir);
    return;
  }
  if (access(p, F_OK) == 0)
    die("%s: no rank-R.llt file: the run stopped before any rank reached MPI_Finalize or spilled "
        "its records (interrupted, killed, or out of memory)", p);
  die("%s: no rank-R.llt here or in %s/trace (expected the output of llamp-trace or smpi_llamp-run)",
      dir, dir);
}

/* Open rank-R.llt for R = 0 .. P-1 (P from rank 0's header); every file must
 * be there and say it is rank R of P.  A run that stopped early is reported
 * rank by rank (missing and incomplete files), then refused: a DAG of part of
 * a run would answer for another program.  Files beyond P are reported. */
static llamp_trace_reader_t **open_rank_traces(const char *tdir, uint32_t *nranks) {
  char path[4300], err[1024];
  snprintf(path, sizeof path, "%s/rank-0.llt", tdir);
  llamp_trace_reader_t *r0 = access(path, F_OK) == 0 ? llamp_trace_reader_open(path, err, sizeof err) : NULL;
  long maxr = max_rank_file(tdir);
  /* P from rank 0's header, else from any other readable one */
  int knowP = r0 != NULL;
  uint32_t P = r0 ? llamp_trace_reader_world_size(r0) : (uint32_t)(maxr + 1);
  for (long r = 1; !knowP && r <= maxr; r++) {
    snprintf(path, sizeof path, "%s/rank-%ld.llt", tdir, r);
    llamp_trace_reader_t *x = access(path, F_OK) == 0 ? llamp_trace_reader_open(path, err, sizeof err) : NULL;
    if (x) {
      P = llamp_trace_reader_world_size(x);
      knowP = 1;
      llamp_trace_reader_destroy(x);
    }
  }
  if (P == 0) die("%s: world size 0", path);
  llamp_trace_reader_t **rd = calloc(P, sizeof *rd);
  if (!rd) die("out of memory for %u trace readers", P);
  rd[0] = r0;
  uint32_t missing = 0, bad = 0;
  for (uint32_t r = 0; r < P; r++) {
    snprintf(path, sizeof path, "%s/rank-%u.llt", tdir, r);
    const char *why = NULL;
    if (access(path, F_OK) != 0) {
      missing++;
      why = "missing: the rank never reached MPI_Finalize and spilled nothing";
    } else if (!rd[r] && !(rd[r] = llamp_trace_reader_open(path, err, sizeof err))) {
      bad++;
      why = err;
    }
    if (why && missing + bad <= 16)
      fprintf(stderr, "%s: %s%s%s\n", prog, why == err ? "" : path, why == err ? "" : ": ", why);
  }
  if (missing + bad) {
    if (missing + bad > 16) fprintf(stderr, "%s: ... and %u more\n", prog, missing + bad - 16);
    die("%s: %u of %u%s ranks have no usable trace (%u missing, %u unreadable or incomplete): no DAG "
        "of a partial run (rerun it to the end)", tdir, missing + bad, P, knowP ? "" : " (or more)", missing, bad);
  }
  for (uint32_t r = 0; r < P; r++) {
    if (llamp_trace_reader_rank(rd[r]) != r || llamp_trace_reader_world_size(rd[r]) != P)
      die("%s/rank-%u.llt: holds rank %u of %u, expected rank %u of %u (traces of different runs?)",
          tdir, r, llamp_trace_reader_rank(rd[r]), llamp_trace_reader_world_size(rd[r]), r, P);
  }
  if (maxr >= (long)P)
    fprintf(stderr, "%s: %s: rank-R.llt file(s) with R >= %u ignored (an earlier run with more ranks)\n",
            prog, tdir, P);
  *nranks = P;
  return rd;
}

/* What the rank-R.clock files of a native trace say (all optional). */
typedef struct {
  uint32_t files;
  double max_abs_offset, max_uncertainty, max_drift, max_drift_unc, span;
} clock_info_t;

static void read_clock_files(const char *tdir, uint32_t P, clock_info_t *ci) {
  memset(ci, 0, sizeof *ci);
  char run0[256] = "", line[512], path[4300];
  uint32_t first = UINT32_MAX;
  for (uint32_t r = 0; r < P; r++) {
    snprintf(path, sizeof path, "%s/rank-%u.clock", tdir, r);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    char run[256] = "";
    double off = 0, unc = 0, drift = 0, dunc = 0, span = -1;
    unsigned lineno = 0;
    while (fgets(line, sizeof line, f)) {
      lineno++;
      char key[64], val[256];
      if (line[0] == '#' || sscanf(line, "%63s %255s", key, val) != 2) continue;
      char *end;
      double v = strtod(val, &end);
      int num = end != val && *end == 0;
      if (!strcmp(key, "run_id")) snprintf(run, sizeof run, "%s", val);
      else if (!strcmp(key, "offset") || !strcmp(key, "uncertainty") || !strcmp(key, "drift") ||
               !strcmp(key, "drift_uncertainty") || !strcmp(key, "span")) {
        if (!num) die("%s:%u: %s '%s' (expected a number)", path, lineno, key, val);
        if (!strcmp(key, "offset")) off = v;
        else if (!strcmp(key, "uncertainty")) unc = v;
        else if (!strcmp(key, "drift")) drift = v;
        else if (!strcmp(key, "drift_uncertainty")) dunc = v;
        else span = v;
      }
    }
    fclose(f);
    if (!run[0]) die("%s: no run_id line (not written by llamp-trace?)", path);
    if (first == UINT32_MAX) {
      first = r;
      snprintf(run0, sizeof run0, "%s", run);
    } else if (strcmp(run, run0) != 0) {
      die("%s: run %s, but rank-%u.clock is from run %s: the directory mixes traces of two runs "
          "(trace into an empty directory)", path, run, first, run0);
    }
    ci->files++;
    if (fabs(off) > ci->max_abs_offset) ci->max_abs_offset = fabs(off);
    if (unc > ci->max_uncertainty) ci->max_uncertainty = unc;
    if (fabs(drift) > ci->max_drift) ci->max_drift = fabs(drift);
    if (dunc > ci->max_drift_unc) ci->max_drift_unc = dunc;
    if (span > ci->span) ci->span = span;
  }
  if (ci->files && ci->files != P)
    fprintf(stderr, "%s: %s: only %u of %u ranks have a rank-R.clock file\n", prog, tdir, ci->files, P);
}

static void build_progress(void *ctx, uint32_t done, uint32_t n, uint64_t records) {
  (void)ctx;
  if (progress_on > 0)
    fprintf(stderr, "\r%s: building the graph: rank %u of %u, %llu records ...", prog, done, n,
            (unsigned long long)records);
}

static int cmd_build(int argc, char **argv) {
  common_opts_t co;
  common_init(&co);
  const char *out_path = NULL, *coll = NULL;
  double reduce_cost = 0, min_calc = 0;
  int threads = 0;
  static struct option lo[] = {{"coll", required_argument, 0, OPT_COLL},
                               {"threads", required_argument, 0, OPT_THREADS},
                               {"reduce-cost", required_argument, 0, OPT_REDUCE_COST},
                               {"min-calc", required_argument, 0, OPT_MIN_CALC},
                               {"goal-time-unit", required_argument, 0, OPT_TIME_UNIT},
                               {"help", no_argument, 0, 'h'},
                               {"version", no_argument, 0, OPT_VERSION},
                               {"timing", no_argument, 0, OPT_TIMING},
                               {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
    if (common_option(c, &co)) continue;
    switch (c) {
    case 'h': fputs(build_help, stdout); return 0;
    case 'o': out_path = optarg; break;
    case OPT_COLL: coll = optarg; break;
    case OPT_REDUCE_COST: {
      char *end;
      reduce_cost = strtod(optarg, &end);
      if (end == optarg || *end || !(reduce_cost >= 0) || !isfinite(reduce_cost))
        die("--reduce-cost: '%s' (expected seconds per byte >= 0)", optarg);
      break;
    }
    case OPT_MIN_CALC:
      min_calc = parse_unit("min-calc", optarg, LLAMP_UNIT_TIME, "us");
      if (!(min_calc >= 0)) die("--min-calc: '%s' (expected a time >= 0)", optarg);
      break;
    case OPT_THREADS:
      if (strcmp(optarg, "0") && strcmp(optarg, "1") && strcmp(optarg, "2"))
        die("--threads: '%s' (expected 0, 1 or 2)", optarg);
      threads = atoi(optarg);
      break;
    default: bad_usage("build");
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "%s: build needs exactly one trace directory\n", prog);
    bad_usage("build");
  }
  const char *dir = argv[optind];
  char tdir[4200], def_out[4300], err[1024];
  trace_dir_of(dir, tdir, sizeof tdir);
  if (!out_path) {
    snprintf(def_out, sizeof def_out, "%s/graph.llg", dir);
    out_path = def_out;
  }
  uint32_t P = 0;
  llamp_trace_reader_t **rd = open_rank_traces(tdir, &P);
  clock_info_t ci;
  read_clock_files(tdir, P, &ci);

  llamp_sched_options_t opt;
  llamp_sched_options_default(&opt);
  opt.collectives = coll;
  opt.reduce_cost = reduce_cost;
  opt.min_calc = min_calc;
  opt.threads = threads;
  opt.source = tdir;
  if (progress_on < 0) progress_on = isatty(2) || timing_on;
  opt.progress = build_progress;
  llamp_sched_stats_t st;
  double t0 = now();
  llamp_graph_t *g = llamp_sched_build(rd, P, &opt, &st, err, sizeof err);
  double t1 = now();
  if (progress_on > 0) fprintf(stderr, "\r%s: built the graph of %u ranks in %.2f s%30s\n", prog, P, t1 - t0, "");
  for (uint32_t r = 0; r < P; r++) llamp_trace_reader_destroy(rd[r]);
  free(rd);
  if (!g) die("%s", err);
  stage_begin("writing", out_path);
  int rc = (ends_with(out_path, ".goal") || ends_with(out_path, ".txt"))
               ? llamp_goal_write(g, out_path, &co.goal, err, sizeof err)
               : llamp_graph_write_binary(g, out_path, err, sizeof err);
  if (rc) die("%s", err);
  stage_end();
  printf("%s: %u ranks, %llu events, %llu messages\n", out_path, P,
         (unsigned long long)llamp_graph_num_vertices(g), (unsigned long long)llamp_graph_num_messages(g));
  llamp_sched_stats_print(&st, stdout);
  if (st.num_unmodelled == 0) printf("not modelled: none\n");
  if (ci.files) {
    char b1[64], b2[64], b3[64];
    printf("clock: %u rank-R.clock files, offsets to rank 0 up to %s, uncertain by up to %s\n", ci.files,
           llamp_units_format_time(ci.max_abs_offset, b1, sizeof b1),
           llamp_units_format_time(ci.max_uncertainty, b2, sizeof b2));
    printf("clock: drift between MPI_Init and MPI_Finalize up to %.3g, uncertain by up to %.3g (not "
           "corrected)\n", ci.max_drift, ci.max_drift_unc);
    if (ci.span > 0)
      printf("measured: MPI_Init..MPI_Finalize %s (the longest rank)\n",
             llamp_units_format_time(ci.span, b3, sizeof b3));
  }
  llamp_sched_stats_free(&st);
  llamp_graph_destroy(g);
  return 0;
}

/* ---- colls ----------------------------------------------------------------------------- */

static const char colls_help[] =
    "usage: llamp colls [--smpi SPEC [--selector NAME]]\n"
    "Without options: every collective algorithm, its help line and SimGrid's equivalent.\n"
    "  --smpi SPEC      for the collectives SPEC names (\"allreduce=lr,bcast=linear\"), one line\n"
    "                   \"KEY ALGO coll\": SimGrid's setting smpi/KEY:ALGO that runs the same\n"
    "                   messages (none for SimGrid's fixed algorithms); exit 1 naming those\n"
    "                   SimGrid cannot run\n"
    "  --selector NAME  with smpi/coll-selector:NAME, also \"KEY ALGO selector\" for every other\n"
    "                   collective whose per-call choice by NAME is not modelled: an exact\n"
    "                   algorithm to run in its place (smpi_llamp-run uses this)\n";

static int cmd_colls(int argc, char **argv) {
  const char *spec = NULL, *selector = NULL;
  static struct option lo[] = {{"smpi", required_argument, 0, 's'},
                               {"selector", required_argument, 0, 'S'},
                               {"help", no_argument, 0, 'h'},
                               {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
    case 'h': fputs(colls_help, stdout); return 0;
    case 's': spec = optarg; break;
    case 'S': selector = optarg; break;
    default: bad_usage("colls");
    }
  }
  if (optind != argc) bad_usage("colls");
  if (!spec && !selector) {
    llamp_coll_print_list(stdout);
    return 0;
  }
  char err[1024], buf[4096], missing[1024];
  llamp_coll_selection_t sel, named;
  memset(&named, 0, sizeof named);
  if (llamp_coll_update_selection(spec ? spec : "", &named, err, sizeof err)) die("%s", err);
  llamp_coll_selection_default(&sel);
  int only[LLAMP_COLL_NUM_KINDS] = {0}, given[LLAMP_COLL_NUM_KINDS] = {0};
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++)
    if (named.algo[k]) sel.algo[k] = named.algo[k], only[k] = 1;
  if (llamp_coll_selection_smpi_cfg_only(&sel, only, buf, sizeof buf, missing, sizeof missing))
    die("SimGrid cannot be told to run %s (docs/collectives.md; `llamp colls` lists what it can)",
        missing);
  /* "--cfg=smpi/KEY:ALGO ..." -> lines "KEY ALGO coll" */
  for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
    char *key = t + strlen("--cfg=smpi/"), *colon = strchr(key, ':');
    if (strncmp(t, "--cfg=smpi/", 11) || !colon) continue;
    *colon = '\0';
    printf("%s %s coll\n", key, colon + 1);
    for (int k = 0; k < LLAMP_COLL_NUM_BLOCKING; k++) {
      const char *kk = llamp_coll_smpi_key((llamp_coll_kind_t)k);
      if (kk && !strcmp(kk, key)) given[k] = 1;
    }
  }
  if (selector && strcmp(selector, "default") != 0) {
    for (int k = 0; k < LLAMP_COLL_NUM_BLOCKING; k++) {
      const char *key = llamp_coll_smpi_key((llamp_coll_kind_t)k);
      if (!key || given[k] || k == LLAMP_COLL_REDUCE_SCATTER_BLOCK) continue; /* one key for both */
      const char *note = "";
      if (llamp_coll_smpi_find((llamp_coll_kind_t)k, selector, &note) && !*note) continue;
      /* our default when SimGrid runs it exactly, else SimGrid's default selector's */
      const llamp_coll_algo_t *d = llamp_coll_find((llamp_coll_kind_t)k, NULL);
      const char *algo = "default";
      if (d->smpi && d->smpi_exact && !strncmp(d->smpi, "smpi/", 5)) algo = strchr(d->smpi, ':') + 1;
      printf("%s %s selector\n", key, algo);
    }
  }
  return 0;
}

/* ---- main ---------------------------------------------------------------------------- */

static const char *main_help =
    "usage: llamp COMMAND [options]\n"
    "Latency sensitivity and tolerance of MPI execution graphs under LogGPS (LLAMP).\n\n"
    "Commands:\n"
    "  analyze GRAPH     runtime, λ_L, ρ_L, critical latencies, tolerances, sweeps\n"
    "  classify GRAPH    computation-, imbalance-, bandwidth-, latency- or communication-bound\n"
    "  export-lp GRAPH   write the LLAMP linear program (CPLEX LP or MPS)\n"
    "  convert IN OUT    GOAL text <-> binary graph\n"
    "  generate PATTERN  synthetic graphs (halo, allreduce, wavefront, random ...)\n"
    "  build DIR         the graph of per-rank traces (llamp-trace, smpi_llamp-run)\n"
    "  colls             collective algorithms and their SimGrid equivalents\n"
    "  model FILE        check a model file's size-dependent costs; --smpi-cfg\n"
    "  plot KIND INPUT   pictures: runtime vs L, critical path timeline, histograms, CDFs\n"
    "  place GRAPH       rank placement on a platform's hosts (swap heuristic, hostfile)\n\n"
    "'llamp COMMAND --help' describes each command. --version prints the version.\n";

/* ---- model ------------------------------------------------------------------------ */

static const char *model_help =
    "usage: llamp model FILE [--smpi-cfg]\n"
    "Read a model file's smpi and network groups (docs/models.md) and print the\n"
    "size-dependent costs the DAG charges at a few message sizes; errors name\n"
    "file:line, the key and what was expected.\n"
    "  --smpi-cfg   print the smpi group as SimGrid settings instead, one\n"
    "               'KEY VALUE' line each (what smpi_llamp-run passes as --cfg)\n";

static int cmd_model(int argc, char **argv) {
  int cfg = 0, c;
  static struct option lo[] = {{"smpi-cfg", no_argument, 0, 'c'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
    case 'h': fputs(model_help, stdout); return 0;
    case 'c': cfg = 1; break;
    default: bad_usage("model");
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "%s: model needs exactly one FILE argument\n", prog);
    bad_usage("model");
  }
#ifdef LLAMP_HAVE_NETMODEL_FILE
  static llamp_netmodel_file_t f;
  char err[1024];
  llamp_params_t p;
  llamp_params_default(&p);
  if (llamp_netmodel_file_read(argv[optind], p.L, p.G, &f, err, sizeof err)) die("%s", err);
  if (cfg) {
    for (unsigned i = 0; i < f.nsettings; i++) printf("%s %s\n", f.key[i], f.value[i]);
    return 0;
  }
  if (!f.have_model) {
    printf("%s: no smpi or network group: the scalar LogGPS model\n", argv[optind]);
    return 0;
  }
  double S = f.have_S ? f.S : p.S;
  printf("%s: %s group; L_ref %.6g us, G_ref %.6g ns/B, eager up to S = %.0f B\n", argv[optind],
         f.group, f.model.L_ref * 1e6, f.model.G_ref * 1e9, S);
  printf("%12s %12s %12s %12s %12s %14s\n", "bytes", "send us", "isend us", "recv us", "c us", "k B (xG)");
  static const double sizes[] = {0, 1, 64, 1024, 8192, 65535, 65536, 1048576};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    llamp_netmodel_msg_t m;
    llamp_netmodel_message(&f.model, sizes[i], sizes[i] <= S, &m);
    printf("%12.0f %12.6g %12.6g %12.6g %12.6g %14.10g\n", sizes[i], m.cpu_send * 1e6, m.cpu_isend * 1e6,
           m.cpu_recv * 1e6, m.c * 1e6, m.k);
  }
  return 0;
#else
  (void)cfg;
  die("model: this llamp was built without libconfig");
#endif
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(main_help, stderr);
    return 1;
  }
  const char *cmd = argv[1];
  llamp_mem_map_big_blocks(); /* builders' freed arrays go back to the kernel (peak memory) */
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    fputs(main_help, stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("llamp (smpi-llamp) %s\n", LLAMP_VERSION);
    return 0;
  }
  if (strcmp(cmd, "analyze") == 0) return cmd_analyze(argc - 1, argv + 1);
  if (strcmp(cmd, "export-lp") == 0) return cmd_export(argc - 1, argv + 1);
  if (strcmp(cmd, "convert") == 0) return cmd_convert(argc - 1, argv + 1);
  if (strcmp(cmd, "generate") == 0) return cmd_generate(argc - 1, argv + 1);
  if (strcmp(cmd, "build") == 0) return cmd_build(argc - 1, argv + 1);
  if (strcmp(cmd, "colls") == 0) return cmd_colls(argc - 1, argv + 1);
  if (strcmp(cmd, "plot") == 0) return cmd_plot(argc - 1, argv + 1);
  if (strcmp(cmd, "classify") == 0) return cmd_classify(argc - 1, argv + 1);
  if (strcmp(cmd, "model") == 0) return cmd_model(argc - 1, argv + 1);
  if (strcmp(cmd, "place") == 0) return cmd_place(argc - 1, argv + 1);
  fprintf(stderr, "%s: unknown command '%s' (expected analyze, classify, export-lp, convert, generate, build, colls, model, plot or place)\n",
          prog, cmd);
  return 1;
}
