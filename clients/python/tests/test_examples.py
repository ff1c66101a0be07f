"""The scripts in examples/ that use the package, run as a user runs them."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPOSITORY, Daemon

import depot


def test_statusbar_prints_a_line_per_change(daemon: Daemon) -> None:
    script = REPOSITORY / "examples" / "depot_statusbar.py"
    assert script.read_text() in (REPOSITORY / "README.md").read_text(), "README.md shows the script as it is"
    environment = {
        **daemon.environment,
        "DEPOT_SOCKET": daemon.socket,
        "PYTHONPATH": str(REPOSITORY / "clients/python/src"),
    }
    with subprocess.Popen(
        [sys.executable, str(script)], env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as bar:
        try:
            assert bar.stdout is not None
            first = bar.stdout.readline()
            assert first.startswith("success · 20 items · fetched "), first
            with depot.connect(daemon.socket, timeout=30) as d:
                d.wipe()
            assert bar.stdout.readline() == "idle · 0 items\n"
        finally:
            bar.kill()
