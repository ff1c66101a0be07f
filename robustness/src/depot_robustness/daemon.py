"""One depotd under test, as a process the suite can kill, freeze and restart on the same socket, source and state
directory; its log kept across runs."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time


class DaemonDied(Exception):
    pass


class Daemon:
    """depotd with `arguments` (its source among them), its socket and state directory in `directory`."""

    def __init__(
        self,
        depotd: str,
        directory: str,
        arguments: list[str],
        source_path: str | None = None,
        state_home: str | None = None,
        prefix: list[str] | None = None,
    ) -> None:
        self.depotd = depotd
        self.prefix = prefix or []
        """What runs depotd (a fleet's `ip netns exec NAMESPACE`, which execs it: the process is depotd's)."""
        self.source_path = source_path
        """The file a file source reads, for the checks after healing."""
        self.directory = directory
        self.arguments = arguments
        self.socket_path = os.path.join(directory, "d.sock")
        self.state_home = state_home or os.path.join(directory, "state")
        """$XDG_STATE_HOME: depotd keeps its cache in `depot` under it."""
        self.state_directory = os.path.join(self.state_home, "depot")
        self.log_path = os.path.join(directory, "depotd.log")
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, timeout: float = 60) -> None:
        """Starts depotd and returns once its socket accepts."""
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.directory,
            "XDG_RUNTIME_DIR": os.path.join(self.directory, "run"),
            "XDG_STATE_HOME": self.state_home,
        }
        with open(self.log_path, "ab") as log:
            log.write(f"--- start {self.starts + 1}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                [*self.prefix, self.depotd, "--socket", self.socket_path, *self.arguments],
                stdout=log,
                stderr=log,
                env=environment,
            )
        self.starts += 1
        deadline = time.monotonic() + timeout
        while not self.accepts():
            if self.process.poll() is not None:
                raise DaemonDied(f"depotd exited with {self.process.returncode}:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                raise DaemonDied(f"depotd did not accept within {timeout} s:\n{self.log_tail()}")
            time.sleep(0.02)

    def accepts(self) -> bool:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(self.socket_path)
            return True
        except OSError:
            return False
        finally:
            probe.close()

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL, and waits for the process to be gone."""
        if self.process is not None and self.alive():
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def freeze(self) -> None:
        os.kill(self.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM, as systemd stops it; SIGKILL past `timeout`. Returns the exit status."""
        assert self.process is not None
        if self.alive():
            os.kill(self.pid, signal.SIGCONT)
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def resident_kib(self) -> int:
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def open_files(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def threads(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/task"))

    def log_tail(self, lines: int = 40) -> str:
        with open(self.log_path, errors="replace") as log:
            return "".join(log.readlines()[-lines:])
