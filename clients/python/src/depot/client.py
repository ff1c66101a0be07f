"""A connection to depotd for threaded code: calls in flight at once, answers matched by id, and watches."""

from __future__ import annotations

import contextlib
import itertools
import json
import queue
import random
import socket
import threading
import time
from types import TracebackType
from typing import (
    Any,
    Callable,
    Dict,
    Generator,
    List,
    Literal,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Type,
    Union,
    overload,
)

from . import _wire
from ._paths import socket_path
from .errors import ConnectionLost, DaemonNotRunning, DepotError, SubscriptionEnded, Timeout, error_from_answer
from .types import (
    Applied,
    DeltaMismatch,
    Item,
    ItemID,
    PipelineArg,
    State,
    Stats,
    StoredPipeline,
    Subscribed,
    Versioned,
    Whoami,
    Written,
)

_Event = _wire.Event


class _Call:
    """A call waiting for its answer; `on_result` runs on the reader thread before the next line is read."""

    def __init__(self, on_result: Optional[Callable[[Any], None]]) -> None:
        self.done = threading.Event()
        self.result: Any = None
        self.error: Optional[DepotError] = None
        self.on_result = on_result


class _Transport:
    """One socket to depotd and the thread that reads it: answers go to the calls waiting for them, notifications to
    their subscription's queue. Writes are whole lines under a lock, so any thread may call."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._socket.connect(path)
        except OSError as problem:
            self._socket.close()
            raise _wire.connect_error(path, problem) from problem
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._calls: Dict[int, _Call] = {}
        self._subscriptions: Dict[str, queue.SimpleQueue[_Event]] = {}
        self._ended: Optional[DepotError] = None
        self._reader = threading.Thread(target=self._read, name=f"depot-reader {path}", daemon=True)
        self._reader.start()

    @property
    def is_open(self) -> bool:
        return self._ended is None

    def call(
        self,
        method: str,
        params: Optional[Mapping[str, Any]],
        timeout: Optional[float],
        on_result: Optional[Callable[[Any], None]] = None,
    ) -> Any:
        waiting = _Call(on_result)
        with self._lock:
            if self._ended is not None:
                raise self._ended
            request_id = next(self._ids)
            self._calls[request_id] = waiting
        try:
            with self._write_lock:
                self._socket.sendall(_wire.request_line(request_id, method, params))
        except OSError as problem:
            self.end(_wire.lost(self.path, str(problem)))
        if not waiting.done.wait(timeout):
            with self._lock:
                self._calls.pop(request_id, None)
            raise Timeout(f"depotd at {self.path} did not answer {method} within {timeout} s")
        if waiting.error is not None:
            raise waiting.error
        return waiting.result

    def subscribe(
        self, params: Mapping[str, Any], timeout: Optional[float]
    ) -> Tuple[Subscribed, queue.SimpleQueue[_Event]]:
        events: queue.SimpleQueue[_Event] = queue.SimpleQueue()

        def register(result: Any) -> None:
            # On the reader thread, before it reads the subscription's first notification.
            with self._lock:
                self._subscriptions[str(result["subscription"])] = events

        result = self.call("subscribe", params, timeout, on_result=register)
        answer = Subscribed(
            str(result["subscription"]), str(result["epoch"]), int(result["seq"]), bool(result["resumed"])
        )
        return answer, events

    def forget(self, subscription: str) -> None:
        with self._lock:
            self._subscriptions.pop(subscription, None)

    def close(self) -> None:
        self.end(_wire.lost(self.path, "this client closed the connection"))
        if self._reader is not threading.current_thread():
            self._reader.join()

    def end(self, why: DepotError) -> None:
        with self._lock:
            if self._ended is not None:
                return
            self._ended = why
            calls, self._calls = self._calls, {}
            subscriptions, self._subscriptions = self._subscriptions, {}
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
        for waiting in calls.values():
            waiting.error = why
            waiting.done.set()
        for events in subscriptions.values():
            events.put(why)

    def _read(self) -> None:
        why = _wire.lost(self.path)
        try:
            with self._socket.makefile("rb", buffering=1 << 16) as lines:
                for line in lines:
                    self._dispatch(json.loads(line))
        except (OSError, ValueError) as problem:
            why = _wire.lost(self.path, str(problem))
        finally:
            self.end(why)
            self._socket.close()

    def _dispatch(self, message: Dict[str, Any]) -> None:
        method = message.get("method")
        if method is None:
            with self._lock:
                waiting = self._calls.pop(message.get("id"), None)  # type: ignore[arg-type]
            if waiting is None:
                return
            if "error" in message:
                waiting.error = error_from_answer(message["error"])
            else:
                waiting.result = message.get("result")
                if waiting.on_result is not None:
                    waiting.on_result(waiting.result)
            waiting.done.set()
            return
        params = message.get("params") or {}
        with self._lock:
            events = self._subscriptions.get(str(params.get("subscription")))
        if events is None:
            return
        event = _wire.event(method, params)
        if isinstance(event, SubscriptionEnded):
            self.forget(str(params.get("subscription")))
        if event is not None:
            events.put(event)


class Pipelines:
    """The stored pipelines: `depot.pipelines.put/get/list/delete`."""

    def __init__(self, depot: Depot) -> None:
        self._depot = depot

    def put(self, name: str, pipeline: Sequence[Mapping[str, Any]], description: Optional[str] = None) -> bool:
        """Stores `pipeline` under `name`; True when no pipeline had that name before."""
        params = _wire.put_params(name, pipeline, description)
        return bool(self._depot.call("pipelines.put", params)["created"])

    def get(self, name: str) -> StoredPipeline:
        return StoredPipeline.from_json(self._depot.call("pipelines.get", {"name": name}))

    def list(self) -> List[StoredPipeline]:
        return [StoredPipeline.from_json(entry) for entry in self._depot.call("pipelines.list")]

    def delete(self, name: str) -> None:
        self._depot.call("pipelines.delete", {"name": name})


class Depot:
    """A connection to depotd. Methods may be called from any thread, several at once; a `watch` can share the
    connection with calls. Use it as a context manager, or call `close()`."""

    def __init__(self, path: str, *, timeout: Optional[float] = None) -> None:
        self.socket_path = path
        self.timeout = timeout
        self.pipelines = Pipelines(self)
        self._transport_lock = threading.Lock()
        self._transport = _Transport(path)
        self._closed = False

    def __enter__(self) -> Depot:
        return self

    def __exit__(
        self, kind: Optional[Type[BaseException]], error: Optional[BaseException], trace: Optional[TracebackType]
    ) -> None:
        self.close()

    def close(self) -> None:
        self._closed = True
        self._transport.close()

    def reconnect(self) -> None:
        """Opens a new connection if this one ended (depotd restarted); calls in flight on the old one failed with
        ConnectionLost. Raises DaemonNotRunning while nothing listens."""
        with self._transport_lock:
            if self._closed:
                raise _wire.lost(self.socket_path, "this client closed the connection")
            if not self._transport.is_open:
                self._transport = _Transport(self.socket_path)

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        """Any method, by name, with its params; the answer's `result` as JSON values. Raises the error's class."""
        return self._transport.call(method, params, self.timeout)

    def state(self, pipeline: Optional[PipelineArg] = None) -> State:
        """The current state, with its items (through `pipeline` when given: operators, or a stored one's name)."""
        return State.from_json(self.call("state", _wire.pipeline_params(pipeline)))

    @overload
    def get(self, id: ItemID, pipeline: Optional[PipelineArg] = None, *, meta: Literal[False] = False) -> Item: ...

    @overload
    def get(self, id: ItemID, pipeline: Optional[PipelineArg] = None, *, meta: Literal[True]) -> Versioned: ...

    def get(self, id: ItemID, pipeline: Optional[PipelineArg] = None, *, meta: bool = False) -> Union[Item, Versioned]:
        """The item with `id` in the current state; NotFound when there is none. With `meta`, a `Versioned`: the item
        and its etag, for `if_match`."""
        params = {"id": id, **_wire.pipeline_params(pipeline), **({"meta": True} if meta else {})}
        answer = self.call("get", params)
        return Versioned.from_json(answer) if meta else dict(answer)

    def put(
        self,
        id: ItemID,
        item: Mapping[str, Any],
        *,
        if_match: Optional[str] = None,
        if_absent: bool = False,
        optimistic: bool = False,
        items: bool = False,
    ) -> Written:
        """Creates or replaces the item through the source; once the source has it, its etag, whether it was created,
        and the State. `if_match`: only while the item is that version; `if_absent`: only create — else Conflict, with
        the item as it is now. `optimistic`: subscribers see it at once, pending; rolled back alone if refused."""
        params = _wire.write_params(
            id, item=dict(item), optimistic=optimistic, items=items, if_match=if_match, if_absent=if_absent
        )
        return Written.from_json(self.call("put", params))

    def patch(
        self,
        id: ItemID,
        patch: Any,
        *,
        json_patch: bool = False,
        if_match: Optional[str] = None,
        optimistic: bool = False,
        items: bool = False,
    ) -> Written:
        """Changes the item by an RFC 7396 merge patch (a dict), or with `json_patch` an RFC 6902 JSON Patch (a list
        of operations), through the source. Without `if_match`, the patch is made to the item as the source holds it."""
        params = _wire.patch_params(
            id, patch, json_patch=json_patch, optimistic=optimistic, items=items, if_match=if_match
        )
        return Written.from_json(self.call("patch", params))

    def apply(self, changes: Sequence[Mapping[str, Any]], *, optimistic: bool = False, items: bool = False) -> Applied:
        """Makes `changes` — each `{"op": "put"|"patch"|"remove", "id", …}` as the protocol writes them — in order,
        all or none, in one write to the source; a change that cannot be made fails them all (the error's `index`)."""
        return Applied.from_json(self.call("apply", _wire.apply_params(changes, optimistic=optimistic, items=items)))

    def load(self, strategy: Optional[str] = None, *, items: bool = False) -> State:
        """Loads the collection (`strategy`: upToDateWithFallback by default, fastestAvailable,
        returnMultipleTimes); the State published, with `count` — and its items when `items` is true."""
        params = _wire.load_params(strategy, items)
        return State.from_json(self.call("load", params))

    def remove(
        self, id: ItemID, optimistic: bool = False, *, if_match: Optional[str] = None, items: bool = False
    ) -> State:
        """Removes the item from the source. `optimistic`: subscribers see it gone at once, and back if the source
        refuses (ChangeFailed, its `state` the one after the rollback). `if_match`: only while the item is that
        version, else Conflict."""
        params = _wire.remove_params(id, optimistic, items, if_match)
        return State.from_json(self.call("remove", params))

    def wipe(self) -> State:
        """Forgets the items, in memory and on disk (as at logout); the idle state published."""
        return State.from_json(self.call("wipe"))

    def whoami(self) -> Whoami:
        return Whoami.from_json(self.call("whoami"))

    def stats(self) -> Stats:
        return Stats.from_json(self.call("stats"))

    def discover(self) -> Dict[str, Any]:
        """The protocol's OpenRPC document, as this daemon serves it."""
        return dict(self.call("rpc.discover"))

    def watch(
        self,
        pipeline: Optional[PipelineArg] = None,
        *,
        follow: bool = False,
        heartbeat: float = 10.0,
        stop: Optional[threading.Event] = None,
    ) -> Generator[State, None, None]:
        """Yields the current state, then every later one, in order, each whole (deltas applied here: delta mode on
        the wire). A lagging reader gets the newest with `skipped`.

        `follow`: when the connection drops (depotd restarts, a suspend), reconnect with jittered backoff and resume
        after the last state yielded: depotd replays what was missed, or the next State has `resync` True and
        replaces what was held. Without it, ConnectionLost ends the watch. `stop` ends a following watch from another
        thread (set it, then close the connection)."""
        held = _wire.WatchState()
        backoff = 0.1
        while True:
            try:
                for state in self._follow_once(pipeline, held, heartbeat):
                    backoff = 0.1
                    yield state
            except DeltaMismatch:
                held.forget()  # start again from a full state, which says resync
                continue
            except (ConnectionLost, DaemonNotRunning):
                if not follow or (stop is not None and stop.is_set()) or self._closed:
                    raise
            # Full jitter, so a fleet of watchers does not reconnect in step after a daemon restart.
            time.sleep(random.uniform(0, backoff))
            backoff = min(backoff * 2, 10.0)
            if stop is not None and stop.is_set():
                return
            try:
                self.reconnect()
            except (ConnectionLost, DaemonNotRunning):
                continue

    def _follow_once(
        self, pipeline: Optional[PipelineArg], held: _wire.WatchState, heartbeat: float
    ) -> Generator[State, None, None]:
        transport = self._transport
        answer, events = transport.subscribe(_wire.subscribe_params(pipeline, held.since, heartbeat), self.timeout)
        # Resuming from a state held: anything but a replay starts again, so the first state says resync.
        resync = held.last is not None and not answer.resumed
        try:
            while True:
                try:
                    event = events.get(timeout=heartbeat * _wire.MISSED_HEARTBEATS)
                except queue.Empty:
                    transport.end(
                        _wire.lost(self.socket_path, f"no message for {heartbeat * _wire.MISSED_HEARTBEATS} s")
                    )
                    continue
                if isinstance(event, DepotError):
                    raise event
                if isinstance(event, _wire.Heartbeat):
                    continue
                yield held.apply(event, resync=resync)
                resync = False
        finally:
            transport.forget(answer.subscription)
            if transport.is_open:
                with contextlib.suppress(DepotError):
                    transport.call("unsubscribe", {"subscription": answer.subscription}, 5.0)


def connect(socket: Optional[str] = None, *, instance: Optional[str] = None, timeout: Optional[float] = None) -> Depot:
    """A connection to depotd, found as `depotctl socket` finds it (see `socket_path`). `timeout`: seconds to wait
    for each answer (None: as long as it takes). Raises DaemonNotRunning when nothing listens there."""
    return Depot(socket_path(socket, instance=instance), timeout=timeout)
