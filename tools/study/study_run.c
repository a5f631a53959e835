/* smpi_llamp-study - run N emulations of one program, each with its own seed,
 * in parallel, and summarise them (docs/studies.md).
 *
 * usage: smpi_llamp-study [-n N] [-j JOBS] [--seed S] [--out DIR]
 *                         [--variability MODE] [--slurm FILE] [--merge]
 *                         [smpi_llamp-run / smpirun options] PROGRAM [ARGS...]
 *
 * Sample k runs `smpi_llamp-run -llamp-seed S+k -llamp-out DIR/sample-k ...`.
 * A sample is done when its run exited 0 and its report.json was read; a
 * `done` file then records its seed.  Rerunning the same command finishes
 * only the missing samples.  The summary only ever depends on the samples'
 * reports and the seed, so it is the same however the samples were run. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "llamp_study.h"

static const char *prog = "smpi_llamp-study";

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
    "usage: smpi_llamp-study [study options] [smpi_llamp-run options] PROGRAM [ARGS...]\n"
    "Run N emulations of PROGRAM, each with its own seed, in parallel, and give the\n"
    "distribution of its runtime and of its latency tolerance (docs/studies.md).\n\n"
    "Study options (before the others):\n"
    "  -n N               samples (default 32)\n"
    "  -j JOBS            emulations at a time (default: the number of cores)\n"
    "  --seed S           sample k has seed S+k (default: from the clock, printed)\n"
    "  --out DIR          study directory (default ./llamp-study); sample k writes\n"
    "                     DIR/sample-k/, the study DIR/study.{json,csv,txt}\n"
    "  --variability MODE what a seed varies: spatial (a synthetic cluster of\n"
    "                     per-host kernel models), temporal (noise on fixed host\n"
    "                     models), both (default), or none; passed to smpi_llamp-run as\n"
    "                     -llamp-kernel-noise MODE (docs/models.md)\n"
    "  --slurm FILE       write a Slurm job-array script for this study (one task\n"
    "                     per sample, then a merge job) and exit\n"
    "  --evict K          then rerun every sample without its K slowest hosts (by the\n"
    "                     generated kernel models), replaced by the fastest spare\n"
    "                     hosts of the platform (needs -platform with more hosts\n"
    "                     than ranks); reports the gain (seed 004, Sec. 5.3)\n"
    "  --merge            only summarise the samples already done\n"
    "  --runner PATH      the command run per sample (default: smpi_llamp-run\n"
    "                     beside this program)\n"
    "Everything else goes to smpi_llamp-run, which passes smpirun options on.\n"
    "Rerunning the same command in the same --out finishes only missing samples.\n";

typedef struct {
  size_t n;
  int jobs;
  unsigned evict;
  uint64_t seed;
  int have_seed, merge_only;
  const char *out, *variability, *slurm, *runner;
  char **pass; /* smpi_llamp-run's arguments */
  int npass;
} opts_t;

/* Sample k's directory: OUT/sample-k, or OUT/evict-K/sample-k in the eviction pass. */
static unsigned phase_evict; /* 0: the study itself; K: the eviction pass */
static void sample_dir(const opts_t *o, size_t k, char *buf, size_t len) {
  if (phase_evict) snprintf(buf, len, "%s/evict-%u/sample-%04zu", o->out, phase_evict, k);
  else snprintf(buf, len, "%s/sample-%04zu", o->out, k);
}

static char *joined_command(const opts_t *o) {
  size_t len = 1;
  for (int i = 0; i < o->npass; i++) len += strlen(o->pass[i]) + 3;
  char *s = malloc(len), *p = s;
  if (!s) die("out of memory");
  *p = 0;
  for (int i = 0; i < o->npass; i++) p += sprintf(p, "%s%s", i ? " " : "", o->pass[i]);
  return s;
}

