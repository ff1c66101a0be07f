"""The linearizability checker: histories it must accept, histories it must refuse (each a small known anomaly:
a stale read, a lost update, a lost acknowledged write, a torn apply), and random histories of a service that is
linearizable by construction, accepted as they are and refused once mutated."""

from __future__ import annotations

import random
from typing import Any

import pytest

from depot_robustness.history import Change, Operation, canonical
from depot_robustness.linearizability import check, check_part
from depot_robustness.model import apply_changes

A0 = canonical({"id": "a", "v": "0"})
A1 = canonical({"id": "a", "v": "1"})
A2 = canonical({"id": "a", "v": "2"})
B0 = canonical({"id": "b", "v": "0"})
B1 = canonical({"id": "b", "v": "1"})


def put(key: str, version: str, start: float, end: float | None, outcome: str = "ok", **changes: Any) -> Operation:
    change = Change("put", key, item={"id": key, "v": version}, **changes)
    return Operation(0, "write", start, end, outcome, changes=[change])


def get(key: str, seen: str | None, start: float, end: float) -> Operation:
    return Operation(1, "get", start, end, "ok" if seen is not None else "notFound", key=key, observed=seen)


def verdict(operations: list[Operation], initial: dict[str, str | None] | None = None) -> bool:
    result = check(operations, initial if initial is not None else {"a": A0, "b": B0})
    assert not result.gave_up
    return result.ok


def test_a_read_during_a_write_may_see_either_version() -> None:
    assert verdict([put("a", "1", 0, 10), get("a", A1, 1, 2), get("a", A0, 3, 4)]) is False
    assert verdict([put("a", "1", 0, 10), get("a", A0, 1, 2), get("a", A1, 3, 4)])
    assert verdict([put("a", "1", 0, 10), get("a", A0, 1, 2)])


def test_a_read_after_an_answered_write_sees_it() -> None:
    assert verdict([put("a", "1", 0, 1), get("a", A1, 2, 3)])
    assert verdict([put("a", "1", 0, 1), get("a", A0, 2, 3)]) is False


def test_an_acknowledged_write_is_not_lost() -> None:
    # The final read of a key after everything healed: the last answered write must be there.
    assert verdict([put("a", "1", 0, 1), put("a", "2", 2, 3), get("a", A1, 10, 11)]) is False


def test_two_writes_from_one_version_cannot_both_succeed() -> None:
    lost_update = [put("a", "1", 0, 5, if_match=A0), put("a", "2", 0, 5, if_match=A0)]
    assert verdict(lost_update) is False
    one_refused = [put("a", "1", 0, 5, if_match=A0), put("a", "2", 0, 5, "conflict", if_match=A0)]
    one_refused[1].observed = A1
    assert verdict(one_refused)


def test_a_conflict_must_show_the_item_there() -> None:
    refused = put("a", "2", 2, 3, "conflict", if_match=A0)
    refused.observed = A0
    assert verdict([put("a", "1", 0, 1), refused]) is False
    refused.observed = A1
    assert verdict([put("a", "1", 0, 1), refused])


def test_a_write_without_an_answer_may_or_may_not_have_happened() -> None:
    assert verdict([put("a", "1", 0, None, "unknown"), get("a", A1, 5, 6)])
    assert verdict([put("a", "1", 0, None, "unknown"), get("a", A0, 5, 6)])
    assert verdict([put("a", "1", 0, None, "unknown"), get("a", A1, 5, 6), get("a", A0, 7, 8)]) is False


def test_an_outcome_unknown_answer_may_or_may_not_have_happened_but_ends_at_its_answer() -> None:
    assert verdict([put("a", "1", 0, 1, "outcomeUnknown"), get("a", A1, 5, 6)])
    assert verdict([put("a", "1", 0, 1, "outcomeUnknown"), get("a", A0, 5, 6)])
    # Answered: it cannot take effect after its answer, as an unanswered call could.
    assert verdict([put("a", "1", 0, 1, "outcomeUnknown"), get("a", A0, 5, 6), get("a", A1, 7, 8)]) is False
    # changeFailed is no such answer: the write did not happen.
    assert verdict([put("a", "1", 0, 1, "changeFailed"), get("a", A1, 5, 6)]) is False


