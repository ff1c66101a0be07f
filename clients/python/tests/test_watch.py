"""Watches and the mirror against the real depotd: deltas applied in order, resumption after a dropped connection,
a resync after a restart, and asyncio."""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path
from typing import Callable, List

import pytest
from conftest import Daemon, Relay, write_items

import depot


def seqs(states: List[depot.State]) -> List[int]:
    return [state.seq for state in states]


def caught_up(state: depot.State) -> Callable[[depot.Mirror], bool]:
    """Whether a mirror holds `state`'s seq."""
    return lambda mirror: mirror.state is not None and mirror.state.seq == state.seq


def test_mirror_equals_state_after_500_random_changes(workdir: Path) -> None:
    running = Daemon(workdir, ["--no-cache", "--no-watch-file"])
    generator = random.Random(28)
    changes: List[depot.Mirror] = []
    try:
        with depot.connect(running.socket, timeout=60) as d, depot.Mirror(d, on_change=changes.append) as mirror:
            next_id = 1000
            for step in range(500):
                state = d.state()
                held = [item["id"] for item in state.items or []]
                choice = generator.random()
                if choice < 0.6 and held:
                    d.remove(generator.choice(held), optimistic=generator.random() < 0.5)
                elif choice < 0.9:
                    # The source gains a few items and loses none: the load's delta adds them where they stand.
                    write_items(running.items_file, generator.randint(1, 5), start=next_id)
                    next_id += 10
                    d.load()
                else:
                    d.wipe()
                if step % 100 == 99:
                    target = d.state()
                    assert mirror.wait_for(caught_up(target), timeout=30)
                    assert mirror.items == (target.items or [])
            final = d.state()
            assert mirror.wait_for(caught_up(final), timeout=30)
            assert mirror.items == (final.items or [])
            assert mirror.by_id == {str(item["id"]): item for item in final.items or []}
            assert mirror.state is not None and mirror.state.epoch == final.epoch
            assert len(changes) >= 500
    finally:
        running.stop()


def test_watch_applies_deltas_in_order(daemon: Daemon) -> None:
    with depot.connect(daemon.socket, timeout=30) as d:
        watch = d.watch()
        first = next(watch)
        assert first.status is depot.Status.SUCCESS and first.count == 20
        d.remove(5, optimistic=True)
        optimistic, confirmed = next(watch), next(watch)
        assert seqs([first, optimistic, confirmed]) == [first.seq, first.seq + 1, first.seq + 2]
        assert [item["id"] for item in optimistic.items or []] == [i for i in range(1, 21) if i != 5]
        assert confirmed.items == optimistic.items and confirmed.origin is depot.Origin.SOURCE
        watch.close()


def test_follow_resumes_after_a_dropped_connection(daemon: Daemon, workdir: Path) -> None:
    """The watch's connection goes through a relay that cuts it; removals happen while the watch is away; it comes
    back, resumes after the last state it yielded, and gets every state it missed, once, in order."""
    relay = Relay(daemon.socket, str(workdir / "relay.sock"))
    try:
        with depot.connect(relay.path, timeout=30) as watching, depot.connect(daemon.socket, timeout=30) as d:
            watch = watching.watch(follow=True, heartbeat=1.0)
            first = next(watch)
            relay.cut()
            for item in (1, 2, 3):
                d.remove(item)
            final = d.state()
            states = [first]
            while states[-1].seq < final.seq:
                states.append(next(watch))
            assert seqs(states) == list(range(first.seq, final.seq + 1)), "nothing missed or doubled"
            assert not any(state.resync for state in states)
            assert states[-1].items == final.items
            assert relay.accepted == 2
            watch.close()
    finally:
        relay.close()


def test_follow_resyncs_across_a_restart(daemon: Daemon) -> None:
    """A restart is a new epoch: the first state after it is marked resync and replaces what was held."""
    with depot.connect(daemon.socket, timeout=30) as d:
        watch = d.watch(follow=True, heartbeat=1.0)
        first = next(watch)
        daemon.restart()
        write_items(daemon.items_file, 3)
        after = next(watch)
        assert after.epoch != first.epoch
        assert after.resync is True
        current = d.state()
        while after.seq < current.seq:
            after = next(watch)
        assert after.items == current.items
        watch.close()


