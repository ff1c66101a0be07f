"""A write cut off by a network partition is settled by the time depotd answers it: made or not, the statement it sent
cannot be made after the answer (the bug the fleet's `partition` found: the statement sent on the connection closed by
depotd's query time-out, held in a buffer or retransmitted, reached PostgreSQL when the network healed and was made
after the answer `outcomeUnknown`).

The real parts: PostgreSQL in the database's namespace, depotd in a host's, the host's link taken down and up."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from depot_robustness.connection import call_once
from depot_robustness.daemon import Daemon
from depot_robustness.fleet import Postgres
from depot_robustness.network import Network

DEPOTD = os.environ.get("DEPOT_DEPOTD")
pytestmark = pytest.mark.skipif(
    DEPOTD is None or os.geteuid() != 0 or shutil.which("ip") is None or shutil.which("ss") is None,
    reason="needs DEPOT_DEPOTD, root, ip and ss",
)

OUTCOME_UNKNOWN = -32010


def call(daemon: Daemon, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return call_once(daemon.socket_path, method, params, 60)


def wait_until(condition: Any, what: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{what}: not within {timeout} s")


def sockets(network: Network, port: int) -> list[str]:
    """The states of the host's TCP sockets whose local port is `port` (depotd's end of one connection)."""
    command = [*network.enter(network.namespace(1)), "ss", "-H", "-t", "-a", "-n", "sport", "=", f":{port}"]
    listed = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return [line.split()[0] for line in listed.splitlines() if line.strip()]


def table(database: Postgres) -> list[str]:
    return database.psql("SELECT string_agg(id, ',' ORDER BY id) FROM items").split(",")


def test_a_write_answered_across_a_partition_is_not_made_when_the_network_heals() -> None:
    # Not pytest's tmp_path: the cluster runs as `postgres`, which cannot enter root's 0700 directories.
    tmp_path = Path(tempfile.mkdtemp(prefix="depot-partition."))
    os.chmod(tmp_path, 0o755)
    network = Network(1)
    database: Postgres | None = None
    daemon: Daemon | None = None
    try:
        database = Postgres(str(tmp_path / "postgres"), network)
        database.psql("""CREATE TABLE items (id text PRIMARY KEY, doc json NOT NULL);
                         INSERT INTO items VALUES ('a', '{"id": "a"}')""")
        os.makedirs(tmp_path / "daemon")
        # A two-second query time-out: the partition below outlasts it.
        source = database.uri(1) + "&connect_timeout=2"
        daemon = Daemon(
            str(DEPOTD), str(tmp_path / "daemon"), ["--source", source], prefix=network.enter(network.namespace(1))
        )
        daemon.start()
        wait_until(lambda: call(daemon, "state", {}).get("result", {}).get("status") == "success", "depotd loaded")
        port = int(database.psql("SELECT client_port FROM pg_stat_activity WHERE application_name = 'depotd'"))

        network.partition(1)
        answer: list[dict[str, Any]] = []
        writer = threading.Thread(target=lambda: answer.append(call(daemon, "put", {"id": "b", "item": {"id": "b"}})))
        writer.start()
        # depotd answers once it has settled the write, which needs the database: heal when it says it waits for
        # that — or when it answered without (the bug: the snapshot below then comes before the healing).
        assert daemon is not None
        wait_until(
            lambda: answer or "to settle it before answering" in Path(daemon.log_path).read_text(), "the write cut off"
        )
        if answer:
            snapshot = table(database)
            network.heal(1)
            writer.join()
        else:
            network.heal(1)
            writer.join()
            snapshot = table(database)
        assert answer[0].get("error", {}).get("code") == OUTCOME_UNKNOWN, answer[0]

        # Whatever reached the old connection's server process by now has: its end of the connection is gone, or was
        # closed by the server (TIME-WAIT: the backend read everything sent before it exited).
        wait_until(lambda: all(state == "TIME-WAIT" for state in sockets(network, port)), "the old connection ended")
        wait_until(lambda: "result" in call(daemon, "put", {"id": "c", "item": {"id": "c"}}), "a write after healing")
        assert table(database) == [*snapshot, "c"], "the write answered outcomeUnknown was made after its answer"
    finally:
        if daemon is not None:
            daemon.stop()
        if database is not None:
            database.stop()
        network.remove()
        shutil.rmtree(tmp_path, ignore_errors=True)
