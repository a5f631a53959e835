/* smpi_llamp-whatif - what-if platform studies (docs/topology.md, "What-if
 * runner"): capture a program once on the first platform variant, then for
 * every variant run SimGrid on it and predict its runtime from the one
 * capture; side by side, with the reasons where they disagree.
 *
 * usage: smpi_llamp-whatif --variant SPEC [--variant SPEC ...] [options]
 *                          [smpi_llamp-run / smpirun options] PROGRAM [ARGS...]
 *
 * Per variant k, in OUT/vK/: platform.xml (llamp-platform for a family),
 * routes.txt (llamp-routes: the ranks' routes under the run's mapping),
 * run/ and run.log (smpi_llamp-run on that platform: SimGrid's time, and the
 * capture of that run, whose counters explain disagreements), predict.json
 * (llamp analyze of the BASE capture's graph with this variant's routes).
 * A variant that is the base family with other --wire/--switch values is
 * also predicted as a shift of the base capture along l_wire and d_switch
 * (shift.json).  The study: OUT/whatif.{csv,json,txt,svg}. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "llamp_json.h"
#include "llamp_whatif.h"

static const char *prog = "smpi_llamp-whatif";

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static const char *help =
    "usage: smpi_llamp-whatif --variant SPEC [--variant SPEC ...] [what-if options]\n"
    "                         [smpi_llamp-run / smpirun options] PROGRAM [ARGS...]\n"
    "Capture PROGRAM (built with smpi_llamp-cc) once, on the first variant, then for\n"
    "every platform variant run SimGrid on it and predict its runtime from the one\n"
    "capture; print both side by side, and why where they disagree (docs/topology.md).\n\n"
    "Variants (the first is the base, where the program is captured):\n"
    "  --variant SPEC     [NAME=]PLATFORM.xml, or [NAME=]FAMILY [llamp-platform options]\n"
    "                     as one argument: 'fattree:4,2', 'dragonfly:4,2,2 --switch 300ns',\n"
    "                     'torus:4,4', 'flat:16', 'simgrid:FAT_TREE:2;4,4;1,2;1,2 -n 16'\n"
    "  --variants FILE    one SPEC per line ('#' comments)\n"
    "  --wire LIST        link latency of every family variant without its own --wire;\n"
    "                     several values (0.5us,0.6us) make one variant per value\n"
    "  --switch LIST      likewise for the latency per switch (e.g. 0,300ns: the\n"
    "                     paper's +300 ns of FEC per switch); not for simgrid: families\n"
    "What-if options (before the others):\n"
    "  --out DIR          output directory (default ./llamp-whatif)\n"
    "  --threshold PCT    explain where SimGrid and the prediction differ by more\n"
    "                     (default 0.5)\n"
    "  --seed S           -llamp-seed of every run, so kernel models draw alike\n"
    "                     (default: from the clock, printed)\n"
    "  --predict-only     run SimGrid on the base variant only (the capture)\n"
    "  --plot FILE        the runtime plot, .svg or .png (default DIR/whatif.svg)\n"
    "  --runner PATH      instead of smpi_llamp-run beside this program\n"
    "  --slurm FILE       make the platforms, write a Slurm job array (one task per\n"
    "                     variant's SimGrid run, then the merge: the predictions and\n"
    "                     the table) and exit; `bash FILE submit` submits it\n"
    "  --submit           write it (--slurm FILE, default DIR/job.sh) and submit it\n"
    "  --partition P, --account A, --time T, --mem-per-task M, --throttle K,\n"
    "  --setup LINE       sbatch options, as smpi_llamp-study's (docs/studies.md)\n"
    "  --variant-run K    only variant K's SimGrid run (a Slurm task)\n"
    "  --merge            the predictions and the table from the runs already made\n"
    "Everything else goes to smpi_llamp-run (not -platform: use --variant).  Ranks are\n"
    "mapped alike on every variant: on the first N hosts in SimGrid's order, or by\n"
    "the -hostfile you give.  Output: DIR/whatif.csv, whatif.json, whatif.txt and the\n"
    "plot; per variant DIR/vK/ (platform, routes, the run and its log, the prediction).\n";

/* ---- processes -------------------------------------------------------------------- */

/* Run argv with stdout+stderr to `log` (NULL: inherit).  Returns the exit
 * status (128 + signal when killed, 127 when it could not start). */
static int run(char *const *argv, const char *log) {
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  if (pid == 0) {
    if (log) {
      int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
      }
    }
    int fd0 = open("/dev/null", O_RDONLY);
    if (fd0 >= 0) dup2(fd0, 0);
    execvp(argv[0], argv);
    fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[0], strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) die("wait: %s", strerror(errno));
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The last non-empty line of a log (what a failed tool said). */
static void last_line(const char *log, char *buf, size_t len) {
  snprintf(buf, len, "(no output)");
  FILE *f = fopen(log, "r");
  if (!f) return;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (line[0]) snprintf(buf, len, "%s", line);
  }
  fclose(f);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static char bindir[PATH_MAX];
static void find_bindir(void) {
  ssize_t n = readlink("/proc/self/exe", bindir, sizeof bindir - 1);
  if (n <= 0) {
    bindir[0] = 0;
    return;
  }
  bindir[n] = 0;
  char *slash = strrchr(bindir, '/');
  if (slash) *slash = 0;
}
/* A tool beside this program, else from PATH. */
static const char *tool(const char *name) {
  static char buf[8][PATH_MAX + 64];
  static int k;
  char *b = buf[k++ % 8];
  snprintf(b, sizeof buf[0], "%s/%s", bindir, name);
  return access(b, X_OK) == 0 ? b : name;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int tty;
static double t_start;
static void progress(const char *fmt, ...) {
  if (!tty) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "\r\033[K%s: [%.0f s] ", prog, now() - t_start);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
}

