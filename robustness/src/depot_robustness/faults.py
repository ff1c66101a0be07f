"""Faults injected while the traffic runs, each recorded with when it began and ended: the checkers use the kills'
times (a call left unanswered by a killed depotd took effect before the kill or never)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from .daemon import Daemon
from .disk import Disk

DISK_FAULTS = {"eio", "full", "power"}
"""The faults that need the file and the state directory on the power-cut file system."""


@dataclass
class Fault:
    kind: str
    began: float
    ended: float


async def next_fault(kinds: list[str], interval: float, rng: random.Random, deadline: float) -> str | None:
    """Waits `interval` seconds (spread by ±50 %), then names one of `kinds` at random; None once past `deadline`."""
    await asyncio.sleep(interval * rng.uniform(0.5, 1.5))
    return rng.choice(kinds) if time.monotonic() < deadline else None


async def each_fault(
    kinds: list[str], interval: float, rng: random.Random, deadline: float, inject: Callable[[str], Awaitable[None]]
) -> None:
    """Until `deadline`, every `interval` seconds (±50 %), `inject` of one of `kinds` at random."""
    if not kinds:
        return
    while (kind := await next_fault(kinds, interval, rng, deadline)) is not None:
        await inject(kind)


async def restart(daemon: Daemon) -> None:
    """`kill`: SIGKILL, then a restart on the same socket, source and state directory."""
    daemon.kill()
    await asyncio.to_thread(daemon.start)


async def freeze(daemon: Daemon, rng: random.Random) -> None:
    """`freeze`: SIGSTOP for 0.2 to 3 s, then SIGCONT (a frozen daemon: its clients wait, its socket fills)."""
    daemon.freeze()
    await asyncio.sleep(rng.uniform(0.2, 3))
    daemon.thaw()


@dataclass
class Injector:
    """Every `interval` seconds (spread by ±50 %), one of `kinds` at random:

    - `kill`: SIGKILL, then a restart on the same socket, source and state directory;
    - `freeze`: SIGSTOP for 0.2 to 3 s, then SIGCONT (a frozen daemon: its clients wait, its socket fills);
    - `eio`: the next one to three fsyncs on the disk fail with EIO (and forget what they were to keep);
    - `full`: the disk (the file's directory and the state directory) full for 0.2 to 2 s;
    - `power`: the power goes — depotd killed and every unsynced byte and entry lost — then depotd restarted."""

    daemon: Daemon
    kinds: list[str]
    interval: float
    rng: random.Random
    deadline: float
    disk: Disk | None = None
    faults: list[Fault] = field(default_factory=list)

    async def run(self) -> None:
        await each_fault(self.kinds, self.interval, self.rng, self.deadline, self.inject)

    async def inject(self, kind: str) -> None:
        """One fault of `kind`, recorded once it has healed."""
        began = time.monotonic()
        if kind in ("kill", "power"):
            self.daemon.kill()
            if kind == "power":
                assert self.disk is not None
                self.disk.cut()
            killed = time.monotonic()
            await asyncio.to_thread(self.daemon.start)
            self.faults.append(Fault(kind, began, killed))
        elif kind == "eio":
            assert self.disk is not None
            self.disk.command(f"eio {self.rng.randint(1, 3)}")
            self.faults.append(Fault(kind, began, began))
        elif kind == "full":
            assert self.disk is not None
            self.disk.command("full")
            await asyncio.sleep(self.rng.uniform(0.2, 2))
            self.disk.command("space")
            self.faults.append(Fault(kind, began, time.monotonic()))
        elif kind == "freeze":
            await freeze(self.daemon, self.rng)
            self.faults.append(Fault(kind, began, time.monotonic()))
        else:
            raise ValueError(f"unknown fault {kind}")

    def kills(self) -> list[float]:
        """When each killed depotd was gone, in order."""
        return sorted(fault.ended for fault in self.faults if fault.kind in ("kill", "power"))
