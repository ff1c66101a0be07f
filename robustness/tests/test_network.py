"""The fleet's network of namespaces: a host reaches the database on its link, not once it is partitioned, and again
once healed; the namespaces go when it is removed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from depot_robustness.network import Network

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None, reason="network namespaces need root and ip"
)

LISTEN = """
import socket, sys
server = socket.create_server((sys.argv[1], 5432))
print("ready", flush=True)
while True:
    connection, _ = server.accept()
    connection.sendall(b"hello")
    connection.close()
"""

CONNECT = """
import socket, sys
try:
    with socket.create_connection((sys.argv[1], 5432), timeout=1) as connection:
        print(connection.recv(5).decode())
except OSError as error:
    print(type(error).__name__)
"""


def reach(network: Network, host: int) -> str:
    command = [*network.enter(network.namespace(host)), sys.executable, "-c", CONNECT, network.database_address(host)]
    return subprocess.run(command, capture_output=True, text=True, timeout=30).stdout.strip()


def test_a_partitioned_host_cannot_reach_the_database_until_healed() -> None:
    network = Network(2)
    try:
        listener = subprocess.Popen(
            [*network.enter(network.database), sys.executable, "-c", LISTEN, network.database_address(1)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert listener.stdout is not None and listener.stdout.readline().strip() == "ready"
            assert reach(network, 1) == "hello"
            network.partition(1)
            assert reach(network, 1) in ("TimeoutError", "timeout")
            network.heal(1)
            assert reach(network, 1) == "hello"
        finally:
            listener.kill()
            listener.wait()
    finally:
        names = list(network.made)
        network.remove()
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not any(name in listed for name in names)
