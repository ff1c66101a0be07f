"""What depotd answers, as Python values: States, the items' deltas, and the results of the other methods."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

#: One item of the collection: a JSON object.
Item = Dict[str, Any]
#: An item id: a non-empty string, or an integer (matched as its decimal text).
ItemID = Union[str, int]
#: A pipeline: a list of operators (dicts), or the name of a stored pipeline.
PipelineArg = Union[str, Sequence[Mapping[str, Any]]]


class Status(str, enum.Enum):
    """Where the repository stands: the LoadingState of the published state."""

    IDLE = "idle"
    LOADING = "loading"
    SUCCESS = "success"
    FAILURE = "failure"


class Origin(str, enum.Enum):
    """Where a success's items come from."""

    SOURCE = "source"
    CACHE = "cache"
    MEMORY = "memory"


def parse_time(text: Optional[str]) -> Optional[datetime]:
    """An RFC 3339 UTC time as depotd writes it (`2026-11-21T20:41:49.123Z`), as an aware datetime."""
    if text is None:
        return None
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return datetime.fromisoformat(text).astimezone(timezone.utc)


@dataclass(frozen=True)
class StateError:
    """Why a failure state has no items."""

    code: int
    message: str


@dataclass(frozen=True)
class State:
    """A state the repository published. `seq` counts the states of one daemon run, named by `epoch`.

    `items` is the list on a success (None where the answer left it out: `load`, `remove` and the writes give `count`
    unless asked for the items). `pending` counts the optimistic writes shown that the source has not confirmed yet.
    `resync` is True on a state `watch` yields after a resume the daemon could not make: it replaces what the reader
    held. `skipped` counts states a lagging reader missed before this one."""

    seq: int
    epoch: str
    status: Status
    items: Optional[List[Item]] = None
    count: Optional[int] = None
    origin: Optional[Origin] = None
    fetched_at: Optional[datetime] = None
    stale: bool = False
    stale_reason: Optional[str] = None
    revision: Optional[int] = None
    pending: int = 0
    error: Optional[StateError] = None
    resync: bool = False
    skipped: int = 0

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> State:
        items = value.get("items")
        error = value.get("error")
        origin = value.get("origin")
        return cls(
            seq=int(value["seq"]),
            epoch=str(value["epoch"]),
            status=Status(value["status"]),
            items=list(items) if items is not None else None,
            count=value.get("count", len(items) if items is not None else None),
            origin=Origin(origin) if origin is not None else None,
            fetched_at=parse_time(value.get("fetchedAt")),
            stale=bool(value.get("stale", False)),
            stale_reason=value.get("staleReason"),
            revision=value.get("revision"),
            pending=int(value.get("pending", 0)),
            error=StateError(int(error["code"]), str(error["message"])) if error is not None else None,
        )

    @staticmethod
    def looks_like(value: Any) -> bool:
        """Whether `value` (an error's data, say) is a State."""
        return isinstance(value, Mapping) and {"seq", "epoch", "status"} <= value.keys()

    def with_items(self, items: List[Item], **changes: Any) -> State:
        return replace(self, items=items, count=len(items), **changes)

    @property
    def is_success(self) -> bool:
        return self.status is Status.SUCCESS


@dataclass(frozen=True)
class Versioned:
    """An item and its etag: what `get(id, meta=True)` answers. Give `etag` as `if_match` to write the item only
    while it is still this version."""

    item: Item
    etag: str

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Versioned:
        return cls(dict(value["item"]), str(value["etag"]))


@dataclass(frozen=True)
class Written:
    """What `put` and `patch` answer once the source has the change: the item's new etag, whether the change
    created it, and the State published then."""

    etag: str
    created: bool
    state: State

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Written:
        return cls(str(value["etag"]), bool(value["created"]), State.from_json(value["state"]))


@dataclass(frozen=True)
class Applied:
    """What `apply` answers once the source has every change: each change's new etag (None for a removal), and the
    State published then."""

    etags: List[Optional[str]]
    state: State

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Applied:
        return cls([None if etag is None else str(etag) for etag in value["etags"]], State.from_json(value["state"]))


@dataclass(frozen=True)
class Violation:
    """One way an item breaks depotd's item schema: where in the item (a JSON Pointer), which keyword, and why."""

    pointer: str
    keyword: str
    message: str


