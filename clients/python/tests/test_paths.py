"""How to start depotd, as depotctl says it (StartCommandTests holds the Swift side to the same cases)."""

from __future__ import annotations

from pathlib import Path
from typing import List

from depot._paths import start_command


def _units(root: Path, kind: str, names: List[str]) -> List[str]:
    directory = root / kind
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        (directory / name).write_text("")
    return [str(directory)]


def test_system_units(tmp_path: Path) -> None:
    system = _units(tmp_path, "system", ["depotd.socket", "depotd@.socket"])
    user = _units(tmp_path, "user", [])

    def start(socket: str) -> str:
        return start_command(socket, environment={}, uid=0, system_units=system, user_units=user)

    assert start("/run/depot/depotd.sock") == "systemctl start depotd.socket"
    assert start("/run/depot/kiosk.sock") == "systemctl start depotd@kiosk.socket"
    assert start("/srv/other.sock") == "depotd --socket /srv/other.sock"


def test_user_unit(tmp_path: Path) -> None:
    system = _units(tmp_path, "system", [])
    user = _units(tmp_path, "user", ["depotd.socket"])
    socket = "/run/user/1000/depot/depotd.sock"
    environment = {"XDG_RUNTIME_DIR": "/run/user/1000"}
    assert start_command(socket, environment=environment, uid=1000, system_units=system, user_units=user) == (
        "systemctl --user start depotd.socket"
    )


def test_no_units(tmp_path: Path) -> None:
    none = _units(tmp_path, "none", [])
    environment = {"XDG_RUNTIME_DIR": "/run/user/1000"}

    def start(socket: str, uid: int = 1000) -> str:
        env = environment if uid else {}
        return start_command(socket, environment=env, uid=uid, system_units=none, user_units=none)

    assert start("/run/depot/depotd.sock") == "depotd --socket /run/depot/depotd.sock"
    assert start("/run/user/1000/depot/depotd.sock") == "depotd"
    assert start("/run/depot/depotd.sock", uid=0) == "depotd"
