#ifndef DEPOT_CSYSTEMD_SHIM_H
#define DEPOT_CSYSTEMD_SHIM_H

// libsystemd's readiness notification, socket activation and journal APIs.
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#endif
