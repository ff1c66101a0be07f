"""Where depotd's socket is: the same rules as `depotctl socket`, so the two always agree."""

from __future__ import annotations

import os
from typing import Mapping, Optional

#: The system daemon's socket, tried when nothing is at the user's own default.
SYSTEM_SOCKET = "/run/depot/depotd.sock"


def _join(directory: str, name: str) -> str:
    return directory + name if directory.endswith("/") else directory + "/" + name


def _first_listed(value: Optional[str]) -> Optional[str]:
    """The first non-empty entry of a colon-separated list such as systemd's RUNTIME_DIRECTORY."""
    for entry in (value or "").split(":"):
        if entry:
            return entry
    return None


def default_socket_path(environment: Mapping[str, str], uid: int) -> str:
    """Where depotd listens when no socket is configured: `$RUNTIME_DIRECTORY/depotd.sock`, else
    `$XDG_RUNTIME_DIR/depot/depotd.sock`, else `/run/depot/depotd.sock` for root and
    `/tmp/depot-$UID/depotd.sock` for others."""
    runtime = _first_listed(environment.get("RUNTIME_DIRECTORY"))
    if runtime is not None:
        return _join(runtime, "depotd.sock")
    xdg = environment.get("XDG_RUNTIME_DIR")
    if xdg:
        return _join(xdg, "depot/depotd.sock")
    return SYSTEM_SOCKET if uid == 0 else f"/tmp/depot-{uid}/depotd.sock"


def socket_path(
    socket: Optional[str] = None,
    *,
    instance: Optional[str] = None,
    environment: Optional[Mapping[str, str]] = None,
    uid: Optional[int] = None,
) -> str:
    """The socket `connect()` uses, as `depotctl socket` prints it: `socket` when given; else the socket of
    depotd@INSTANCE (`/run/depot/INSTANCE.sock`); else `$DEPOT_SOCKET`; else depotd's default — or, when nothing is
    there and the system daemon's socket exists, that one.

    Raises ValueError for an instance name with a slash (or `.`/`..`), as depotctl refuses it."""
    if socket:
        return socket
    if instance is not None:
        if not instance or "/" in instance or instance in (".", ".."):
            raise ValueError(f'instance takes the NAME of depotd@NAME (no slashes); found "{instance}"')
        return f"/run/depot/{instance}.sock"
    env = os.environ if environment is None else environment
    from_environment = env.get("DEPOT_SOCKET")
    if from_environment:
        return from_environment
    own = default_socket_path(env, os.getuid() if uid is None else uid)
    if not os.path.lexists(own) and os.path.lexists(SYSTEM_SOCKET):
        return SYSTEM_SOCKET
    return own
