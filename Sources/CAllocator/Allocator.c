#include "CAllocator.h"

// Any libc header defines __GLIBC__ under glibc; <stddef.h> (the compiler's) does not.
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>

int depot_return_large_blocks(size_t threshold) {
    // Setting either disables glibc's dynamic threshold, which otherwise rises to the largest block freed (up to
    // 32 MiB) and keeps every later block of that size in the heap, where freeing it does not lower the RSS.
    return mallopt(M_MMAP_THRESHOLD, (int)threshold) && mallopt(M_TRIM_THRESHOLD, (int)threshold);
}

int depot_trim_free_memory(void) {
    return malloc_trim(0);
}
#else
int depot_return_large_blocks(size_t threshold) {
    (void)threshold;
    return 0;
}

int depot_trim_free_memory(void) {
    return 0;
}
#endif
