"""A built depotd in a temporary directory, and clients for its socket: what scripts/fuzz-socket, scripts/churn and
scripts/measure-bounds drive. Plain sockets, no dependencies beyond Python 3's standard library."""

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def release_depotd():
    """Builds depotd in release mode and returns its path."""
    subprocess.run(["swift", "build", "-c", "release", "--product", "depotd"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, ".build", "release", "depotd")


def release_depot_bench():
    """Builds depot-bench (the benchmarks' package) in release mode and returns its path."""
    subprocess.run(["swift", "build", "-c", "release", "--package-path", "Benchmarks", "--product", "depot-bench"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, "Benchmarks", ".build", "release", "depot-bench")


def write_items(path, count, padding=0):
    pad = "p" * padding
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(f'{{"id": {n}, "name": "item {n}", "pad": "{pad}"}}' for n in range(1, count + 1)) + "\n]\n")


class Daemon:
    """depotd on a socket anyone may open (0666), with a collection of `items` items, its log in its directory."""

    def __init__(self, depotd, items=50, padding=0, args=()):
        self.directory = tempfile.mkdtemp(prefix="depot-script.")
        os.chmod(self.directory, 0o755)
        self.items_path = os.path.join(self.directory, "items.json")
        write_items(self.items_path, items, padding)
        os.chmod(self.items_path, 0o644)
        self.socket_path = os.path.join(self.directory, "d.sock")
        self.log_path = os.path.join(self.directory, "depotd.log")
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.directory,
                       "XDG_RUNTIME_DIR": os.path.join(self.directory, "run"),
                       "XDG_STATE_HOME": os.path.join(self.directory, "state")}
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [depotd, "--socket", self.socket_path, "--source", "file:" + self.items_path, "--socket-mode", "0666",
             *args], stdout=self.log, stderr=self.log, env=environment)
        deadline = time.monotonic() + 60
        while not self.accepts():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("depotd did not start:\n" + self.log_text())
            time.sleep(0.05)

    def accepts(self):
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(self.socket_path)
            return True
        except OSError:
            return False
        finally:
            probe.close()

    def log_text(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def alive(self):
        return self.process.poll() is None

    def resident_kib(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def open_files(self):
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))

    def call(self, method, params=None, timeout=30):
        with Client(self.socket_path, timeout=timeout) as client:
            return client.call(method, params)

    def stop(self, keep=False):
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        if not keep:
            shutil.rmtree(self.directory, ignore_errors=True)


class Closed(Exception):
    pass


class Client:
    """One connection: lines out, lines in, with a deadline on every read."""

    def __init__(self, path, timeout=30, receive_buffer=None):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if receive_buffer:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.socket.connect(path)
        self.timeout = timeout
        self.buffer = b""
        self.next_id = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.socket.close()
        except OSError:
            pass

    def send(self, data):
        self.socket.sendall(data)

    def read_line(self, timeout=None):
        """The next line, without its newline; raises Closed at the end of the connection, TimeoutError past the deadline."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no line within the deadline")
            ready, _, _ = select.select([self.socket], [], [], left)
            if not ready:
                continue
            try:
                chunk = self.socket.recv(1 << 20)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise Closed(self.buffer)
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def call(self, method, params=None):
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            request["params"] = params
        self.send(json.dumps(request).encode() + b"\n")
        while True:
            message = json.loads(self.read_line())
            if isinstance(message, dict) and message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]


def percentile(values, fraction):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(fraction * len(ordered) + 0.5) - 1))]