/* The study's identity: a rerun must be the same study to resume it. */
static void check_plan(const opts_t *o, const char *cmd) {
  char path[PATH_MAX], line[1 << 16];
  snprintf(path, sizeof path, "%s/study.plan", o->out);
  char want[sizeof line];
  snprintf(want, sizeof want, "seed %llu variability %s command %s\n", (unsigned long long)o->seed,
           o->variability, cmd);
  FILE *f = fopen(path, "r");
  if (f) {
    if (!fgets(line, sizeof line, f)) line[0] = 0;
    fclose(f);
    if (strcmp(line, want) != 0)
      die("%s holds another study (%s:1: %.*s); use another --out, or the same command and --seed",
          o->out, path, (int)strcspn(line, "\n"), line);
    return;
  }
  f = fopen(path, "w");
  if (!f || fputs(want, f) < 0 || fclose(f) != 0) die("%s: cannot write: %s", path, strerror(errno));
}

static int is_done(const opts_t *o, size_t k, uint64_t seed) {
  char path[PATH_MAX];
  sample_dir(o, k, path, sizeof path);
  strncat(path, "/done", sizeof path - strlen(path) - 1);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  unsigned long long s = 0;
  int ok = fscanf(f, "seed %llu", &s) == 1 && s == seed;
  fclose(f);
  return ok;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* The eviction pass: each sample's hostfile without its slowest hosts. */
static const llamp_study_sample_t *evict_from;

/* Start sample k: a child running the runner, output in its directory. */
static pid_t start_sample(const opts_t *o, size_t k) {
  char dir[PATH_MAX], seed[32], log[PATH_MAX + 16], hostfile[PATH_MAX + 16];
  sample_dir(o, k, dir, sizeof dir);
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); /* an interrupted attempt starts afresh */
  if (mkdir(dir, 0777) != 0) die("%s: cannot create: %s", dir, strerror(errno));
  if (phase_evict) {
    const char **list, **ev;
    char err[512];
    if (llamp_study_evict(&evict_from[k], phase_evict, &list, &ev, err, sizeof err)) die("%s", err);
    snprintf(hostfile, sizeof hostfile, "%s/hostfile", dir);
    FILE *f = fopen(hostfile, "w");
    if (!f) die("%s: cannot write: %s", hostfile, strerror(errno));
    for (size_t r = 0; r < evict_from[k].nrank_hosts; r++) fprintf(f, "%s\n", list[r]);
    if (fclose(f) != 0) die("%s: write failed", hostfile);
    snprintf(log, sizeof log, "%s/evicted", dir);
    f = fopen(log, "w");
    for (unsigned j = 0; f && j < phase_evict; j++) fprintf(f, "%s\n", ev[j]);
    if (f) fclose(f);
    free(list);
    free(ev);
  }
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)(o->seed + k));
  snprintf(log, sizeof log, "%s/run.log", dir);
  char out[PATH_MAX + 8];
  snprintf(out, sizeof out, "%s/out", dir);
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    int fd0 = open("/dev/null", O_RDONLY);
    if (fd0 >= 0) dup2(fd0, 0);
    char **argv = calloc((size_t)o->npass + 10, sizeof *argv);
    int a = 0;
    argv[a++] = (char *)o->runner;
    argv[a++] = "-llamp-seed";
    argv[a++] = seed;
    argv[a++] = "-llamp-out";
    argv[a++] = out;
    argv[a++] = "-llamp-kernel-noise";
    argv[a++] = (char *)o->variability;
    if (phase_evict) {
      argv[a++] = "-hostfile";
      argv[a++] = hostfile;
    }
    for (int i = 0; i < o->npass; i++) argv[a++] = o->pass[i];
    argv[a] = NULL;
    execvp(o->runner, argv);
    fprintf(stderr, "%s: cannot run %s: %s\n", prog, o->runner, strerror(errno));
    _exit(127);
  }
  return pid;
}

