"""What the traffic records: every call with when it was sent and answered and what came back, every subscription
with every notification it was sent, and every `state` answer. The checkers read nothing else, so a history saved as
JSON lines can be checked again, or mutated by the checkers' own tests."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

JSON = Any
"""A decoded JSON value."""


def canonical(value: JSON) -> str:
    """One text per JSON value whatever its members' order: how the model compares items."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def key_of(identifier: JSON) -> str:
    """An item id as depotd matches it: a string as itself, an integer as its decimal text."""
    return identifier if isinstance(identifier, str) else str(identifier)


@dataclass
class Change:
    """One change of a write: `put`, `patch` or `remove` of one item, with its precondition.

    `if_match` is the canonical JSON of the item the client believes the etag it sent names (it saw that etag with
    that item), or `NEVER` for an etag no version ever had; None when the write is unconditional."""

    op: str
    key: str
    item: JSON = None
    patch: JSON = None
    format: str = "merge"
    if_match: str | None = None
    if_absent: bool = False


NEVER = "<an etag no item ever had>"

UNSEEN = "<not shown>"
"""`observed` of a conflict whose answer did not show the item there."""


@dataclass
class Operation:
    """One call of a client that reads or writes items: `get` (key) or a write (changes: one for put, patch and
    remove, several for apply).

    `returned` is None when no answer came (the connection was cut, or the call outlived its deadline): the call may
    or may not have taken effect. `outcome` is `ok`, an error's name (`conflict`, `notFound`, `changeFailed`,
    `storageFailed`, `loadFailed`, `outcomeUnknown`, …), `notLoaded` (a get while no items are loaded: it says nothing
    of the item), or `unknown`. `observed` is what the answer shows of the item: a get's item, or a conflict's current
    item, as canonical JSON, or None for none."""

    client: int
    kind: str
    invoked: float
    returned: float | None
    outcome: str
    key: str | None = None
    changes: list[Change] = field(default_factory=list)
    optimistic: bool = False
    failed_index: int | None = None
    observed: str | None = None
    created: bool | None = None

    def touched(self) -> list[str]:
        if self.key is not None:
            return [self.key]
        return sorted({change.key for change in self.changes})


@dataclass
class Notification:
    """One `stateChanged` a subscription was sent, as it came (`state` with `items` or `count`, and `delta`)."""

    received: float
    params: dict[str, JSON]


@dataclass
class Subscription:
    """One subscription of one connection: how it was asked for, the answer, and every notification it was sent
    until it ended (unsubscribe, or its connection closed)."""

    client: int
    connection: int
    mode: str
    pipeline: JSON
    since: dict[str, JSON] | None
    answer: dict[str, JSON]
    notifications: list[Notification] = field(default_factory=list)
    ended: str | None = None
    resumes: int | None = None
    """With `since`: the index (in the history's subscriptions) of the subscription whose last state the client
    resumed from — the items it held then are what a resumed delta applies to."""


@dataclass
class StateRead:
    """A `state` answer: the daemon's state at a seq of an epoch, items included."""

    client: int
    received: float
    state: dict[str, JSON]


@dataclass
class History:
    """Everything one run recorded, against one daemon (whose runs the epochs name)."""

    initial: dict[str, str | None]
    kills: list[float] = field(default_factory=list)
    """When each killed depotd was gone (SIGKILL, a power cut)."""
    operations: list[Operation] = field(default_factory=list)
    subscriptions: list[Subscription] = field(default_factory=list)
    reads: list[StateRead] = field(default_factory=list)

    def save(self, path: str) -> None:
        with open(path, "w") as file:
            file.write(json.dumps({"initial": self.initial, "kills": self.kills}) + "\n")
            for operation in self.operations:
                file.write(json.dumps({"operation": asdict(operation)}) + "\n")
            for subscription in self.subscriptions:
                file.write(json.dumps({"subscription": asdict(subscription)}) + "\n")
            for read in self.reads:
                file.write(json.dumps({"read": asdict(read)}) + "\n")

    @staticmethod
    def load(path: str) -> History:
        history = History(initial={})
        with open(path) as file:
            for line in file:
                record = json.loads(line)
                if "initial" in record:
                    history.initial = record["initial"]
                    history.kills = record.get("kills", [])
                elif "operation" in record:
                    fields = record["operation"]
                    fields["changes"] = [Change(**change) for change in fields["changes"]]
                    history.operations.append(Operation(**fields))
                elif "subscription" in record:
                    fields = record["subscription"]
                    fields["notifications"] = [Notification(**n) for n in fields["notifications"]]
                    history.subscriptions.append(Subscription(**fields))
                elif "read" in record:
                    history.reads.append(StateRead(**record["read"]))
        return history