/* ---- options ---------------------------------------------------------------------- */

typedef struct {
  llamp_whatif_variant_t *v;
  size_t n;
  char *wire, *sw; /* global lists */
  const char *out, *plot, *runner;
  double threshold;
  uint64_t seed;
  int have_seed, predict_only;
  long variant_run; /* --variant-run K, else -1 */
  int merge, submit;
  const char *slurm, *partition, *account, *time_limit, *mem, *setup;
  long throttle;
  char **pass;
  int npass;
  long np;              /* -np of the pass-through, -1 if absent */
  const char *hostfile; /* -hostfile / -machinefile of the pass-through */
  const char *rendezvous, *config; /* -llamp-rendezvous / -llamp-config given */
  int pass_seed;        /* -llamp-seed given */
} opts_t;

static void add_variant(opts_t *o, const char *text, const char *where) {
  char err[1024];
  llamp_whatif_variant_t v;
  if (llamp_whatif_variant_parse(text, where, &v, err, sizeof err)) die("%s", err);
  llamp_whatif_variant_t *g = realloc(o->v, (o->n + 1) * sizeof *g);
  if (!g) die("out of memory");
  o->v = g;
  g[o->n++] = v;
}

/* One variant per value of the global --wire/--switch lists for every
 * family variant that does not set that option itself. */
static void expand(opts_t *o, const char *opt, const char *list) {
  if (!list) return;
  char *copy = strdup(list), *save = NULL, *vals[64];
  int nv = 0;
  for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (nv == 64) die("%s: at most 64 values", opt);
    vals[nv++] = t;
  }
  if (!nv) die("%s: '%s' (expected a comma-separated list of times)", opt, list);
  llamp_whatif_variant_t *out = NULL;
  size_t n = 0;
  char err[1024];
  for (size_t i = 0; i < o->n; i++) {
    llamp_whatif_variant_t *v = &o->v[i];
    int own = v->is_file || (!strcmp(opt, "--switch") && !strncmp(v->spec, "simgrid:", 8));
    for (int k = 0; k < v->nopts; k += 2) own |= !strcmp(v->opts[k], opt);
    out = realloc(out, (n + (size_t)nv) * sizeof *out);
    if (!out) die("out of memory");
    if (own) {
      out[n++] = *v;
      continue;
    }
    for (int j = 0; j < nv; j++) {
      llamp_whatif_variant_t c;
      char spec[8192];
      size_t len = (size_t)snprintf(spec, sizeof spec, "%s", v->spec);
      for (int k = 0; k < v->nopts && len < sizeof spec; k++)
        len += (size_t)snprintf(spec + len, sizeof spec - len, " %s", v->opts[k]);
      char where[64];
      snprintf(where, sizeof where, "%s", opt);
      if (llamp_whatif_variant_parse(spec, where, &c, err, sizeof err) ||
          llamp_whatif_variant_add_opt(&c, opt, vals[j], err, sizeof err))
        die("%s", err);
      if (strncmp(v->name, v->spec, strlen(v->spec))) { /* a NAME= keeps its name, with the value */
        free(c.name);
        if (asprintf(&c.name, "%s %s=%s", v->name, opt + 2, vals[j]) < 0) die("out of memory");
      }
      out[n++] = c;
    }
    llamp_whatif_variant_free(v);
  }
  free(o->v);
  o->v = out;
  o->n = n;
  free(copy);
}

/* smpirun / smpi_llamp-run options that take no value. */
static int flag_option(const char *a) {
  static const char *const flags[] = {"-llamp-goal", "-llamp-no-analysis", "-llamp-quiet",
                                      "-llamp-help", "-llamp-version", "-trace", "-keep-temps",
                                      "-analyze", "-help", "-version", "-quiet", "-map", "-foreground"};
  if (!strncmp(a, "--cfg", 5) || !strncmp(a, "--log", 5) || strchr(a, '=')) return 1;
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
    if (!strcmp(a, flags[i]) || (a[0] == '-' && a[1] == '-' && !strcmp(a + 1, flags[i]))) return 1;
  return 0;
}

/* What the what-if runner must know of the pass-through options: scanned up
 * to the program (the first word that is neither an option nor a value). */
static void parse_pass(opts_t *o) {
  o->np = -1;
  for (int i = 0; i < o->npass; i++) {
    const char *a = o->pass[i];
    if (a[0] != '-') break; /* the program */
    const char *next = i + 1 < o->npass ? o->pass[i + 1] : NULL;
    if (!strcmp(a, "-platform") || !strcmp(a, "--platform"))
      die("-platform: give the platforms with --variant (see --help)");
    if (!strcmp(a, "-llamp-out") || !strcmp(a, "--llamp-out"))
      die("-llamp-out: each variant's run goes to --out DIR/vK/run");
    if (flag_option(a) || !next) continue;
    if (!strcmp(a, "-np")) {
      char *end;
      o->np = strtol(next, &end, 10);
      if (*end || o->np < 1) die("-np '%s' (expected a positive number of ranks)", next);
    } else if (!strcmp(a, "-hostfile") || !strcmp(a, "-machinefile")) {
      o->hostfile = next;
    } else if (!strcmp(a, "-llamp-rendezvous") || !strcmp(a, "--llamp-rendezvous")) {
      o->rendezvous = next;
    } else if (!strcmp(a, "-llamp-config") || !strcmp(a, "--llamp-config")) {
      o->config = next;
    } else if (!strcmp(a, "-llamp-seed") || !strcmp(a, "--llamp-seed")) {
      o->pass_seed = 1;
    }
    i++; /* its value */
  }
}