/* After a sample's run: read its report; mark it done. */
static int finish_sample(const opts_t *o, size_t k, int status, llamp_study_sample_t *s) {
  char dir[PATH_MAX], path[PATH_MAX + 32], err[1024];
  sample_dir(o, k, dir, sizeof dir);
  s->seed = o->seed + k;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "%s: sample %zu (seed %llu) failed (%s %d): see %s/run.log\n", prog, k,
            (unsigned long long)s->seed, WIFEXITED(status) ? "exit" : "signal",
            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), dir);
    return -1;
  }
  snprintf(path, sizeof path, "%s/out/report.json", dir);
  if (llamp_study_read_sample(path, s, err, sizeof err)) {
    fprintf(stderr, "%s: sample %zu: %s\n", prog, k, err);
    return -1;
  }
  snprintf(path, sizeof path, "%s/done", dir);
  FILE *f = fopen(path, "w");
  if (!f || fprintf(f, "seed %llu\n", (unsigned long long)s->seed) < 0 || fclose(f) != 0)
    die("%s: cannot write: %s", path, strerror(errno));
  return 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void progress(size_t done, size_t todo, int running, size_t failed, double t0) {
  double el = now() - t0, left = done ? el / (double)done * (double)(todo - done) : 0;
  fprintf(stderr, "\r%s: %zu/%zu samples done, %d running, %zu failed, %.0f s elapsed%s", prog,
          done, todo, running, failed, el, done ? "" : "   ");
  if (done && done < todo) fprintf(stderr, ", ~%.0f s left   ", left);
}

static void write_slurm(const opts_t *o, const char *cmd) {
  FILE *f = fopen(o->slurm, "w");
  if (!f) die("%s: cannot write: %s", o->slurm, strerror(errno));
  fprintf(f,
          "#!/bin/bash\n"
          "# Slurm job array for a smpi-llamp variability study: one task per sample,\n"
          "# then the merge.  Submit with:  bash %s submit\n"
          "#SBATCH --job-name=llamp-study\n"
          "#SBATCH --array=0-%zu\n"
          "#SBATCH --ntasks=1\n"
          "#SBATCH --output=%s/slurm-%%a.log\n"
          "set -euo pipefail\n"
          "OUT='%s'\nBASE_SEED=%llu\nN=%zu\n"
          "if [ \"${1:-}\" = submit ]; then\n"
          "  jid=$(sbatch --parsable \"$0\")\n"
          "  sbatch --dependency=afterany:$jid --job-name=llamp-study-merge --wrap \\\n"
          "    \"smpi_llamp-study --merge -n $N --seed $BASE_SEED --out '$OUT' --variability %s %s\"\n"
          "  exit 0\n"
          "fi\n"
          "k=$SLURM_ARRAY_TASK_ID\n"
          "d=$(printf '%%s/sample-%%04d' \"$OUT\" \"$k\")\n"
          "rm -rf \"$d\"; mkdir -p \"$d\"\n"
          "seed=$((BASE_SEED + k))\n"
          "smpi_llamp-run -llamp-seed \"$seed\" -llamp-out \"$d/out\" -llamp-kernel-noise %s %s > \"$d/run.log\" 2>&1\n"
          "echo \"seed $seed\" > \"$d/done\"\n",
          o->slurm, o->n - 1, o->out, o->out, (unsigned long long)o->seed, o->n, o->variability,
          cmd, o->variability, cmd);
  if (fclose(f) != 0) die("%s: write failed", o->slurm);
  chmod(o->slurm, 0755);
  fprintf(stderr, "%s: wrote %s (%zu tasks); submit with: bash %s submit\n", prog, o->slurm, o->n,
          o->slurm);
}

/* Run samples todo[0..ntodo) JOBS at a time; returns how many failed. */
static size_t run_pool(const opts_t *op, const size_t *todo, size_t ntodo, llamp_study_sample_t *s) {
  opts_t o = *op;
  size_t failed = 0;
  if (ntodo) {
    int tty = isatty(2);
    fprintf(stderr, "%s: %zu sample(s) to run (%zu already done), %d at a time, in %s\n", prog,
            ntodo, o.n - ntodo, o.jobs, o.out);
    pid_t *pids = calloc((size_t)o.jobs, sizeof *pids);
    size_t *slot_k = calloc((size_t)o.jobs, sizeof *slot_k);
    if (!pids || !slot_k) die("out of memory");
    size_t next = 0, finished = 0;
    int running = 0;
    double t0 = now();
    while (finished < ntodo) {
      while (running < o.jobs && next < ntodo) {
        int slot = 0;
        while (pids[slot]) slot++;
        slot_k[slot] = todo[next];
        pids[slot] = start_sample(&o, todo[next++]);
        running++;
      }
      if (tty) progress(finished, ntodo, running, failed, t0);
      int status;
      pid_t pid = wait(&status);
      if (pid < 0) {
        if (errno == EINTR) continue;
        die("wait: %s", strerror(errno));
      }
      int slot = 0;
      while (slot < o.jobs && pids[slot] != pid) slot++;
      if (slot == o.jobs) continue;
      pids[slot] = 0;
      running--;
      finished++;
      if (finish_sample(&o, slot_k[slot], status, &s[slot_k[slot]])) failed++;
    }
    if (tty) {
      progress(finished, ntodo, 0, failed, t0);
      fputc('\n', stderr);
    }
    free(pids);
    free(slot_k);
  }
  return failed;
}

