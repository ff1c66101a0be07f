"""Linearizability of the items' reads and writes, checked as porcupine (github.com/anishathalye/porcupine) and
Knossos do: Wing and Gong's search with Lowe's memoisation (the set of calls linearized so far and the model's state
are cached, so no search is repeated), over histories split into independent parts — calls on disjoint sets of keys
commute, so each connected part of keys is checked alone (P-compositionality).

Each call took effect at one instant between its sending and its answer; a call without an answer may have taken
effect at any instant after it was sent, or never. The history is linearizable when some order of those instants,
consistent with every call's real-time interval, makes every answer the model's."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from .history import UNSEEN, Change, Operation
from .model import NO_EFFECT, Items, successors

State = frozenset[tuple[str | None, ...]]
"""Every way the part's items may be after the calls linearized so far (a call without an answer branches)."""


@dataclass
class Verdict:
    """The check's answer: `ok`, or the part of the history that is not linearizable, or `gave_up` when the search
    passed its budget (a history too concurrent to decide; reported, never taken for a pass)."""

    ok: bool
    gave_up: bool
    operations: int
    parts: int
    problem: str | None = None


@dataclass
class _Entry:
    operation: int
    is_call: bool
    time: float
    match: _Entry | None = None
    previous: _Entry | None = None
    next: _Entry | None = None


