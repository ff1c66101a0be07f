"""Where depotd's socket is: the same rules as `depotctl socket`, so the two always agree."""

from __future__ import annotations

import os
from typing import Mapping, Optional, Sequence, Tuple

#: The system daemon's socket, tried when nothing is at the user's own default.
SYSTEM_SOCKET = "/run/depot/depotd.sock"
#: Where the sockets of depotd@NAME are.
_INSTANCE_DIRECTORY = "/run/depot/"


def instance_socket_path(name: str) -> str:
    """The socket of depotd@NAME: `/run/depot/NAME.sock`."""
    return f"{_INSTANCE_DIRECTORY}{name}.sock"


def instance_of_socket(path: str) -> Optional[str]:
    """NAME, for the socket of depotd@NAME; None for any other path."""
    if not (path.startswith(_INSTANCE_DIRECTORY) and path.endswith(".sock")):
        return None
    name = path[len(_INSTANCE_DIRECTORY) : -len(".sock")]
    return name if name and "/" not in name else None


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
        return instance_socket_path(instance)
    env = os.environ if environment is None else environment
    from_environment = env.get("DEPOT_SOCKET")
    if from_environment:
        return from_environment
    own = default_socket_path(env, os.getuid() if uid is None else uid)
    if not os.path.lexists(own) and os.path.lexists(SYSTEM_SOCKET):
        return SYSTEM_SOCKET
    return own


#: Where installed system and user units are looked for, in systemd's order.
SYSTEM_UNIT_DIRECTORIES = ("/etc/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system")


def user_unit_directories(environment: Mapping[str, str]) -> Tuple[str, ...]:
    """`$XDG_CONFIG_HOME/systemd/user` (else `~/.config/systemd/user`), then the system-wide user units."""
    home = environment.get("HOME")
    config = environment.get("XDG_CONFIG_HOME") or (home + "/.config" if home else None)
    return ((config + "/systemd/user",) if config else ()) + ("/etc/systemd/user", "/usr/lib/systemd/user")


def start_command(
    socket: str,
    *,
    environment: Optional[Mapping[str, str]] = None,
    uid: Optional[int] = None,
    system_units: Sequence[str] = SYSTEM_UNIT_DIRECTORIES,
    user_units: Optional[Sequence[str]] = None,
) -> str:
    """How to start a depotd listening on `socket`, fitting how depotd was installed — as depotctl says it: the
    systemd socket unit installed for that socket, else depotd itself (with --socket unless it is depotd's default)."""
    env = os.environ if environment is None else environment

    def installed(unit: str, directories: Sequence[str]) -> bool:
        return any(os.path.exists(_join(directory, unit)) for directory in directories)

    if socket == SYSTEM_SOCKET and installed("depotd.socket", system_units):
        return "systemctl start depotd.socket"
    name = instance_of_socket(socket)
    if name is not None and socket != SYSTEM_SOCKET and installed("depotd@.socket", system_units):
        return f"systemctl start depotd@{name}.socket"
    runtime = env.get("XDG_RUNTIME_DIR")
    users = user_unit_directories(env) if user_units is None else user_units
    if runtime and socket == _join(runtime, "depot/depotd.sock") and installed("depotd.socket", users):
        return "systemctl --user start depotd.socket"
    default = default_socket_path(env, os.getuid() if uid is None else uid)
    return "depotd" if socket == default else f"depotd --socket {socket}"
