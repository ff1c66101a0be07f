"""What the two clients share: the request lines, reading answers and notifications, and applying deltas to a
watch's state."""

from __future__ import annotations

import errno
import json
from dataclasses import replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._paths import start_command
from .errors import ConnectionLost, DaemonNotRunning, DepotError, SubscriptionEnded
from .types import DeltaMismatch, Item, ItemID, Notification, PipelineArg, State, item_id

#: How long, in heartbeats, a watch waits for any message before it takes the connection for dead.
MISSED_HEARTBEATS = 3


def request_line(request_id: int, method: str, params: Optional[Mapping[str, Any]]) -> bytes:
    message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params:
        message["params"] = dict(params)
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def connect_error(path: str, problem: OSError) -> DepotError:
    """What a failed connect means for a user, and what to do about it."""
    if problem.errno in (errno.ENOENT, errno.ECONNREFUSED):
        return DaemonNotRunning(
            f"depotd is not running at {path} ({problem.strerror}): start it with `{start_command(path)}`, or pass "
            "the socket it listens on (depot.connect(socket=…), $DEPOT_SOCKET)"
        )
    if problem.errno in (errno.EACCES, errno.EPERM):
        return DepotError(
            f"cannot connect to depotd at {path}: permission denied; ask for access to the socket (its group) or use "
            "your own daemon"
        )
    return ConnectionLost(f"cannot connect to depotd at {path}: {problem.strerror or problem}")


def lost(path: str, why: str = "the connection closed") -> ConnectionLost:
    return ConnectionLost(f"lost depotd at {path}: {why}; calls in flight did not get an answer (connect again)")


def pipeline_params(pipeline: Optional[PipelineArg]) -> Dict[str, Any]:
    if pipeline is None:
        return {}
    return {"pipeline": pipeline if isinstance(pipeline, str) else operators(pipeline)}


