"""Which reads the linearizability check leaves out as the cache-first start-up's: only those after a kill and
before the restarted daemon's state came from its source."""

from __future__ import annotations

from depot_robustness.history import History, Notification, Operation, StateRead, Subscription
from depot_robustness.startup import cache_first_reads


def get(at: float) -> Operation:
    return Operation(1, "get", at, at + 0.1, "ok", key="a", observed="{}")


def test_only_reads_between_a_kill_and_the_sources_answer_are_left_out() -> None:
    history = History(initial={}, kills=[10.0, 20.0])
    states = [
        (9.0, "e1", "source"),
        # A state of the killed run, read from its socket after the kill: no sign the new run has its source.
        (10.1, "e1", "source"),
        (10.5, "e2", "cache"),
        (11.0, "e2", "source"),
    ]
    notifications = [
        Notification(at, {"state": {"epoch": epoch, "status": "success", "origin": origin}})
        for at, epoch, origin in states
    ]
    history.subscriptions.append(Subscription(0, 0, "snapshot", None, None, {}, notifications))
    history.reads.append(StateRead(0, 21.0, {"epoch": "e3", "status": "success", "origin": "memory"}))
    history.operations = [get(5), get(10.2), get(10.9), get(11.5), get(20.5), get(22)]
    assert [operation.invoked for operation in cache_first_reads(history)] == [10.2, 10.9, 20.5]
