"""Which reads the linearizability check leaves out as the cache-first start-up's: only those after a kill and
before the restarted daemon's state came from its source."""

from __future__ import annotations

from depot_robustness.history import History, Notification, Operation, StateRead, Subscription
from depot_robustness.startup import cache_first_reads


def get(at: float) -> Operation:
    return Operation(1, "get", at, at + 0.1, "ok", key="a", observed="{}")


def test_only_reads_between_a_kill_and_the_sources_answer_are_left_out() -> None:
    history = History(initial={}, kills=[10.0, 20.0])
    history.subscriptions.append(
        Subscription(
            0,
            0,
            "snapshot",
            None,
            None,
            {},
            [
                Notification(10.5, {"state": {"status": "success", "origin": "cache"}}),
                Notification(11.0, {"state": {"status": "success", "origin": "source"}}),
            ],
        )
    )
    history.reads.append(StateRead(0, 21.0, {"status": "success", "origin": "memory"}))
    history.operations = [get(5), get(10.2), get(10.9), get(11.5), get(20.5), get(22)]
    assert [operation.invoked for operation in cache_first_reads(history)] == [10.2, 10.9, 20.5]
