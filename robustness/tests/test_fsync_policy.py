"""depotd's fsync failure policy (RELIABILITY.md, "A failed fsync"), against the real daemon on the power-cut file
system: a write whose fsync fails is refused and changes nothing; a cache whose fsync fails is deleted rather than
trusted, with one log line. Needs DEPOT_DEPOTD (a debug build; scripts/test sets it), /dev/fuse and root."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from depot_robustness.connection import call_once
from depot_robustness.daemon import Daemon
from depot_robustness.disk import Disk, sync
from depot_robustness.run import cached_items

DEPOTD = os.environ.get("DEPOT_DEPOTD")
pytestmark = pytest.mark.skipif(
    DEPOTD is None or not os.path.exists("/dev/fuse") or os.geteuid() != 0,
    reason="needs DEPOT_DEPOTD, /dev/fuse and root",
)


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[Disk, Path, Callable[[str, bool], Daemon]]]:
    disk = Disk(str(tmp_path / "disk"))
    started: list[Daemon] = []

    def start(source_path: str, state_on_disk: bool) -> Daemon:
        home = tmp_path / "disk" if state_on_disk else tmp_path
        daemon = Daemon(
            str(DEPOTD), str(tmp_path), ["--source", "file:" + source_path], source_path, str(home / "state")
        )
        daemon.start()
        started.append(daemon)
        return daemon

    try:
        yield disk, tmp_path, start
    finally:
        for daemon in started:
            daemon.stop()
        disk.close()


def call(daemon: Daemon, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return call_once(daemon.socket_path, method, params, 30)


def wait_for_log(daemon: Daemon, text: str, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(daemon.log_path, errors="replace") as log:
            for line in log:
                if text in line:
                    return line
        time.sleep(0.05)
    raise AssertionError(f"no log line with {text!r} within {timeout} s:\n{daemon.log_tail()}")


def loaded_from_disk(setup: tuple[Disk, Path, Callable[[str, bool], Daemon]]) -> tuple[Disk, Path, Daemon]:
    """A depotd that loaded `[{"id": 1, "v": "old"}]` from a file on the power-cut file system, synced there."""
    disk, tmp_path, start = setup
    source = tmp_path / "disk" / "items.json"
    source.write_text(json.dumps([{"id": 1, "v": "old"}]))
    sync(str(source))
    sync(str(tmp_path / "disk"))
    daemon = start(str(source), False)
    assert "result" in call(daemon, "load", {})
    return disk, source, daemon


@pytest.mark.parametrize("failing", ["eio", "eio-dir"])
def test_a_write_whose_fsync_fails_is_refused_and_changes_nothing(
    setup: tuple[Disk, Path, Callable[[str, bool], Daemon]], failing: str
) -> None:
    disk, source, daemon = loaded_from_disk(setup)
    # `eio`: the new file's fsync fails, before its rename. `eio-dir`: the directory's, after the rename: undone.
    disk.command(f"{failing} 1")
    answer = call(daemon, "put", {"id": 1, "item": {"id": 1, "v": "new"}})
    assert answer["error"]["code"] == -32002, answer
    if failing == "eio-dir":
        assert "the replacement was undone" in answer["error"]["message"]
    assert json.loads(source.read_text()) == [{"id": 1, "v": "old"}]
    assert call(daemon, "get", {"id": 1})["result"] == {"id": 1, "v": "old"}
    disk.cut()
    assert json.loads(source.read_text()) == [{"id": 1, "v": "old"}]
    # The next write, with fsyncs that work, is made.
    daemon.kill()
    daemon.start()
    assert "result" in call(daemon, "put", {"id": 1, "item": {"id": 1, "v": "newer"}})
    disk.cut()
    assert json.loads(source.read_text()) == [{"id": 1, "v": "newer"}]


def test_a_cache_whose_fsync_fails_is_deleted_not_trusted(
    setup: tuple[Disk, Path, Callable[[str, bool], Daemon]],
) -> None:
    disk, tmp_path, start = setup
    source = tmp_path / "items.json"
    # Over 1,000 items changed at once: the cache takes the whole list, and empties its log into the file (fsync).
    source.write_text(json.dumps([{"id": n, "v": 0} for n in range(1500)]))
    daemon = start(str(source), True)
    assert "result" in call(daemon, "load", {})
    cache = Path(daemon.state_directory) / "cache.sqlite"
    disk.command("eio 1000")
    for version in range(1, 20):
        source.write_text(json.dumps([{"id": n, "v": version} for n in range(1500)]))
        assert "result" in call(daemon, "load", {})
        if not cache.exists():
            break
    line = wait_for_log(daemon, "the cache is no longer trusted")
    assert "disk I/O error" in line and "its files were deleted" in line
    disk.command("eio 0")
    assert call(daemon, "state", {})["result"]["status"] == "success"
    # The next whole list the source gives goes into a new cache.
    after = [{"id": n, "v": "after"} for n in range(1500)]
    source.write_text(json.dumps(after))
    assert "result" in call(daemon, "load", {})
    deadline = time.monotonic() + 30
    while cached_items(daemon.state_directory) != after:
        assert time.monotonic() < deadline, "no new cache with the list loaded"
        time.sleep(0.05)


def test_a_write_that_can_be_neither_made_durable_nor_undone_is_answered_outcome_unknown(
    setup: tuple[Disk, Path, Callable[[str, bool], Daemon]],
) -> None:
    disk, source, daemon = loaded_from_disk(setup)
    # The directory's fsync after the rename fails, and again each of the three times the old content is put back.
    disk.command("eio-dir 4")
    answer = call(daemon, "put", {"id": 1, "item": {"id": 1, "v": "new"}})
    assert answer["error"]["code"] == -32010, answer
    assert "may hold either version" in answer["error"]["message"]
    # What the file holds now (the old content, put back but not durably) is what depotd comes to hold.
    in_file = json.loads(source.read_text())
    deadline = time.monotonic() + 30
    while call(daemon, "get", {"id": 1}).get("result") != in_file[0]:
        assert time.monotonic() < deadline, "depotd does not hold what the file holds"
        time.sleep(0.05)


def test_a_write_whose_undo_fails_but_once_is_still_refused(
    setup: tuple[Disk, Path, Callable[[str, bool], Daemon]],
) -> None:
    disk, source, daemon = loaded_from_disk(setup)
    disk.command("eio-dir 3")
    answer = call(daemon, "put", {"id": 1, "item": {"id": 1, "v": "new"}})
    assert answer["error"]["code"] == -32002, answer
    assert "the replacement was undone" in answer["error"]["message"]
    disk.cut()
    assert json.loads(source.read_text()) == [{"id": 1, "v": "old"}]
