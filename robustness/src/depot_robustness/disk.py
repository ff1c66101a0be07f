"""The power-cut file system (powercut.py) mounted for a run, and commanded: cut the power, fail fsyncs, fill up."""

from __future__ import annotations

import os
import subprocess
import sys
import time


def sync(path: str) -> None:
    """fsync of a file or a directory (its entries), as a program that means its writes to last does."""
    descriptor = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if os.path.isdir(path) else 0))
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class Disk:
    """Mounts the file system at `mountpoint` (an empty directory) in a process of its own."""

    def __init__(self, mountpoint: str) -> None:
        self.mountpoint = mountpoint
        os.makedirs(mountpoint, exist_ok=True)
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "depot_robustness.powercut", mountpoint],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=environment,
        )
        assert self.process.stdout is not None
        ready = self.process.stdout.readline().strip()
        if ready != "ready":
            raise RuntimeError(f"the power-cut file system did not mount at {mountpoint}: {ready!r}")
        # The mount is up once the kernel shows it.
        deadline = time.monotonic() + 10
        while not os.path.ismount(mountpoint):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{mountpoint} is not a mount point 10 s after the file system said ready")
            time.sleep(0.01)

    def command(self, line: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        if not answer.startswith("ok"):
            raise RuntimeError(f"the power-cut file system answered {line!r} with {answer!r}")
        return answer[3:]

    def cut(self) -> list[str]:
        """The power goes; returns the paths whose unsynced bytes or entries were lost."""
        lost = self.command("cut")
        return [] if lost == "-" else lost.split(",")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            subprocess.run(["fusermount3", "-u", "-z", self.mountpoint], check=False)
            self.process.kill()
            self.process.wait()
