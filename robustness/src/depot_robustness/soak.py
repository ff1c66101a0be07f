"""The soak: one depotd for hours under the suite's traffic, a fault about every minute, its resident memory, open
files and threads sampled all along, and every history checked.

The run is cut into rounds (a minute by default). Each round is a run of the traffic against the same daemon:
its own history, starting from what the file holds, checked in a process of its own while the next round runs (so
the traffic never pauses and the suite's memory does not grow with the run); at the end of each round every fault is
healed and the daemon, its file and its cache must agree. The faults are those that leave depotd running — a
freeze, failing fsyncs, the disk full — so that every sample is of one process: a kill or a power cut starts a new
one, whose memory says nothing of the old one's leaks (the other runs of the suite inject those).

The samples' trend is a least-squares line, after the first round (the daemon's warm-up: the allocator's arenas,
SQLite's page cache, the clients' first connections); its slope is given in percent of the mean per hour."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import sys
import tempfile
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context

from .daemon import Daemon
from .disk import Disk, sync
from .faults import Injector
from .history import History, canonical, key_of
from .linearizability import Verdict, check
from .run import LAYOUTS, RunSettings, final_reads, run_clients, tally, write_collection
from .traffic import Keys, Traffic, initial_items
from .watch import WatchVerdict, check_watch

SOAK_FAULTS = {"freeze", "eio", "full"}
"""The faults a soak injects: those that leave depotd running."""


@dataclass
class Sample:
    """depotd at one instant: seconds since the soak began, resident memory (KiB), open files, threads."""

    seconds: float
    rss_kib: int
    open_files: int
    threads: int


def sample(daemon: Daemon, began: float) -> Sample | None:
    """Reads /proc for the daemon's process; None when it is gone."""
    try:
        return Sample(time.monotonic() - began, daemon.resident_kib(), daemon.open_files(), daemon.threads())
    except (FileNotFoundError, ProcessLookupError):
        return None


def slope_percent_per_hour(points: list[tuple[float, float]]) -> float:
    """The least-squares slope of (seconds, value) in percent of the values' mean per hour; 0 for fewer than two
    points or a flat mean of zero."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    if spread == 0 or mean_v == 0:
        return 0.0
    slope = sum((t - mean_t) * (v - mean_v) for t, v in points) / spread
    return slope * 3600 / mean_v * 100


@dataclass
class RoundVerdict:
    """One round's checks: the watch guarantees, linearizability, and the agreement after healing."""

    number: int
    watch: WatchVerdict
    linearizability: Verdict
    final: list[str]

    @property
    def ok(self) -> bool:
        return self.watch.ok and self.linearizability.ok and not self.final


def check_round(number: int, history: History, final: list[str]) -> RoundVerdict:
    """Checks a round's history (in a process of its own)."""
    return RoundVerdict(number, check_watch(history), check(history.operations, history.initial), final)


@dataclass
class SoakReport:
    seed: int
    seconds: float
    rounds: list[RoundVerdict]
    samples: list[Sample]
    warmup: float
    calls: int = 0
    notifications: int = 0
    writes_and_reads: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    faults: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(verdict.ok for verdict in self.rounds)

    def trend(self, measure: str) -> float:
        return slope_percent_per_hour(
            [(s.seconds, float(getattr(s, measure))) for s in self.samples if s.seconds >= self.warmup]
        )

    def text(self) -> str:
        def span(measure: str, scale: float = 1) -> str:
            values = [getattr(s, measure) / scale for s in self.samples if s.seconds >= self.warmup]
            if not values:
                return "no samples"
            return (
                f"{values[0]:.1f} → {values[-1]:.1f} (min {min(values):.1f}, max {max(values):.1f}), "
                f"slope {self.trend(measure):+.2f} %/h"
            )

        violated = [verdict for verdict in self.rounds if not verdict.ok]
        lines = [
            f"soak (seed {self.seed}), {self.seconds / 60:.0f} min in {len(self.rounds)} rounds: {self.calls} calls, "
            f"{self.notifications} notifications, {self.writes_and_reads} reads and writes checked",
            f"  faults: {', '.join(f'{k} {v}' for k, v in sorted(self.faults.items())) or 'none'}",
            f"  outcomes: {', '.join(f'{k} {v}' for k, v in sorted(self.outcomes.items()))}",
            f"  after the first {self.warmup / 60:.1f} min (the warm-up), {len(self.samples)} samples in all:",
            f"    resident memory (MiB): {span('rss_kib', 1024)}",
            f"    open files: {span('open_files')}",
            f"    threads: {span('threads')}",
            f"  rounds: {len(self.rounds) - len(violated)} ok, {len(violated)} VIOLATED",
        ]
        for verdict in violated[:5]:
            lines += [f"  ! round {verdict.number}: {problem}" for problem in verdict.watch.problems[:5]]
            if verdict.linearizability.problem:
                lines.append(f"  ! round {verdict.number}: {verdict.linearizability.problem}")
            lines += [f"  ! round {verdict.number}: {problem}" for problem in verdict.final]
        return "\n".join(lines)