/* ---- the steps -------------------------------------------------------------------- */

static void vdir(const opts_t *o, size_t k, const char *file, char *buf, size_t len) {
  snprintf(buf, len, "%s/v%zu%s%s", o->out, k, file ? "/" : "", file ? file : "");
}

/* The variant's platform file: its own, or generated by llamp-platform. */
static void platform(const opts_t *o, size_t k, char *path, size_t len) {
  llamp_whatif_variant_t *v = &o->v[k];
  if (v->is_file) {
    if (access(v->spec, R_OK) != 0) die("variant %zu (%s): %s: cannot read", k, v->name, v->spec);
    if (!realpath(v->spec, path)) snprintf(path, len, "%s", v->spec);
    return;
  }
  vdir(o, k, "platform.xml", path, len);
  char log[PATH_MAX], gen[PATH_MAX];
  vdir(o, k, "platform.log", log, sizeof log);
  const char *env = getenv("LLAMP_PLATFORM");
  /* installed, llamp-platform is beside this program; else the source tree's */
  const char *beside = tool("llamp-platform");
  snprintf(gen, sizeof gen, "%s",
           env && *env ? env : strchr(beside, '/') ? beside : LLAMP_PLATFORM_TOOL);
  char **argv = calloc((size_t)v->nopts + 8, sizeof *argv);
  int a = 0;
  argv[a++] = "python3";
  argv[a++] = gen;
  argv[a++] = "-t";
  argv[a++] = v->spec;
  for (int i = 0; i < v->nopts; i++) argv[a++] = v->opts[i];
  argv[a++] = "-o";
  argv[a++] = path;
  argv[a] = NULL;
  int rc = run(argv, log);
  free(argv);
  if (rc) {
    char msg[1024];
    last_line(log, msg, sizeof msg);
    die("variant %zu (%s): %s", k, v->name, msg);
  }
}

/* The ranks' routes on the variant: llamp-routes under the run's mapping. */
static int routes(const opts_t *o, size_t k, const char *plat, long np, char *msg, size_t len) {
  char out[PATH_MAX], log[PATH_MAX], nbuf[32];
  vdir(o, k, "routes.txt", out, sizeof out);
  vdir(o, k, "routes.log", log, sizeof log);
  snprintf(nbuf, sizeof nbuf, "%ld", np);
  char *argv[] = {(char *)tool("llamp-routes"), (char *)plat, o->hostfile ? "-f" : "-n",
                  o->hostfile ? (char *)o->hostfile : nbuf, "-o", out, NULL};
  if (run(argv, log) == 0) return 0;
  char line[1024];
  last_line(log, line, sizeof line);
  snprintf(msg, len, "variant %zu (%s): %s", k, o->v[k].name, line);
  return -1;
}

