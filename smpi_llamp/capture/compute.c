/* compute.c - how the program's CPU bursts become simulated time
 * (llamp_capture.h, "compute"): one decision per run, taken at the first
 * MPI_Init from the capture's settings, SimGrid's settings and the platform,
 * and the run's totals for the report's sanity check.
 *
 * Why the capture times compute itself: with smpi/simulate-computation on,
 * SMPI charges the CPU time between its timer's start (at the end of every
 * MPI call) and its stop (at the start of the next).  A wrapper that records
 * the call restarts that timer just before PMPI_*, so the wrapper's last
 * instructions and two clock reads (0.5-2 us in a VM) land inside the call
 * whenever they pass smpi/cpu-threshold (1 us): on a 3-D proxy app that was
 * 5 % of the runtime, charged where the DAG has no vertex.  Taking the timer
 * over removes the window: SMPI's own timing is off, the capture stops its
 * clock on entry to a wrapper, executes the burst on the rank's host, and
 * restarts the clock only when the wrapper returns. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <simgrid/host.h>
#include <xbt/config.h>

#include "llamp_capture.h"
#include "llamp_cpuclock.h"
#include "llamp_got.h"
#include "llamp_units.h"

static struct {
  int decided;
  llamp_capture_compute_t c;
  double measured, simulated, clock_wait;
  uint64_t clock_wait_n;
} C;

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static void format_rate(double f, char *buf, size_t len) {
  if (f >= 1e9) snprintf(buf, len, "%.4g Gflop/s", f / 1e9);
  else if (f >= 1e6) snprintf(buf, len, "%.4g Mflop/s", f / 1e6);
  else if (f >= 1e3) snprintf(buf, len, "%.4g kflop/s", f / 1e3);
  else snprintf(buf, len, "%.4g flop/s", f);
}

static void host_speeds(double *lo, double *hi) {
  *lo = INFINITY;
  *hi = 0;
  size_t n = sg_host_count();
  sg_host_t *hosts = sg_host_list();
  for (size_t i = 0; hosts && i < n; i++) {
    double s = sg_host_get_speed(hosts[i]);
    if (s < *lo) *lo = s;
    if (s > *hi) *hi = s;
  }
  free(hosts);
  if (!(*hi > 0)) *lo = *hi = 0;
}

/* SMPI reads the thread CPU clock at both ends of every MPI call
 * (smpi_bench_begin/end: xbt_os_threadtimer_start/stop) to time compute,
 * which the capture does itself with SMPI's timing off.  What is left of
 * those reads is SMPI's benched-time statistic (smpi/display-timing) and the
 * SMPI_SAMPLE_* loops, yet each is a system call: 1.5 us on our test VM, so
 * 3 us per MPI call and half of a plain smpirun of a fine-grained halo.
 * libsimgrid's reads of the thread clock are answered by llamp_cpuclock_now
 * (the same CPU time, a system call only after the OS switched the thread
 * out), or where perf events are not allowed from CLOCK_MONOTONIC (28 ns in
 * the vDSO; the same length for a rank's stretch of code, where no other
 * rank runs, unless the OS preempts the process).  The simulation does not
 * read them (smpi/simulate-computation is off), so it is the same (test
 * capture_smpi_timer).  Kept when the user asked for smpi/display-timing or
 * capture.smpi_cpu_timer. */
static int sg_clock_gettime(clockid_t id, struct timespec *ts) {
  if (id != CLOCK_THREAD_CPUTIME_ID) return clock_gettime(id, ts);
  if (!llamp_cpuclock_fast()) return clock_gettime(CLOCK_MONOTONIC, ts);
  double t = llamp_cpuclock_now();
  ts->tv_sec = (time_t)t;
  ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
  if (ts->tv_nsec >= 1000000000L) ts->tv_sec++, ts->tv_nsec -= 1000000000L;
  return 0;
}

static void smpi_timer_take(llamp_capture_compute_t *c, const llamp_capture_config_t *cfg) {
  c->smpi_timer = "cpu";
  if (cfg->smpi_cpu_timer || sg_cfg_get_boolean("smpi/display-timing")) return;
  /* -1 or 0 (not ELF, or libsimgrid reads no clock): SMPI keeps its own */
  if (llamp_got_redirect("libsimgrid.so", "clock_gettime", (void *)sg_clock_gettime) > 0)
    c->smpi_timer = llamp_cpuclock_fast() ? "anchored" : "monotonic";
}