static void default_runner(opts_t *o) {
  static char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 32);
  if (n > 0) {
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (slash) {
      strcpy(slash + 1, "smpi_llamp-run");
      if (access(buf, X_OK) == 0) {
        o->runner = buf;
        return;
      }
    }
  }
  o->runner = "smpi_llamp-run";
}

int main(int argc, char **argv) {
  opts_t o = {.n = 32, .out = "llamp-study", .variability = "both"};
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    char *end;
#define VALUE() (i + 1 < argc ? argv[++i] : (die("%s needs a value (see --help)", a), ""))
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(help, stdout);
      return 0;
    } else if (!strcmp(a, "-n")) {
      const char *v = VALUE();
      long long n = strtoll(v, &end, 10);
      if (*end || n < 1 || n > 1000000) die("-n: '%s' (expected 1 .. 1000000 samples)", v);
      o.n = (size_t)n;
    } else if (!strcmp(a, "-j")) {
      const char *v = VALUE();
      long n = strtol(v, &end, 10);
      if (*end || n < 1 || n > 4096) die("-j: '%s' (expected 1 .. 4096 jobs)", v);
      o.jobs = (int)n;
    } else if (!strcmp(a, "--seed")) {
      const char *v = VALUE();
      unsigned long long s = strtoull(v, &end, 10);
      if (*end || !*v || *v == '-') die("--seed: '%s' (expected a non-negative integer)", v);
      o.seed = s;
      o.have_seed = 1;
    } else if (!strcmp(a, "--out")) {
      o.out = VALUE();
    } else if (!strcmp(a, "--variability")) {
      o.variability = VALUE();
      if (strcmp(o.variability, "spatial") && strcmp(o.variability, "temporal") &&
          strcmp(o.variability, "both") && strcmp(o.variability, "none"))
        die("--variability: '%s' (expected spatial, temporal, both or none)", o.variability);
    } else if (!strcmp(a, "--slurm")) {
      o.slurm = VALUE();
    } else if (!strcmp(a, "--evict")) {
      const char *v = VALUE();
      long k = strtol(v, &end, 10);
      if (*end || k < 1 || k > 100000) die("--evict: '%s' (expected a number of hosts >= 1)", v);
      o.evict = (unsigned)k;
    } else if (!strcmp(a, "--merge")) {
      o.merge_only = 1;
    } else if (!strcmp(a, "--runner")) {
      o.runner = VALUE();
    } else {
      break; /* the rest is smpi_llamp-run's */
    }
