"""One run of the suite against a file source: depotd started on a file the run writes, the traffic and the faults
for a while, then every fault healed and everything checked."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from .connection import Connection
from .daemon import Daemon
from .disk import Disk, sync
from .faults import DISK_FAULTS, Injector
from .history import History, Operation, canonical, key_of
from .linearizability import Verdict, check
from .startup import cache_first_reads
from .traffic import Keys, Traffic, Watcher, Writer, initial_items
from .watch import WatchVerdict, check_watch

LAYOUTS = {
    "json.dump": {},
    "jq .": {"indent": 2},
    "an editor's": {"indent": 4},
    "compact": {"separators": (",", ":")},
}
"""How users' files are written: Python's json.dump, jq, an editor's four spaces, and compact."""


@dataclass
class Report:
    source: str
    seed: int
    seconds: float
    clients: int
    layout: str
    calls: int
    counts: dict[str, int]
    outcomes: dict[str, int]
    faults: dict[str, int]
    cuts: int
    restarts: int
    watch: WatchVerdict
    linearizability: Verdict
    final: list[str] = field(default_factory=list)
    left_out_reads: int = 0
    """Reads left out of the linearizability check: for a file, those answered from the cached list after a restart,
    before the source answered (startup.py)."""
    left_out: str = "reads of the cached list at start-up"
    agreement: str = "the daemon, its file and its cache agree"

    @property
    def ok(self) -> bool:
        return self.watch.ok and self.linearizability.ok and not self.final

    def text(self) -> str:
        lines = [
            f"{self.source} ({self.layout} layout, seed {self.seed}), {self.clients} clients, {self.seconds:.0f} s: "
            f"{self.calls} calls "
            f"({', '.join(f'{k} {v}' for k, v in sorted(self.counts.items()))})",
            f"  outcomes of reads and writes: {', '.join(f'{k} {v}' for k, v in sorted(self.outcomes.items()))}",
            f"  faults: {', '.join(f'{k} {v}' for k, v in sorted(self.faults.items())) or 'none'}; "
            f"{self.restarts} restarts, {self.cuts} calls or connections cut",
            f"  watch: {self.watch.subscriptions} subscriptions, {self.watch.notifications} notifications, "
            f"{self.watch.states_compared} states compared: {'ok' if self.watch.ok else 'VIOLATED'}",
            f"  linearizability: {self.linearizability.operations} calls in {self.linearizability.parts} parts "
            f"({self.left_out_reads} {self.left_out} left out): "
            + ("ok" if self.linearizability.ok else "GAVE UP" if self.linearizability.gave_up else "VIOLATED"),
            f"  after healing: {self.agreement if not self.final else 'DISAGREE'}",
        ]
        lines += [f"  ! {problem}" for problem in self.watch.problems[:20]]
        if self.linearizability.problem:
            lines.append(f"  ! {self.linearizability.problem}")
        lines += [f"  ! {problem}" for problem in self.final]
        return "\n".join(lines)


@dataclass
class RunSettings:
    """What one run of the traffic is given (`python3 -m depot_robustness`'s options): the same for every source."""

    depotd: str
    seconds: float
    clients: int = 50
    faults: list[str] = field(default_factory=list)
    interval: float = 3
    seed: int | None = None
    history_path: str | None = None
    keep: bool = False
    slow_watchers: float = 0.2

    def chosen_seed(self) -> int:
        """The seed given, or one drawn now (every report prints it, so a run can be repeated)."""
        return self.seed if self.seed is not None else random.randrange(1 << 32)


def write_collection(path: str, items: list[dict[str, Any]], layout: str) -> None:
    temporary = path + ".new"
    with open(temporary, "w") as file:
        json.dump(items, file, **LAYOUTS[layout])  # type: ignore[arg-type]
        file.write("\n")
        file.flush()
        os.fsync(file.fileno())
    os.rename(temporary, path)


def cached_items(state_directory: str) -> list[Any] | None:
    """The list depotd's on-disk cache holds (cache.sqlite, read as SQLite), or None without one."""
    path = os.path.join(state_directory, "cache.sqlite")
    if not os.path.exists(path):
        return None
    database = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        if database.execute("SELECT count(*) FROM collection").fetchone()[0] == 0:
            return None
        return [json.loads(row[0]) for row in database.execute("SELECT json FROM item ORDER BY position")]
    finally:
        database.close()


