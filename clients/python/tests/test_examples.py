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


def test_counter_loses_no_increment_among_several_writers(daemon: Daemon) -> None:
    script = REPOSITORY / "examples" / "depot_counter.py"
    environment = {**daemon.environment, "PYTHONPATH": str(REPOSITORY / "clients/python/src")}
    command = [sys.executable, str(script), "3", "--field", "visits", "--socket", daemon.socket]
    # Four writers at once, five increments each: conflicts happen, and each is redone from the item as it is.
    writers = [
        subprocess.Popen(
            ["sh", "-c", 'for i in 1 2 3 4 5; do "$@" || exit 1; done', "sh", *command],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outputs = [writer.communicate(timeout=120) for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0, 0, 0], outputs
    assert sum(out.count("visits = ") for out, _ in outputs) == 20
    with depot.connect(daemon.socket, timeout=30) as d:
        assert d.get(3)["visits"] == 20
        assert d.get(3)["name"] == "item 3", "the rest of the item is kept"