@dataclass
class SoakSettings:
    """A soak: the traffic's settings (`seconds` the whole soak's), how long a round is, and where the samples go."""

    run: RunSettings
    round_seconds: float = 60
    sample_every: float = 5
    samples_path: str | None = None
    svg_path: str | None = None


def run_soak(settings: SoakSettings) -> SoakReport:
    run = settings.run
    unknown = set(run.faults) - SOAK_FAULTS
    if unknown:
        raise ValueError(
            f"a soak injects only faults that leave depotd running ({', '.join(sorted(SOAK_FAULTS))}), "
            f"not {', '.join(sorted(unknown))}: the other runs of the suite inject those"
        )
    seed = run.chosen_seed()
    rng = random.Random(seed)
    directory = tempfile.mkdtemp(prefix="depot-soak.")
    keys = Keys.standard()
    items = initial_items(keys)
    disk = Disk(os.path.join(directory, "disk")) if run.faults and set(run.faults) - {"freeze"} else None
    home = disk.mountpoint if disk is not None else directory
    os.makedirs(os.path.join(home, "source"), exist_ok=True)
    os.makedirs(os.path.join(home, "state"), exist_ok=True)
    source_path = os.path.join(home, "source", "items.json")
    write_collection(source_path, items, rng.choice(sorted(LAYOUTS)))
    if disk is not None:
        for synced in (os.path.dirname(source_path), home):
            sync(synced)
    daemon = Daemon(
        run.depotd, directory, ["--source", "file:" + source_path], source_path, state_home=os.path.join(home, "state")
    )
    report = SoakReport(seed, run.seconds, [], [], warmup=min(settings.round_seconds, run.seconds / 5))
    daemon.start()
    try:
        assert daemon.process is not None
        pid = daemon.process.pid
        began = time.monotonic()
        ends = began + run.seconds
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as checkers:
            pending: list[Future[RoundVerdict]] = []

            async def sampler() -> None:
                while time.monotonic() < ends:
                    taken = sample(daemon, began)
                    if taken is None:
                        raise RuntimeError(f"depotd (pid {pid}) is gone; see {daemon.log_path}")
                    report.samples.append(taken)
                    await asyncio.sleep(settings.sample_every)

            async def rounds() -> None:
                number = 0
                while time.monotonic() < ends - 1:
                    number += 1
                    deadline = min(ends, time.monotonic() + settings.round_seconds)
                    with open(source_path) as file:
                        held = json.load(file)
                    history = History(initial={key_of(item["id"]): canonical(item) for item in held})
                    traffic = Traffic(
                        daemon.socket_path,
                        history,
                        keys,
                        deadline,
                        slow_watchers=run.slow_watchers,
                        tag_prefix=f"r{number}.",
                    )
                    injector = Injector(daemon, run.faults, run.interval, random.Random(rng.random()), deadline, disk)

                    async def faults(injector: Injector = injector, deadline: float = deadline) -> None:
                        # A fault about every `interval` seconds of the soak, each inside a round (a fault's healing
                        # is over before the round's checks): each round gets its share, at a random instant.
                        if not run.faults:
                            return
                        share = (deadline - time.monotonic()) / run.interval
                        for _ in range(int(share) + (1 if rng.random() < share % 1 else 0)):
                            await asyncio.sleep(rng.uniform(0.1, 0.8) * run.interval)
                            if time.monotonic() < deadline - 5:
                                await injector.inject(rng.choice(run.faults))

                    await run_clients(traffic, run.clients, rng, faults())
                    # Healed: thawed, failing fsyncs disarmed, the disk not full; then the daemon against its file.
                    daemon.thaw()
                    if disk is not None:
                        disk.command("eio 0")
                        disk.command("space")
                    final: list[str] = []
                    await final_reads(daemon, keys, history, final)
                    outcomes, kinds = tally(history.operations, [fault.kind for fault in injector.faults])
                    for target, source in (
                        (report.faults, kinds),
                        (report.outcomes, outcomes),
                        (report.counts, traffic.counts),
                    ):
                        for name, count in source.items():
                            target[name] = target.get(name, 0) + count
                    calls = traffic.calls
                    report.calls += calls
                    report.notifications += sum(len(s.notifications) for s in history.subscriptions)
                    report.writes_and_reads += len(history.operations)
                    # One round checked at a time: the next waits for the one before (the traffic with it), so that
                    # no more than two rounds' histories are ever held.
                    if pending:
                        await asyncio.wrap_future(pending[-1])
                    pending.append(checkers.submit(check_round, number, history, final))
                    del history, traffic
                    latest = report.samples[-1] if report.samples else None
                    figures = (
                        f"; RSS {latest.rss_kib / 1024:.1f} MiB, {latest.open_files} files, {latest.threads} threads"
                        if latest
                        else ""
                    )
                    minutes = (time.monotonic() - began) / 60
                    print(
                        f"soak: round {number} done at {minutes:.1f} min: {calls} calls, "
                        f"faults {sorted(kinds.items())}{figures}",
                        file=sys.stderr,
                        flush=True,
                    )

            async def everything() -> None:
                async with asyncio.TaskGroup() as group:
                    group.create_task(sampler())
                    group.create_task(rounds())

            asyncio.run(everything())
            report.rounds = [future.result() for future in pending]
        if settings.samples_path is not None:
            write_samples(report.samples, settings.samples_path)
        if settings.svg_path is not None:
            with open(settings.svg_path, "w") as file:
                file.write(plot(report))
        return report
    finally:
        daemon.stop()
        if disk is not None:
            disk.close()
        if not run.keep:
            shutil.rmtree(directory, ignore_errors=True)