def _parts(operations: list[Operation]) -> list[list[int]]:
    """Indices of the operations, grouped by connected sets of keys (union-find over the keys each call touches)."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for operation in operations:
        keys = operation.touched()
        for other in keys[1:]:
            parent[find(other)] = find(keys[0])
    groups: dict[str, list[int]] = {}
    for index, operation in enumerate(operations):
        groups.setdefault(find(operation.touched()[0]), []).append(index)
    return list(groups.values())


def _describe(operation: Operation) -> str:
    answered = "no answer" if operation.returned is None else f"answered at {operation.returned:.6f}"
    what = operation.key if operation.kind == "get" else ", ".join(f"{c.op} {c.key}" for c in operation.changes)
    seen = f", saw {operation.observed}" if operation.observed is not None else ""
    return (
        f"client {operation.client}: {operation.kind} {what} sent at {operation.invoked:.6f}, {answered}: "
        f"{operation.outcome}{seen}"
    )


def check_part(operations: list[Operation], initial: Items, budget: int = 2_000_000) -> tuple[bool | None, str | None]:
    """One part: True (linearizable), False with why, or None when the search passed `budget` steps."""
    keys = sorted({key for operation in operations for key in operation.touched()})

    def as_tuple(items: Items) -> tuple[str | None, ...]:
        return tuple(items.get(key) for key in keys)

    def step(state: State, operation: Operation) -> State:
        after: set[tuple[str | None, ...]] = set()
        for held in state:
            for items in successors(dict(zip(keys, held, strict=True)), operation):
                after.add(as_tuple(items))
        return frozenset(after)

    events: list[_Entry] = []
    for index, operation in enumerate(operations):
        call = _Entry(index, True, operation.invoked)
        answer = _Entry(index, False, math.inf if operation.returned is None else operation.returned)
        call.match = answer
        events += [call, answer]
    # By time; at the same instant calls first, so that two calls sharing an instant count as concurrent.
    events.sort(key=lambda entry: (entry.time, not entry.is_call))
    head = _Entry(-1, True, -math.inf)
    last = head
    for event in events:
        last.next, event.previous, last = event, last, event

    def lift(entry: _Entry) -> None:
        for item in (entry, entry.match):
            assert item is not None and item.previous is not None
            item.previous.next = item.next
            if item.next is not None:
                item.next.previous = item.previous

    def unlift(entry: _Entry) -> None:
        for item in (entry.match, entry):
            assert item is not None and item.previous is not None
            item.previous.next = item
            if item.next is not None:
                item.next.previous = item

    changes_nothing = [
        operation.kind == "get" or operation.outcome in ("conflict", "notFound", *NO_EFFECT) for operation in operations
    ]
    state: State = frozenset([as_tuple(initial)])
    linearized = 0
    cache: set[tuple[int, State]] = {(0, state)}
    # Each choice made: the call linearized, the state before it, and whether it was forced (see below).
    stack: list[tuple[_Entry, State, bool]] = []
    deepest: tuple[int, int] = (0, -1)
    entry: _Entry | None = head.next
    steps = 0
    while head.next is not None:
        steps += 1
        if steps > budget:
            where = operations[deepest[1]] if deepest[1] >= 0 else None
            return None, (
                f"keys {', '.join(keys)}: gave up after {budget} steps, at most {deepest[0]} of {len(operations)} "
                "calls placed"
                + (f"; the search stopped most deeply at {_describe(where)}" if where is not None else "")
            )
        assert entry is not None
        if entry.is_call:
            after = step(state, operations[entry.operation])
            if after:
                # A call that changes nothing wherever it is put (a read, a refused write) and fits the state now
                # may be put here and nowhere else: any order that completes the history with it later also
                # completes it with it here (every call that returned before it was sent is placed already, and it
                # changes nothing the calls after it see). So no other call is tried in its place, and when the
                # search comes back to it, or finds its place explored already, the choice before it is undone. Not
                # so a write without an answer, which changes nothing here but may change the items elsewhere; nor a
                # call that narrows what the items may be (a conflict that shows the item gone, when a write without
                # an answer may or may not have removed it), which may fit a wider choice later.
                forced = changes_nothing[entry.operation] and after == state
                marked = linearized | (1 << entry.operation)
                if (marked, after) not in cache:
                    cache.add((marked, after))
                    stack.append((entry, state, forced))
                    state, linearized = after, marked
                    lift(entry)
                    entry = head.next
                    continue
                if not forced:
                    entry = entry.next
                    continue
            else:
                entry = entry.next
                continue
        elif len(stack) > deepest[0]:
            deepest = (len(stack), entry.operation)
        # Back to the last choice that can be made otherwise.
        while stack and stack[-1][2]:
            popped, state, _ = stack.pop()
            linearized &= ~(1 << popped.operation)
            unlift(popped)
        if not stack:
            break
        popped, state, _ = stack.pop()
        linearized &= ~(1 << popped.operation)
        unlift(popped)
        entry = popped.next
    if head.next is None:
        return True, None
    blocked = operations[deepest[1]]
    return False, (
        f"keys {', '.join(keys)}: at most {deepest[0]} of {len(operations)} calls can be put in an order the model "
        f"allows; no order lets this one be answered as it was: {_describe(blocked)}"
    )


def _version(change: Change) -> Any:
    """The version (`v`) a change gives its item, as the traffic writes every change: None for a removal."""
    if change.op == "put" and isinstance(change.item, dict):
        return change.item.get("v")
    if change.op == "patch" and isinstance(change.patch, dict):
        return change.patch.get("v")
    if change.op == "patch" and isinstance(change.patch, list):
        for step in change.patch:
            if step.get("op") in ("add", "replace") and step.get("path") == "/v":
                return step.get("value")
    return None


def _without_dirty_reads(operations: list[Operation]) -> list[Operation]:
    """The calls to check, without those that saw an optimistic write the source then refused (or that depotd never
    confirmed, killed first): such a write is shown to every reader in its turn, before the source has it, and undone
    when refused — README, "Optimistic writes" — and a conditional write after it is checked against it too (refused
    with that item as the one there). A call may see it only while it is under way (sent before its answer); one that
    saw it at any other time stays in the history, where no order explains it."""
    unconfirmed: dict[Any, Operation] = {}
    removals: dict[str, list[Operation]] = {}
    for operation in operations:
        if operation.kind == "write" and operation.optimistic and operation.outcome not in ("ok", "storageFailed"):
            for change in operation.changes:
                version = _version(change)
                if version is not None:
                    unconfirmed[version] = operation
                elif change.op == "remove":
                    removals.setdefault(change.key, []).append(operation)

    def under_way(writer: Operation, operation: Operation) -> bool:
        answered = operation.returned if operation.returned is not None else math.inf
        return operation.invoked <= (writer.returned or math.inf) and answered >= writer.invoked

    kept = []
    for operation in operations:
        # A read, or a write refused by a precondition, that saw such a write's item while it was under way.
        if operation.outcome in ("ok", "conflict") and operation.observed not in (None, UNSEEN):
            assert operation.observed is not None
            writer = unconfirmed.get(json.loads(operation.observed).get("v"))
            if writer is not None and under_way(writer, operation):
                continue
        # One that found the item gone while such a removal of it was under way.
        gone = operation.outcome == "notFound" or (operation.outcome == "conflict" and operation.observed is None)
        if gone and any(
            under_way(writer, operation) for key in operation.touched() for writer in removals.get(key, [])
        ):
            continue
        kept.append(operation)
    return kept


def check(operations: list[Operation], initial: Items, budget: int = 2_000_000) -> Verdict:
    """Every part of the history; the first part that fails is described."""
    informative = [
        operation
        for operation in _without_dirty_reads(operations)
        if operation.kind != "get" or operation.outcome in ("ok", "notFound")
    ]
    parts = _parts(informative)
    gave_up = False
    first_problem: str | None = None
    for part in parts:
        chosen = [informative[index] for index in part]
        keys = {key for operation in chosen for key in operation.touched()}
        result, problem = check_part(chosen, {key: initial.get(key) for key in keys}, budget)
        if result is None:
            gave_up = True
            first_problem = first_problem or problem
        elif not result:
            return Verdict(False, False, len(informative), len(parts), problem)
    return Verdict(not gave_up, gave_up, len(informative), len(parts), first_problem)


__all__ = ["NO_EFFECT", "Verdict", "check", "check_part"]
