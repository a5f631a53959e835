/* smpi_llamp-study - run N emulations of one program, each with its own seed,
 * in parallel, and summarise them (docs/studies.md).
 *
 * usage: smpi_llamp-study [-n N] [-j JOBS] [--seed S] [--out DIR]
 *                         [--variability MODE] [--slurm FILE [--submit]] [--merge]
 *                         [smpi_llamp-run / smpirun options] PROGRAM [ARGS...]
 *        smpi_llamp-study --status DIR
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
    "                     per sample, then a merge job after every task) and exit;\n"
    "                     `bash FILE submit` submits it (docs/studies.md)\n"
    "  --submit           write the script (--slurm FILE, default DIR/job.sh) and\n"
    "                     submit it; prints the job ids\n"
    "  --partition P, --account A, --time T, --mem-per-task M\n"
    "                     sbatch's --partition, --account, --time, --mem of every\n"
    "                     task and of the merge job\n"
    "  --throttle K       at most K tasks of the array at a time (--array=...%K)\n"
    "  --setup LINE       a shell line the job runs first (e.g. 'module load simgrid')\n"
    "  --status DIR       samples done, running, failed and pending of the study in\n"
    "                     DIR (with squeue/sacct when the study was submitted)\n"
    "  --sample K         run sample K only (what each Slurm task runs)\n"
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
  int have_seed, merge_only, submit;
  long sample; /* --sample K, else -1 */
  const char *out, *variability, *slurm, *runner;
  const char *partition, *account, *time_limit, *mem, *setup; /* sbatch; NULL: not given */
  long throttle;
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
static void check_plan(const opts_t *o, const char *cmd, int record_n) {
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
    if (!record_n) return; /* a Slurm task: others read the plan at the same time */
  }
  /* line 2, the sample count, is for --status; only line 1 is the identity */
  f = fopen(path, "w");
  if (!f || fputs(want, f) < 0 || fprintf(f, "samples %zu\n", o->n) < 0 || fclose(f) != 0)
    die("%s: cannot write: %s", path, strerror(errno));
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