def operators(pipeline: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """A pipeline's operators as JSON objects (any sequence of mappings will do)."""
    return [dict(operator) for operator in pipeline]


def load_params(strategy: Optional[str], items: bool) -> Dict[str, Any]:
    params: Dict[str, Any] = {"items": True} if items else {}
    if strategy is not None:
        params["strategy"] = strategy
    return params


def remove_params(id: ItemID, optimistic: bool, items: bool, if_match: Optional[str] = None) -> Dict[str, Any]:
    params: Dict[str, Any] = {"id": id, "optimistic": optimistic}
    if if_match is not None:
        params["ifMatch"] = if_match
    if items:
        params["items"] = True
    return params


def write_params(
    id: ItemID,
    *,
    optimistic: bool,
    items: bool,
    if_match: Optional[str] = None,
    if_absent: bool = False,
    **members: Any,
) -> Dict[str, Any]:
    """The params of `put` or `patch`: the id, the item or patch members given, the precondition, the flags."""
    params: Dict[str, Any] = {"id": id, **members}
    if if_match is not None:
        params["ifMatch"] = if_match
    if if_absent:
        params["ifAbsent"] = True
    if optimistic:
        params["optimistic"] = True
    if items:
        params["items"] = True
    return params


def patch_params(
    id: ItemID, patch: Any, *, json_patch: bool, optimistic: bool, items: bool, if_match: Optional[str]
) -> Dict[str, Any]:
    members: Dict[str, Any] = {"patch": patch}
    if json_patch:
        members["format"] = "json-patch"
    return write_params(id, optimistic=optimistic, items=items, if_match=if_match, **members)


def apply_params(changes: Sequence[Mapping[str, Any]], *, optimistic: bool, items: bool) -> Dict[str, Any]:
    params: Dict[str, Any] = {"changes": [dict(change) for change in changes]}
    if optimistic:
        params["optimistic"] = True
    if items:
        params["items"] = True
    return params


def put_params(name: str, pipeline: Sequence[Mapping[str, Any]], description: Optional[str]) -> Dict[str, Any]:
    params: Dict[str, Any] = {"name": name, "pipeline": operators(pipeline)}
    if description is not None:
        params["description"] = description
    return params


class Heartbeat:
    """A heartbeat in a subscription's queue: the connection is alive. Never yielded."""


HEARTBEAT = Heartbeat()

#: What a subscription's queue receives: a notification, a heartbeat, or why the subscription ended.
Event = Union[Notification, DepotError, Heartbeat]


def event(method: str, params: Mapping[str, Any]) -> Optional[Event]:
    """What a notification means for its subscription's queue; None for a method this library does not know."""
    if method == "stateChanged":
        return notification(params)
    if method == "subscriptionEnded":
        return SubscriptionEnded(f"depotd ended the subscription: {params.get('reason')}")
    if method == "heartbeat":
        return HEARTBEAT
    return None


def subscribe_params(
    pipeline: Optional[PipelineArg], since: Optional[Tuple[str, int]], heartbeat: Optional[float]
) -> Dict[str, Any]:
    params: Dict[str, Any] = {"mode": "delta", **pipeline_params(pipeline)}
    if since is not None:
        params["since"] = {"epoch": since[0], "seq": since[1]}
    if heartbeat is not None:
        params["heartbeat"] = heartbeat
    return params


def notification(params: Mapping[str, Any]) -> Notification:
    return Notification(
        state=State.from_json(params["state"]),
        delta=params.get("delta"),
        skipped=int(params.get("skipped", 0)),
        resync=bool(params.get("resync", False)),
        pipeline_changed=bool(params.get("pipelineChanged", False)),
    )


class WatchState:
    """What a watch holds: the last State it yielded and the items of the last success, which the next delta applies
    to — kept by id in an ordered dict once a delta names the id field, so a delta costs its own size plus one copy of
    the list for the State yielded, not a pass of Python code over every item. `since` is where a resumed
    subscription starts."""

    def __init__(self) -> None:
        self.last: Optional[State] = None
        self.items: Optional[List[Item]] = None
        self.success_seq: Optional[int] = None
        self._keyed: Optional[Dict[str, Item]] = None
        self._keyed_by: Optional[str] = None

    @property
    def since(self) -> Optional[Tuple[str, int]]:
        return (self.last.epoch, self.last.seq) if self.last is not None else None

    def forget(self) -> None:
        self.last, self.items, self.success_seq, self._keyed = None, None, None, None

    def apply(self, note: Notification, *, resync: bool = False) -> State:
        """The whole State `note` makes of what is held. Raises DeltaMismatch when the note does not fit it."""
        state = note.state
        resync = resync or note.resync
        if note.resync or note.pipeline_changed:
            self.items, self.success_seq, self._keyed = None, None, None
        if state.is_success:
            if note.delta is not None:
                if self.items is None or note.delta.get("base") != self.success_seq:
                    base = note.delta.get("base")
                    raise DeltaMismatch(f"a delta based on seq {base}, but the watch holds {self.success_seq}")
                items = self._apply_delta(note.delta)
            elif state.items is not None:
                items, self._keyed = state.items, None
            else:
                raise DeltaMismatch("a success without items or a delta")
            if state.count is not None and state.count != len(items):
                raise DeltaMismatch(f"the state has {state.count} items, the watch {len(items)}")
            self.items, self.success_seq = items, state.seq
            whole = state.with_items(items, resync=resync, skipped=note.skipped)
        else:
            whole = replace(state, resync=resync, skipped=note.skipped)
        self.last = whole
        return whole

    def _apply_delta(self, delta: Mapping[str, Any]) -> List[Item]:
        id_field = str(delta["idField"])
        if self._keyed is None or self._keyed_by != id_field:
            self._keyed = {item_id(item, id_field): item for item in self.items or []}
            self._keyed_by = id_field
        keyed = self._keyed
        for key in delta["removed"]:
            if keyed.pop(key, None) is None:
                self._keyed = None
                raise DeltaMismatch("the delta removes an id the watch does not hold")
        for item in delta["changed"]:
            key = item_id(item, id_field)
            if key not in keyed:
                self._keyed = None
                raise DeltaMismatch("the delta changes an item the watch does not hold")
            keyed[key] = item  # in place: a dict keeps the position of a key it already has
        added = delta["added"]
        if added:
            entries = list(keyed.items())
            for addition in added:
                if addition["index"] > len(entries):
                    self._keyed = None
                    raise DeltaMismatch("the delta adds past the end of the list")
                entries.insert(addition["index"], (item_id(addition["item"], id_field), addition["item"]))
            keyed = dict(entries)
            if len(keyed) != len(entries):
                self._keyed = None
                raise DeltaMismatch("the delta adds an id the watch already holds")
            self._keyed = keyed
        return list(keyed.values())
