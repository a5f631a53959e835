/* llamp_cpuclock.h - the calling thread's CPU time, read without a system
 * call while the thread keeps its CPU.
 *
 * CLOCK_THREAD_CPUTIME_ID is a system call: 1.5 us a read on our test VM,
 * where CLOCK_MONOTONIC takes 28 ns in the vDSO.  A thread that is not
 * switched out spends its wall time on the CPU, so between two context
 * switches its CPU time advances as CLOCK_MONOTONIC does.  The kernel counts
 * the thread's context switches in a perf software event whose page it maps
 * for us; a read compares the page's sequence number with the one seen at
 * the last system-call read (the anchor) and, when no switch came between,
 * answers anchor + the monotonic time since.  After a switch it reads the
 * real clock once and anchors there.  Interrupt time counts in both clocks
 * (unless the kernel accounts it apart: then a few ns per interrupt).
 * The first read checks that the page does change when the thread sleeps.
 * Without perf events (perf_event_paranoid > 2, a seccomp filter, not
 * Linux) or that change, every read is the system call. */
#ifndef LLAMP_CPUCLOCK_H
#define LLAMP_CPUCLOCK_H

/* The calling thread's CPU time, in seconds (as CLOCK_THREAD_CPUTIME_ID). */
double llamp_cpuclock_now(void);

/* 1 when the calling thread's reads avoid the system call (its event is
 * open; opened by the first read), 0 when each read is the system call. */
int llamp_cpuclock_fast(void);

/* What one read of `read` costs in the time it reads: the median of 31
 * back-to-back differences (robust to a preemption or a page fault); 0 when
 * it does not advance.  A burst timed by two reads holds one such cost. */
double llamp_cpuclock_read_cost(double (*read)(void));

/* System-call reads made by the calling thread so far (anchors, or every
 * read without the event): for tests and reports. */
unsigned long long llamp_cpuclock_syscalls(void);

#endif