async def final_reads(daemon: Daemon, keys: Keys, history: History, problems: list[str]) -> None:
    """With every fault healed: a load, a get of every key (part of the history, so the linearizability check holds
    every acknowledged write to them), and the daemon's state against its file and its cache."""
    async with await Connection.open(daemon.socket_path, lambda _: None) as connection:
        loaded = await connection.call("load", {"strategy": "upToDateWithFallback"}, 60)
        if "result" not in loaded:
            problems.append(f"the load after healing failed: {loaded.get('error')}")
            return
        for identifier in keys.all():
            invoked = time.monotonic()
            answer = await connection.call("get", {"id": identifier}, 60)
            returned = time.monotonic()
            outcome = "ok" if "result" in answer else "notFound" if answer["error"]["code"] == -32003 else "error"
            history.operations.append(
                Operation(
                    -1,
                    "get",
                    invoked,
                    returned,
                    outcome,
                    key=key_of(identifier),
                    observed=canonical(answer["result"]) if outcome == "ok" else None,
                )
            )
        state = (await connection.call("state", {}, 60))["result"]
    assert daemon.source_path is not None
    with open(daemon.source_path) as file:
        in_file = json.load(file)
    if canonical(state.get("items")) != canonical(in_file):
        problems.append(f"depotd holds {canonical(state.get('items'))}, its file {canonical(in_file)}")
    # The cache is written after the answer: wait for it to agree, for a while.
    deadline = time.monotonic() + 20
    while canonical(cached := cached_items(daemon.state_directory)) != canonical(in_file):
        if time.monotonic() > deadline:
            problems.append(f"the cache holds {canonical(cached)}, the file {canonical(in_file)}")
            break
        await asyncio.sleep(0.05)


async def run_clients(
    traffic: Traffic, clients: int, rng: random.Random, injector: Coroutine[Any, Any, None], batches: bool = True
) -> None:
    """The traffic's clients — three in ten watchers, the rest writers, a sixth of them in batches (when the source
    takes them) — and the fault injector, together until the deadline."""
    watchers = max(1, clients * 3 // 10)
    writers = clients - watchers
    async with asyncio.TaskGroup() as group:
        for number in range(writers):
            in_batches = batches and number < max(1, writers // 6)
            group.create_task(Writer(number, traffic, random.Random(rng.random()), in_batches).run())
        for number in range(writers, clients):
            group.create_task(Watcher(number, traffic, random.Random(rng.random())).run())
        group.create_task(injector)


def tally(operations: list[Operation], faults: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """How many reads and writes ended each way (`write ok`, `get notFound`, …), and how many faults of each kind."""
    outcomes: dict[str, int] = {}
    for operation in operations:
        name = f"{operation.kind} {operation.outcome}"
        outcomes[name] = outcomes.get(name, 0) + 1
    kinds: dict[str, int] = {}
    for kind in faults:
        kinds[kind] = kinds.get(kind, 0) + 1
    return outcomes, kinds


def bound_unanswered(operations: list[Operation], kills: list[float]) -> None:
    """A call a killed depotd never answered took effect before the kill or never: its interval ends there."""
    for operation in operations:
        if operation.returned is None:
            later = [kill for kill in kills if kill >= operation.invoked]
            if later:
                operation.returned = later[0]


def run_file(settings: RunSettings) -> Report:
    seed = settings.chosen_seed()
    rng = random.Random(seed)
    depotd, seconds, clients, faults = settings.depotd, settings.seconds, settings.clients, settings.faults
    directory = tempfile.mkdtemp(prefix="depot-robustness.")
    keys = Keys.standard()
    items = initial_items(keys)
    layout = rng.choice(sorted(LAYOUTS))
    # The file and the state directory on the power-cut file system when a fault needs it, else on this disk.
    disk = Disk(os.path.join(directory, "disk")) if DISK_FAULTS & set(faults) else None
    home = disk.mountpoint if disk is not None else directory
    os.makedirs(os.path.join(home, "source"), exist_ok=True)
    os.makedirs(os.path.join(home, "state"), exist_ok=True)
    source_path = os.path.join(home, "source", "items.json")
    write_collection(source_path, items, layout)
    if disk is not None:
        for synced in (os.path.dirname(source_path), home):
            sync(synced)
    daemon = Daemon(
        depotd, directory, ["--source", "file:" + source_path], source_path, state_home=os.path.join(home, "state")
    )
    history = History(initial={key_of(item["id"]): canonical(item) for item in items})
    final: list[str] = []
    daemon.start()
    try:
        deadline = time.monotonic() + seconds
        traffic = Traffic(daemon.socket_path, history, keys, deadline, slow_watchers=settings.slow_watchers)
        injector = Injector(daemon, faults, settings.interval, random.Random(rng.random()), deadline, disk)

        async def everything() -> None:
            await run_clients(traffic, clients, rng, injector.run())
            if not daemon.alive():
                daemon.start()
            daemon.thaw()
            await final_reads(daemon, keys, history, final)

        asyncio.run(everything())
        history.kills = injector.kills()
        bound_unanswered(history.operations, history.kills)
        if settings.history_path is not None:
            history.save(settings.history_path)
        stale = {id(operation) for operation in cache_first_reads(history)}
        checked = [operation for operation in history.operations if id(operation) not in stale]
        outcomes, kinds = tally(history.operations, [fault.kind for fault in injector.faults])
        return Report(
            source="file",
            seed=seed,
            seconds=seconds,
            clients=clients,
            layout=layout,
            calls=traffic.calls,
            counts=traffic.counts,
            outcomes=outcomes,
            faults=kinds,
            cuts=traffic.cuts,
            restarts=daemon.starts - 1,
            watch=check_watch(history),
            linearizability=check(checked, history.initial),
            final=final,
            left_out_reads=len(stale),
        )
    finally:
        daemon.stop()
        if disk is not None:
            disk.close()
        if not settings.keep:
            shutil.rmtree(directory, ignore_errors=True)
