#ifndef DEPOT_ALLOCATOR_H
#define DEPOT_ALLOCATOR_H

#include <stddef.h>

/// Makes the C allocator serve every block of `threshold` bytes or more with its own mapping, returned to the system
/// as soon as it is freed (glibc's M_MMAP_THRESHOLD, fixed, and M_TRIM_THRESHOLD), instead of keeping it in its heap
/// after the first large block raised the threshold. Returns 0 when the allocator has no such setting.
int depot_return_large_blocks(size_t threshold);

/// Gives the free memory the C allocator keeps in its heaps back to the system (glibc's malloc_trim), after a burst
/// was freed. Returns 1 when some was given back.
int depot_trim_free_memory(void);

#endif