const llamp_capture_compute_t *llamp_capture_compute_setup(const llamp_capture_config_t *cfg,
                                                           char *err, size_t errlen) {
  if (C.decided) return &C.c;
  llamp_capture_compute_t *c = &C.c;
  memset(c, 0, sizeof *c);
  host_speeds(&c->host_speed_min, &c->host_speed_max);
  char hosts[160], r1[64], r2[64];
  format_rate(c->host_speed_min, r1, sizeof r1);
  format_rate(c->host_speed_max, r2, sizeof r2);
  if (c->host_speed_min == c->host_speed_max) snprintf(hosts, sizeof hosts, "hosts of %s", r1);
  else snprintf(hosts, sizeof hosts, "hosts of %s to %s", r1, r2);

  int simulate = sg_cfg_get_boolean("smpi/simulate-computation");
  c->threshold = sg_cfg_get_double("smpi/cpu-threshold");
  if (c->threshold < 0) c->threshold = INFINITY; /* SimGrid: -1 = drop everything */
  const char *kernel = getenv("LLAMP_KERNEL_MODEL");
  if (!simulate || cfg->compute == LLAMP_COMPUTE_NONE) {
    c->kind = "none";
    if (kernel && *kernel)
      snprintf(c->description, sizeof c->description,
               "compute: kernel models from %s (smpi_execute_benched); other CPU time is not simulated",
               kernel);
    else
      snprintf(c->description, sizeof c->description,
               "compute: none (%s): only smpi_execute* calls of the program are simulated",
               cfg->compute == LLAMP_COMPUTE_NONE ? "-llamp-compute none" : "smpi/simulate-computation:no");
    if (simulate && llamp_capture_sg_set_bool("smpi/simulate-computation", 0)) {
      seterr(err, errlen, "cannot turn smpi/simulate-computation off");
      return NULL;
    }
    smpi_timer_take(c, cfg);
    C.decided = 1;
    return c;
  }

  /* who set smpi/host-speed: SimGrid's default, smpi_llamp-run, or the user */
  const char *hs_text = llamp_capture_sg_string("smpi/host-speed");
  if (!hs_text) hs_text = "";
  const char *run_hs = getenv("LLAMP_RUN_HOST_SPEED");
  int hs_default = llamp_capture_sg_is_default("smpi/host-speed") == 1;
  int hs_ours = run_hs && *run_hs && strcmp(run_hs, hs_text) == 0;
  double hs = 0;
  if (!hs_default && llamp_capture_parse_flops(hs_text, &hs)) {
    seterr(err, errlen, "cannot read smpi/host-speed '%s' (expected a flop rate such as 1Gf)", hs_text);
    return NULL;
  }
  int mode = cfg->compute;
  if (!hs_default && !hs_ours) {
    /* the user's value always wins */
    c->kind = "host-speed";
    c->rate = hs;
    format_rate(hs, r1, sizeof r1);
    snprintf(c->description, sizeof c->description,
             "compute: measured CPU time x smpi/host-speed %s (your setting), replayed on %s", r1, hosts);
  } else {
    if (mode == LLAMP_COMPUTE_AUTO)
      mode = c->host_speed_min != c->host_speed_max && cfg->measured_host_speed > 0
                 ? LLAMP_COMPUTE_MEASURED
                 : LLAMP_COMPUTE_REPLAY;
    if (mode == LLAMP_COMPUTE_MEASURED) {
      if (!(cfg->measured_host_speed > 0)) {
        seterr(err, errlen,
               "compute 'measured' needs this machine's flop rate: set LLAMP_MEASURED_HOST_SPEED "
               "(llamp_hostspeed measures it; smpi_llamp-run does this by itself)");
        return NULL;
      }
      c->kind = "measured";
      c->rate = cfg->measured_host_speed;
      format_rate(c->rate, r1, sizeof r1);
      snprintf(c->description, sizeof c->description,
               "compute: measured at %s (this machine, llamp_hostspeed), replayed on %s", r1, hosts);
    } else {
      c->kind = "replay";
      c->rate = 0; /* each rank's own host speed: one measured second = one simulated second */
      /* SMPI's smpi_execute(seconds), which SMPI_SAMPLE_* loops and
       * programs call, runs seconds x smpi/host-speed flops: with this
       * machine's rate there (smpi_llamp-run's, 6.8 Gf) or SimGrid's 20 kf
       * default, a sampled loop took 6.8 times (or 1/50000 of) its measured
       * time on 1 Gf hosts while the rest of the compute ran 1:1.  The hosts'
       * own speed makes it 1:1 too. */
      if (c->host_speed_min == c->host_speed_max && c->host_speed_min > 0) {
        char hs_now[64];
        snprintf(hs_now, sizeof hs_now, "%.17gf", c->host_speed_min);
        if (llamp_capture_sg_set_string("smpi/host-speed", hs_now)) {
          seterr(err, errlen, "cannot set smpi/host-speed to the hosts' %s", hs_now);
          return NULL;
        }
      }
      snprintf(c->description, sizeof c->description,
               "compute: measured CPU time replayed 1:1 on %s%s", hosts,
               c->host_speed_min != c->host_speed_max
                   ? " (every host computes at this machine's speed: -llamp-compute measured keeps "
                     "their differences)"
                   : "");
    }
  }
  if (kernel && *kernel) {
    size_t len = strlen(c->description);
    snprintf(c->description + len, sizeof c->description - len,
             "; kernel models from %s replace the kernels they cover", kernel);
  }
  if (llamp_capture_sg_set_bool("smpi/simulate-computation", 0)) {
    seterr(err, errlen, "cannot turn smpi/simulate-computation off");
    return NULL;
  }
  smpi_timer_take(c, cfg);
  c->cpu_clock = llamp_cpuclock_fast() ? "anchored" : "syscall"; /* SimGrid's one thread: the ranks' too */
  c->inject = 1;
  C.decided = 1;
  return c;
}

const llamp_capture_compute_t *llamp_capture_compute_get(void) { return C.decided ? &C.c : NULL; }

void llamp_capture_compute_add(double measured_s, double simulated_s, double clock_wait_s,
                               uint64_t clock_wait_bursts) {
  C.measured += measured_s;
  C.simulated += simulated_s;
  C.clock_wait += clock_wait_s;
  C.clock_wait_n += clock_wait_bursts;
}

void llamp_capture_compute_clock_wait(double *seconds, uint64_t *bursts) {
  *seconds = C.clock_wait;
  *bursts = C.clock_wait_n;
}

void llamp_capture_compute_totals(double *measured_s, double *simulated_s) {
  *measured_s = C.measured;
  *simulated_s = C.simulated;
}

