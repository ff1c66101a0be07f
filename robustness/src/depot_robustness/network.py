"""A fleet's multi-host network, made of network namespaces: one for the database, one per daemon, each joined to the
database's by a veth pair on a /24 of its own (host i is 10.X.i.2, the database's side of its link 10.X.i.1). A host
is partitioned by taking its link down on the database's side: its connections hang, as across a cut cable (no reset
reaches either end), and it can open none, until the link comes up again. Needs root and `ip`."""

from __future__ import annotations

import random
import subprocess


def _ip(*arguments: str) -> None:
    subprocess.run(["ip", *arguments], check=True, capture_output=True, text=True)


class Network:
    def __init__(self, hosts: int) -> None:
        self.hosts = hosts
        self.tag = f"{random.randrange(0x10000):04x}"
        self.octet = 100 + random.randrange(150)
        self.database = f"depot-{self.tag}-db"
        self.made: list[str] = []
        try:
            self._add_namespace(self.database)
            for host in range(1, hosts + 1):
                namespace = self.namespace(host)
                self._add_namespace(namespace)
                _ip(
                    "link", "add", self.link(host), "netns", self.database,
                    "type", "veth", "peer", "name", self._peer(host), "netns", namespace,
                )  # fmt: skip
                _ip("-n", self.database, "addr", "add", f"{self.database_address(host)}/24", "dev", self.link(host))
                _ip("-n", namespace, "addr", "add", f"10.{self.octet}.{host}.2/24", "dev", self._peer(host))
                _ip("-n", self.database, "link", "set", self.link(host), "up")
                _ip("-n", namespace, "link", "set", self._peer(host), "up")
        except BaseException:
            self.remove()
            raise

    def _add_namespace(self, name: str) -> None:
        _ip("netns", "add", name)
        self.made.append(name)
        _ip("-n", name, "link", "set", "lo", "up")

    def namespace(self, host: int) -> str:
        return f"depot-{self.tag}-h{host}"

    def link(self, host: int) -> str:
        """The database's end of host `host`'s link."""
        return f"d{self.tag}d{host}"

    def _peer(self, host: int) -> str:
        return f"d{self.tag}h{host}"

    def database_address(self, host: int) -> str:
        """Where host `host` reaches the database."""
        return f"10.{self.octet}.{host}.1"

    def addresses(self) -> list[str]:
        return [self.database_address(host) for host in range(1, self.hosts + 1)]

    def partition(self, host: int) -> None:
        _ip("-n", self.database, "link", "set", self.link(host), "down")

    def heal(self, host: int) -> None:
        _ip("-n", self.database, "link", "set", self.link(host), "up")

    def enter(self, namespace: str) -> list[str]:
        """The prefix that runs a command in `namespace`."""
        return ["ip", "netns", "exec", namespace]

    def remove(self) -> None:
        """Deletes every namespace made (their veth pairs go with them)."""
        for name in reversed(self.made):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        self.made.clear()
