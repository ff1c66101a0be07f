// Records, for a crash-consistency check, every call by which a process changes the files of one directory:
// open (with flags), write and pwrite (offset and bytes), fsync and fdatasync (of a file or of the directory),
// ftruncate, rename, unlink and close. Loaded with LD_PRELOAD into depotd by the power-loss test; never linked.
//
// DEPOT_RECORD_DIR names the directory (an absolute, resolved path), DEPOT_RECORD_LOG the log, outside it. Each
// record is one line — `OP FD ARG… PATH` — followed, for a write, by its bytes; each is appended with a single
// write(2) on an O_APPEND descriptor, so records of several threads (and the test's own `answer` lines) never
// interleave. A record is written after the call succeeded, so the log is the sequence of changes that happened.
// A call the checker does not model (writev, renameat2, …) on the directory is recorded as `unsupported NAME`.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 65536

static char watched[PATH_MAX];
static size_t watched_length;
static int log_fd = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
// The path each descriptor of the directory (or of the directory itself) was opened with; a flag read without
// the lock keeps every other descriptor's calls fast.
static _Atomic unsigned char tracked[MAX_FDS];
static char *paths[MAX_FDS];

static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_ftruncate)(int, off_t);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_unlink)(const char *);
static int (*real_unlinkat)(int, const char *, int);
static int (*real_close)(int);

/// Finds libc's own functions, the ones every interposer calls on.
static void resolve(void) {
#define NEXT(name) real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name)
    NEXT(open), NEXT(openat), NEXT(write), NEXT(pwrite), NEXT(writev), NEXT(fsync), NEXT(fdatasync);
    NEXT(ftruncate), NEXT(rename), NEXT(renameat), NEXT(unlink), NEXT(unlinkat), NEXT(close);
#undef NEXT
}

__attribute__((constructor)) static void start(void) {
    resolve();
    const char *directory = getenv("DEPOT_RECORD_DIR");
    const char *log = getenv("DEPOT_RECORD_LOG");
    if (directory == NULL || log == NULL) return;
    watched_length = strlen(directory);
    if (watched_length == 0 || watched_length >= sizeof(watched)) return;
    memcpy(watched, directory, watched_length + 1);
    log_fd = real_open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
}

/// Whether `path` is the watched directory itself (1), a file directly in it (2), or neither (0).
static int place(const char *path) {
    if (log_fd < 0 || path == NULL || strncmp(path, watched, watched_length) != 0) return 0;
    const char *rest = path + watched_length;
    if (*rest == '\0') return 1;
    if (*rest != '/' || rest[1] == '\0' || strchr(rest + 1, '/') != NULL) return 0;
    return 2;
}

/// Appends one record: the line, then `size` bytes of `body`, in one write.
static void record(const char *line, const void *body, size_t size) {
    size_t length = strlen(line);
    char *buffer = malloc(length + size);
    if (buffer == NULL) return;
    memcpy(buffer, line, length);
    if (size > 0) memcpy(buffer + length, body, size);
    size_t done = 0;
    while (done < length + size) {
        ssize_t count = real_write(log_fd, buffer + done, length + size - done);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        done += (size_t)count;
    }
    free(buffer);
}

/// Appends one record with no bytes after it, formatted as printf does, under the lock.
__attribute__((format(printf, 1, 2))) static void note(const char *format, ...) {
    char line[2 * PATH_MAX + 64];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(line, sizeof(line), format, arguments);
    va_end(arguments);
    pthread_mutex_lock(&lock);
    record(line, NULL, 0);
    pthread_mutex_unlock(&lock);
}

static int is_tracked(int fd) {
    return fd >= 0 && fd < MAX_FDS && atomic_load_explicit(&tracked[fd], memory_order_acquire);
}

static void track(int fd, const char *path, int flags) {
    if (fd < 0 || fd >= MAX_FDS) return;
    pthread_mutex_lock(&lock);
    free(paths[fd]);
    paths[fd] = strdup(path);
    atomic_store_explicit(&tracked[fd], 1, memory_order_release);
    pthread_mutex_unlock(&lock);
    note("open %d %d %s\n", fd, flags, path);
}