def test_mirror_waits_and_calls_back(daemon: Daemon) -> None:
    seen: List[int] = []
    called = threading.Event()

    def on_change(mirror: depot.Mirror) -> None:
        if mirror.state is not None:
            seen.append(mirror.state.seq)
            called.set()

    with depot.connect(daemon.socket, timeout=30) as d, depot.Mirror(d, on_change=on_change) as mirror:
        assert mirror.wait_for(lambda m: len(m.items) == 20, timeout=30)
        d.remove(7)
        assert mirror.wait_for(lambda m: "7" not in m.by_id, timeout=30)
        assert called.is_set() and seen == sorted(seen)
        assert mirror.wait_for(lambda m: len(m.items) == 99, timeout=0.1) is False


def test_asyncio(daemon: Daemon) -> None:
    async def main() -> None:
        async with depot.aio.connect(daemon.socket, timeout=30) as d:
            state = await d.state()
            assert state.count == 20
            answers = await asyncio.gather(*(d.get(1 + index % 20) for index in range(1000)))
            assert [item["id"] for item in answers] == [1 + index % 20 for index in range(1000)]
            assert (await d.whoami()).uid >= 0 and (await d.stats()).items == 20
            watch = d.watch()
            first = await watch.__anext__()
            assert first.count == 20
            removal = asyncio.ensure_future(d.remove(2, optimistic=True))
            optimistic = await watch.__anext__()
            assert [item["id"] for item in optimistic.items or []][:2] == [1, 3]
            assert (await removal).count == 19
            await watch.aclose()
            try:
                await d.get(999)
            except depot.NotFound as problem:
                assert problem.code == -32003
            else:
                raise AssertionError("get of a missing id must raise NotFound")
        d2 = await depot.aio.connect(daemon.socket)
        assert (await d2.state()).count == 19
        await d2.close()

    asyncio.run(main())


def test_asyncio_follow_resumes_after_a_dropped_connection(daemon: Daemon, workdir: Path) -> None:
    relay = Relay(daemon.socket, str(workdir / "relay.sock"))

    async def main() -> None:
        async with depot.aio.connect(relay.path, timeout=30) as watching, depot.aio.connect(daemon.socket) as d:
            watch = watching.watch(follow=True, heartbeat=1.0)
            states = [await watch.__anext__()]
            relay.cut()
            for item in (4, 5):
                await d.remove(item)
            final = await d.state()
            while states[-1].seq < final.seq:
                states.append(await watch.__anext__())
            assert seqs(states) == list(range(states[0].seq, final.seq + 1)), "nothing missed or doubled"
            assert states[-1].items == final.items and relay.accepted == 2
            await watch.aclose()

    try:
        asyncio.run(main())
    finally:
        relay.close()


def test_mirror_keeps_the_last_success_and_reports_an_ended_subscription(daemon: Daemon) -> None:
    """After a wipe `.items` is empty (the state is idle) and `.last_success` still has the list; a mirror that follows
    a named pipeline which is then deleted stops with SubscriptionEnded, which `wait_for` raises."""
    with depot.connect(daemon.socket, timeout=30) as d:
        d.pipelines.put("first", [{"op": "limit", "count": 2}])
        with depot.Mirror(d) as mirror, depot.Mirror(d, "first") as limited:
            assert limited.wait_for(lambda m: len(m.items) == 2, timeout=30)
            assert mirror.wait_for(lambda m: len(m.items) == 20, timeout=30)
            d.wipe()
            assert mirror.wait_for(lambda m: m.state is not None and m.state.status is depot.Status.IDLE, timeout=30)
            assert mirror.items == [] and mirror.by_id == {}
            assert mirror.last_success is not None and len(mirror.last_success.items or []) == 20
            d.pipelines.delete("first")
            with pytest.raises(depot.SubscriptionEnded):
                limited.wait_for(lambda m: False, timeout=30)
            assert isinstance(limited.error, depot.SubscriptionEnded)