/* smpi_llamp-run of the program on the variant; 0 when it ran. */
static int simulate(const opts_t *o, size_t k, const char *plat, char *msg, size_t len) {
  char out[PATH_MAX], log[PATH_MAX], seed[32];
  vdir(o, k, "run", out, sizeof out);
  vdir(o, k, "run.log", log, sizeof log);
  if (o->merge) { /* its Slurm task ran it */
    char rep[PATH_MAX + 16];
    snprintf(rep, sizeof rep, "%s/report.json", out);
    if (access(rep, R_OK) == 0) return 0;
    snprintf(msg, len, "no SimGrid run (its Slurm task failed or did not run; see %.900s and the task's slurm-*_%zu.log)", log, k);
    return -1;
  }
  nftw(out, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
  char **argv = calloc((size_t)o->npass + 10, sizeof *argv);
  int a = 0;
  argv[a++] = (char *)o->runner;
  argv[a++] = "-llamp-out";
  argv[a++] = out;
  argv[a++] = "-platform";
  argv[a++] = (char *)plat;
  /* the predictions from the one capture can only follow the rule (another
   * platform shares its links otherwise): so does each variant's own DAG,
   * which then splits a difference into contention and the rest (yours on
   * the command line comes later and wins) */
  argv[a++] = "-llamp-contention";
  argv[a++] = "rule";
  if (!o->pass_seed) {
    argv[a++] = "-llamp-seed";
    argv[a++] = seed;
  }
  for (int i = 0; i < o->npass; i++) argv[a++] = o->pass[i];
  argv[a] = NULL;
  int rc = run(argv, log);
  free(argv);
  if (rc == 0) return 0;
  char line[1024];
  last_line(log, line, sizeof line);
  snprintf(msg, len, "SimGrid run failed (exit %d): %.500s (see %.900s)", rc, line, log);
  return -1;
}

typedef struct {
  double o, g, S;
  const char *term, *rndv;
  int nic; /* the capture's DAG had the NIC rule (params.nic) */
  double envelope; /* params.size_dependent.envelope, < 0: none */
} model_t;

/* llamp analyze of the base graph with a routes file and extra --set's;
 * the report goes to `json`.  0 when it ran. */
static int analyze(const opts_t *o, const model_t *m, const char *routes_file, const char *set1,
                   const char *set2, const char *json, const char *log) {
  char graph[PATH_MAX], ob[64], gb[64], sb[64], eb[64];
  vdir(o, 0, "run/graph.llg", graph, sizeof graph);
  snprintf(ob, sizeof ob, "%.17gs", m->o);
  snprintf(gb, sizeof gb, "%.17gs", m->g);
  snprintf(sb, sizeof sb, "%.0fB", m->S);
  char *argv[32];
  int a = 0;
  argv[a++] = (char *)tool("llamp");
  argv[a++] = "analyze";
  argv[a++] = graph;
  argv[a++] = "--routes";
  argv[a++] = (char *)routes_file;
  argv[a++] = "--o";
  argv[a++] = ob;
  argv[a++] = "--g";
  argv[a++] = gb;
  argv[a++] = "--S";
  argv[a++] = sb;
  argv[a++] = "--bandwidth-term";
  argv[a++] = (char *)m->term;
  argv[a++] = "--rendezvous";
  argv[a++] = (char *)m->rndv;
  argv[a++] = "--tolerance";
  argv[a++] = "none";
  if (m->nic) argv[a++] = "--nic";
  if (m->envelope >= 0) { /* SMPI's 16 bytes per message, as the capture charged them */
    snprintf(eb, sizeof eb, "%.17gB", m->envelope);
    argv[a++] = "--envelope";
    argv[a++] = eb;
  }
  if (set1) {
    argv[a++] = "--set";
    argv[a++] = (char *)set1;
  }
  if (set2) {
    argv[a++] = "--set";
    argv[a++] = (char *)set2;
  }
  argv[a++] = "--format";
  argv[a++] = "json";
  argv[a++] = "-o";
  argv[a++] = (char *)json;
  argv[a] = NULL;
  return run(argv, log);
}

/* The capture's model, for the re-analyses: params of its report, and the
 * rendezvous protocol (not in the report): -llamp-rendezvous, else
 * LLAMP_RENDEZVOUS, else the model file's, else the capture's default. */
static void capture_model(const opts_t *o, const char *report, model_t *m, char *cfgpath, size_t len) {
  char err[1024];
  llamp_json_t *j = llamp_json_read_file(report, err, sizeof err);
  if (!j) die("%s", err);
  const llamp_json_t *p = llamp_json_get(j, "params");
  if (llamp_json_get_number(p, "o", &m->o) || llamp_json_get_number(p, "g", &m->g) ||
      llamp_json_get_number(p, "S", &m->S))
    die("%s: \"params\": expected o, g and S (a capture's report.json)", report);
  m->nic = 0; /* reports before the NIC rule have no params.nic */
  llamp_json_bool(llamp_json_get(p, "nic"), &m->nic);
  m->envelope = -1;
  const llamp_json_t *sd = llamp_json_get(p, "size_dependent");
  if (sd && llamp_json_get_number(sd, "envelope", &m->envelope)) m->envelope = -1;
  const char *t = llamp_json_string(llamp_json_get(p, "bandwidth_term"));
  m->term = t && !strcmp(t, "s*G") ? "s" : "s-1";
  const char *c = llamp_json_string(llamp_json_get(llamp_json_get(j, "capture"), "config"));
  snprintf(cfgpath, len, "%s", o->config ? o->config : c ? c : "");
  llamp_json_free(j);
  const char *env = getenv("LLAMP_RENDEZVOUS");
  m->rndv = NULL;
  if (o->rendezvous) m->rndv = o->rendezvous;
  else if (env && *env) m->rndv = env;
  else if (cfgpath[0] && strcmp(cfgpath, "none")) {
    FILE *f = fopen(cfgpath, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
      char *h = strchr(line, '#');
      if (h) *h = 0;
      if (strstr(line, "rendezvous") && strchr(line, '='))
        m->rndv = strstr(line, "rdma-read") ? "rdma-read" : strstr(line, "direct") ? "direct" : m->rndv;
    }
    if (f) fclose(f);
  }
  if (!m->rndv) m->rndv = cfgpath[0] && strcmp(cfgpath, "none") ? "direct" : "rdma-read";
}

/* `s` as one shell word: single-quoted, a ' as '\'' */
static void put_quoted(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++)
    if (*s == '\'') fputs("'\\''", f);
    else fputc(*s, f);
  fputc('\'', f);
}

/* The job script, as smpi_llamp-study's (docs/studies.md): task K runs
 * variant K's SimGrid run (`--variant-run K`, task 0 the capture), by
 * absolute path; the merge job (`--merge`), after every task, the
 * predictions and the table.  The options are this command's, less the
 * Slurm ones, with --out, --seed and --runner made absolute/explicit. */
