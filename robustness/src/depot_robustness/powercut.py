"""A file system that forgets, when the power goes, every write not yet synced — as LazyFS does (dsrhaslab/lazyfs), on
FUSE, in memory — and that can fail an fsync (EIO) or run out of space (ENOSPC) on command.

What a real disk keeps across a power loss is modelled byte by byte: a file's bytes last until its fsync, a
directory's entries (a create, a rename, an unlink) until the directory's fsync. A cut (`cut`) puts every file and
directory back to what was synced — a file renamed into place whose directory was never synced is gone again, a file
whose bytes were never synced is empty. An fsync that fails (`eio N`: the next N) makes nothing durable and, as Linux
does since the "fsyncgate" discussion, forgets what was waiting: those bytes are readable until the power goes, and no
later fsync will keep them.

Run as `python3 -m depot_robustness.powercut MOUNTPOINT`: it mounts, says `ready`, then answers one line per command
on standard input (`cut`, `eio N`: the next N fsyncs fail, `eio-dir N`: the next N of directories, `full`, `space`,
`stats`); end of input unmounts."""

from __future__ import annotations

import errno
import itertools
import os
import stat
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import mfusepy  # type: ignore[import-untyped]

_inodes = itertools.count(2)


@dataclass(eq=False)
class Node:
    mode: int
    ino: int = field(default_factory=lambda: next(_inodes))
    uid: int = 0
    gid: int = 0
    mtime: int = field(default_factory=time.time_ns)


@dataclass(eq=False)
class File(Node):
    data: bytearray = field(default_factory=bytearray)
    durable: bytes = b""
    dirty: list[tuple[int, int]] = field(default_factory=list)
    """Ranges written since the last fsync, and whether the size changed (a truncate): what the next fsync keeps."""
    resized: bool = False

    def sync(self) -> None:
        kept = bytearray(self.durable[: len(self.data)])
        kept.extend(bytes(len(self.data) - len(kept)))
        for offset, length in self.dirty:
            kept[offset : offset + length] = self.data[offset : offset + length]
        self.durable = bytes(kept[: len(self.data)])
        self.dirty.clear()
        self.resized = False

    def forget(self) -> None:
        self.dirty.clear()
        self.resized = False


@dataclass(eq=False)
class Directory(Node):
    entries: dict[str, Node] = field(default_factory=dict)
    durable: dict[str, Node] = field(default_factory=dict)