def test_a_put_says_whether_it_created_the_item() -> None:
    created = put("a", "1", 0, 1)
    created.created = True
    assert verdict([created]) is False
    created.created = False
    assert verdict([created])


def test_an_apply_is_seen_whole_or_not_at_all() -> None:
    both = Operation(
        0,
        "write",
        0,
        10,
        "ok",
        changes=[Change("put", "a", item={"id": "a", "v": "1"}), Change("put", "b", item={"id": "b", "v": "1"})],
    )
    assert verdict([both, get("a", A1, 1, 2), get("b", B1, 3, 4)])
    assert verdict([both, get("a", A1, 1, 2), get("b", B0, 3, 4)]) is False
    assert verdict([both, get("b", B0, 1, 2), get("a", A1, 3, 4)])


def test_a_search_past_its_budget_gives_up_and_says_so() -> None:
    operations = [put("a", str(n), 0, 100) for n in range(12)] + [get("a", A0, 101, 102)]
    result, _ = check_part(operations, {"a": A0}, budget=50)
    assert result is None
    assert check(operations, {"a": A0}, budget=50).gave_up


class SerialService:
    """A service linearizable by construction: each call takes effect at a random instant of its interval, one at a
    time, under the model's own rules."""

    def __init__(self, keys: list[str], rng: random.Random) -> None:
        self.rng = rng
        self.keys = keys
        self.items: dict[str, str | None] = {key: canonical({"id": key, "v": "0"}) for key in keys}
        self.initial = dict(self.items)
        self.tags = 0

    def history(self, clients: int, calls: int) -> list[Operation]:
        planned: list[tuple[float, Operation]] = []
        for client in range(clients):
            now = 0.0
            for _ in range(calls):
                start = now + self.rng.uniform(0, 1)
                end = start + self.rng.uniform(0.1, 3)
                instant = self.rng.uniform(start, end)
                planned.append((instant, self.operation(client, start, end)))
                now = end
        for _, operation in sorted(planned, key=lambda pair: pair[0]):
            self.take_effect(operation)
        return [operation for _, operation in planned]

    def operation(self, client: int, start: float, end: float) -> Operation:
        key = self.rng.choice(self.keys)
        roll = self.rng.random()
        if roll < 0.35:
            return Operation(client, "get", start, end, "?", key=key)
        self.tags += 1
        version = f"t{self.tags}"
        if_match = None
        if self.rng.random() < 0.4:
            if_match = canonical({"id": key, "v": self.rng.choice(["0", *(f"t{n}" for n in range(1, self.tags))])})
        if roll < 0.7:
            change = Change("put", key, item={"id": key, "v": version}, if_match=if_match)
        elif roll < 0.85:
            change = Change("patch", key, patch={"v": version}, if_match=if_match)
        else:
            change = Change("remove", key, if_match=if_match)
        return Operation(client, "write", start, end, "?", changes=[change])

    def take_effect(self, operation: Operation) -> None:
        if operation.kind == "get":
            assert operation.key is not None
            operation.observed = self.items[operation.key]
            operation.outcome = "ok" if operation.observed is not None else "notFound"
            return
        applied = apply_changes(self.items, operation.changes)
        operation.outcome = applied.outcome
        if applied.outcome == "ok":
            self.items = applied.items
        elif applied.outcome == "conflict":
            operation.observed = applied.current


