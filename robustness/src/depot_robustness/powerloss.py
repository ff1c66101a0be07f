"""Power cuts at random points of depotd's writes: its file and its state directory on the power-cut file system
(powercut.py), a few clients writing, and at a random instant the power goes — depotd killed, every unsynced byte
and directory entry forgotten — then depotd started again on what survived.

After every cut the file must parse (never torn, never missing) and hold every write depotd had answered: the file's
items after each cut are read into the history as observations at that instant, and the whole history is checked for
linearizability at the end, so a lost acknowledged write, a write half kept, or an item of no write shows as a
history no order explains. After every restart depotd must start, load, and hold exactly what the file holds."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import tempfile
import time
from dataclasses import dataclass, field

from .connection import Connection, Cut
from .daemon import Daemon
from .disk import Disk, sync
from .history import History, Operation, canonical, key_of
from .linearizability import Verdict, check
from .run import LAYOUTS, write_collection
from .traffic import Keys, Traffic, Writer, initial_items


@dataclass
class PowerLossReport:
    seed: int
    cuts: int
    seconds: float
    writes_answered: int
    landed: dict[str, int]
    linearizability: Verdict
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.linearizability.ok and not self.problems

    def text(self) -> str:
        lines = [
            f"power loss (seed {self.seed}): {self.cuts} cuts in {self.seconds:.0f} s, {self.writes_answered} writes "
            "answered before them",
            "  where the cuts landed (what they lost): "
            + ", ".join(f"{k} {v}" for k, v in sorted(self.landed.items())),
            f"  linearizability (every answered write kept, the file old or new): {self.linearizability.operations} "
            f"calls in {self.linearizability.parts} parts: "
            + ("ok" if self.linearizability.ok else "GAVE UP" if self.linearizability.gave_up else "VIOLATED"),
        ]
        if self.linearizability.problem:
            lines.append(f"  ! {self.linearizability.problem}")
        lines += [f"  ! {problem}" for problem in self.problems[:20]]
        return "\n".join(lines)


def _where(lost: list[str]) -> str:
    """A cut's place by what it lost: a file write under way (the temporary file, or the rename not yet synced), a
    cache write under way (SQLite's database or its write-ahead log; its shared-memory index is never synced, by
    design), both, or neither."""
    file = any(path.startswith("/source") for path in lost)
    cache = any(path.startswith("/state") and not path.endswith("-shm") for path in lost)
    if file and cache:
        return "during a file write and a cache write"
    return "during a file write" if file else "during a cache write" if cache else "with nothing unsynced"


def run_power_loss(
    depotd: str, cuts: int, seed: int | None = None, keep: bool = False, history_path: str | None = None
) -> PowerLossReport:
    seed = seed if seed is not None else random.randrange(1 << 32)
    rng = random.Random(seed)
    directory = tempfile.mkdtemp(prefix="depot-powerloss.")
    mount = os.path.join(directory, "disk")
    disk = Disk(mount)
    started = time.monotonic()
    problems: list[str] = []
    landed: dict[str, int] = {}
    keys = Keys(single=[1, 2, "s1", "s2"], grouped=[10, "g"])
    items = initial_items(keys)
    history = History(initial={key_of(item["id"]): canonical(item) for item in items})
    answered = 0
    try:
        source_directory = os.path.join(mount, "source")
        os.makedirs(source_directory)
        os.makedirs(os.path.join(mount, "state"))
        source_path = os.path.join(source_directory, "items.json")
        write_collection(source_path, items, rng.choice(sorted(LAYOUTS)))
        for path in (source_directory, mount):
            sync(path)
        daemon = Daemon(
            depotd, directory, ["--source", "file:" + source_path], source_path, state_home=os.path.join(mount, "state")
        )
        for number in range(cuts):
            try:
                daemon.start()
            except Exception as error:
                problems.append(f"cut {number}: depotd did not start on what survived: {error}")
                break
            problem = asyncio.run(_restarted_holds_the_file(daemon, source_path))
            if problem:
                problems.append(f"after cut {number}: {problem}")
            before = len(history.operations)
            asyncio.run(_write_until_the_cut(daemon, disk, keys, history, rng, landed, number))
            cut = time.monotonic()
            history.kills.append(cut)
            answered += sum(1 for operation in history.operations[before:] if operation.outcome == "ok")
            for operation in history.operations[before:]:
                if operation.returned is None:
                    operation.returned = cut
            try:
                with open(source_path) as file:
                    survived = json.load(file)
            except (OSError, ValueError) as error:
                problems.append(f"cut {number}: the file is torn or missing: {error}")
                break
            held = {key_of(item["id"]): canonical(item) for item in survived}
            for identifier in keys.all():
                key = key_of(identifier)
                history.operations.append(
                    Operation(
                        -2, "get", cut, cut + 1e-6, "ok" if key in held else "notFound", key=key, observed=held.get(key)
                    )
                )
        if history_path is not None:
            history.save(history_path)
        verdict = check(history.operations, history.initial)
        return PowerLossReport(seed, cuts, time.monotonic() - started, answered, landed, verdict, problems)
    finally:
        disk.close()
        if not keep:
            shutil.rmtree(directory, ignore_errors=True)


async def _restarted_holds_the_file(daemon: Daemon, source_path: str) -> str | None:
    async with await Connection.open(daemon.socket_path, lambda _: None) as connection:
        loaded = await connection.call("load", {"strategy": "upToDateWithFallback", "items": True}, 60)
    if "result" not in loaded:
        return f"depotd could not load what survived: {loaded.get('error')}"
    with open(source_path) as file:
        in_file = json.load(file)
    if canonical(loaded["result"].get("items")) != canonical(in_file):
        return f"depotd loaded {canonical(loaded['result'].get('items'))}, the file holds {canonical(in_file)}"
    return None


async def _write_until_the_cut(
    daemon: Daemon, disk: Disk, keys: Keys, history: History, rng: random.Random, landed: dict[str, int], number: int
) -> None:
    """One to three writers; after a few of their writes, the power goes at a random instant of the next."""
    traffic = Traffic(daemon.socket_path, history, keys, time.monotonic() + 60)
    # Client numbers new at every cut, so that every write's version (`v`, from the client's number) is new too.
    writers = [
        Writer(1000 + 10 * number + n, traffic, random.Random(rng.random()), batches=n == 0)
        for n in range(rng.randint(1, 3))
    ]

    async def write(writer: Writer) -> None:
        try:
            async with await Connection.open(daemon.socket_path, lambda _: None) as connection:
                while True:
                    await writer.step(connection)
        except (Cut, OSError):
            pass

    tasks = [asyncio.get_running_loop().create_task(write(writer)) for writer in writers]
    await asyncio.sleep(rng.uniform(0, 0.2))
    daemon.kill()
    lost = disk.cut()
    where = _where(lost)
    landed[where] = landed.get(where, 0) + 1
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
