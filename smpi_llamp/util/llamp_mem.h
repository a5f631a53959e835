/* llamp_mem.h - memory hints for the big arrays (graphs of 10^7-10^8 events).
 * Transparent huge pages cut page faults and TLB misses of the engine's
 * random accesses; on this kernel they are opt-in (madvise mode). */
#ifndef LLAMP_MEM_H
#define LLAMP_MEM_H
#include <stddef.h>

/* Ask for huge pages on the 2 MiB-aligned interior of [p, p + bytes);
 * a no-op for small blocks or where unsupported. */
void llamp_mem_advise_huge(void *p, size_t bytes);
#endif
