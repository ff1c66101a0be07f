"""A restarted depotd shows its cached list at once, before its source has answered (README, "On-disk cache and
retrieval strategies": `returnMultipleTimes` at start-up, the state's origin `cache`). A write the killed daemon made
at its source but never answered is in the source and not in the cache, so until the source answers, a read may see
the item as it was before that write: stale by design, and marked so in the state (origin `cache`). Such reads are
left out of the linearizability check — and counted — while the watch checker still holds them to "one seq, one
state"."""

from __future__ import annotations

import bisect
import math
from typing import Any

from .history import History, Operation


def _observed_states(history: History) -> list[tuple[float, dict[str, Any]]]:
    """Every state a subscriber or a `state` call saw, with when it came."""
    seen = [
        (notification.received, notification.params["state"])
        for subscription in history.subscriptions
        for notification in subscription.notifications
    ]
    return seen + [(read.received, read.state) for read in history.reads]


def cache_first_reads(history: History) -> list[Operation]:
    """The gets sent after a kill and before the restarted daemon's state came from its source: before the first
    success of the run that began after the kill (its epoch, first seen after it) whose origin is not the cache. A
    state of the killed run read after the kill (it sat in a socket) says nothing of the new one."""
    observed = _observed_states(history)
    first_seen: dict[str, float] = {}
    from_source: dict[str, float] = {}
    for received, state in observed:
        epoch = state["epoch"]
        first_seen[epoch] = min(first_seen.get(epoch, math.inf), received)
        if state.get("status") == "success" and state.get("origin") != "cache":
            from_source[epoch] = min(from_source.get(epoch, math.inf), received)
    runs = sorted(first_seen.items(), key=lambda item: item[1])
    kills = sorted(history.kills)
    # For each kill: until when reads may come from the cache.
    until = []
    for kill in kills:
        after = [epoch for epoch, seen in runs if seen > kill]
        until.append(from_source.get(after[0], math.inf) if after else math.inf)
    found = []
    for operation in history.operations:
        if operation.kind != "get" or operation.client < 0:
            continue
        index = bisect.bisect_right(kills, operation.invoked)
        if index > 0 and operation.invoked < until[index - 1]:
            found.append(operation)
    return found