static void write_slurm(const opts_t *o, int argc, char **argv) {
  char self[PATH_MAX], runner[PATH_MAX], out[PATH_MAX], cwd[PATH_MAX], script[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) die("/proc/self/exe: cannot read: %s", strerror(errno));
  self[n] = 0;
  if (!strchr(o->runner, '/') || !realpath(o->runner, runner))
    die("--runner: '%s' not found (expected an executable by path)", o->runner);
  if (!getcwd(cwd, sizeof cwd)) die("getcwd: %s", strerror(errno));
  if (!realpath(o->out, out)) die("%s: %s", o->out, strerror(errno));
  FILE *f = fopen(o->slurm, "w");
  if (!f) die("%s: cannot write: %s", o->slurm, strerror(errno));
  if (!realpath(o->slurm, script)) die("%s: %s", o->slurm, strerror(errno));
  fprintf(f,
          "#!/bin/bash\n"
          "# Slurm job array for a smpi-llamp what-if sweep: one task per variant's\n"
          "# SimGrid run (task 0: the capture), then the merge.  Submit with:  bash %s submit\n"
          "#SBATCH --job-name=llamp-whatif\n#SBATCH --array=0-%zu",
          o->slurm, o->n - 1);
  if (o->throttle) fprintf(f, "%%%ld", o->throttle);
  fprintf(f, "\n#SBATCH --ntasks=1\n#SBATCH --chdir=%s\n#SBATCH --output=%s/slurm-%%A_%%a.log\n", cwd, out);
  const char *sbopt[] = {"partition", o->partition, "account", o->account, "time", o->time_limit, "mem", o->mem};
  for (int i = 0; i < 8; i += 2)
    if (sbopt[i + 1]) fprintf(f, "#SBATCH --%s=%s\n", sbopt[i], sbopt[i + 1]);
  fputs("set -euo pipefail\nWHATIF=", f), put_quoted(f, self);
  fputs("\nRUNNER=", f), put_quoted(f, runner);
  fputs("\nSCRIPT=", f), put_quoted(f, script);
  fputs("\nWORKDIR=", f), put_quoted(f, cwd);
  fputs("\nOUT=", f), put_quoted(f, out);
  fputs("\nARGS=(--out \"$OUT\" --runner \"$RUNNER\"", f);
  if (!o->pass_seed) fprintf(f, " --seed %llu", (unsigned long long)o->seed); /* else -llamp-seed is in the rest */
  static const char *const dropped[] = {"--slurm", "--partition", "--account", "--time", "--mem-per-task",
                                        "--throttle", "--setup", "--out", "--runner", "--seed"};
  int i = 1;
  for (; i < argc && argv[i] != o->pass[0]; i++) {
    int drop = !strcmp(argv[i], "--submit") || !strcmp(argv[i], "--merge");
    for (size_t d = 0; d < sizeof dropped / sizeof *dropped; d++)
      if (!strcmp(argv[i], dropped[d])) drop = 2;
    if (drop == 2) i++; /* and its value */
    if (drop) continue;
    fputc(' ', f), put_quoted(f, argv[i]);
  }
  for (; i < argc; i++) fputc(' ', f), put_quoted(f, argv[i]);
  fputs(")\nSBATCH_OPTS=(", f);
  for (int k = 0, first = 1; k < 8; k += 2)
    if (sbopt[k + 1]) {
      fprintf(f, "%s--%s=", first ? "" : " ", sbopt[k]);
      put_quoted(f, sbopt[k + 1]);
      first = 0;
    }
  fputs(")\n", f);
  if (o->setup) fprintf(f, "%s\n", o->setup);
  fprintf(f, "%s",
          "cd \"$WORKDIR\"\n"
          "# before any run: the tools must be here (built or installed on this node)\n"
          "for t in \"$WHATIF\" \"$RUNNER\"; do\n"
          "  [ -x \"$t\" ] || { echo \"llamp-whatif job: $t: not found or not executable on $(hostname)\"\\\n"
          "    \"(build or install smpi-llamp where the nodes see it, or load it with --setup)\" >&2; exit 2; }\n"
          "done\n"
          "case \"${1:-}\" in\n"
          "submit)\n"
          "  command -v sbatch > /dev/null || { echo \"llamp-whatif job: sbatch not found (submit on a Slurm login node)\" >&2; exit 1; }\n"
          "  jid=$(sbatch --parsable \"$SCRIPT\")\n"
          "  jid=${jid%%;*}\n"
          "  echo \"array job $jid: variants $(sed -n 's/^#SBATCH --array=//p' \"$SCRIPT\")\"\n"
          "  mid=$(sbatch --parsable --dependency=afterany:$jid \"${SBATCH_OPTS[@]}\" --job-name=llamp-whatif-merge \\\n"
          "    --chdir=\"$WORKDIR\" --output=\"$OUT/slurm-merge-%j.log\" --wrap \"bash '$SCRIPT' merge\")\n"
          "  mid=${mid%%;*}\n"
          "  echo \"merge job $mid (after every task): $OUT/slurm-merge-$mid.log\"\n"
          "  echo \"$jid $mid\" >> \"$OUT/slurm.jobs\"\n"
          "  ;;\n"
          "merge) exec \"$WHATIF\" --merge \"${ARGS[@]}\" ;;\n"
          "'') exec \"$WHATIF\" --variant-run \"${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\" \"${ARGS[@]}\" ;;\n"
          "*) echo \"usage: bash $0 [submit]\" >&2; exit 2 ;;\n"
          "esac\n");
  if (fclose(f) != 0) die("%s: write failed", o->slurm);
  chmod(o->slurm, 0755);
  fprintf(stderr, "%s: wrote %s (%zu tasks); submit with: bash %s submit\n", prog, o->slurm, o->n, o->slurm);
  if (!o->have_seed && !o->pass_seed)
    fprintf(stderr, "%s: seed %llu (--seed %llu reproduces this study)\n", prog, (unsigned long long)o->seed,
            (unsigned long long)o->seed);
}