#undef VALUE
  }
  o.pass = argv + i;
  o.npass = argc - i;
  if (o.npass == 0) die("no program to run (see --help)");
  if (!o.runner) default_runner(&o);
  if (!o.jobs) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = c > 0 ? (int)c : 1;
  }
  if (!o.have_seed) {
    o.seed = (uint64_t)time(NULL) % 1000000000u;
    fprintf(stderr, "%s: seed %llu (--seed %llu reproduces this study)\n", prog,
            (unsigned long long)o.seed, (unsigned long long)o.seed);
  }
  char *cmd = joined_command(&o);
  if (mkdir(o.out, 0777) != 0 && errno != EEXIST) die("%s: cannot create: %s", o.out, strerror(errno));
  check_plan(&o, cmd);
  if (o.slurm) {
    write_slurm(&o, cmd);
    free(cmd);
    return 0;
  }

  llamp_study_sample_t *s = calloc(o.n, sizeof *s);
  size_t *todo = malloc(o.n * sizeof *todo), ntodo = 0;
  if (!s || !todo) die("out of memory");
  for (size_t k = 0; k < o.n; k++) {
    s[k].seed = o.seed + k;
    char path[PATH_MAX + 32], err[1024];
    if (is_done(&o, k, s[k].seed)) {
      sample_dir(&o, k, path, sizeof path);
      strncat(path, "/out/report.json", sizeof path - strlen(path) - 1);
      if (llamp_study_read_sample(path, &s[k], err, sizeof err) == 0) continue;
      fprintf(stderr, "%s: sample %zu: %s (rerunning it)\n", prog, k, err);
    }
    if (!o.merge_only) todo[ntodo++] = k;
  }
  size_t failed = run_pool(&o, todo, ntodo, s);
  if (o.evict) {
    int plat = 0;
    for (int i = 0; i < o.npass; i++) plat |= !strcmp(o.pass[i], "-platform") || !strcmp(o.pass[i], "--platform");
    if (!plat) die("--evict needs -platform FILE (the hostfile's hosts must be on a known platform)");
  }
  llamp_study_sample_t *ev = NULL;
  if (o.evict) {
    size_t done_all = 0;
    for (size_t k = 0; k < o.n; k++) done_all += s[k].done;
    if (done_all < o.n) die("%zu sample(s) missing: the eviction pass needs every sample (rerun)", o.n - done_all);
    phase_evict = o.evict;
    evict_from = s;
    ev = calloc(o.n, sizeof *ev);
    if (!ev) die("out of memory");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/evict-%u", o.out, o.evict);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) die("%s: cannot create: %s", dir, strerror(errno));
    ntodo = 0;
    for (size_t k = 0; k < o.n; k++) {
      ev[k].seed = o.seed + k;
      char path[PATH_MAX + 32], err[1024];
      if (is_done(&o, k, ev[k].seed)) {
        sample_dir(&o, k, path, sizeof path);
        strncat(path, "/out/report.json", sizeof path - strlen(path) - 1);
        if (llamp_study_read_sample(path, &ev[k], err, sizeof err) == 0) continue;
      }
      if (!o.merge_only) todo[ntodo++] = k;
    }
    if (ntodo) fprintf(stderr, "%s: eviction pass: %zu sample(s) without their %u slowest host(s)\n", prog, ntodo, o.evict);
    failed += run_pool(&o, todo, ntodo, ev);
    phase_evict = 0;
  }
  llamp_study_t st = {cmd, o.seed, o.variability, s, o.n, {{0}}, NULL, 0, o.evict, ev, {0}, {0}};
  if (llamp_study_summarise(&st)) die("out of memory");
  static const char *names[] = {"study.json", "study.csv", "study.txt"};
  for (int w = 0; w < 3; w++) {
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", o.out, names[w]);
    FILE *f = fopen(path, "w");
    if (!f) die("%s: cannot write: %s", path, strerror(errno));
    if (w == 0) llamp_study_write_json(f, &st);
    else if (w == 1) llamp_study_write_csv(f, &st);
    else llamp_study_write_text(f, &st);
    if (fclose(f) != 0) die("%s: write failed", path);
  }
  llamp_study_write_text(stdout, &st);
  size_t done = 0;
  for (size_t k = 0; k < o.n; k++) done += s[k].done;
  printf("  files: %s/study.json, study.csv, study.txt\n", o.out);
  free(todo);
  for (size_t k = 0; k < o.n; k++) {
    llamp_study_sample_free(&s[k]);
    if (ev) llamp_study_sample_free(&ev[k]);
  }
  free(ev);
  llamp_study_free(&st);
  free(s);
  free(cmd);
  if (done < o.n) {
    fprintf(stderr, "%s: %zu of %zu samples missing%s; the summary covers the %zu done (rerun to finish)\n",
            prog, o.n - done, o.n, failed ? " (failed: see their run.log)" : "", done);
    return 1;
  }
  return 0;
}
