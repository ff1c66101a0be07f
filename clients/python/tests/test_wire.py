"""The watch's delta application against the plain model (`depot.apply_delta` on a list), with random deltas."""

from __future__ import annotations

import random
from typing import Any, Dict, List

import pytest

import depot
from depot import _wire
from depot.types import DeltaMismatch, Notification


def success(seq: int, items: List[Dict[str, Any]], delta: Dict[str, Any] | None = None) -> Notification:
    state = depot.State(seq=seq, epoch="e", status=depot.Status.SUCCESS, count=len(items))
    if delta is None:
        state = state.with_items(items)
    return Notification(state=state, delta=delta)


def random_delta(items: List[Dict[str, Any]], generator: random.Random, next_id: List[int]) -> Dict[str, Any]:
    removed = [item for item in items if generator.random() < 0.05]
    kept = [item for item in items if item not in removed]
    changed = [dict(item, name="changed") for item in kept if generator.random() < 0.05]
    added: List[Dict[str, Any]] = []
    length = len(kept)
    for _ in range(generator.randint(0, 3)):
        index = generator.randint(len(added) and added[-1]["index"] + 1, length + len(added))
        next_id[0] += 1
        added.append({"index": index, "item": {"id": next_id[0], "name": f"new {next_id[0]}"}})
    return {
        "base": 0,
        "idField": "id",
        "removed": [str(item["id"]) for item in removed],
        "changed": changed,
        "added": added,
    }


def test_random_deltas_match_the_model() -> None:
    generator = random.Random(29)
    items: List[Dict[str, Any]] = [{"id": index, "name": f"item {index}"} for index in range(200)]
    held = _wire.WatchState()
    held.apply(success(1, items))
    next_id = [1000]
    for seq in range(2, 400):
        delta = random_delta(items, generator, next_id)
        delta["base"] = seq - 1
        expected = depot.apply_delta(items, delta)
        state = held.apply(success(seq, expected, delta))
        assert state.items == expected
        items = expected


def test_a_delta_that_does_not_fit_is_refused() -> None:
    held = _wire.WatchState()
    held.apply(success(1, [{"id": "a"}, {"id": "b"}]))
    with pytest.raises(DeltaMismatch):
        held.apply(success(2, [], {"base": 1, "idField": "id", "removed": ["x"], "changed": [], "added": []}))
    held.apply(success(3, [{"id": "a"}, {"id": "b"}]))
    with pytest.raises(DeltaMismatch):
        held.apply(success(4, [], {"base": 2, "idField": "id", "removed": [], "changed": [], "added": []}))
    added = [{"index": 0, "item": {"id": "a"}}]
    with pytest.raises(DeltaMismatch):
        held.apply(success(5, [{}, {}, {}], {"base": 3, "idField": "id", "removed": [], "changed": [], "added": added}))


def test_every_error_code_the_protocol_documents_has_its_exception() -> None:
    import json
    from pathlib import Path

    from depot.errors import error_from_answer

    document = json.loads((Path(__file__).parents[3] / "rpc-schema" / "openrpc.json").read_text())
    for name, error in document["components"]["errors"].items():
        raised = error_from_answer({"code": error["code"], "message": name})
        assert type(raised) is not depot.DepotError, f"{name} ({error['code']}) has no exception of its own"
    assert isinstance(error_from_answer({"code": -32010, "message": "m"}), depot.OutcomeUnknown)