class PowercutOperations(mfusepy.Operations):  # type: ignore[misc]
    use_ns = True

    def __init__(self) -> None:
        self.mutex = threading.Lock()
        self.root = Directory(stat.S_IFDIR | 0o755, ino=1)
        self.handles: dict[int, Node] = {}
        self.next_handle = itertools.count(1)
        self.failing_fsyncs = 0
        self.failing_directory_fsyncs = 0
        self.full = False
        self.counts: dict[str, int] = {"fsync": 0, "fsyncdir": 0, "eio": 0, "enospc": 0, "cuts": 0}

    # The tree.

    def _lookup(self, path: str) -> Node:
        node: Node = self.root
        for part in [p for p in path.split("/") if p]:
            if not isinstance(node, Directory) or part not in node.entries:
                raise mfusepy.FuseOSError(errno.ENOENT)
            node = node.entries[part]
        return node

    def _parent(self, path: str) -> tuple[Directory, str]:
        head, name = os.path.split(path.rstrip("/"))
        parent = self._lookup(head or "/")
        if not isinstance(parent, Directory):
            raise mfusepy.FuseOSError(errno.ENOTDIR)
        return parent, name

    def _file(self, path: str, fh: int | None) -> File:
        node = self.handles.get(fh) if fh else None
        node = node if node is not None else self._lookup(path)
        if not isinstance(node, File):
            raise mfusepy.FuseOSError(errno.EISDIR)
        return node

    # Commands.

    def cut(self) -> str:
        """The power goes: every node reachable through synced entries gets back its synced bytes and entries."""
        with self.mutex:
            self.counts["cuts"] += 1
            unsynced = self._unsynced()

            def restore(directory: Directory) -> None:
                directory.entries = dict(directory.durable)
                for node in directory.entries.values():
                    if isinstance(node, Directory):
                        restore(node)
                    elif isinstance(node, File):
                        node.data = bytearray(node.durable)
                        node.forget()

            restore(self.root)
            self.handles.clear()
            return "ok " + (",".join(sorted(unsynced)) or "-")

    def _unsynced(self) -> set[str]:
        """Paths whose bytes or entries a cut now would lose (where the cut lands)."""
        found: set[str] = set()

        def walk(directory: Directory, path: str) -> None:
            if directory.entries != directory.durable:
                found.add(path or "/")
            for name, node in directory.entries.items():
                child = f"{path}/{name}"
                if isinstance(node, Directory):
                    walk(node, child)
                elif isinstance(node, File) and (node.dirty or node.resized or bytes(node.data) != node.durable):
                    found.add(child)

        walk(self.root, "")
        return found

    def command(self, line: str) -> str:
        words = line.split()
        if not words:
            return "error empty"
        if words[0] == "cut":
            return self.cut()
        with self.mutex:
            if words[0] == "eio":
                self.failing_fsyncs = int(words[1]) if len(words) > 1 else 1
            elif words[0] == "eio-dir":
                self.failing_directory_fsyncs = int(words[1]) if len(words) > 1 else 1
            elif words[0] == "full":
                self.full = True
            elif words[0] == "space":
                self.full = False
            elif words[0] == "stats":
                return "ok " + " ".join(f"{k}={v}" for k, v in sorted(self.counts.items()))
            else:
                return f"error unknown command {words[0]}"
        return "ok"

    # FUSE.

    def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
        with self.mutex:
            node = self.handles.get(fh) if fh else None
            node = node if node is not None else self._lookup(path)
            size = len(node.data) if isinstance(node, File) else 4096
            links = (
                2 + sum(isinstance(n, Directory) for n in node.entries.values()) if isinstance(node, Directory) else 1
            )
            return {
                "st_mode": node.mode,
                "st_ino": node.ino,
                "st_nlink": links,
                "st_size": size,
                "st_uid": node.uid,
                "st_gid": node.gid,
                "st_atime": node.mtime,
                "st_mtime": node.mtime,
                "st_ctime": node.mtime,
                "st_blocks": (size + 511) // 512,
                "st_blksize": 4096,
            }

    def readdir(self, path: str, fh: int) -> list[str]:
        with self.mutex:
            node = self._lookup(path)
            if not isinstance(node, Directory):
                raise mfusepy.FuseOSError(errno.ENOTDIR)
            return [".", "..", *node.entries]

    def mkdir(self, path: str, mode: int) -> int:
        with self.mutex:
            parent, name = self._parent(path)
            if name in parent.entries:
                raise mfusepy.FuseOSError(errno.EEXIST)
            if self.full:
                self.counts["enospc"] += 1
                raise mfusepy.FuseOSError(errno.ENOSPC)
            parent.entries[name] = Directory(stat.S_IFDIR | (mode & 0o7777))
            return 0

    def rmdir(self, path: str) -> int:
        with self.mutex:
            parent, name = self._parent(path)
            node = parent.entries.get(name)
            if not isinstance(node, Directory):
                raise mfusepy.FuseOSError(errno.ENOTDIR if node else errno.ENOENT)
            if node.entries:
                raise mfusepy.FuseOSError(errno.ENOTEMPTY)
            del parent.entries[name]
            return 0

    def create(self, path: str, mode: int, fi: Any = None) -> int:
        with self.mutex:
            parent, name = self._parent(path)
            node = parent.entries.get(name)
            if node is None:
                if self.full:
                    self.counts["enospc"] += 1
                    raise mfusepy.FuseOSError(errno.ENOSPC)
                node = File(stat.S_IFREG | (mode & 0o7777))
                parent.entries[name] = node
            handle = next(self.next_handle)
            self.handles[handle] = node
            return handle

    def open(self, path: str, flags: int) -> int:
        with self.mutex:
            node = self._lookup(path)
            handle = next(self.next_handle)
            self.handles[handle] = node
            if flags & os.O_TRUNC and isinstance(node, File):
                node.data = bytearray()
                node.resized = True
            return handle

    def opendir(self, path: str) -> int:
        return self.open(path, 0)

    def release(self, path: str, fh: int) -> int:
        with self.mutex:
            self.handles.pop(fh, None)
            return 0

    def releasedir(self, path: str, fh: int) -> int:
        return self.release(path, fh)

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        with self.mutex:
            return bytes(self._file(path, fh).data[offset : offset + size])

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        with self.mutex:
            node = self._file(path, fh)
            if self.full and offset + len(data) > len(node.data):
                self.counts["enospc"] += 1
                raise mfusepy.FuseOSError(errno.ENOSPC)
            if offset > len(node.data):
                node.data.extend(bytes(offset - len(node.data)))
            node.data[offset : offset + len(data)] = data
            node.dirty.append((offset, len(data)))
            node.mtime = time.time_ns()
            return len(data)

    def truncate(self, path: str, length: int, fh: int | None = None) -> int:
        with self.mutex:
            node = self._file(path, fh)
            if self.full and length > len(node.data):
                self.counts["enospc"] += 1
                raise mfusepy.FuseOSError(errno.ENOSPC)
            if length <= len(node.data):
                del node.data[length:]
            else:
                node.data.extend(bytes(length - len(node.data)))
            node.resized = True
            return 0

    def fallocate(self, path: str, mode: int, offset: int, size: int, fh: int) -> int:
        raise mfusepy.FuseOSError(errno.EOPNOTSUPP)

    def _fails(self) -> bool:
        if self.failing_fsyncs > 0:
            self.failing_fsyncs -= 1
            self.counts["eio"] += 1
            return True
        return False

    def _directory_fails(self) -> bool:
        """A directory's fsync fails while failures of directories are armed (`eio-dir`), else as any fsync does
        (`eio`): each failure uses up one armed, of one kind."""
        if self.failing_directory_fsyncs > 0:
            self.failing_directory_fsyncs -= 1
            self.counts["eio"] += 1
            return True
        return self._fails()

    def fsync(self, path: str, datasync: int, fh: int) -> int:
        with self.mutex:
            self.counts["fsync"] += 1
            node = self._file(path, fh)
            if self._fails():
                node.forget()
                raise mfusepy.FuseOSError(errno.EIO)
            node.sync()
            return 0

    def fsyncdir(self, path: str, datasync: int, fh: int) -> int:
        with self.mutex:
            self.counts["fsyncdir"] += 1
            node = self.handles.get(fh) or self._lookup(path)
            if not isinstance(node, Directory):
                raise mfusepy.FuseOSError(errno.ENOTDIR)
            if self._directory_fails():
                raise mfusepy.FuseOSError(errno.EIO)
            node.durable = dict(node.entries)
            return 0

    def flush(self, path: str, fh: int) -> int:
        return 0

    def rename(self, old: str, new: str) -> int:
        with self.mutex:
            source, old_name = self._parent(old)
            target, new_name = self._parent(new)
            node = source.entries.get(old_name)
            if node is None:
                raise mfusepy.FuseOSError(errno.ENOENT)
            replaced = target.entries.get(new_name)
            if isinstance(replaced, Directory) and replaced.entries:
                raise mfusepy.FuseOSError(errno.ENOTEMPTY)
            del source.entries[old_name]
            target.entries[new_name] = node
            return 0

    def unlink(self, path: str) -> int:
        with self.mutex:
            parent, name = self._parent(path)
            if name not in parent.entries:
                raise mfusepy.FuseOSError(errno.ENOENT)
            del parent.entries[name]
            return 0

    def chmod(self, path: str, mode: int) -> int:
        with self.mutex:
            node = self._lookup(path)
            node.mode = (node.mode & ~0o7777) | (mode & 0o7777)
            return 0

    def chown(self, path: str, uid: int, gid: int) -> int:
        with self.mutex:
            node = self._lookup(path)
            node.uid = uid if uid != -1 else node.uid
            node.gid = gid if gid != -1 else node.gid
            return 0

    def utimens(self, path: str, times: tuple[int, int] | None = None) -> int:
        with self.mutex:
            self._lookup(path).mtime = times[1] if times else time.time_ns()
            return 0

    def statfs(self, path: str) -> dict[str, int]:
        free = 0 if self.full else 1 << 20
        return {
            "f_bsize": 4096,
            "f_frsize": 4096,
            "f_blocks": 1 << 20,
            "f_bfree": free,
            "f_bavail": free,
            "f_files": 1 << 20,
            "f_ffree": 1 << 20,
            "f_namemax": 255,
        }


def main() -> int:
    mountpoint = sys.argv[1]
    operations = PowercutOperations()

    def control() -> None:
        print("ready", flush=True)
        for line in sys.stdin:
            print(operations.command(line), flush=True)
        os.system(f"fusermount3 -u {mountpoint}")

    # The control loop starts once the mount is up (init), and unmounts at the end of its input.
    original_init = operations.init

    def init(path: str) -> None:
        original_init(path)
        threading.Thread(target=control, daemon=True).start()

    operations.init = init
    mfusepy.FUSE(
        operations, mountpoint, foreground=True, nothreads=True, attr_timeout=0, entry_timeout=0, negative_timeout=0
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
