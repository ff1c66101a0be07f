"""The same API on asyncio: `async with depot.aio.connect() as d:`, `await d.state()`, `async for s in d.watch()`."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
from types import TracebackType
from typing import (
    Any,
    AsyncGenerator,
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

#: The longest line the reader accepts: depotd's states can be hundreds of megabytes.
_LINE_LIMIT = 1 << 30


_Event = _wire.Event


class _Transport:
    """One connection and the task that reads it: answers resolve their call's future, notifications go to their
    subscription's queue."""

    def __init__(self, path: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.path = path
        self._reader = reader
        self._writer = writer
        self._ids = itertools.count(1)
        self._calls: Dict[int, Tuple[asyncio.Future[Any], Optional[Callable[[Any], None]]]] = {}
        self._subscriptions: Dict[str, asyncio.Queue[_Event]] = {}
        self._ended: Optional[DepotError] = None
        self._task = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, path: str) -> _Transport:
        try:
            reader, writer = await asyncio.open_unix_connection(path, limit=_LINE_LIMIT)
        except OSError as problem:
            raise _wire.connect_error(path, problem) from problem
        return cls(path, reader, writer)

    @property
    def is_open(self) -> bool:
        return self._ended is None

    async def call(
        self,
        method: str,
        params: Optional[Mapping[str, Any]],
        timeout: Optional[float],
        on_result: Optional[Callable[[Any], None]] = None,
    ) -> Any:
        if self._ended is not None:
            raise self._ended
        request_id = next(self._ids)
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[request_id] = (answer, on_result)
        self._writer.write(_wire.request_line(request_id, method, params))
        try:
            await self._writer.drain()
        except OSError as problem:
            self.end(_wire.lost(self.path, str(problem)))
        try:
            return await asyncio.wait_for(answer, timeout)
        except asyncio.TimeoutError:
            self._calls.pop(request_id, None)
            raise Timeout(f"depotd at {self.path} did not answer {method} within {timeout} s") from None

    async def subscribe(
        self, params: Mapping[str, Any], timeout: Optional[float]
    ) -> Tuple[Subscribed, asyncio.Queue[_Event]]:
        events: asyncio.Queue[_Event] = asyncio.Queue()

        def register(result: Any) -> None:
            self._subscriptions[str(result["subscription"])] = events

        result = await self.call("subscribe", params, timeout, on_result=register)
        answer = Subscribed(
            str(result["subscription"]), str(result["epoch"]), int(result["seq"]), bool(result["resumed"])
        )
        return answer, events

    def forget(self, subscription: str) -> None:
        self._subscriptions.pop(subscription, None)

    def end(self, why: DepotError) -> None:
        if self._ended is not None:
            return
        self._ended = why
        calls, self._calls = self._calls, {}
        subscriptions, self._subscriptions = self._subscriptions, {}
        self._writer.close()
        for answer, _ in calls.values():
            if not answer.done():
                answer.set_exception(why)
        for events in subscriptions.values():
            events.put_nowait(why)

    async def close(self) -> None:
        self.end(_wire.lost(self.path, "this client closed the connection"))
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        with contextlib.suppress(OSError):
            await self._writer.wait_closed()

    async def _read(self) -> None:
        why = _wire.lost(self.path)
        try:
            while True:
                line = await self._reader.readline()
                if not line:
                    break
                self._dispatch(json.loads(line))
        except (OSError, ValueError) as problem:
            why = _wire.lost(self.path, str(problem))
        finally:
            self.end(why)

    def _dispatch(self, message: Dict[str, Any]) -> None:
        method = message.get("method")
        if method is None:
            entry = self._calls.pop(message.get("id"), None)  # type: ignore[arg-type]
            if entry is None or entry[0].done():
                return
            answer, on_result = entry
            if "error" in message:
                answer.set_exception(error_from_answer(message["error"]))
            else:
                if on_result is not None:
                    on_result(message.get("result"))
                answer.set_result(message.get("result"))
            return
        params = message.get("params") or {}
        events = self._subscriptions.get(str(params.get("subscription")))
        if events is None:
            return
        event = _wire.event(method, params)
        if isinstance(event, SubscriptionEnded):
            self.forget(str(params.get("subscription")))
        if event is not None:
            events.put_nowait(event)


class AsyncPipelines:
    """The stored pipelines: `await d.pipelines.put/get/list/delete`."""

    def __init__(self, depot: AsyncDepot) -> None:
        self._depot = depot

    async def put(self, name: str, pipeline: Sequence[Mapping[str, Any]], description: Optional[str] = None) -> bool:
        params = _wire.put_params(name, pipeline, description)
        return bool((await self._depot.call("pipelines.put", params))["created"])

    async def get(self, name: str) -> StoredPipeline:
        return StoredPipeline.from_json(await self._depot.call("pipelines.get", {"name": name}))

    async def list(self) -> List[StoredPipeline]:
        return [StoredPipeline.from_json(entry) for entry in await self._depot.call("pipelines.list")]

    async def delete(self, name: str) -> None:
        await self._depot.call("pipelines.delete", {"name": name})


