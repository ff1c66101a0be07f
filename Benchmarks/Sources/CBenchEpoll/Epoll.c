#include "CBenchEpoll.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>

int depot_bench_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

static int control(int epoll, int operation, int fd, int writable) {
    struct epoll_event event = {0};
    event.events = EPOLLIN | EPOLLRDHUP | (writable ? EPOLLOUT : 0);
    event.data.fd = fd;
    return epoll_ctl(epoll, operation, fd, &event);
}

int depot_bench_epoll_add(int epoll, int fd, int writable) {
    return control(epoll, EPOLL_CTL_ADD, fd, writable);
}

int depot_bench_epoll_modify(int epoll, int fd, int writable) {
    return control(epoll, EPOLL_CTL_MOD, fd, writable);
}

int depot_bench_epoll_remove(int epoll, int fd) {
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, 0);
}

int depot_bench_epoll_wait(int epoll, int *fds, uint32_t *flags, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll, events, capacity, timeout_ms);
    for (int index = 0; index < count; index++) {
        fds[index] = events[index].data.fd;
        uint32_t happened = events[index].events;
        flags[index] = ((happened & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ? DEPOT_BENCH_READABLE : 0)
            | ((happened & EPOLLOUT) ? DEPOT_BENCH_WRITABLE : 0);
    }
    return count;
}

int depot_bench_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}
