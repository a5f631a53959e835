/* llamp_par.h - loops split in two halves, the second run by one helper
 * thread that waits between loops (a pass of a few milliseconds cannot pay
 * for a thread created per pass: ~0.3 ms on this VM).  Both waits spin for
 * up to 0.1 ms before they sleep (a wake-up took ~0.1 ms).
 *
 * Each half gets [0, n/2) or [n/2, n) and its index (0 or 1), so a loop may
 * keep per-half state; the split is the same whether or not the helper
 * thread could be started (then both halves run in the caller, in turn), so
 * results never depend on it. */
#ifndef LLAMP_PAR_H
#define LLAMP_PAR_H
#include <stdint.h>

typedef void (*llamp_par_fn)(void *ctx, uint64_t lo, uint64_t hi, int half);
typedef struct llamp_par llamp_par_t;

/* How many halves a caller asked for `threads` (0 = decide) should use on
 * n items: 2 when asked for 2 or more, or when deciding, two CPUs are online
 * and n >= LLAMP_PAR_MIN_ITEMS; else 1.  Deciding, the environment's
 * LLAMP_THREADS=1 or 2 overrides that rule.  The one rule of the DAG build's
 * threads (sched's record split, the relayout's passes). */
#define LLAMP_PAR_MIN_ITEMS 65536
int llamp_par_halves(int threads, uint64_t n);

/* halves: 1 (everything in the caller, as half 0) or 2.  NULL when out of
 * memory; a helper thread that cannot be created is not an error. */
llamp_par_t *llamp_par_create(int halves);
/* fn over [0, n): half 0 in the caller, half 1 on the helper (p NULL: all
 * of it in the caller, as half 0); returns when both are done. */
void llamp_par_run(llamp_par_t *p, uint64_t n, llamp_par_fn fn, void *ctx);
/* The first index of the second half of a loop of n (n with one half). */
uint64_t llamp_par_mid(const llamp_par_t *p, uint64_t n);
void llamp_par_destroy(llamp_par_t *p);

#endif
