/* cpuclock.c - llamp_cpuclock.h: thread CPU time anchored at context
 * switches. */
#define _GNU_SOURCE
#include "llamp_cpuclock.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#define CPUCLOCK_PERF 1
#endif

typedef struct {
  int state;        /* 0 not tried, 1 the event's page, -1 system calls only */
  uint32_t seq;     /* the page's sequence number at the anchor */
  double cpu, mono; /* the anchor: both clocks read together */
  unsigned long long syscalls;
#ifdef CPUCLOCK_PERF
  volatile struct perf_event_mmap_page *page;
#endif
} cpuclock_t;

static __thread cpuclock_t TC;

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_syscall(void) {
  TC.syscalls++;
  return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

#ifdef CPUCLOCK_PERF
static void cpuclock_open(void) {
  TC.state = -1;
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CONTEXT_SWITCHES; /* its page changes at every switch */
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  long fd = syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1, -1, 0);
  if (fd < 0) return;
  long ps = sysconf(_SC_PAGESIZE);
  void *p = mmap(NULL, ps > 0 ? (size_t)ps : 4096, PROT_READ, MAP_SHARED, (int)fd, 0);
  close((int)fd); /* the mapping keeps the event */
  if (p == MAP_FAILED) return;
  /* the page must change when the thread sleeps (it is switched out): a
   * kernel that did not update it would have sleeps counted as CPU time */
  volatile struct perf_event_mmap_page *pg = p;
  uint32_t before = pg->lock;
  for (int i = 0; i < 3 && pg->lock == before; i++) usleep(100);
  if (pg->lock == before) {
    munmap(p, ps > 0 ? (size_t)ps : 4096);
    return;
  }
  TC.page = pg;
  TC.seq = 1; /* odd: never a settled sequence number, so the first read anchors */
  TC.state = 1;
}
#endif

double llamp_cpuclock_now(void) {
#ifdef CPUCLOCK_PERF
  if (TC.state == 0) cpuclock_open();
  if (TC.state > 0) {
    uint32_t s = TC.page->lock;
    __asm__ __volatile__("" ::: "memory");
    if (s == TC.seq) {
      double m = clock_s(CLOCK_MONOTONIC);
      __asm__ __volatile__("" ::: "memory");
      if (TC.page->lock == s) return TC.cpu + (m - TC.mono);
    }
    /* a switch since the anchor (or during this read): anchor again.  The
     * sequence number is read after both clocks: a switch before the thread
     * clock's sample is in it; one between the two samples is off-CPU time
     * the monotonic sample leaves out, as it should; only a switch in the
     * few instructions after the monotonic read would be counted as CPU
     * time.  Never a retry: a traced thread (strace) is switched out at
     * every system call, the anchoring one too. */
    double c = cpu_syscall(), m = clock_s(CLOCK_MONOTONIC);
    __asm__ __volatile__("" ::: "memory");
    s = TC.page->lock;
    TC.seq = s & 1 ? 1 : s; /* odd: the kernel was writing it (another CPU); anchor at the next read */
    TC.cpu = c;
    TC.mono = m;
    return c;
  }
#endif
  return cpu_syscall();
}

int llamp_cpuclock_fast(void) {
#ifdef CPUCLOCK_PERF
  if (TC.state == 0) cpuclock_open();
#endif
  return TC.state > 0;
}

unsigned long long llamp_cpuclock_syscalls(void) { return TC.syscalls; }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double llamp_cpuclock_read_cost(double (*read)(void)) {
  double d[31], prev = read();
  for (int i = 0; i < 31; i++) {
    double t = read();
    d[i] = t - prev;
    prev = t;
  }
  qsort(d, 31, sizeof d[0], cmp_double);
  return d[15] > 0 ? d[15] : 0;
}