def item_id(item: Mapping[str, Any], id_field: str) -> str:
    """An item's id as deltas name it: a string as it is, an integer as its decimal text."""
    value = item.get(id_field)
    if isinstance(value, str):
        return value
    if type(value) is int:
        return str(value)
    return json.dumps(value)


class DeltaMismatch(Exception):
    """A delta does not fit the items held: start again from a full state."""


def apply_delta(items: List[Item], delta: Mapping[str, Any]) -> List[Item]:
    """The items after `delta`: drop `removed`, replace each `changed` item where it stands, insert each `added`
    item at its index. Raises DeltaMismatch when the delta names items the list does not hold."""
    id_field = str(delta["idField"])
    removed = set(delta["removed"])
    kept = [item for item in items if item_id(item, id_field) not in removed] if removed else list(items)
    if len(kept) != len(items) - len(removed):
        raise DeltaMismatch("the delta removes ids the list does not hold")
    if delta["changed"]:
        position = {item_id(item, id_field): index for index, item in enumerate(kept)}
        for item in delta["changed"]:
            index = position.get(item_id(item, id_field))
            if index is None:
                raise DeltaMismatch("the delta changes an item the list does not hold")
            kept[index] = item
    for addition in delta["added"]:
        if addition["index"] > len(kept):
            raise DeltaMismatch("the delta adds past the end of the list")
        kept.insert(addition["index"], addition["item"])
    return kept


class AccessLevel(str, enum.Enum):
    """What a caller may do; each level includes those below it."""

    READ = "read"
    WRITE = "write"
    ADMIN = "admin"


@dataclass(frozen=True)
class Whoami:
    """Who depotd sees on the other end of the socket, and what it may do."""

    uid: int
    gid: int
    groups: List[int]
    levels: List[AccessLevel]
    user: Optional[str] = None
    pid: Optional[int] = None

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Whoami:
        return cls(
            uid=int(value["uid"]),
            gid=int(value["gid"]),
            groups=[int(group) for group in value["groups"]],
            levels=[AccessLevel(level) for level in value["levels"]],
            user=value.get("user"),
            pid=value.get("pid"),
        )


@dataclass(frozen=True)
class StoredPipeline:
    """A named pipeline: its operators, and whether a configuration file holds it (`read_only`)."""

    name: str
    pipeline: List[Dict[str, Any]]
    read_only: bool
    description: Optional[str] = None

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> StoredPipeline:
        return cls(
            name=str(value["name"]),
            pipeline=list(value["pipeline"]),
            read_only=bool(value["readOnly"]),
            description=value.get("description"),
        )


@dataclass(frozen=True)
class CallFigures:
    """How often the source was asked (fetches or deletes), how often it failed, and how long it took."""

    calls: int
    failures: int
    last_microseconds: Optional[int] = None
    p50_microseconds: Optional[int] = None
    p99_microseconds: Optional[int] = None
    max_microseconds: Optional[int] = None

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> CallFigures:
        return cls(
            calls=int(value["calls"]),
            failures=int(value["failures"]),
            last_microseconds=value.get("lastMicroseconds"),
            p50_microseconds=value.get("p50Microseconds"),
            p99_microseconds=value.get("p99Microseconds"),
            max_microseconds=value.get("maxMicroseconds"),
        )


@dataclass(frozen=True)
class SourceStats:
    """The source and its freshness: the refresh interval in force, when it was last asked and confirmed the items."""

    name: str
    fetches: CallFigures
    deletes: CallFigures
    interval: Optional[float] = None
    interval_from: Optional[str] = None
    next_refresh_at: Optional[datetime] = None
    retrying: bool = False
    paused: bool = False
    last_attempt_at: Optional[datetime] = None
    last_success_at: Optional[datetime] = None
    consecutive_failures: int = 0
    failing_since: Optional[datetime] = None
    last_error: Optional[str] = None
    watching: bool = False
    watched_file: Optional[str] = None
    watch_problem: Optional[str] = None

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> SourceStats:
        return cls(
            name=str(value["name"]),
            fetches=CallFigures.from_json(value["fetches"]),
            deletes=CallFigures.from_json(value["deletes"]),
            interval=value.get("interval"),
            interval_from=value.get("intervalFrom"),
            next_refresh_at=parse_time(value.get("nextRefreshAt")),
            retrying=bool(value.get("retrying", False)),
            paused=bool(value.get("paused", False)),
            last_attempt_at=parse_time(value.get("lastAttemptAt")),
            last_success_at=parse_time(value.get("lastSuccessAt")),
            consecutive_failures=int(value.get("consecutiveFailures", 0)),
            failing_since=parse_time(value.get("failingSince")),
            last_error=value.get("lastError"),
            watching=bool(value.get("watching", False)),
            watched_file=value.get("watchedFile"),
            watch_problem=value.get("watchProblem"),
        )


