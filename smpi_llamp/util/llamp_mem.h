/* llamp_mem.h - memory hints for the big arrays (graphs of 10^7-10^8 events).
 * Transparent huge pages cut page faults and TLB misses of the engine's
 * random accesses; on this kernel they are opt-in (madvise mode). */
#ifndef LLAMP_MEM_H
#define LLAMP_MEM_H
#include <stddef.h>

/* Ask for huge pages on the 2 MiB-aligned interior of [p, p + bytes);
 * a no-op for small blocks or where unsupported. */
void llamp_mem_advise_huge(void *p, size_t bytes);

/* Grow the block *p, old_bytes long, to `bytes` (realloc's contract: the
 * old contents kept, *p unchanged on failure; 0 / -1).  A block of 2 to
 * 16 MiB is 2 MiB-aligned, a whole number of 2 MiB, and asked for huge
 * pages, so all of it gets them (a growing array of a few MiB has most of
 * its 4 KiB pages outside the 2 MiB-aligned interior that
 * llamp_mem_advise_huge can advise).  Why: on these VMs a 4 KiB page left
 * untouched for ~10 s costs ~5 us at its next touch, a 2 MiB page not; the
 * stream's per-rank builders are written during the run and read at its end
 * (a CG capture's join: 0.09-0.10 s -> 0.015-0.023 s).  What it costs: the
 * block's last huge page is whole as soon as it is touched, under 2 MiB
 * per block; and a growth copies the old block (realloc could move the
 * pages), which is why larger blocks take realloc's path (at 64 MiB,
 * `llamp generate`'s peak on 10 M events rose 11 %; at 16 MiB 1 %). */
int llamp_mem_grow(void **p, size_t old_bytes, size_t bytes);

/* Keep freed memory in the heap instead of returning it to the kernel,
 * whose fresh pages must be zeroed again at the next first touch (glibc maps
 * blocks above 32 MiB and unmaps them on free).  For a command-line process
 * that frees and reallocates arrays of gigabytes (one engine pass after
 * another; a 101 M-event graph: 16-19 s -> 14 s, the same peak), and for the
 * capture's analysis at MPI_Finalize between llamp_mem_keep_freed and
 * llamp_mem_return_freed (a first touch costs 16 us per 4 KiB page on a VM:
 * the 600 k-event analysis of bench_capture64 spent a third of its time
 * faulting in the same arrays again).  Not for builders whose arrays grow by
 * realloc (the holes they leave raised `llamp generate`'s peak from 48 to 72
 * B/event). */
void llamp_mem_keep_freed(void);
/* Blocks of 1 MiB or more mapped apart, each returned to the kernel when
 * freed.  glibc raises its mapping threshold to the largest mapped block
 * freed (up to 32 MiB), after which a builder's freed arrays of that size
 * stay resident in the heap: `llamp generate` of an 8.65 M-event halo peaked
 * at 412 MB with it, 404 MB without.  For a command-line process before it
 * builds a graph; llamp_mem_keep_freed overrides it afterwards. */
void llamp_mem_map_big_blocks(void);
/* Whether the heap is kept (between the two calls): then freed pages are
 * better left resident for the allocations that follow than dropped, which
 * makes each reuse a page fault again. */
int llamp_mem_freed_kept(void);
/* Back to glibc's defaults, and what is free at the heap's top goes back to
 * the kernel: for a library in someone else's process (the capture). */
void llamp_mem_return_freed(void);

/* Pages faulted in ahead of time by a background thread: a process that
 * will need `want(arg)` bytes of heap later (re-read every 20 ms, so it may
 * grow) gets that much free memory at the heap's top with every page
 * already written once, which keep_freed (set here, with every thread on
 * glibc's main arena) keeps.  The capture's simulation runs on one core: its
 * analysis at the last MPI_Finalize then allocates pages the idle core
 * faulted in (bench_capture64: the last MPI_Finalize 0.95 -> 0.49-0.52 s).
 * The thread runs at SCHED_IDLE, so it takes no CPU that anything else
 * wants.  One reserve per process; 0 when started (never under ASan). */
int llamp_mem_warm_start(size_t (*want)(void *arg), void *arg);
/* Stop the thread (a no-op when not started); returns the bytes it had
 * faulted in. */
size_t llamp_mem_warm_stop(void);
#endif
