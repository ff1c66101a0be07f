"""One run of the suite against a fleet: three depotd on one PostgreSQL table, each daemon on a host of its own (a
network namespace linked to the database's), the traffic spread over them, daemons killed, frozen and cut off, and
the database restarted, hung and slowed while it runs; then every fault healed and everything checked.

What is checked differs from a file source's in one way, by design: a daemon's `get` answers from its memory, which
follows the other daemons' writes through the change feed, a moment later — so reads are not linearizable across
daemons, and are left out (counted). Writes are: each is one statement with its precondition in it, decided by the
database (README, "A fleet"). A conflict's item and a put's `created` come from the daemon's view and are not
held to the model either."""

from __future__ import annotations

import asyncio
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from .connection import Connection
from .daemon import Daemon
from .faults import Fault, each_fault, freeze, restart
from .history import JSON, UNSEEN, History, canonical, key_of
from .linearizability import check
from .network import Network
from .run import Report, RunSettings, run_clients, tally
from .traffic import Keys, Traffic, initial_items
from .watch import check_watch


def _postgres_bin() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed (scripts/install-dependencies installs it)")
    return found[-1]


def as_postgres(*command: str) -> list[str]:
    """`command`, run as the `postgres` user (PostgreSQL's and PgBouncer's programs refuse root)."""
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", *command]


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU of `pids` so far, in seconds (those gone are left out)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue
    return total / ticks


def cluster_processes(data: str) -> list[int]:
    """The processes of the cluster in `data`: its postmaster and every backend and worker it started; none while it
    is stopped."""
    try:
        with open(os.path.join(data, "postmaster.pid")) as file:
            postmaster = int(file.readline())
    except (FileNotFoundError, ValueError):
        return []
    found = [postmaster]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    # The parent's pid is the second field after the command's closing parenthesis.
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == postmaster:
                        found.append(int(entry))
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                continue
    return found