/* A `failed` file says why a sample failed, for --status and the merge. */
static void mark_failed(const char *dir, const char *fmt, ...) {
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/failed", dir);
  FILE *f = fopen(path, "w");
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fclose(f);
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
    mark_failed(dir, "%s %d", WIFEXITED(status) ? "exit" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    return -1;
  }
  snprintf(path, sizeof path, "%s/out/report.json", dir);
  if (llamp_study_read_sample(path, s, err, sizeof err)) {
    fprintf(stderr, "%s: sample %zu: %s\n", prog, k, err);
    mark_failed(dir, "%s", err);
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

/* `s` as one shell word: single-quoted, a ' as '\'' */
static void put_quoted(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++)
    if (*s == '\'') fputs("'\\''", f);
    else fputc(*s, f);
  fputc('\'', f);
}

/* An absolute path for the job script, which runs elsewhere: `p` itself when
 * absolute, else resolved from here (or from PATH for a bare name). */
static int absolute(const char *p, char *buf, size_t len) {
  if (p[0] == '/') return snprintf(buf, len, "%s", p), 0;
  if (strchr(p, '/')) return len >= PATH_MAX && realpath(p, buf) ? 0 : -1;
  const char *path = getenv("PATH");
  while (path && *path) {
    size_t l = strcspn(path, ":");
    snprintf(buf, len, "%.*s/%s", (int)l, path, p);
    if (l && buf[0] == '/' && access(buf, X_OK) == 0) return 0;
    path += l + (path[l] == ':');
  }
  return -1;
}

/* The job script: each task runs `smpi_llamp-study --sample K` with this
 * study's options (the same code as a local run: the same `done` files and
 * reports), by absolute path, since a batch job's PATH need not hold the
 * build tree; `bash FILE submit` submits the array, then the merge job after
 * every task (afterany) whether they succeeded or not. */
static void write_slurm(const opts_t *o) {
  char study[PATH_MAX], runner[PATH_MAX], out[PATH_MAX], cwd[PATH_MAX], script[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", study, sizeof study - 1);
  if (n <= 0) die("/proc/self/exe: cannot read: %s", strerror(errno));
  study[n] = 0;
  if (absolute(o->runner, runner, sizeof runner))
    die("--runner: '%s' not found (expected an executable, by path or on PATH)", o->runner);
  if (!getcwd(cwd, sizeof cwd)) die("getcwd: %s", strerror(errno));
  if (!realpath(o->out, out)) die("%s: %s", o->out, strerror(errno));
  FILE *f = fopen(o->slurm, "w");
  if (!f) die("%s: cannot write: %s", o->slurm, strerror(errno));
  if (!realpath(o->slurm, script)) die("%s: %s", o->slurm, strerror(errno));
  fprintf(f,
          "#!/bin/bash\n"
          "# Slurm job array for a smpi-llamp variability study (docs/studies.md):\n"
          "# one task per sample, then the merge.  Submit with:  bash %s submit\n"
          "# (or smpi_llamp-study --submit); progress: smpi_llamp-study --status %s\n"
          "#SBATCH --job-name=llamp-study\n"
          "#SBATCH --array=0-%zu",
          o->slurm, out, o->n - 1);
  if (o->throttle) fprintf(f, "%%%ld", o->throttle);
  fprintf(f, "\n#SBATCH --ntasks=1\n#SBATCH --chdir=%s\n#SBATCH --output=%s/slurm-%%A_%%a.log\n", cwd, out);
  const char *sbopt[] = {"partition", o->partition, "account", o->account, "time", o->time_limit,
                         "mem", o->mem};
  for (int i = 0; i < 8; i += 2)
    if (sbopt[i + 1]) fprintf(f, "#SBATCH --%s=%s\n", sbopt[i], sbopt[i + 1]);
  fputs("set -euo pipefail\n", f);
  fputs("STUDY=", f), put_quoted(f, study);
  fputs("\nRUNNER=", f), put_quoted(f, runner);
  fputs("\nSCRIPT=", f), put_quoted(f, script);
  fputs("\nWORKDIR=", f), put_quoted(f, cwd);
  fputs("\nOUT=", f), put_quoted(f, out);
  fprintf(f, "\nN=%zu\nBASE_SEED=%llu\n", o->n, (unsigned long long)o->seed);
  fprintf(f, "ARGS=(-n %zu --seed %llu --out \"$OUT\" --variability %s --runner \"$RUNNER\"", o->n,
          (unsigned long long)o->seed, o->variability);
  for (int i = 0; i < o->npass; i++) fputc(' ', f), put_quoted(f, o->pass[i]);
  fputs(")\n# the merge job's sbatch options (the tasks' are the #SBATCH lines above)\nSBATCH_OPTS=(", f);
  for (int i = 0, first = 1; i < 8; i += 2)
    if (sbopt[i + 1]) {
      fprintf(f, "%s--%s=", first ? "" : " ", sbopt[i]);
      put_quoted(f, sbopt[i + 1]);
      first = 0;
    }
  fputs(")\n", f);
  if (o->setup) fprintf(f, "%s\n", o->setup);
  fprintf(f, "%s",
          "cd \"$WORKDIR\"\n"
          "# before any sample: the tools must be here (built or installed on this node)\n"
          "for t in \"$STUDY\" \"$RUNNER\"; do\n"
          "  [ -x \"$t\" ] || { echo \"llamp-study job: $t: not found or not executable on $(hostname)\"\\\n"
          "    \"(build or install smpi-llamp where the nodes see it, or load it with --setup)\" >&2; exit 2; }\n"
          "done\n"
          "case \"${1:-}\" in\n"
          "submit)\n"
          "  command -v sbatch > /dev/null || { echo \"llamp-study job: sbatch not found (submit on a Slurm login node)\" >&2; exit 1; }\n"
          "  # only the samples not done yet: a resubmission finishes the study\n"
          "  todo='' first=-1 last=-2\n"
          "  for ((k = 0; k <= N; k++)); do\n"
          "    d=$(printf '%s/sample-%04d/done' \"$OUT\" \"$k\")\n"
          "    if ((k < N)) && ! grep -qx \"seed $((BASE_SEED + k))\" \"$d\" 2> /dev/null; then\n"
          "      if ((k == last + 1)); then last=$k; else first=$k last=$k; fi\n"
          "      continue\n"
          "    fi\n"
          "    if ((first >= 0 && last == k - 1)); then\n"
          "      todo+=${todo:+,}$first\n"
          "      if ((last > first)); then todo+=-$last; fi\n"
          "      first=-1\n"
          "    fi\n"
          "  done\n"
          "  dep=()\n"
          "  if [ -n \"$todo\" ]; then\n"
          "    throttle=$(sed -n 's/^#SBATCH --array=[^%]*\\(%.*\\)$/\\1/p' \"$SCRIPT\")\n"
          "    jid=$(sbatch --parsable --array=\"$todo$throttle\" \"$SCRIPT\")\n"
          "    jid=${jid%%;*}\n"
          "    dep=(--dependency=afterany:$jid)\n"
          "    echo \"array job $jid: samples $todo of 0-$((N - 1))\"\n"
          "  else\n"
          "    jid=-\n"
          "    echo \"every sample is done: only the merge\"\n"
          "  fi\n"
          "  mid=$(sbatch --parsable \"${dep[@]}\" \"${SBATCH_OPTS[@]}\" --job-name=llamp-study-merge --chdir=\"$WORKDIR\" \\\n"
          "    --output=\"$OUT/slurm-merge-%j.log\" --wrap \"bash '$SCRIPT' merge\")\n"
          "  mid=${mid%%;*}\n"
          "  echo \"merge job $mid (after every task): $OUT/slurm-merge-$mid.log\"\n"
          "  echo \"$jid $mid\" >> \"$OUT/slurm.jobs\"\n"
          "  ;;\n"
          "merge) exec \"$STUDY\" --merge \"${ARGS[@]}\" ;;\n"
          "'') exec \"$STUDY\" --sample \"${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\" \"${ARGS[@]}\" ;;\n"
          "*) echo \"usage: bash $0 [submit]\" >&2; exit 2 ;;\n"
          "esac\n");
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

/* Why sample directory `dir` is not done: its `failed` file, else whether it started. */
static void why_missing(const char *dir, char *buf, size_t len) {
  char path[PATH_MAX + 16], line[512];
  snprintf(path, sizeof path, "%s/failed", dir);
  FILE *f = fopen(path, "r");
  if (f) {
    if (!fgets(line, sizeof line, f)) line[0] = 0;
    fclose(f);
    line[strcspn(line, "\n")] = 0;
    snprintf(buf, len, "failed: %s; see %s/run.log", line, dir);
    return;
  }
  struct stat st;
  if (stat(dir, &st) == 0) snprintf(buf, len, "started, not finished (killed?); see %s/run.log", dir);
  else snprintf(buf, len, "not run");
}

/* A Slurm job id as written by the job script: digits only (it goes into a command line). */
static int is_job_id(const char *s) { return *s && strspn(s, "0123456789") == strlen(s); }

/* --status DIR: done, running, failed and pending samples, from the study
 * directory and, when it was submitted (DIR/slurm.jobs), squeue and sacct. */
static int status(const char *dir) {
  char path[PATH_MAX + 32], line[1 << 16];
  snprintf(path, sizeof path, "%s/study.plan", dir);
  FILE *f = fopen(path, "r");
  if (!f) die("%s: cannot read: %s (not a study directory)", path, strerror(errno));
  unsigned long long seed;
  size_t n = 0;
  if (!fgets(line, sizeof line, f) || sscanf(line, "seed %llu", &seed) != 1)
    die("%s:1: expected 'seed S variability MODE command ...'", path);
  char l2[256];
  if (fgets(l2, sizeof l2, f) && sscanf(l2, "samples %zu", &n) != 1) die("%s:2: expected 'samples N'", path);
  fclose(f);
  if (!n) die("%s: no sample count (written by an older smpi_llamp-study: rerun its command to record it)", path);
  opts_t o = {.n = n, .out = dir, .seed = seed};
  /* the last submission's job ids */
  char array[64] = "", merge[64] = "";
  snprintf(path, sizeof path, "%s/slurm.jobs", dir);
  f = fopen(path, "r");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "%63s %63s", array, merge) != 2 || !(is_job_id(array) || !strcmp(array, "-")) || !is_job_id(merge))
      die("%s: '%.*s' (expected 'ARRAY_JOB_ID MERGE_JOB_ID', as the job script writes)", path,
          (int)strcspn(line, "\n"), line);
  if (f) fclose(f);
  char *queued = calloc(n, 1); /* squeue: 'R' running, 'P' pending */
  if (!queued) die("out of memory");
  int have_squeue = 0;
  char merge_state[64] = "";
  if (is_job_id(array) || is_job_id(merge)) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "squeue -h -r -j %s -o '%%i %%K %%T' 2> /dev/null", is_job_id(array) ? array : merge);
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p)) {
      char id[64], st[64];
      long k;
      if (sscanf(line, "%63s %ld %63s", id, &k, st) == 3 && k >= 0 && (size_t)k < n)
        queued[k] = !strcmp(st, "RUNNING") ? 'R' : !strcmp(st, "PENDING") ? 'P' : 0;
    }
    have_squeue = p && pclose(p) == 0;
    snprintf(cmd, sizeof cmd, "squeue -h -j %s -o %%T 2> /dev/null", merge);
    p = popen(cmd, "r");
    if (p && fgets(merge_state, sizeof merge_state, p)) merge_state[strcspn(merge_state, "\n")] = 0;
    if (p) pclose(p);
  }
  size_t nd = 0, nr = 0, nf = 0, np = 0;
  char (*why)[600] = calloc(n, sizeof *why);
  if (!why) die("out of memory");
  for (size_t k = 0; k < n; k++) {
    char d[PATH_MAX];
    sample_dir(&o, k, d, sizeof d);
    struct stat st;
    why_missing(d, why[k], sizeof why[k]);
    if (is_done(&o, k, seed + k)) nd++, why[k][0] = 0;
    else if (!strncmp(why[k], "failed", 6)) nf++;
    else if (queued[k] == 'R' || (!have_squeue && stat(d, &st) == 0)) nr++, why[k][0] = 0;
    else if (queued[k] == 'P' || stat(d, &st) != 0) np++, why[k][0] = 0;
    else nf++; /* started, not finished, and no longer queued: killed */
  }
  printf("study %s: %zu samples, seeds %llu .. %llu\n", dir, n, seed, seed + n - 1);
  printf("  done %zu, running %zu, failed %zu, pending %zu\n", nd, nr, nf, np);
  size_t shown = 0;
  for (size_t k = 0; k < n; k++)
    if (why[k][0] && shown++ < 10) printf("  sample %zu (seed %llu) %s\n", k, seed + k, why[k]);
  if (shown > 10) printf("  ... and %zu more failed\n", shown - 10);
  if (is_job_id(merge)) {
    size_t qr = 0, qp = 0;
    for (size_t k = 0; k < n; k++) qr += queued[k] == 'R', qp += queued[k] == 'P';
    if (have_squeue)
      printf("  slurm: array job %s: %zu running, %zu pending in squeue; merge job %s %s\n", array, qr, qp,
             merge, merge_state[0] ? merge_state : "finished (not in squeue)");
    else
      printf("  slurm: array job %s, merge job %s (squeue not available here: running means started)\n",
             array, merge);
    if (have_squeue && !qr && !qp && nd < n && !merge_state[0])
      printf("  %zu sample(s) missing and nothing queued: resubmit (bash job.sh submit) to finish\n", n - nd);
  }
  if (nd == n) printf("  complete: %s/study.json after the merge\n", dir);
  free(queued);
  free(why);
  return 0;
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
  opts_t o = {.n = 32, .out = "llamp-study", .variability = "both", .sample = -1};
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
    } else if (!strcmp(a, "--submit")) {
      o.submit = 1;
    } else if (!strcmp(a, "--partition")) {
      o.partition = VALUE();
    } else if (!strcmp(a, "--account")) {
      o.account = VALUE();
    } else if (!strcmp(a, "--time")) {
      o.time_limit = VALUE();
      if (!*o.time_limit || strspn(o.time_limit, "0123456789:-") != strlen(o.time_limit))
        die("--time: '%s' (expected a Slurm time limit: MINUTES, H:MM:SS or D-HH:MM)", o.time_limit);
    } else if (!strcmp(a, "--mem-per-task")) {
      o.mem = VALUE();
      strtoul(o.mem, &end, 10);
      if (end == o.mem || (*end && (strchr("KMGTkmgt", *end) == NULL || end[1])))
        die("--mem-per-task: '%s' (expected a size such as 2000M or 4G)", o.mem);
    } else if (!strcmp(a, "--throttle")) {
      const char *v = VALUE();
      long k = strtol(v, &end, 10);
      if (*end || k < 1 || k > 1000000) die("--throttle: '%s' (expected a number of tasks >= 1)", v);
      o.throttle = k;
    } else if (!strcmp(a, "--setup")) {
      o.setup = VALUE();
      if (strchr(o.setup, '\n')) die("--setup: one shell line expected (no newline)");
    } else if (!strcmp(a, "--status")) {
      return status(VALUE());
    } else if (!strcmp(a, "--sample")) {
      const char *v = VALUE();
      long k = strtol(v, &end, 10);
      if (*end || !*v || k < 0) die("--sample: '%s' (expected a sample number >= 0)", v);
      o.sample = k;
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
  if (o.sample >= 0 && (size_t)o.sample >= o.n) die("--sample %ld: the study has %zu samples (0 .. %zu)", o.sample, o.n, o.n - 1);
  if (o.submit && !o.slurm) {
    static char job[PATH_MAX];
    snprintf(job, sizeof job, "%s/job.sh", o.out);
    o.slurm = job;
  }
  if (o.slurm && o.evict) die("--evict: not with --slurm (run the eviction pass afterwards, locally)");
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
  check_plan(&o, cmd, o.sample < 0);
  if (o.slurm) {
    write_slurm(&o);
    free(cmd);
    if (!o.submit) return 0;
    fflush(stdout);
    char *sub[] = {"bash", (char *)o.slurm, "submit", NULL};
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid == 0) {
      execvp(sub[0], sub);
      fprintf(stderr, "%s: cannot run bash: %s\n", prog, strerror(errno));
      _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
      if (errno != EINTR) die("wait: %s", strerror(errno));
    if (!WIFEXITED(st) || WEXITSTATUS(st)) die("submitting %s failed (see above)", o.slurm);
    return 0;
  }
  if (o.sample >= 0) { /* one Slurm task: this sample only, unless done */
    llamp_study_sample_t one = {0};
    size_t k = (size_t)o.sample;
    if (is_done(&o, k, o.seed + k)) {
      fprintf(stderr, "%s: sample %zu (seed %llu) is already done\n", prog, k, (unsigned long long)(o.seed + k));
      free(cmd);
      return 0;
    }
    pid_t pid = start_sample(&o, k);
    int st;
    while (waitpid(pid, &st, 0) < 0)
      if (errno != EINTR) die("wait: %s", strerror(errno));
    int failed = finish_sample(&o, k, st, &one);
    if (!failed) fprintf(stderr, "%s: sample %zu (seed %llu) done\n", prog, k, (unsigned long long)one.seed);
    llamp_study_sample_free(&one);
    free(cmd);
    return failed ? 1 : 0;
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
    if (o.merge_only) { /* the merge job's log names them (the tasks' logs are elsewhere) */
      size_t shown = 0;
      for (size_t k = 0; k < o.n && shown < 20; k++) {
        if (k < o.n && is_done(&o, k, o.seed + k)) continue;
        char d[PATH_MAX], why[600];
        sample_dir(&o, k, d, sizeof d);
        why_missing(d, why, sizeof why);
        fprintf(stderr, "%s: missing sample %zu (seed %llu): %s\n", prog, k, (unsigned long long)(o.seed + k), why);
        shown++;
      }
      if (o.n - done > shown) fprintf(stderr, "%s: ... and %zu more missing\n", prog, o.n - done - shown);
    }
    return 1;
  }
  return 0;
}