int main(int argc, char **argv) {
  opts_t o;
  memset(&o, 0, sizeof o);
  o.out = "llamp-whatif";
  o.threshold = 0.005;
  o.variant_run = -1;
  char where[64];
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    char *end;
#define VALUE() (i + 1 < argc ? argv[++i] : (die("%s needs a value (see --help)", a), ""))
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(help, stdout);
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("%s (smpi-llamp) %s\n", prog, LLAMP_TOOL_VERSION);
      return 0;
    } else if (!strcmp(a, "--variant")) {
      const char *v = VALUE();
      snprintf(where, sizeof where, "--variant %zu", o.n + 1);
      add_variant(&o, v, where);
    } else if (!strcmp(a, "--variants")) {
      char err[1024];
      if (llamp_whatif_read_variants(VALUE(), &o.v, &o.n, err, sizeof err)) die("%s", err);
    } else if (!strcmp(a, "--wire")) {
      o.wire = VALUE();
    } else if (!strcmp(a, "--switch")) {
      o.sw = VALUE();
    } else if (!strcmp(a, "--out")) {
      o.out = VALUE();
    } else if (!strcmp(a, "--plot")) {
      o.plot = VALUE();
      size_t l = strlen(o.plot);
      if (l < 5 || (strcasecmp(o.plot + l - 4, ".svg") && strcasecmp(o.plot + l - 4, ".png")))
        die("--plot '%s' (expected a .svg or .png file name)", o.plot);
    } else if (!strcmp(a, "--threshold")) {
      const char *v = VALUE();
      double t = strtod(v, &end);
      if (end == v || *end || !(t > 0) || t > 100) die("--threshold '%s' (expected a percentage in (0, 100])", v);
      o.threshold = t / 100;
    } else if (!strcmp(a, "--seed")) {
      const char *v = VALUE();
      unsigned long long s = strtoull(v, &end, 10);
      if (*end || !*v || *v == '-') die("--seed '%s' (expected a non-negative integer)", v);
      o.seed = s;
      o.have_seed = 1;
    } else if (!strcmp(a, "--predict-only")) {
      o.predict_only = 1;
    } else if (!strcmp(a, "--runner")) {
      o.runner = VALUE();
    } else if (!strcmp(a, "--slurm")) {
      o.slurm = VALUE();
    } else if (!strcmp(a, "--submit")) {
      o.submit = 1;
    } else if (!strcmp(a, "--merge")) {
      o.merge = 1;
    } else if (!strcmp(a, "--variant-run")) {
      const char *v = VALUE();
      o.variant_run = strtol(v, &end, 10);
      if (*end || !*v || o.variant_run < 0) die("--variant-run '%s' (expected a variant number >= 0)", v);
    } else if (!strcmp(a, "--partition")) {
      o.partition = VALUE();
    } else if (!strcmp(a, "--account")) {
      o.account = VALUE();
    } else if (!strcmp(a, "--time")) {
      o.time_limit = VALUE();
      if (!*o.time_limit || strspn(o.time_limit, "0123456789:-") != strlen(o.time_limit))
        die("--time '%s' (expected a Slurm time limit: MINUTES, H:MM:SS or D-HH:MM)", o.time_limit);
    } else if (!strcmp(a, "--mem-per-task")) {
      o.mem = VALUE();
      strtoul(o.mem, &end, 10);
      if (end == o.mem || (*end && (strchr("KMGTkmgt", *end) == NULL || end[1])))
        die("--mem-per-task '%s' (expected a size such as 2000M or 4G)", o.mem);
    } else if (!strcmp(a, "--throttle")) {
      const char *v = VALUE();
      o.throttle = strtol(v, &end, 10);
      if (*end || o.throttle < 1 || o.throttle > 1000000) die("--throttle '%s' (expected a number of tasks >= 1)", v);
    } else if (!strcmp(a, "--setup")) {
      o.setup = VALUE();
      if (strchr(o.setup, '\n')) die("--setup: one shell line expected (no newline)");
    } else if (!strncmp(a, "--", 2) && strncmp(a, "--cfg", 5) && strncmp(a, "--log", 5) &&
               strncmp(a, "--llamp", 7)) {
      die("unknown option '%s' (see --help)", a);
    } else {
      break; /* the rest is smpi_llamp-run's */
    }