class Postgres:
    """A cluster initdb'd in `directory` and run as `postgres` in the network's database namespace, listening on the
    database's end of every host's link (and on its socket in `directory`, for the run's own statements)."""

    port = 5432

    def __init__(self, directory: str, network: Network) -> None:
        self.bin = _postgres_bin()
        self.directory = directory
        self.network = network
        self.data = os.path.join(directory, "data")
        os.makedirs(directory, mode=0o700)
        shutil.chown(directory, "postgres", "postgres")
        self._as_postgres(
            "initdb", "-D", self.data, "-U", "depot", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"
        )
        with open(os.path.join(self.data, "pg_hba.conf"), "a") as hba:
            hba.write(f"host all all 10.{network.octet}.0.0/16 trust\n")
        self.start()

    def _as_postgres(self, program: str, *arguments: str, check: bool = True) -> None:
        command = [*self.network.enter(self.network.database), *as_postgres(f"{self.bin}/{program}", *arguments)]
        subprocess.run(
            command, check=check, capture_output=True, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}
        )

    def start(self) -> None:
        listen = ",".join(self.network.addresses())
        options = f"-k {self.directory} -p {self.port} -c listen_addresses='{listen}' -c max_connections=50"
        log = os.path.join(self.directory, "server.log")
        self._as_postgres("pg_ctl", "-D", self.data, "-l", log, "-o", options, "-w", "start")

    def restart(self) -> None:
        """As after a crash: stopped at once (`immediate`: no checkpoint, every connection cut), then started."""
        self._as_postgres("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        self.start()

    def stop(self) -> None:
        self._as_postgres("pg_ctl", "-D", self.data, "-m", "immediate", "stop", check=False)

    def processes(self) -> list[int]:
        """The server's processes: the postmaster and every backend and worker it started."""
        return cluster_processes(self.data)

    def signal(self, number: int) -> None:
        for pid in self.processes():
            try:
                os.kill(pid, number)
            except ProcessLookupError:
                continue

    def psql(self, sql: str) -> str:
        command = [f"{self.bin}/psql", "-h", self.directory, "-p", str(self.port), "-U", "depot", "-d", "postgres"]
        arguments = ["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql]
        return subprocess.run([*command, *arguments], check=True, capture_output=True, text=True).stdout.strip()

    def items(self) -> list[JSON]:
        """The table's documents in the order depotd lists them (ids byte by byte)."""
        text = self.psql("SELECT coalesce(json_agg(doc ORDER BY id COLLATE \"C\"), '[]') FROM items")
        items: list[JSON] = json.loads(text)
        return items

    def uri(self, host: int) -> str:
        """The source URI of the daemon on host `host`: the database's end of its link."""
        address = self.network.database_address(host)
        return f"postgres://depot@{address}:{self.port}/postgres?sslmode=disable&poll_interval=1"


@dataclass
class FleetInjector:
    """Every `interval` seconds (±50 %), one of `kinds`:

    - `kill`: one daemon SIGKILLed and restarted; `freeze`: one stopped for 0.2 to 3 s;
    - `partition`: one daemon's host cut off from the database (its link down) for 0.5 to 15 s: its connections hang
      (past depotd's 10-s time-outs, at times);
    - `pg-restart`: the database crashed and restarted (every daemon loses its connection);
    - `pg-hang`: the database stopped (SIGSTOP, every process of it) for 0.5 to 4 s: statements hang, nothing fails;
    - `pg-slow`: the database slow for 3 s — stopped 40 ms of every 80 — so every statement takes longer."""

    daemons: list[Daemon]
    database: Postgres
    network: Network
    kinds: list[str]
    interval: float
    rng: random.Random
    deadline: float
    faults: list[Fault] = field(default_factory=list)

    async def run(self) -> None:
        await each_fault(self.kinds, self.interval, self.rng, self.deadline, self.inject)

    async def inject(self, kind: str) -> None:
        """One fault of `kind` (of a daemon drawn at random, for those of one), recorded once it has healed."""
        host = self.rng.randrange(len(self.daemons))
        daemon = self.daemons[host]
        began = time.monotonic()
        if kind == "kill":
            await restart(daemon)
        elif kind == "freeze":
            await freeze(daemon, self.rng)
        elif kind == "partition":
            self.network.partition(host + 1)
            try:
                await asyncio.sleep(self.rng.uniform(0.5, 15))
            finally:
                self.network.heal(host + 1)
        elif kind == "pg-restart":
            await asyncio.to_thread(self.database.restart)
        elif kind == "pg-hang":
            self.database.signal(signal.SIGSTOP)
            try:
                await asyncio.sleep(self.rng.uniform(0.5, 4))
            finally:
                self.database.signal(signal.SIGCONT)
        elif kind == "pg-slow":
            try:
                for _ in range(int(3 / 0.08)):
                    self.database.signal(signal.SIGSTOP)
                    await asyncio.sleep(0.04)
                    self.database.signal(signal.SIGCONT)
                    await asyncio.sleep(0.04)
            finally:
                self.database.signal(signal.SIGCONT)
        else:
            raise ValueError(f"unknown fault {kind}")
        self.faults.append(Fault(kind, began, time.monotonic()))


def fleet_keys() -> Keys:
    """String ids only: the table's key column is text."""
    return Keys(single=[f"s{n}" for n in range(1, 9)], grouped=["g1", "g2", "g3", "g4"])


async def _converged(daemons: list[Daemon], database: Postgres, problems: list[str]) -> None:
    """With every fault healed: each daemon, after a load, holds what the table holds (waiting for the feed a while)."""
    expected = canonical(database.items())
    for number, daemon in enumerate(daemons):
        deadline = time.monotonic() + 60
        held: str | None = None
        seen = ""
        while True:
            try:
                async with await Connection.open(daemon.socket_path, lambda _: None) as connection:
                    loaded = await connection.call("load", {"strategy": "upToDateWithFallback"}, 60)
                    state = (await connection.call("state", {}, 60)).get("result", {})
                    held = canonical(state.get("items"))
                    seen = f"load answered {canonical(loaded)[:300]}, state {state.get('status')}"
            except (OSError, TimeoutError) as error:
                held, seen = None, f"no answer: {error!r}"
            if held == expected:
                break
            if time.monotonic() > deadline:
                problems.append(
                    f"daemon {number} holds {held} ({seen}), the table {expected}; its log ends:\n{daemon.log_tail()}"
                )
                break
            await asyncio.sleep(0.2)


def run_fleet(settings: RunSettings, daemons: int = 3) -> Report:
    seed = settings.chosen_seed()
    rng = random.Random(seed)
    directory = tempfile.mkdtemp(prefix="depot-robustness-fleet.")
    os.chmod(directory, 0o755)
    keys = fleet_keys()
    items = initial_items(keys)
    network = Network(daemons)
    fleet: list[Daemon] = []
    database: Postgres | None = None
    try:
        database = Postgres(os.path.join(directory, "postgres"), network)
        rows = ", ".join(f"('{item['id']}', '{json.dumps(item, separators=(',', ':'))}')" for item in items)
        database.psql(f"CREATE TABLE items (id text PRIMARY KEY, doc json NOT NULL); INSERT INTO items VALUES {rows};")
        for number in range(daemons):
            home = os.path.join(directory, f"daemon{number}")
            os.makedirs(home)
            fleet.append(
                Daemon(
                    settings.depotd,
                    home,
                    ["--source", database.uri(number + 1)],
                    prefix=network.enter(network.namespace(number + 1)),
                )
            )
        for daemon in fleet:
            daemon.start()
        history = History(initial={key_of(item["id"]): canonical(item) for item in items})
        final: list[str] = []
        deadline = time.monotonic() + settings.seconds
        traffic = Traffic(fleet[0].socket_path, history, keys, deadline, slow_watchers=settings.slow_watchers)
        traffic.other_sockets = [daemon.socket_path for daemon in fleet[1:]]
        injector = FleetInjector(
            fleet, database, network, settings.faults, settings.interval, random.Random(rng.random()), deadline
        )

        async def everything() -> None:
            await run_clients(traffic, settings.clients, rng, injector.run())
            assert database is not None
            database.signal(signal.SIGCONT)
            for daemon in fleet:
                if not daemon.alive():
                    daemon.start()
                daemon.thaw()
            await _converged(fleet, database, final)

        asyncio.run(everything())
        if settings.history_path is not None:
            history.save(settings.history_path)
        # Reads answer from each daemon's memory, which follows the others' writes a moment later: left out. A
        # conflict's item and a put's `created` are the daemon's view: not held to the model.
        writes = [operation for operation in history.operations if operation.kind == "write"]
        for operation in writes:
            operation.created = None
            if operation.outcome == "conflict":
                operation.observed = UNSEEN
        outcomes, kinds = tally(history.operations, [fault.kind for fault in injector.faults])
        return Report(
            source=f"PostgreSQL fleet of {daemons}",
            seed=seed,
            seconds=settings.seconds,
            clients=settings.clients,
            layout="table",
            calls=traffic.calls,
            counts=traffic.counts,
            outcomes=outcomes,
            faults=kinds,
            cuts=traffic.cuts,
            restarts=sum(daemon.starts - 1 for daemon in fleet),
            watch=check_watch(history),
            linearizability=check(writes, history.initial),
            final=final,
            left_out_reads=len(history.operations) - len(writes),
            left_out="reads (each daemon's memory follows the others' writes a moment later)",
            agreement="every daemon holds what the table holds",
        )
    finally:
        for daemon in fleet:
            if daemon.process is not None:
                daemon.stop()
        if database is not None:
            database.stop()
        network.remove()
        if not settings.keep:
            shutil.rmtree(directory, ignore_errors=True)