@dataclass(frozen=True)
class UserStats:
    """One user's connections, subscriptions and memory on the daemon."""

    connections: int
    subscriptions: int
    memory_bytes: int
    queued_mutations: int
    uid: Optional[int] = None

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> UserStats:
        return cls(
            connections=int(value["connections"]),
            subscriptions=int(value["subscriptions"]),
            memory_bytes=int(value["memoryBytes"]),
            queued_mutations=int(value["queuedMutations"]),
            uid=value.get("uid"),
        )


@dataclass(frozen=True)
class SubscriptionStats:
    """One active subscription: its mode, its queue, what it skipped and sent."""

    subscription: str
    mode: str
    queued_states: int
    queued_bytes: int
    skipped: int
    sent: int
    uid: Optional[int] = None
    pipeline: Optional[str] = None

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> SubscriptionStats:
        return cls(
            subscription=str(value["subscription"]),
            mode=str(value["mode"]),
            queued_states=int(value["queuedStates"]),
            queued_bytes=int(value["queuedBytes"]),
            skipped=int(value["skipped"]),
            sent=int(value["sent"]),
            uid=value.get("uid"),
            pipeline=value.get("pipeline"),
        )


@dataclass(frozen=True)
class Stats:
    """The daemon at a glance: its state, connections, users, subscriptions, source and the limits it hit."""

    epoch: str
    seq: int
    status: Status
    uptime_seconds: int
    connections: int
    users: List[UserStats]
    subscriptions: List[SubscriptionStats]
    source: SourceStats
    unfinished_line_bytes: int
    limits_hit: Dict[str, int]
    items: Optional[int] = None
    stale: Optional[bool] = None
    stale_reason: Optional[str] = None
    cache_bytes: Optional[int] = None
    resident_bytes: Optional[int] = None
    open_files: Optional[int] = None
    #: Distinct pipelines running, each shared by the subscriptions that use it.
    pipelines: int = 0
    #: Connections set aside because their sockets are full (their subscriptions are told what they skipped).
    parked_connections: int = 0

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> Stats:
        process = value.get("process", {})
        return cls(
            epoch=str(value["epoch"]),
            seq=int(value["seq"]),
            status=Status(value["status"]),
            uptime_seconds=int(value["uptimeSeconds"]),
            connections=int(value["connections"]),
            users=[UserStats.from_json(user) for user in value["users"]],
            subscriptions=[SubscriptionStats.from_json(entry) for entry in value["subscriptions"]],
            source=SourceStats.from_json(value["source"]),
            unfinished_line_bytes=int(value["unfinishedLineBytes"]),
            limits_hit={str(name): int(count) for name, count in value["limitsHit"].items()},
            items=value.get("items"),
            stale=value.get("stale"),
            stale_reason=value.get("staleReason"),
            cache_bytes=value.get("cacheBytes"),
            resident_bytes=process.get("residentBytes"),
            open_files=process.get("openFiles"),
            pipelines=int(value.get("pipelines", 0)),
            parked_connections=int(value.get("parkedConnections", 0)),
        )


@dataclass(frozen=True)
class Subscribed:
    """The answer to `subscribe`: the subscription's id, and where it starts."""

    subscription: str
    epoch: str
    seq: int
    resumed: bool


@dataclass
class Notification:
    """One `stateChanged` as it came: the State (in delta mode, without the items when a delta carries them)."""

    state: State
    delta: Optional[Dict[str, Any]] = None
    skipped: int = 0
    resync: bool = False
    pipeline_changed: bool = False
