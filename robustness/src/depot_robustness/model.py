"""The key-value model with preconditions that depotd's writes and reads are checked against: items by id, each
`put`, `patch` (RFC 7396 merge patch or RFC 6902 JSON Patch) and `remove` made only while its precondition holds
(`ifMatch`: the item is still the version the client read; `ifAbsent`: there is none), an `apply` all or none.

Written from the README and the RFCs, not from depotd's code, so that the two can disagree."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass

from .history import JSON, NEVER, UNSEEN, Change, Operation, canonical

Items = dict[str, str | None]
"""The items of some keys, each as canonical JSON, None where there is none."""


class PatchConflict(Exception):
    """A JSON Patch that does not fit the item: a `test` that fails, a path that is not there."""


def merge_patch(target: JSON, patch: JSON) -> JSON:
    """RFC 7396, section 2."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for name, value in patch.items():
        if value is None:
            result.pop(name, None)
        else:
            result[name] = merge_patch(result.get(name), value)
    return result


def _is_index(token: str) -> bool:
    """An array index as RFC 6901 writes one: digits, without a leading zero."""
    return token.isdigit() and (token == "0" or not token.startswith("0"))


def _tokens(pointer: str) -> list[str]:
    if not isinstance(pointer, str):
        raise PatchConflict(f"{pointer!r} is not a JSON Pointer")
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchConflict(f"{pointer!r} is not a JSON Pointer")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def _parent(document: JSON, tokens: list[str]) -> JSON:
    node = document
    for token in tokens[:-1]:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and _is_index(token) and int(token) < len(node):
            node = node[int(token)]
        else:
            raise PatchConflict(f"no {token!r} in the path")
    return node


def _get(document: JSON, pointer: str) -> JSON:
    tokens = _tokens(pointer)
    if not tokens:
        return document
    parent = _parent(document, tokens)
    last = tokens[-1]
    if isinstance(parent, dict) and last in parent:
        return parent[last]
    if isinstance(parent, list) and _is_index(last) and int(last) < len(parent):
        return parent[int(last)]
    raise PatchConflict(f"{pointer} is not there")


def _remove(document: JSON, pointer: str) -> JSON:
    tokens = _tokens(pointer)
    if not tokens:
        raise PatchConflict("cannot remove the whole document")
    parent = _parent(document, tokens)
    last = tokens[-1]
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    if isinstance(parent, list) and _is_index(last) and int(last) < len(parent):
        return parent.pop(int(last))
    raise PatchConflict(f"{pointer} is not there")


def _add(document: JSON, pointer: str, value: JSON) -> JSON:
    tokens = _tokens(pointer)
    if not tokens:
        return value
    parent = _parent(document, tokens)
    last = tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list) and last == "-":
        parent.append(value)
    elif isinstance(parent, list) and _is_index(last) and int(last) <= len(parent):
        parent.insert(int(last), value)
    else:
        raise PatchConflict(f"cannot add at {pointer}")
    return document


def json_patch(target: JSON, operations: list[JSON]) -> JSON:
    """RFC 6902, all or nothing: the patched copy, or PatchConflict."""
    document = copy.deepcopy(target)
    for operation in operations:
        op, path = operation["op"], operation["path"]
        if op == "test":
            if canonical(_get(document, path)) != canonical(operation["value"]):
                raise PatchConflict(f"test at {path} failed")
        elif op == "add":
            document = _add(document, path, copy.deepcopy(operation["value"]))
        elif op == "remove":
            _remove(document, path)
        elif op == "replace":
            _get(document, path)
            if _tokens(path):
                _remove(document, path)
            document = _add(document, path, copy.deepcopy(operation["value"]))
        elif op == "move":
            value = _remove(document, operation["from"])
            document = _add(document, path, value)
        elif op == "copy":
            document = _add(document, path, copy.deepcopy(_get(document, operation["from"])))
        else:
            raise PatchConflict(f"unknown op {op!r}")
    return document


@dataclass(frozen=True)
class Applied:
    """What a write's changes do to the items: `ok` with the items after (and, per change, whether a put created its
    item), or the first change that cannot be made (`conflict`, `notFound`) and nothing changes."""

    outcome: str
    items: Items
    failed_index: int | None = None
    current: str | None = None
    created: tuple[bool, ...] = ()


