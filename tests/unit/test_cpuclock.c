/* llamp_cpuclock_now against CLOCK_THREAD_CPUTIME_ID: busy stretches, sleeps
 * (a switch: the sleep is not CPU time) and a busy thread pinned to the same
 * CPU (preemptions every few milliseconds).  The sums of the intervals agree
 * within 2 %, and all but 1 in 20 intervals within 2 % + 20 us (an
 * interrupt or the host's own preemption, which the thread clock may leave
 * out, can hit one); system calls only at switches; monotone. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "llamp_cpuclock.h"
#include "llamp_test.h"

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* sums within 2 % once the nested reads are taken out */
static int sums_agree(double fast, double sys, int rounds, double cost) {
  double d = fast - sys - rounds * cost;
  if (d < 0) d = -d;
  return d <= 0.02 * sys + rounds * cost;
}

static volatile double sink;
static void busy(long n) {
  double x = 0;
  for (long i = 0; i < n; i++) x += (double)i * 0.5;
  sink = x;
}

static atomic_int stop;
static void *spinner(void *arg) {
  (void)arg;
  while (!atomic_load(&stop)) busy(10000);
  return NULL;
}

/* intervals of busy work (and a sleep every third), the two clocks' deltas
 * compared; the worst difference in seconds */
static double compare(int rounds, double *total, double *total_fast, int *bad) {
  double worst = 0;
  for (int i = 0; i < rounds; i++) {
    double a0 = llamp_cpuclock_now(), b0 = thread_cpu();
    busy(20000 + 5000 * (i % 7));
    if (i % 3 == 0) usleep(200);
    double b1 = thread_cpu(), a1 = llamp_cpuclock_now();
    double da = a1 - a0, db = b1 - b0, d = da > db ? da - db : db - da;
    /* a0 is read before b0 and a1 after b1: da holds db plus two reads */
    if (d > 0.02 * db + 20e-6) (*bad)++;
    if (d > worst) worst = d;
    *total += db;
    *total_fast += da;
    CHECK(a1 >= a0);
  }
  return worst;
}

int main(void) {
  int fast = llamp_cpuclock_fast();
  printf("perf event page: %s\n", fast ? "yes" : "no (every read a system call)");
  double total = 0, total_fast = 0;
  int bad = 0;
  unsigned long long s0 = llamp_cpuclock_syscalls();
  double worst = compare(300, &total, &total_fast, &bad);
  unsigned long long s1 = llamp_cpuclock_syscalls();
  printf("alone: 300 intervals, %.6f s of CPU (%.6f s read fast), worst difference %.2f us, %d off, %llu system "
         "calls\n",
         total, total_fast, worst * 1e6, bad, s1 - s0);
  double cost = llamp_cpuclock_read_cost(thread_cpu); /* the nested reads' */
  printf("one system-call read: %.2f us\n", cost * 1e6);
  CHECK(bad <= 15);
  CHECK(sums_agree(total_fast, total, 300, cost));
  /* without a switch: no system call */
  if (fast) {
    double t0 = llamp_cpuclock_now();
    unsigned long long c0 = llamp_cpuclock_syscalls();
    for (int i = 0; i < 1000; i++) CHECK(llamp_cpuclock_now() >= t0);
    CHECK(llamp_cpuclock_syscalls() - c0 <= 5);
    /* the sleeps switch the thread out: some anchors, far fewer than reads */
    CHECK(s1 - s0 >= 50 && s1 - s0 < 600);
  }
  /* a busy thread on the same CPU: the test thread is preempted */
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  pthread_t t;
  if (sched_setaffinity(0, sizeof one, &one) == 0 && pthread_create(&t, NULL, spinner, NULL) == 0) {
    pthread_setaffinity_np(t, sizeof one, &one);
    total = total_fast = 0;
    bad = 0;
    worst = compare(200, &total, &total_fast, &bad);
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    printf("beside a busy thread on one CPU: 200 intervals, %.6f s of CPU (%.6f s read fast), worst difference "
           "%.2f us, %d off\n",
           total, total_fast, worst * 1e6, bad);
    CHECK(bad <= 10);
    CHECK(sums_agree(total_fast, total, 200, cost));
  }
  return llamp_test_failures ? 1 : 0;
}