def write_samples(samples: list[Sample], path: str) -> None:
    with open(path, "w") as file:
        file.write("seconds,rss_kib,open_files,threads\n")
        for s in samples:
            file.write(f"{s.seconds:.1f},{s.rss_kib},{s.open_files},{s.threads}\n")


def plot(report: SoakReport) -> str:
    """Three panels over time — resident memory, open files, threads — each with its fitted line, as an SVG."""
    width, panel, left, top = 760, 150, 70, 30
    height = top + 3 * (panel + 40)
    samples = report.samples
    end = max((s.seconds for s in samples), default=1) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        'font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="18" font-size="14">depotd over a {end / 3600:.1f}-hour soak (seed {report.seed}): '
        f"{len(samples)} samples, a fault about every minute</text>",
    ]
    measures = [
        ("rss_kib", "resident memory (MiB)", 1024.0),
        ("open_files", "open files", 1.0),
        ("threads", "threads", 1.0),
    ]
    for index, (measure, title, scale) in enumerate(measures):
        y0 = top + index * (panel + 40) + 20
        values = [getattr(s, measure) / scale for s in samples]
        high = max(values, default=1) * 1.1 or 1

        def x(seconds: float) -> float:
            return left + (width - left - 20) * seconds / end

        def y(value: float, y0: float = y0, high: float = high) -> float:
            return y0 + panel - panel * value / high

        parts.append(f'<text x="{left}" y="{y0 - 6}">{title}: slope {report.trend(measure):+.2f} % an hour</text>')
        parts.append(
            f'<rect x="{left}" y="{y0}" width="{width - left - 20}" height="{panel}" fill="none" stroke="#999"/>'
        )
        for fraction in (0, 0.5, 1):
            parts.append(
                f'<text x="{left - 6}" y="{y(high * fraction) + 4:.1f}" text-anchor="end">{high * fraction:.0f}</text>'
            )
        points = " ".join(f"{x(s.seconds):.1f},{y(v):.1f}" for s, v in zip(samples, values, strict=True))
        parts.append(f'<polyline points="{points}" fill="none" stroke="#1f6feb" stroke-width="1"/>')
        fitted = [(s.seconds, v) for s, v in zip(samples, values, strict=True) if s.seconds >= report.warmup]
        if len(fitted) >= 2:
            mean_v = sum(v for _, v in fitted) / len(fitted)
            mean_t = sum(t for t, _ in fitted) / len(fitted)
            slope = report.trend(measure) * mean_v / 100 / 3600
            first, last = fitted[0][0], fitted[-1][0]
            parts.append(
                f'<line x1="{x(first):.1f}" y1="{y(mean_v + slope * (first - mean_t)):.1f}" x2="{x(last):.1f}" '
                f'y2="{y(mean_v + slope * (last - mean_t)):.1f}" stroke="#d1242f" stroke-dasharray="4 3"/>'
            )
    parts.append(
        f'<text x="{left}" y="{height - 8}">hours: 0 to {end / 3600:.2f}; the dashed line is the fit after '
        f"the warm-up ({report.warmup / 60:.0f} min)</text>"
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
