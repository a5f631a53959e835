/* Memory hints: madvise(MADV_HUGEPAGE) on big blocks. */
#include "llamp_mem.h"

#include <stdint.h>
#include <sys/mman.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define HUGE_PAGE ((uintptr_t)2 << 20)

void llamp_mem_advise_huge(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (!p || bytes < 2 * HUGE_PAGE) return;
  uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  uintptr_t hi = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
  if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

void llamp_mem_keep_freed(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 0);             /* every block from the heap */
  mallopt(M_TRIM_THRESHOLD, -1);      /* and the heap never shrinks (mallopt(3)) */
#endif
}

void llamp_mem_return_freed(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 65536);            /* glibc's default (mallopt(3)) */
  mallopt(M_TRIM_THRESHOLD, 128 * 1024); /* likewise */
  malloc_trim(0);
#endif
}
