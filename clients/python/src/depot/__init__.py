"""A client for depotd, Depot's daemon: one shared, live collection for the scripts and tools of a machine.

    import depot
    with depot.connect() as d:
        print(d.state().count)
        for state in d.watch(follow=True):
            ...

Pure standard library. `depot.aio` has the same API on asyncio; `depot.Mirror` keeps a local copy up to date."""

from . import aio
from ._paths import socket_path
from .client import Depot, Pipelines, connect
from .errors import (
    ChangeFailed,
    Conflict,
    ConnectionLost,
    DaemonNotRunning,
    DepotError,
    Forbidden,
    InternalError,
    InvalidItem,
    InvalidParams,
    InvalidRequest,
    LimitExceeded,
    LoadFailed,
    MethodNotFound,
    NotFound,
    OutcomeUnknown,
    ParseError,
    ReadOnly,
    RemovalRefused,
    RemoveFailed,
    StorageFailed,
    SubscriptionEnded,
    Timeout,
)
from .mirror import Mirror
from .types import (
    AccessLevel,
    Applied,
    CallFigures,
    Item,
    ItemID,
    Origin,
    SourceStats,
    State,
    StateError,
    Stats,
    Status,
    StoredPipeline,
    SubscriptionStats,
    UserStats,
    Versioned,
    Violation,
    Whoami,
    Written,
    apply_delta,
)

__version__ = "0.3.0"

__all__ = [
    "AccessLevel",
    "Applied",
    "CallFigures",
    "ChangeFailed",
    "Conflict",
    "ConnectionLost",
    "DaemonNotRunning",
    "Depot",
    "DepotError",
    "Forbidden",
    "InternalError",
    "InvalidItem",
    "InvalidParams",
    "InvalidRequest",
    "Item",
    "ItemID",
    "LimitExceeded",
    "LoadFailed",
    "MethodNotFound",
    "Mirror",
    "NotFound",
    "Origin",
    "OutcomeUnknown",
    "ParseError",
    "Pipelines",
    "ReadOnly",
    "RemovalRefused",
    "RemoveFailed",
    "SourceStats",
    "State",
    "StateError",
    "Stats",
    "Status",
    "StorageFailed",
    "StoredPipeline",
    "SubscriptionEnded",
    "SubscriptionStats",
    "Timeout",
    "UserStats",
    "Versioned",
    "Violation",
    "Whoami",
    "Written",
    "aio",
    "apply_delta",
    "connect",
    "socket_path",
]
