#define _GNU_SOURCE
#include <sys/socket.h>
#include "CPeerCredentials.h"

_Static_assert(sizeof(struct ucred) == sizeof(depot_peer_credentials), "depot_peer_credentials must match struct ucred");

int depot_so_peercred(void) {
    return SO_PEERCRED;
}
