"""The model's patches against the public conformance vectors the Swift tests use, and its preconditions."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from depot_robustness.history import NEVER, Change, Operation, canonical
from depot_robustness.model import PatchConflict, apply_changes, json_patch, merge_patch, successors

SUITES = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "DepotJSONTests", "PatchSuites")


def _load(name: str) -> list[dict[str, Any]]:
    with open(os.path.join(SUITES, name)) as file:
        cases: list[dict[str, Any]] = json.load(file)
    return cases


@pytest.mark.parametrize("case", _load("rfc7396-examples.json"))
def test_merge_patch_follows_rfc_7396_examples(case: dict[str, Any]) -> None:
    assert merge_patch(case["doc"], case["patch"]) == case["expected"]


def _patch_cases() -> list[dict[str, Any]]:
    return [
        case
        for name in ("tests.json", "spec_tests.json")
        for case in _load(name)
        if "doc" in case and "patch" in case and not case.get("disabled") and ("expected" in case or "error" in case)
    ]


@pytest.mark.parametrize("case", _patch_cases())
def test_json_patch_follows_json_patch_tests(case: dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises((PatchConflict, KeyError, TypeError, ValueError, IndexError)):
            json_patch(case["doc"], case["patch"])
    else:
        assert json_patch(case["doc"], case["patch"]) == case["expected"]


def item(key: str, version: str) -> dict[str, Any]:
    return {"id": key, "v": version}


def test_preconditions_and_all_or_none() -> None:
    items = {"a": canonical(item("a", "1")), "b": None}
    assert (
        apply_changes(items, [Change("put", "a", item=item("a", "2"), if_match=canonical(item("a", "1")))]).outcome
        == "ok"
    )
    refused = apply_changes(items, [Change("put", "a", item=item("a", "2"), if_match=canonical(item("a", "0")))])
    assert (refused.outcome, refused.current) == ("conflict", canonical(item("a", "1")))
    assert apply_changes(items, [Change("put", "a", item=item("a", "2"), if_match=NEVER)]).outcome == "conflict"
    assert apply_changes(items, [Change("put", "a", item=item("a", "2"), if_absent=True)]).outcome == "conflict"
    assert apply_changes(items, [Change("put", "b", item=item("b", "2"), if_absent=True)]).created == (True,)
    assert apply_changes(items, [Change("remove", "b")]).outcome == "notFound"
    assert apply_changes(items, [Change("patch", "b", patch={"v": "3"})]).outcome == "notFound"
    assert apply_changes(items, [Change("remove", "b", if_match=canonical(item("b", "1")))]).outcome == "conflict"
    both = apply_changes(items, [Change("put", "b", item=item("b", "2")), Change("remove", "b")])
    assert (both.outcome, both.items["b"]) == ("ok", None)
    failed = apply_changes(items, [Change("remove", "a"), Change("remove", "b")])
    assert (failed.outcome, failed.failed_index, failed.items) == ("notFound", 1, items)
    test_failed = apply_changes(
        items, [Change("patch", "a", patch=[{"op": "test", "path": "/v", "value": "9"}], format="json-patch")]
    )
    assert test_failed.outcome == "conflict"


def test_a_change_without_a_precondition_may_give_up_with_a_conflict() -> None:
    """depotd makes such a change again a few times when its item keeps changing at the source, then answers conflict
    with nothing made; a conflict of a change with a precondition that holds, or of one that cannot be made, is not
    that."""
    items = {"a": canonical(item("a", "1")), "b": None}

    def conflict(change: Change) -> Operation:
        return Operation(1, "write", 0.0, 1.0, "conflict", changes=[change])

    assert successors(items, conflict(Change("patch", "a", patch={"v": "2"}))) == [items]
    assert successors(items, conflict(Change("put", "a", item=item("a", "2")))) == [items]
    assert successors(items, conflict(Change("remove", "a"))) == [items]
    # With a precondition that holds, or on an item that is not there, a conflict is a lie.
    assert (
        successors(items, conflict(Change("put", "a", item=item("a", "2"), if_match=canonical(item("a", "1"))))) == []
    )
    assert successors(items, conflict(Change("patch", "b", patch={"v": "2"}))) == []
    passing_test = [{"op": "test", "path": "/v", "value": "1"}, {"op": "replace", "path": "/v", "value": "2"}]
    assert successors(items, conflict(Change("patch", "a", patch=passing_test, format="json-patch"))) == []
