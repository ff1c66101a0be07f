"""The watch checker: a history of correct subscriptions passes; each kind of broken delivery fails it."""

from __future__ import annotations

import copy
from typing import Any

from depot_robustness.history import History, Notification, StateRead, Subscription
from depot_robustness.watch import apply_delta, check_watch

EPOCH = "e1"


def items_at(seq: int) -> list[dict[str, Any]]:
    """The daemon's items at each seq: item 1 changes every state, item 2 comes at seq 3, item 3 goes at seq 4."""
    items: list[dict[str, Any]] = [{"id": 1, "v": seq}, {"id": 3, "v": 0}]
    if seq >= 3:
        items.insert(1, {"id": 2, "v": 0})
    if seq >= 4:
        items = [item for item in items if item["id"] != 3]
    return items


def state(seq: int, **extra: Any) -> dict[str, Any]:
    return {"epoch": EPOCH, "seq": seq, "status": "success", **extra}


def snapshot(seq: int, **params: Any) -> Notification:
    return Notification(0, {"subscription": 1, "state": state(seq, items=items_at(seq)), **params})


def delta(base: int, seq: int, **params: Any) -> Notification:
    old, new = items_at(base), items_at(seq)
    old_ids, new_ids = {i["id"] for i in old}, {i["id"] for i in new}
    changed = [i for i in new if i["id"] in old_ids and i not in old]
    added = [{"index": index, "item": i} for index, i in enumerate(new) if i["id"] not in old_ids]
    body = {
        "base": base,
        "idField": "id",
        "removed": [str(i["id"]) for i in old if i["id"] not in new_ids],
        "changed": changed,
        "added": added,
    }
    return Notification(0, {"subscription": 1, "state": state(seq, count=len(new)), "delta": body, **params})


def subscription(mode: str, notifications: list[Notification], first: int = 1, **fields: Any) -> Subscription:
    answer = {"subscription": 1, "epoch": EPOCH, "seq": first, "resumed": fields.pop("resumed", False)}
    return Subscription(0, 0, mode, None, fields.pop("since", None), answer, notifications, **fields)


def good() -> History:
    return History(
        initial={},
        subscriptions=[
            subscription("snapshot", [snapshot(seq) for seq in range(1, 7)]),
            subscription("delta", [snapshot(1), *(delta(seq - 1, seq) for seq in range(2, 5))]),
            # Lagged: told it skipped two states; its delta goes from the last success it was sent.
            subscription("delta", [snapshot(1), delta(1, 4, skipped=2), delta(4, 5)]),
            # Resumed after seq 4 of subscription 2: a delta from what it held then.
            subscription(
                "delta", [delta(4, 5), delta(5, 6)], first=5, since={"epoch": EPOCH, "seq": 4}, resumed=True, resumes=1
            ),
            # Not resumed (its since is of another run): starts afresh, marked resync.
            subscription("snapshot", [snapshot(5, resync=True), snapshot(6)], first=5, since={"epoch": "e0", "seq": 9}),
        ],
        reads=[StateRead(0, 0, state(3, items=items_at(3)))],
    )


def problems(history: History) -> list[str]:
    return check_watch(history).problems


def test_delta_follows_the_schema() -> None:
    assert apply_delta(items_at(1), delta(1, 4).params["delta"]) == items_at(4)


def test_correct_subscriptions_pass() -> None:
    verdict = check_watch(good())
    assert verdict.ok, verdict.problems
    assert verdict.notifications == 17


def test_a_silent_gap_fails() -> None:
    history = good()
    del history.subscriptions[0].notifications[2]
    assert any("silent gap" in problem for problem in problems(history))


def test_a_wrong_skipped_count_fails() -> None:
    history = good()
    history.subscriptions[2].notifications[1].params["skipped"] = 1
    assert any("silent gap" in problem for problem in problems(history))


def test_seqs_that_go_back_fail() -> None:
    history = good()
    notifications = history.subscriptions[0].notifications
    notifications[2], notifications[3] = notifications[3], notifications[2]
    assert any("must increase" in problem for problem in problems(history))


def test_a_first_state_other_than_the_answer_named_fails() -> None:
    history = good()
    history.subscriptions[0].answer["seq"] = 2
    assert any("named seq 2" in problem for problem in problems(history))


def test_a_delta_from_another_base_fails() -> None:
    history = good()
    history.subscriptions[1].notifications[2].params["delta"]["base"] = 1
    assert any("a delta from seq 1" in problem for problem in problems(history))


def test_a_delta_that_builds_other_items_fails() -> None:
    history = good()
    history.subscriptions[1].notifications[3].params["delta"]["changed"][0]["v"] = 99
    assert any("seq 4" in problem and "holds" in problem for problem in problems(history))


def test_a_resume_from_another_point_fails() -> None:
    history = good()
    history.subscriptions[3].notifications = [delta(4, 6)]
    assert problems(history)


def test_a_fresh_start_without_resync_fails() -> None:
    history = good()
    del history.subscriptions[4].notifications[0].params["resync"]
    assert any("resync" in problem for problem in problems(history))


def test_another_run_inside_a_subscription_fails() -> None:
    history = good()
    history.subscriptions[0].notifications[3].params["state"]["epoch"] = "e2"
    assert any("of run e2" in problem for problem in problems(history))


def test_a_state_read_that_differs_fails() -> None:
    history = good()
    history.reads[0] = StateRead(0, 0, state(3, items=items_at(2)))
    assert any("state call" in problem for problem in problems(history))


def test_a_count_that_differs_fails() -> None:
    history = good()
    history.subscriptions[1].notifications[1].params["state"]["count"] = 7
    assert any("count 7" in problem for problem in problems(history))


def test_the_history_round_trips_through_json_lines(tmp_path: Any) -> None:
    history = good()
    path = str(tmp_path / "history.jsonl")
    history.save(path)
    loaded = History.load(path)
    assert copy.deepcopy(loaded) == history
    assert check_watch(loaded).ok
