#ifndef DEPOT_PEER_CREDENTIALS_H
#define DEPOT_PEER_CREDENTIALS_H

#include <sys/types.h>

/// The process at the other end of a Unix socket, as the kernel recorded it when it connected.
/// Same layout as Linux's `struct ucred` (which Swift cannot see without _GNU_SOURCE).
typedef struct {
    pid_t pid;
    uid_t uid;
    gid_t gid;
} depot_peer_credentials;

/// SO_PEERCRED, the socket option that reads them.
int depot_so_peercred(void);

#endif
