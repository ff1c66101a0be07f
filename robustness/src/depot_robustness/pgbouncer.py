"""PgBouncer (Debian's) in transaction mode in front of the suite's PostgreSQL clusters, for the fleet benchmarks:
its own configuration in a directory, run as `postgres` (it refuses root), on a Unix socket there and on 127.0.0.1,
trusting `depot`."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from .fleet import as_postgres

PORT = 6432


class PgBouncer:
    """`databases` maps each name clients give to the socket directory and port of the cluster it reaches."""

    def __init__(self, directory: str, databases: dict[str, tuple[str, int]], pool: int, clients: int) -> None:
        self.directory = directory
        os.makedirs(directory)
        shutil.chown(directory, "postgres", "postgres")
        with open(os.path.join(directory, "users.txt"), "w") as users:
            users.write('"depot" ""\n')
        self.configuration = os.path.join(directory, "pgbouncer.ini")
        entries = "".join(
            f"{name} = host={socket} port={port} dbname=postgres\n" for name, (socket, port) in databases.items()
        )
        with open(self.configuration, "w") as ini:
            ini.write(
                f"[databases]\n{entries}\n"
                f"[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {PORT}\nunix_socket_dir = {directory}\n"
                f"auth_type = trust\nauth_file = {directory}/users.txt\nadmin_users = depot\npool_mode = transaction\n"
                f"default_pool_size = {pool}\nmax_client_conn = {2 * clients + 100}\n"
                f"logfile = {directory}/pgbouncer.log\npidfile = {directory}/pgbouncer.pid\n"
            )
        self.start()

    def start(self) -> None:
        subprocess.run(as_postgres("/usr/sbin/pgbouncer", "-d", self.configuration), check=True)
        deadline = time.monotonic() + 30
        while not os.path.exists(os.path.join(self.directory, f".s.PGSQL.{PORT}")):
            if time.monotonic() > deadline:
                raise RuntimeError("PgBouncer did not start")
            time.sleep(0.05)

    def pid(self) -> int | None:
        try:
            with open(os.path.join(self.directory, "pgbouncer.pid")) as pidfile:
                return int(pidfile.read().strip())
        except (FileNotFoundError, ValueError):
            return None

    def stop(self) -> None:
        """SIGTERM, and waits until it is gone: every client connection is cut."""
        pid = self.pid()
        if pid is None:
            return
        try:
            os.kill(pid, 15)
        except ProcessLookupError:
            return
        while os.path.exists(f"/proc/{pid}"):
            time.sleep(0.02)

    def uri(self, database: str, parameters: str, tcp: bool = False) -> str:
        """A depotd source through PgBouncer to `database`, table `items`: on its Unix socket, or by TCP on loopback."""
        if tcp:
            return f"postgres://depot@127.0.0.1:{PORT}/{database}?table=items&sslmode=disable&{parameters}"
        return f"postgres://depot@/{database}?host={self.directory}&port={PORT}&table=items&{parameters}"
