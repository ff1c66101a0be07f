"""The power-cut file system keeps exactly what a disk keeps across a power loss: what was synced, and nothing else."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from depot_robustness.disk import Disk, sync

pytestmark = pytest.mark.skipif(
    not os.path.exists("/dev/fuse") or os.geteuid() != 0, reason="needs /dev/fuse and root to mount"
)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[tuple[Disk, Path]]:
    mounted = Disk(str(tmp_path / "disk"))
    try:
        yield mounted, tmp_path / "disk"
    finally:
        mounted.close()


def written(path: Path, text: str, synced: bool) -> None:
    with open(path, "w") as file:
        file.write(text)
        file.flush()
        if synced:
            os.fsync(file.fileno())


def test_what_was_synced_survives_and_nothing_else(disk: tuple[Disk, Path]) -> None:
    fs, root = disk
    written(root / "kept", "synced", synced=True)
    sync(str(root))
    written(root / "kept", "later, not synced", synced=False)
    written(root / "new", "never synced", synced=False)
    assert sorted(fs.cut()) == ["/", "/kept", "/new"]
    assert sorted(os.listdir(root)) == ["kept"]
    assert (root / "kept").read_text() == "synced"


def test_a_rename_lasts_only_once_its_directory_is_synced(disk: tuple[Disk, Path]) -> None:
    fs, root = disk
    written(root / "file", "old", synced=True)
    sync(str(root))
    written(root / "file.tmp", "new", synced=True)
    os.rename(root / "file.tmp", root / "file")
    fs.cut()
    assert (root / "file").read_text() == "old"
    written(root / "file.tmp", "new", synced=True)
    os.rename(root / "file.tmp", root / "file")
    sync(str(root))
    fs.cut()
    assert (root / "file").read_text() == "new"
    assert sorted(os.listdir(root)) == ["file"]


def test_a_file_named_but_never_synced_comes_back_empty(disk: tuple[Disk, Path]) -> None:
    fs, root = disk
    written(root / "file", "bytes never synced", synced=False)
    sync(str(root))
    fs.cut()
    assert (root / "file").read_text() == ""


def test_a_failed_fsync_loses_its_bytes_even_when_a_later_one_succeeds(disk: tuple[Disk, Path]) -> None:
    fs, root = disk
    written(root / "file", "old", synced=True)
    sync(str(root))
    fs.command("eio 1")
    with open(root / "file", "r+") as file:
        file.write("new")
        file.flush()
        with pytest.raises(OSError) as failure:
            os.fsync(file.fileno())
        assert failure.value.errno == errno.EIO
        # fsyncgate: the retry answers success, and keeps nothing.
        os.fsync(file.fileno())
    assert (root / "file").read_text() == "new"
    fs.cut()
    assert (root / "file").read_text() == "old"


def test_a_full_disk_refuses_growth_until_space_comes_back(disk: tuple[Disk, Path]) -> None:
    fs, root = disk
    written(root / "file", "some", synced=True)
    fs.command("full")
    with pytest.raises(OSError) as failure:
        written(root / "other", "grows", synced=False)
    assert failure.value.errno == errno.ENOSPC
    fs.command("space")
    written(root / "other", "grows", synced=True)
    assert (root / "other").read_text() == "grows"
