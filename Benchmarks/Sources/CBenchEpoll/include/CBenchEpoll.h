#ifndef C_BENCH_EPOLL_H
#define C_BENCH_EPOLL_H

#include <stdint.h>

/// epoll and eventfd for depot-bench's load generator and floor, which Swift's Glibc module does not export.
/// The events are passed as plain arrays, so Swift never sees the packed struct epoll_event.

/// An epoll set (close-on-exec), or -1.
int depot_bench_epoll_create(void);
/// Watches `fd` for input (and, when `writable`, for room to write), reporting it by its number.
int depot_bench_epoll_add(int epoll, int fd, int writable);
int depot_bench_epoll_modify(int epoll, int fd, int writable);
int depot_bench_epoll_remove(int epoll, int fd);
/// Waits for events; fills `fds` and `flags` (DEPOT_BENCH_READABLE, DEPOT_BENCH_WRITABLE) and returns how many.
int depot_bench_epoll_wait(int epoll, int *fds, uint32_t *flags, int capacity, int timeout_ms);
/// A non-blocking, close-on-exec eventfd, or -1.
int depot_bench_eventfd(void);

#define DEPOT_BENCH_READABLE 1u
#define DEPOT_BENCH_WRITABLE 2u

#endif