class AsyncDepot:
    """A connection to depotd on asyncio; the methods of `depot.Depot`, as coroutines. Several calls may be awaited
    at once (answers are matched by id), and a watch can share the connection."""

    def __init__(self, transport: _Transport, *, timeout: Optional[float] = None) -> None:
        self.socket_path = transport.path
        self.timeout = timeout
        self.pipelines = AsyncPipelines(self)
        self._transport = transport
        self._closed = False

    async def __aenter__(self) -> AsyncDepot:
        return self

    async def __aexit__(
        self, kind: Optional[Type[BaseException]], error: Optional[BaseException], trace: Optional[TracebackType]
    ) -> None:
        await self.close()

    async def close(self) -> None:
        self._closed = True
        await self._transport.close()

    async def reconnect(self) -> None:
        """Opens a new connection if this one ended; raises DaemonNotRunning while nothing listens."""
        if self._closed:
            raise _wire.lost(self.socket_path, "this client closed the connection")
        if not self._transport.is_open:
            self._transport = await _Transport.open(self.socket_path)

    async def call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        return await self._transport.call(method, params, self.timeout)

    async def state(self, pipeline: Optional[PipelineArg] = None) -> State:
        return State.from_json(await self.call("state", _wire.pipeline_params(pipeline)))

    @overload
    async def get(
        self, id: ItemID, pipeline: Optional[PipelineArg] = None, *, meta: Literal[False] = False
    ) -> Item: ...

    @overload
    async def get(self, id: ItemID, pipeline: Optional[PipelineArg] = None, *, meta: Literal[True]) -> Versioned: ...

    async def get(
        self, id: ItemID, pipeline: Optional[PipelineArg] = None, *, meta: bool = False
    ) -> Union[Item, Versioned]:
        params = {"id": id, **_wire.pipeline_params(pipeline), **({"meta": True} if meta else {})}
        answer = await self.call("get", params)
        return Versioned.from_json(answer) if meta else dict(answer)

    async def put(
        self,
        id: ItemID,
        item: Mapping[str, Any],
        *,
        if_match: Optional[str] = None,
        if_absent: bool = False,
        optimistic: bool = False,
        items: bool = False,
    ) -> Written:
        params = _wire.write_params(
            id, item=dict(item), optimistic=optimistic, items=items, if_match=if_match, if_absent=if_absent
        )
        return Written.from_json(await self.call("put", params))

    async def patch(
        self,
        id: ItemID,
        patch: Any,
        *,
        json_patch: bool = False,
        if_match: Optional[str] = None,
        optimistic: bool = False,
        items: bool = False,
    ) -> Written:
        params = _wire.patch_params(
            id, patch, json_patch=json_patch, optimistic=optimistic, items=items, if_match=if_match
        )
        return Written.from_json(await self.call("patch", params))

    async def apply(
        self, changes: Sequence[Mapping[str, Any]], *, optimistic: bool = False, items: bool = False
    ) -> Applied:
        return Applied.from_json(
            await self.call("apply", _wire.apply_params(changes, optimistic=optimistic, items=items))
        )

    async def load(self, strategy: Optional[str] = None, *, items: bool = False) -> State:
        params = _wire.load_params(strategy, items)
        return State.from_json(await self.call("load", params))

    async def remove(
        self, id: ItemID, optimistic: bool = False, *, if_match: Optional[str] = None, items: bool = False
    ) -> State:
        params = _wire.remove_params(id, optimistic, items, if_match)
        return State.from_json(await self.call("remove", params))

    async def wipe(self) -> State:
        return State.from_json(await self.call("wipe"))

    async def whoami(self) -> Whoami:
        return Whoami.from_json(await self.call("whoami"))

    async def stats(self) -> Stats:
        return Stats.from_json(await self.call("stats"))

    async def discover(self) -> Dict[str, Any]:
        return dict(await self.call("rpc.discover"))

    async def watch(
        self, pipeline: Optional[PipelineArg] = None, *, follow: bool = False, heartbeat: float = 10.0
    ) -> AsyncGenerator[State, None]:
        """As `depot.Depot.watch`: whole States in order; `follow` reconnects and resumes (or yields a resync)."""
        held = _wire.WatchState()
        backoff = 0.1
        while True:
            try:
                async for state in self._follow_once(pipeline, held, heartbeat):
                    backoff = 0.1
                    yield state
            except DeltaMismatch:
                held.forget()
                continue
            except (ConnectionLost, DaemonNotRunning):
                if not follow or self._closed:
                    raise
            await asyncio.sleep(random.uniform(0, backoff))
            backoff = min(backoff * 2, 10.0)
            try:
                await self.reconnect()
            except (ConnectionLost, DaemonNotRunning):
                continue

    async def _follow_once(
        self, pipeline: Optional[PipelineArg], held: _wire.WatchState, heartbeat: float
    ) -> AsyncGenerator[State, None]:
        transport = self._transport
        answer, events = await transport.subscribe(
            _wire.subscribe_params(pipeline, held.since, heartbeat), self.timeout
        )
        resync = held.last is not None and not answer.resumed
        try:
            while True:
                try:
                    event = await asyncio.wait_for(events.get(), heartbeat * _wire.MISSED_HEARTBEATS)
                except asyncio.TimeoutError:
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


class _Connecting:
    """What `connect()` returns: await it for an AsyncDepot, or use it in `async with`, which closes it after."""

    def __init__(self, path: str, timeout: Optional[float]) -> None:
        self._path = path
        self._timeout = timeout
        self._depot: Optional[AsyncDepot] = None

    async def _open(self) -> AsyncDepot:
        return AsyncDepot(await _Transport.open(self._path), timeout=self._timeout)

    def __await__(self) -> Generator[Any, None, AsyncDepot]:
        return self._open().__await__()

    async def __aenter__(self) -> AsyncDepot:
        self._depot = await self._open()
        return self._depot

    async def __aexit__(
        self, kind: Optional[Type[BaseException]], error: Optional[BaseException], trace: Optional[TracebackType]
    ) -> None:
        if self._depot is not None:
            await self._depot.close()


def connect(
    socket: Optional[str] = None, *, instance: Optional[str] = None, timeout: Optional[float] = None
) -> _Connecting:
    """A connection to depotd on asyncio, found as `depotctl socket` finds it: `async with connect() as d:` or
    `d = await connect()`."""
    return _Connecting(socket_path(socket, instance=instance), timeout)
