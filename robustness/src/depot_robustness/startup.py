"""A restarted depotd shows its cached list at once, before its source has answered (README, "On-disk cache and
retrieval strategies": `returnMultipleTimes` at start-up, the state's origin `cache`). A write the killed daemon made
at its source but never answered is in the source and not in the cache, so until the source answers, a read may see
the item as it was before that write: stale by design, and marked so in the state (origin `cache`). Such reads are
left out of the linearizability check — and counted — while the watch checker still holds them to "one seq, one
state"."""

from __future__ import annotations

import bisect

from .history import History, Operation


def source_answered_times(history: History) -> list[float]:
    """When a success state that did not come from the cache was seen (by a subscriber or a `state` call), sorted."""
    times = [
        notification.received
        for subscription in history.subscriptions
        for notification in subscription.notifications
        if notification.params["state"].get("status") == "success"
        and notification.params["state"].get("origin") != "cache"
    ]
    times += [
        read.received
        for read in history.reads
        if read.state.get("status") == "success" and read.state.get("origin") != "cache"
    ]
    return sorted(times)


def cache_first_reads(history: History) -> list[Operation]:
    """The gets sent after a kill and before any state from the source was seen since it."""
    answered = source_answered_times(history)
    kills = sorted(history.kills)
    found = []
    for operation in history.operations:
        if operation.kind != "get" or operation.client < 0:
            continue
        index = bisect.bisect_right(kills, operation.invoked)
        if index == 0:
            continue
        kill = kills[index - 1]
        first = bisect.bisect_right(answered, kill)
        if first == len(answered) or answered[first] > operation.invoked:
            found.append(operation)
    return found