@pytest.mark.parametrize("seed", range(20))
def test_a_linearizable_service_passes_and_a_mutated_history_fails(seed: int) -> None:
    rng = random.Random(seed)
    service = SerialService(["a", "b", "c"], rng)
    operations = service.history(clients=6, calls=40)
    assert check(operations, service.initial).ok
    # One mutation, in one of the ways a broken daemon would show: a read of another version, a write answered done
    # that was refused (its effect missing), a refused write answered done, a conflict answered as made.
    # A read of a version never written is always caught; the other mutations are caught unless the history happens
    # to allow them (a refused write answered done, when the write would have fitted at some instant of its interval).
    candidates = [op for op in operations if op.outcome in ("ok", "conflict", "notFound")]
    caught = 0
    victims = rng.sample(candidates, 10)
    for victim in victims:
        original = (victim.outcome, victim.observed)
        never = canonical({"id": victim.key, "v": "never written"})
        if victim.kind == "get":
            victim.outcome, victim.observed = "ok", never
        elif victim.outcome == "ok":
            victim.outcome, victim.observed = "conflict", None
        else:
            victim.outcome = "ok"
        result = check(operations, service.initial)
        victim.outcome, victim.observed = original
        if victim.kind == "get":
            assert not result.ok, f"a read of a version never written went unnoticed: {victim}"
        caught += not result.ok
    assert caught >= len(victims) // 2, f"only {caught} of {len(victims)} mutations were caught"


def test_a_refused_optimistic_write_may_be_seen_only_while_under_way() -> None:
    refused = put("a", "1", 0, 5, "changeFailed")
    refused.optimistic = True
    assert verdict([refused, get("a", A1, 1, 2), get("a", A0, 6, 7)])
    assert verdict([refused, get("a", A1, 6, 7)]) is False
    refused.optimistic = False
    assert verdict([refused, get("a", A1, 1, 2), get("a", A0, 6, 7)]) is False


def test_a_write_without_an_answer_that_changes_nothing_where_it_is_tried_may_change_the_items_later() -> None:
    # The patch fails where it is tried first (nothing to patch), but fits after the put: the history is linearizable
    # only with it there.
    patch = Operation(2, "write", 0, 10, "unknown", changes=[Change("patch", "a", patch={"v": "2"})])
    created = put("a", "1", 1, 2)
    created.created = True
    assert verdict([patch, created, get("a", A2, 5, 6)], {"a": None})


def test_a_read_that_narrows_what_a_write_without_an_answer_did_is_not_placed_early() -> None:
    # A removal without an answer (depotd killed), then a removal made, a conflict that shows the item gone, and a read
    # that shows it there: the unanswered removal did nothing, the read came before the removal, the conflict after.
    unanswered = Operation(2, "write", 0, 1, "unknown", changes=[Change("remove", "a")])
    removal = Operation(3, "write", 2, 10, "ok", changes=[Change("remove", "a")])
    conflict = put("a", "1", 3, 10, "conflict", if_match=A0)
    conflict.observed = None
    assert verdict([unanswered, removal, conflict, get("a", A0, 4, 5)])
    assert verdict([unanswered, removal, conflict, get("a", A0, 11, 12)]) is False


def test_a_conflict_with_an_optimistic_write_under_way_that_never_reached_the_source_is_no_evidence() -> None:
    unconfirmed = put("a", "1", 0, 5, "unknown")
    unconfirmed.optimistic = True
    refused = put("a", "2", 1, 2, "conflict", if_match=A0)
    refused.observed = A1
    assert verdict([unconfirmed, refused, get("a", A0, 6, 7)])
    unconfirmed.optimistic = False
    assert verdict([unconfirmed, refused, get("a", A0, 6, 7)]) is False


def test_a_read_of_an_optimistic_removal_under_way_that_never_reached_the_source_is_no_evidence() -> None:
    removal = Operation(2, "write", 0, 5, "unknown", changes=[Change("remove", "a")], optimistic=True)
    assert verdict([removal, get("a", None, 1, 2), get("a", A0, 6, 7)])
    assert verdict([removal, get("a", None, 6, 7), get("a", A0, 8, 9)]) is False
    removal.optimistic = False
    assert verdict([removal, get("a", None, 1, 2), get("a", A0, 6, 7)]) is False