def apply_changes(items: Items, changes: list[Change]) -> Applied:
    """The changes in order, a later one seeing what the earlier did, all or none."""
    after = dict(items)
    created: list[bool] = []
    for index, change in enumerate(changes):
        current = after.get(change.key)

        def refused(outcome: str, index: int = index, current: str | None = current) -> Applied:
            return Applied(outcome, items, failed_index=index, current=current)

        if change.if_match is not None and (change.if_match == NEVER or current != change.if_match):
            return refused("conflict")
        if change.op == "put":
            if change.if_absent and current is not None:
                return refused("conflict")
            created.append(current is None)
            after[change.key] = canonical(change.item)
        elif change.op == "patch":
            if current is None:
                return refused("notFound")
            item = json.loads(current)
            if change.format == "json-patch":
                try:
                    patched = json_patch(item, change.patch)
                except PatchConflict:
                    return refused("conflict")
            else:
                patched = merge_patch(item, change.patch)
            created.append(False)
            after[change.key] = canonical(patched)
        elif change.op == "remove":
            if current is None:
                return refused("notFound")
            created.append(False)
            after[change.key] = None
        else:
            raise ValueError(f"unknown change {change.op!r}")
    return Applied("ok", after, created=tuple(created))


NO_EFFECT = {
    "changeFailed",
    "loadFailed",
    "limitExceeded",
    "invalidItem",
    "invalidChange",
    "forbidden",
}
"""Errors after which a write changed nothing."""

MAY_HAVE_EFFECT = {"unknown", "outcomeUnknown"}
"""A call never answered (`unknown`), and the answer that depotd cannot tell whether the write is in the source."""


def gave_up_retrying(operation: Operation, applied: Applied) -> bool:
    """Whether a `conflict` answer can be depotd giving up on a change without a precondition: such a change whose item
    changed at the source meanwhile is made again from the item there, a few times (`WriteRules.patchRetries`), then
    answered `conflict` with nothing made (README, "Each source"). It is a conflict nothing in `items` explains: the
    change it names (the first, unless the answer named one) has no precondition of the client's — no `ifMatch`,
    `ifAbsent` or JSON Patch `test` — and can be made."""
    index = operation.failed_index if operation.failed_index is not None else 0
    if applied.outcome == "conflict" or not 0 <= index < len(operation.changes):
        return False
    change = operation.changes[index]
    tests = change.format == "json-patch" and any(
        isinstance(step, dict) and step.get("op") == "test" for step in change.patch or []
    )
    return change.if_match is None and not change.if_absent and not tests and applied.outcome == "ok"


def successors(items: Items, operation: Operation) -> list[Items]:
    """The items after `operation` when it takes effect on `items` at once, one list per way it may have gone; empty
    when what the call answered cannot have come from `items`."""
    if operation.kind == "get":
        assert operation.key is not None
        held = items.get(operation.key)
        if operation.outcome == "ok":
            return [items] if held is not None and held == operation.observed else []
        if operation.outcome == "notFound":
            return [items] if held is None else []
        return [items]
    applied = apply_changes(items, operation.changes)
    outcome = operation.outcome
    if outcome in MAY_HAVE_EFFECT:
        return [items, applied.items] if applied.outcome == "ok" else [items]
    if outcome in ("ok", "storageFailed"):
        if applied.outcome != "ok":
            return []
        if operation.created is not None and applied.created and applied.created[0] != operation.created:
            return []
        return [applied.items]
    if outcome == "conflict" and gave_up_retrying(operation, applied):
        return [items]
    if outcome in ("conflict", "notFound"):
        if applied.outcome != outcome:
            return []
        if operation.failed_index is not None and applied.failed_index != operation.failed_index:
            return []
        if (
            outcome == "conflict"
            and len(operation.changes) == 1
            and operation.observed != UNSEEN
            and applied.current != operation.observed
        ):
            return []
        return [items]
    if outcome in NO_EFFECT:
        return [items]
    raise ValueError(f"an outcome the model does not know: {outcome}")
