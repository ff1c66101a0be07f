"""put, patch, apply and conditional writes against the real depotd: typed answers, the Conflict error with the item
as it is now, the Mirror's `pending`, and the same on asyncio."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from conftest import Daemon

import depot


def test_put_patch_apply(daemon: Daemon) -> None:
    with depot.connect(daemon.socket, timeout=30) as d:
        created = d.put(21, {"name": "item 21"}, if_absent=True)
        assert created.created and created.state.count == 21
        assert d.get(21) == {"id": 21, "name": "item 21"}
        versioned = d.get(21, meta=True)
        assert versioned == depot.Versioned({"id": 21, "name": "item 21"}, created.etag)
        patched = d.patch(21, {"name": "twenty-one"}, if_match=created.etag)
        assert not patched.created and patched.etag != created.etag
        replaced = d.patch(21, [{"op": "replace", "path": "/name", "value": "21"}], json_patch=True)
        assert d.get(21) == {"id": 21, "name": "21"}
        applied = d.apply([{"op": "remove", "id": 21, "ifMatch": replaced.etag}, {"op": "put", "id": 22, "item": {}}])
        assert applied.etags[0] is None and isinstance(applied.etags[1], str)
        assert applied.state.count == 21
    written = json.loads(daemon.items_file.read_text())
    assert written[-1] == {"id": 22}


def test_conflict_carries_the_item_as_it_is(daemon: Daemon) -> None:
    with depot.connect(daemon.socket, timeout=30) as d:
        held = d.get(5, meta=True)
        d.patch(5, {"name": "changed by another"})
        with pytest.raises(depot.Conflict) as conflict:
            d.put(5, {"name": "mine"}, if_match=held.etag)
        assert conflict.value.code == -32008
        assert conflict.value.item == {"id": 5, "name": "changed by another"}
        assert conflict.value.etag == d.get(5, meta=True).etag
        assert conflict.value.state is not None and conflict.value.state.count == 20
        with pytest.raises(depot.Conflict) as gone:
            d.remove(404, if_match="0123")
        assert gone.value.item is None and gone.value.etag is None
        with pytest.raises(depot.NotFound) as missing:
            d.apply([{"op": "patch", "id": 1, "patch": {}}, {"op": "patch", "id": 404, "patch": {}}])
        assert missing.value.index == 1


def test_read_modify_write_loses_nothing(daemon: Daemon) -> None:
    """Four threads each add 25 to a counter with if_match, retrying on Conflict: it ends at exactly 100."""
    with depot.connect(daemon.socket, timeout=30) as d:
        d.put("counter", {"n": 0})

        def add(times: int) -> None:
            with depot.connect(daemon.socket, timeout=30) as mine:
                done = 0
                while done < times:
                    held = mine.get("counter", meta=True)
                    try:
                        mine.put("counter", {"n": held.item["n"] + 1}, if_match=held.etag)
                        done += 1
                    except depot.Conflict:
                        continue

        threads = [threading.Thread(target=add, args=(25,)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert d.get("counter") == {"id": "counter", "n": 100}


def test_mirror_shows_pending_writes(daemon: Daemon) -> None:
    with depot.connect(daemon.socket, timeout=30) as d, depot.Mirror(d) as mirror:
        assert mirror.wait_for(lambda m: len(m.items) == 20, timeout=30)
        d.patch(1, {"name": "one"}, optimistic=True)
        assert mirror.wait_for(lambda m: m.by_id.get("1", {}).get("name") == "one" and m.pending == 0, timeout=30)
        assert mirror.state is not None and mirror.state.pending == 0


def test_asyncio_writes(daemon: Daemon) -> None:
    async def run() -> None:
        async with depot.aio.connect(daemon.socket, timeout=30) as d:
            written = await d.put("a", {"v": 1})
            versioned = await d.get("a", meta=True)
            assert versioned.etag == written.etag
            await d.patch("a", {"v": 2}, if_match=versioned.etag)
            with pytest.raises(depot.Conflict):
                await d.patch("a", {"v": 3}, if_match=versioned.etag)
            applied = await d.apply([{"op": "remove", "id": "a"}], optimistic=True)
            assert applied.etags == [None]

    asyncio.run(run())
