#ifndef DEPOT_ALLOCATOR_H
#define DEPOT_ALLOCATOR_H

#include <stddef.h>

/// Makes the C allocator serve every block of `threshold` bytes or more with its own mapping, returned to the system
/// as soon as it is freed (glibc's M_MMAP_THRESHOLD, fixed, and M_TRIM_THRESHOLD), instead of keeping it in its heap
/// after the first large block raised the threshold. Returns 0 when the allocator has no such setting.
int depot_return_large_blocks(size_t threshold);

#endif
