"""The errors depotd answers with, one exception class per code, and the connection's own failures."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Type

from .types import Item, State, Violation


class DepotError(Exception):
    """An error from depotd (`code`, `message`, `data` as the answer gave them), or a failure to reach it.

    `state` is the State an error's data carries (a failed load's failure state, the state after a refused removal's
    or write's rollback), typed; None when the data is something else. `index` is the failing change's index in an
    `apply`."""

    code: Optional[int] = None

    def __init__(self, message: str, *, code: Optional[int] = None, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.data = data
        # A write's error data is {"state", …}; a load's or a removal's, the State itself.
        held: Any = data.get("state") if isinstance(data, dict) and "state" in data else data
        self.state: Optional[State] = State.from_json(held) if State.looks_like(held) else None
        self.index: Optional[int] = data.get("index") if isinstance(data, dict) and "state" in data else None

    def __str__(self) -> str:
        return self.message if self.code is None else f"{self.message} (code {self.code})"


class ParseError(DepotError):
    """-32700: depotd could not parse the line as JSON."""

    code = -32700


class InvalidRequest(DepotError):
    """-32600: not a request depotd accepts (a line over the size limit, an empty batch)."""

    code = -32600


class MethodNotFound(DepotError):
    """-32601: depotd has no such method (an older daemon?); the message lists those there are."""

    code = -32601


class InvalidParams(DepotError):
    """-32602: a missing or wrong parameter, or an invalid pipeline (data: the JSON Pointer of the fault)."""

    code = -32602


class InternalError(DepotError):
    """-32603: a bug in depotd; please report it."""

    code = -32603


class LoadFailed(DepotError):
    """-32001: the source could not be read, or did not give a collection; `state` is the state published."""

    code = -32001


class ChangeFailed(DepotError):
    """-32002 (changeFailed): the source refused the change — a removal, a put, a patch, a batch — or cannot be
    written at all (the message names the setting that allows it); an optimistic change was rolled back, alone."""

    code = -32002


#: Earlier names of ChangeFailed: the removals they were about are changes too.
RemovalRefused = ChangeFailed
RemoveFailed = ChangeFailed


class NotFound(DepotError):
    """-32003: no item has that id, no items are loaded, or no pipeline has that name."""

    code = -32003


class LimitExceeded(DepotError):
    """-32004: a limit was reached (subscriptions per connection, pipelines, a batch's answers); the message says
    which and what to do."""

    code = -32004


class Forbidden(DepotError):
    """-32005: your credentials do not grant the access level the method needs; nothing changed."""

    code = -32005


class ReadOnly(DepotError):
    """-32006: the pipeline comes from a configuration file: edit the file and reload depotd."""

    code = -32006


class StorageFailed(DepotError):
    """-32007: the state directory could not be written (full disk, read-only file system)."""

    code = -32007


class Conflict(DepotError):
    """-32008: the write's `if_match` names another version than the item's (or it is gone), `if_absent` found the
    item, or a JSON Patch does not fit it; nothing changed. `item` and `etag` are the item as it is now (None when there
    is none): read it again, redo the change, write with `if_match=etag`."""

    code = -32008

    def __init__(self, message: str, *, code: Optional[int] = None, data: Any = None) -> None:
        super().__init__(message, code=code, data=data)
        fields = data if isinstance(data, dict) else {}
        item = fields.get("item")
        self.item: Optional[Item] = dict(item) if isinstance(item, dict) else None
        etag = fields.get("etag")
        self.etag: Optional[str] = str(etag) if etag is not None else None


class InvalidItem(DepotError):
    """-32009: an item the write would leave fails depotd's item schema; `violations` lists every one. Nothing
    changed."""

    code = -32009

    def __init__(self, message: str, *, code: Optional[int] = None, data: Any = None) -> None:
        super().__init__(message, code=code, data=data)
        found = data.get("violations", []) if isinstance(data, dict) else []
        self.violations: List[Violation] = [
            Violation(str(entry.get("pointer", "")), str(entry.get("keyword", "")), str(entry.get("message", "")))
            for entry in found
            if isinstance(entry, dict)
        ]


class OutcomeUnknown(DepotError):
    """-32010: the write may or may not be in the source, now or after a power loss (it could be neither made durable
    nor undone: a disk failing its writes). depotd reads the source again; get the item, then retry with `if_match`
    so that a change already made is not made twice."""

    code = -32010


class ConnectionLost(DepotError):
    """The connection to depotd ended (the daemon stopped or restarted) before the answer came."""


class DaemonNotRunning(DepotError):
    """Nothing listens on the socket: depotd is not running there."""


class SubscriptionEnded(DepotError):
    """depotd ended a watch's subscription (its named pipeline was deleted, or read access was taken away); the
    message says why."""


class Timeout(DepotError):
    """No answer came within the timeout given to connect()."""


_BY_CODE: Dict[int, Type[DepotError]] = {
    cls.code: cls
    for cls in (
        ParseError,
        InvalidRequest,
        MethodNotFound,
        InvalidParams,
        InternalError,
        LoadFailed,
        ChangeFailed,
        NotFound,
        LimitExceeded,
        Forbidden,
        ReadOnly,
        StorageFailed,
        Conflict,
        InvalidItem,
        OutcomeUnknown,
    )
}


def error_from_answer(error: Dict[str, Any]) -> DepotError:
    """The exception for a JSON-RPC error object: its code's class, or DepotError for a code this library does not
    know (a later daemon's)."""
    code = int(error.get("code", 0))
    message = str(error.get("message", "depotd answered with an error"))
    return _BY_CODE.get(code, DepotError)(message, code=code, data=error.get("data"))
