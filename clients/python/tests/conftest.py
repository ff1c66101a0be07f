"""Runs the real depotd on a temporary socket for each test: the binary scripts/test builds (.build/debug), or
$DEPOT_DEPOTD."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

import depot

REPOSITORY = Path(__file__).resolve().parents[3]


def binary(name: str) -> str:
    path = os.environ.get(f"DEPOT_{name.upper()}") or str(REPOSITORY / ".build" / "debug" / name)
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is not there: build it first (swift build), or set DEPOT_{name.upper()}")
    return path


def write_items(path: Path, count: int, start: int = 1) -> None:
    items = [{"id": index, "name": f"item {index}"} for index in range(start, start + count)]
    path.write_text(json.dumps(items))


class Daemon:
    """depotd on a socket in `directory`, its environment pointing everything into it. `restart()` starts it again
    on the same socket (a new epoch); `stderr` holds its log."""

    def __init__(
        self,
        directory: Path,
        arguments: List[str],
        source: Optional[str] = None,
        *,
        launcher: Optional[List[str]] = None,
        environment: Optional[Dict[str, str]] = None,
    ) -> None:
        self.directory = directory
        self.socket = str(directory / "depotd.sock")
        self.items_file = directory / "items.json"
        if source is None:
            write_items(self.items_file, 20)
            source = f"file:{self.items_file}"
        self.arguments = ["--socket", self.socket, "--source", source, *arguments]
        self.environment = {**environment_in(directory), **(environment or {})}
        self.launcher = launcher or []
        self.process: Optional[subprocess.Popen[bytes]] = None
        self.stderr = ""
        self.start()

    def start(self) -> None:
        process = subprocess.Popen(
            [*self.launcher, binary("depotd"), *self.arguments],
            env=self.environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.process = process
        listening = threading.Event()

        def read_log() -> None:
            assert process.stderr is not None
            for raw in process.stderr:
                line = raw.decode(errors="replace")
                self.stderr += line
                if f"listening on {self.socket}" in line:
                    listening.set()

        threading.Thread(target=read_log, daemon=True).start()
        deadline = time.monotonic() + 60
        while not listening.wait(0.05):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"depotd did not start:\n{self.stderr}")
        # Its start-up load: the tests begin from the loaded collection.
        with depot.connect(self.socket, timeout=60) as d:
            for state in d.watch():
                if state.status in (depot.Status.SUCCESS, depot.Status.FAILURE):
                    break

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(60)

    def restart(self) -> None:
        self.stop()
        self.start()


def environment_in(directory: Path) -> Dict[str, str]:
    (directory / "run").mkdir(exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(directory),
        "XDG_RUNTIME_DIR": str(directory / "run"),
        "XDG_STATE_HOME": str(directory / "state"),
    }


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A temporary directory others may enter (tests run clients as another user)."""
    path = Path(tempfile.mkdtemp(prefix="depot-python-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def daemon(workdir: Path) -> Iterator[Daemon]:
    running = Daemon(workdir, ["--no-cache"])
    yield running
    running.stop(signal.SIGKILL)


class Relay:
    """A Unix socket in front of depotd's that passes bytes both ways, and can cut every connection through it — a
    connection dropped under a client, with depotd still running."""

    def __init__(self, target: str, path: str) -> None:
        self.target = target
        self.path = path
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(path)
        self._listener.listen(16)
        self._lock = threading.Lock()
        self._open: List[socket.socket] = []
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(self.target)
            with self._lock:
                self._open += [client, upstream]
                self.accepted += 1
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                chunk = source.recv(1 << 16)
                if not chunk:
                    break
                sink.sendall(chunk)
        except OSError:
            pass
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        with self._lock:
            connections, self._open = self._open, []
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()

    def close(self) -> None:
        self._listener.close()
        self.cut()