/// Opens of the directory itself (to sync it) and of files in it for writing are tracked; reads are not.
static void opened(int fd, const char *path, int flags) {
    if (fd < 0) return;
    int where = place(path);
    if (where == 1 || (where == 2 && (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0)) {
        track(fd, path, flags);
    }
}

static int open_mode(int flags, va_list arguments) {
    return (flags & (O_CREAT | O_TMPFILE)) != 0 ? va_arg(arguments, int) : 0;
}

int open(const char *path, int flags, ...) {
    if (real_open == NULL) resolve();
    va_list arguments;
    va_start(arguments, flags);
    int mode = open_mode(flags, arguments);
    va_end(arguments);
    int fd = real_open(path, flags, mode);
    opened(fd, path, flags);
    return fd;
}

int open64(const char *path, int flags, ...) {
    if (real_open == NULL) resolve();
    va_list arguments;
    va_start(arguments, flags);
    int mode = open_mode(flags, arguments);
    va_end(arguments);
    int fd = real_open(path, flags | O_LARGEFILE, mode);
    opened(fd, path, flags);
    return fd;
}

int openat(int directory, const char *path, int flags, ...) {
    if (real_openat == NULL) resolve();
    va_list arguments;
    va_start(arguments, flags);
    int mode = open_mode(flags, arguments);
    va_end(arguments);
    int fd = real_openat(directory, path, flags, mode);
    if (path[0] == '/') opened(fd, path, flags);
    return fd;
}

static void wrote(int fd, off_t offset, const void *bytes, ssize_t count) {
    if (count <= 0) return;
    char line[64];
    pthread_mutex_lock(&lock);
    snprintf(line, sizeof(line), "write %d %lld %zd\n", fd, (long long)offset, count);
    record(line, bytes, (size_t)count);
    pthread_mutex_unlock(&lock);
}

ssize_t write(int fd, const void *bytes, size_t size) {
    if (real_write == NULL) resolve();
    if (!is_tracked(fd)) return real_write(fd, bytes, size);
    off_t offset = lseek(fd, 0, SEEK_CUR);
    ssize_t count = real_write(fd, bytes, size);
    wrote(fd, offset, bytes, count);
    return count;
}

ssize_t pwrite(int fd, const void *bytes, size_t size, off_t offset) {
    if (real_pwrite == NULL) resolve();
    ssize_t count = real_pwrite(fd, bytes, size, offset);
    if (is_tracked(fd)) wrote(fd, offset, bytes, count);
    return count;
}

ssize_t pwrite64(int fd, const void *bytes, size_t size, off_t offset) {
    return pwrite(fd, bytes, size, offset);
}

ssize_t writev(int fd, const struct iovec *vectors, int count) {
    if (real_writev == NULL) resolve();
    ssize_t written = real_writev(fd, vectors, count);
    if (is_tracked(fd) && written > 0) note("unsupported-writev %d\n", fd);
    return written;
}

int fsync(int fd) {
    if (real_fsync == NULL) resolve();
    int result = real_fsync(fd);
    if (result == 0 && is_tracked(fd)) note("fsync %d\n", fd);
    return result;
}

int fdatasync(int fd) {
    if (real_fdatasync == NULL) resolve();
    int result = real_fdatasync(fd);
    if (result == 0 && is_tracked(fd)) note("fsync %d\n", fd);
    return result;
}

int ftruncate(int fd, off_t length) {
    if (real_ftruncate == NULL) resolve();
    int result = real_ftruncate(fd, length);
    if (result == 0 && is_tracked(fd)) note("truncate %d %lld\n", fd, (long long)length);
    return result;
}

int ftruncate64(int fd, off_t length) {
    return ftruncate(fd, length);
}

int rename(const char *from, const char *to) {
    if (real_rename == NULL) resolve();
    int result = real_rename(from, to);
    if (result == 0 && (place(from) == 2 || place(to) == 2)) note("rename %s\n%s\n", from, to);
    return result;
}

int renameat(int from_directory, const char *from, int to_directory, const char *to) {
    if (real_renameat == NULL) resolve();
    int result = real_renameat(from_directory, from, to_directory, to);
    // Absolute paths name the same files whatever the directories; relative ones are not the directory's.
    if (result == 0 && from[0] == '/' && to[0] == '/' && (place(from) == 2 || place(to) == 2)) note("rename %s\n%s\n", from, to);
    return result;
}

int unlink(const char *path) {
    if (real_unlink == NULL) resolve();
    int result = real_unlink(path);
    if (result == 0 && place(path) == 2) note("unlink %s\n", path);
    return result;
}

int unlinkat(int directory, const char *path, int flags) {
    if (real_unlinkat == NULL) resolve();
    int result = real_unlinkat(directory, path, flags);
    if (result == 0 && path[0] == '/' && place(path) == 2) note("unlink %s\n", path);
    return result;
}

int close(int fd) {
    if (real_close == NULL) resolve();
    if (is_tracked(fd)) {
        pthread_mutex_lock(&lock);
        atomic_store_explicit(&tracked[fd], 0, memory_order_release);
        free(paths[fd]);
        paths[fd] = NULL;
        pthread_mutex_unlock(&lock);
        note("close %d\n", fd);
    }
    return real_close(fd);
}