#undef VALUE
  }
  o.pass = argv + i;
  o.npass = argc - i;
  if (o.n == 0) die("no platform variant (give --variant SPEC or --variants FILE; see --help)");
  if (o.npass == 0) die("no program to run (see --help)");
  parse_pass(&o);
  expand(&o, "--wire", o.wire);
  expand(&o, "--switch", o.sw);
  find_bindir();
  if (!o.runner) o.runner = strdup(tool("smpi_llamp-run")); /* tool() reuses its buffers */
  if (o.submit && !o.slurm) {
    static char job[PATH_MAX];
    snprintf(job, sizeof job, "%s/job.sh", o.out);
    o.slurm = job;
  }
  /* (the job script passes --seed: the tasks and the merge agree on it) */
  if ((o.variant_run >= 0 || o.merge) && !o.pass_seed && !o.have_seed)
    die("%s: give --seed (every run and the merge must agree on it)", o.merge ? "--merge" : "--variant-run");
  if (o.variant_run >= 0 && (size_t)o.variant_run >= o.n)
    die("--variant-run %ld: there are %zu variants (0 .. %zu)", o.variant_run, o.n, o.n - 1);
  if (!o.pass_seed && !o.have_seed) o.seed = (uint64_t)time(NULL) % 1000000000u;
  tty = isatty(2);
  t_start = now();

  if (mkdir(o.out, 0777) != 0 && errno != EEXIST) die("%s: cannot create: %s", o.out, strerror(errno));
  /* every platform first: a bad variant fails before the capture */
  char (*plat)[PATH_MAX] = calloc(o.n, sizeof *plat);
  llamp_whatif_result_t *res = calloc(o.n, sizeof *res);
  if (!plat || !res) die("out of memory");
  int made = o.variant_run >= 0 || o.merge; /* the platforms were made with the job script */
  for (size_t k = 0; k < o.n; k++) {
    char d[PATH_MAX];
    vdir(&o, k, NULL, d, sizeof d);
    res[k].variant = &o.v[k];
    if (made) {
      if (o.v[k].is_file) platform(&o, k, plat[k], sizeof plat[k]);
      else vdir(&o, k, "platform.xml", plat[k], sizeof plat[k]);
      if (access(plat[k], R_OK) != 0)
        die("variant %zu (%s): %s: cannot read (made by --slurm: rerun it)", k, o.v[k].name, plat[k]);
      continue;
    }
    nftw(d, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (mkdir(d, 0777) != 0) die("%s: cannot create: %s", d, strerror(errno));
    progress("variant %zu/%zu (%s): platform", k + 1, o.n, o.v[k].name);
    platform(&o, k, plat[k], sizeof plat[k]);
  }
  char msg[2048];
  if (o.variant_run >= 0) { /* one Slurm task: this variant's SimGrid run */
    size_t k = (size_t)o.variant_run;
    if (simulate(&o, k, plat[k], msg, sizeof msg)) die("variant %zu (%s): %s", k, o.v[k].name, msg);
    fprintf(stderr, "%s: variant %zu (%s): SimGrid run done\n", prog, k, o.v[k].name);
    return 0;
  }
  if (o.slurm) {
    write_slurm(&o, argc, argv);
    if (!o.submit) return 0;
    fflush(stdout);
    char *sub[] = {"bash", (char *)o.slurm, "submit", NULL};
    int rc = run(sub, NULL);
    if (rc) die("submitting %s failed (see above)", o.slurm);
    return 0;
  }
  if (o.np > 0 || o.hostfile)
    for (size_t k = 0; k < o.n; k++) {
      progress("variant %zu/%zu (%s): routes", k + 1, o.n, o.v[k].name);
      if (routes(&o, k, plat[k], o.np, msg, sizeof msg)) die("%s", msg);
    }

  if (!o.pass_seed && !o.have_seed) /* told once the input is known to be good */
    fprintf(stderr, "%s%s: seed %llu (--seed %llu reproduces this study)\n", tty ? "\r\033[K" : "",
            prog, (unsigned long long)o.seed, (unsigned long long)o.seed);
  /* the capture, on the base variant */
  progress("variant 1/%zu (%s): capture and SimGrid run", o.n, o.v[0].name);
  if (simulate(&o, 0, plat[0], msg, sizeof msg)) die("base variant (%s): %s", o.v[0].name, msg);
  char path[PATH_MAX + 64], err[1024], cfgpath[PATH_MAX];
  vdir(&o, 0, "run/report.json", path, sizeof path);
  if (llamp_whatif_read_run(path, &res[0], err, sizeof err)) die("%s", err);
  model_t m;
  capture_model(&o, path, &m, cfgpath, sizeof cfgpath);
  if (!(o.np > 0 || o.hostfile)) { /* the rank count from the capture */
    llamp_json_t *j = llamp_json_read_file(path, err, sizeof err);
    double r = 0;
    if (!j || llamp_json_get_number(llamp_json_get(j, "graph"), "ranks", &r) || r < 1)
      die("%s: \"graph\": expected \"ranks\"", path);
    llamp_json_free(j);
    for (size_t k = 0; k < o.n; k++)
      if (routes(&o, k, plat[k], (long)r, msg, sizeof msg)) die("%s", msg);
  }

  /* Re-analysing the capture must give its own T: the other predictions use
   * the same model.  The rendezvous protocol is not in the report: the other
   * one is tried when the first does not reproduce T. */
  llamp_whatif_t w = {NULL, o.out, o.seed, o.threshold, res, o.n, 0, NAN};
  {
    char routes0[PATH_MAX], json[PATH_MAX], log[PATH_MAX];
    vdir(&o, 0, "routes.txt", routes0, sizeof routes0);
    vdir(&o, 0, "predict.json", json, sizeof json);
    vdir(&o, 0, "predict.log", log, sizeof log);
    const char *first = m.rndv;
    for (int attempt = 0; attempt < 2 && !w.base_check_ok; attempt++) {
      if (attempt) m.rndv = strcmp(first, "direct") ? "direct" : "rdma-read";
      double T, l1, l2, l3;
      if (analyze(&o, &m, routes0, NULL, NULL, json, log) == 0 &&
          llamp_whatif_read_prediction(json, &T, &l1, &l2, &l3, err, sizeof err) == 0) {
        w.base_check_T = T;
        w.base_check_ok = fabs(T - res[0].own_T) <= 1e-9 * fabs(res[0].own_T) + 1e-15;
      } else {
        last_line(log, msg, sizeof msg);
        die("base variant: llamp analyze failed: %s", msg);
      }
    }
    if (!w.base_check_ok) m.rndv = first;
    if (!w.base_check_ok)
      fprintf(stderr, "%s: WARNING: re-analysing the capture gives T = %.9g s, not its own %.9g s "
                      "(another model than the capture's: L or G set by hand?); predictions may be off\n",
              prog, w.base_check_T, res[0].own_T);
  }

  int failed = 0;
  char routes0[PATH_MAX];
  vdir(&o, 0, "routes.txt", routes0, sizeof routes0);
  for (size_t k = 0; k < o.n; k++) {
    llamp_whatif_result_t *r = &res[k];
    char rt[PATH_MAX], json[PATH_MAX], log[PATH_MAX];
    vdir(&o, k, "routes.txt", rt, sizeof rt);
    vdir(&o, k, "predict.json", json, sizeof json);
    vdir(&o, k, "predict.log", log, sizeof log);
    progress("variant %zu/%zu (%s): prediction", k + 1, o.n, o.v[k].name);
    if (analyze(&o, &m, rt, NULL, NULL, json, log) == 0 &&
        llamp_whatif_read_prediction(json, &r->predicted, &r->lambda_L, &r->lambda_l_wire,
                                     &r->lambda_d_switch, err, sizeof err) == 0)
      r->predicted_ok = 1;
    else {
      last_line(log, msg, sizeof msg);
      r->error = strdup(msg);
      failed = 1;
    }
    if (llamp_whatif_compare_routes(routes0, rt, &r->pairs, &r->routes_changed, &r->route_delta_mean,
                                    err, sizeof err))
      fprintf(stderr, "%s: variant %zu (%s): %s\n", prog, k, o.v[k].name, err);
    /* the same family with other latencies: a shift of the base capture */
    if (k > 0 && llamp_whatif_is_shift(&o.v[0], &o.v[k], &r->dwire, &r->dswitch)) {
      char s1[96], s2[96], sj[PATH_MAX], sl[PATH_MAX];
      double l0 = NAN;
      char pj[PATH_MAX];
      vdir(&o, 0, "predict.json", pj, sizeof pj);
      llamp_json_t *j = llamp_json_read_file(pj, err, sizeof err);
      if (j) llamp_json_get_number(llamp_json_get(llamp_json_get(j, "parameters"), "l_wire"), "value", &l0);
      llamp_json_free(j);
      snprintf(s1, sizeof s1, "d_switch=%.17gs", r->dswitch);
      snprintf(s2, sizeof s2, "l_wire=%.17gs", l0 + r->dwire);
      vdir(&o, k, "shift.json", sj, sizeof sj);
      vdir(&o, k, "shift.log", sl, sizeof sl);
      double a, b, c;
      if (isfinite(l0) && analyze(&o, &m, routes0, s1, s2, sj, sl) == 0 &&
          llamp_whatif_read_prediction(sj, &r->predicted_shift, &a, &b, &c, err, sizeof err) == 0)
        r->is_shift = 1;
      else
        fprintf(stderr, "%s: variant %zu (%s): the shift along l_wire/d_switch failed (see %s)\n", prog,
                k, o.v[k].name, sl);
    }
    if (k > 0 && !o.predict_only) {
      progress("variant %zu/%zu (%s): SimGrid run", k + 1, o.n, o.v[k].name);
      vdir(&o, k, "run/report.json", path, sizeof path);
      if (simulate(&o, k, plat[k], msg, sizeof msg) == 0) {
        if (llamp_whatif_read_run(path, r, err, sizeof err)) {
          r->error = strdup(err);
          failed = 1;
        }
      } else {
        r->error = strdup(msg);
        failed = 1;
      }
    }
    if (r->ran) { /* the run's mapping is the one predicted on */
      char own[PATH_MAX];
      size_t p2, c2;
      double d2;
      vdir(&o, k, "run/routes.txt", own, sizeof own);
      if (access(own, R_OK) == 0 &&
          (llamp_whatif_compare_routes(rt, own, &p2, &c2, &d2, err, sizeof err) || c2 > 0))
        r->run_routes_differ = 1;
    }
  }
  progress("writing the outputs\n");

  char *cmd = NULL;
  size_t clen = 1;
  for (int k = 0; k < o.npass; k++) clen += strlen(o.pass[k]) + 1;
  cmd = calloc(clen, 1);
  for (int k = 0; k < o.npass; k++) {
    if (k) strcat(cmd, " ");
    strcat(cmd, o.pass[k]);
  }
  w.command = cmd;
  llamp_whatif_explain(&w);
  static const char *names[] = {"whatif.csv", "whatif.json", "whatif.txt"};
  for (int k = 0; k < 3; k++) {
    snprintf(path, sizeof path, "%s/%s", o.out, names[k]);
    FILE *f = fopen(path, "w");
    if (!f) die("%s: cannot write: %s", path, strerror(errno));
    if (k == 0) llamp_whatif_write_csv(f, &w);
    else if (k == 1) llamp_whatif_write_json(f, &w);
    else llamp_whatif_write_text(f, &w);
    if (fclose(f) != 0) die("%s: write failed", path);
  }
  /* the plot: SVG, converted by rsvg-convert for .png (as llamp plot does) */
  char svg[PATH_MAX + 16];
  const char *plot = o.plot;
  char defplot[PATH_MAX];
  if (!plot) {
    snprintf(defplot, sizeof defplot, "%s/whatif.svg", o.out);
    plot = defplot;
  }
  size_t pl = strlen(plot);
  int png = !strcasecmp(plot + pl - 4, ".png");
  snprintf(svg, sizeof svg, png ? "%s.tmp.svg" : "%s", plot);
  FILE *f = fopen(svg, "w");
  if (!f) die("%s: cannot write: %s", svg, strerror(errno));
  if (llamp_whatif_write_svg(f, &w, err, sizeof err) || fclose(f) != 0) die("%s: %s", svg, err);
  if (png) {
    char *cv[] = {"rsvg-convert", "-f", "png", "-o", (char *)plot, svg, NULL};
    int rc = run(cv, NULL);
    unlink(svg);
    if (rc) die("%s: PNG conversion failed (%s); use .svg, or install librsvg2-bin", plot,
                rc == 127 ? "rsvg-convert not found" : "rsvg-convert failed");
  }
  llamp_whatif_write_text(stdout, &w);
  printf("  files: %s/whatif.csv, whatif.json, whatif.txt, %s\n", o.out, plot);
  for (size_t k = 0; k < o.n; k++) llamp_whatif_result_free(&res[k]);
  for (size_t k = 0; k < o.n; k++) llamp_whatif_variant_free(&o.v[k]);
  free(o.v);
  free(res);
  free(plat);
  free(cmd);
  if (failed) {
    fprintf(stderr, "%s: some variants failed (see whatif.txt)\n", prog);
    return 1;
  }
  return 0;
}
