"""One client connection to depotd's socket: requests out, answers matched to them by id, notifications handed to
the subscription they name — read by one task for the connection's whole life."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Callable
from typing import Any

JSONObject = dict[str, Any]


class Cut(Exception):
    """The connection ended (depotd was killed, or closed it) before the answer came."""


class Connection:
    """Use as `async with await Connection.open(path, on_notification) as connection`."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, on_notification: Callable[[JSONObject], None]
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._on_notification = on_notification
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[JSONObject]] = {}
        self._hooks: dict[int, Callable[[JSONObject], None]] = {}
        self._task: asyncio.Task[None] | None = None
        self.closed = False
        self.paused_until = 0.0
        """A slow reader: the reading task takes nothing from the socket before this monotonic time."""

    @staticmethod
    async def open(path: str, on_notification: Callable[[JSONObject], None]) -> Connection:
        reader, writer = await asyncio.open_unix_connection(path, limit=1 << 26)
        return Connection(reader, writer, on_notification)

    async def __aenter__(self) -> Connection:
        self._task = asyncio.get_running_loop().create_task(self._read())
        return self

    async def __aexit__(self, *exception: object) -> None:
        self.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def close(self) -> None:
        self._end()
        self._writer.close()

    def _end(self) -> None:
        self.closed = True
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(Cut())
        self._waiting.clear()

    async def _read(self) -> None:
        try:
            while True:
                delay = self.paused_until - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                line = await self._reader.readline()
                if not line:
                    break
                message = json.loads(line)
                if isinstance(message, dict) and "method" in message:
                    self._on_notification(message)
                    continue
                if isinstance(message, dict) and isinstance(message.get("id"), int):
                    hook = self._hooks.pop(message["id"], None)
                    if hook is not None:
                        hook(message)
                    future = self._waiting.pop(message["id"], None)
                    if future is not None and not future.done():
                        future.set_result(message)
        except (ConnectionError, OSError, ValueError):
            pass
        finally:
            self._end()

    async def call(
        self,
        method: str,
        params: JSONObject | None = None,
        timeout: float = 30,
        on_answer: Callable[[JSONObject], None] | None = None,
    ) -> JSONObject:
        """The answer (`result` or `error`); Cut when the connection ends first, TimeoutError past `timeout`.
        `on_answer` sees the answer as soon as it is read, before any line after it (a subscription's first
        notification, say)."""
        if self.closed:
            raise Cut()
        identifier = next(self._ids)
        request: JSONObject = {"jsonrpc": "2.0", "id": identifier, "method": method}
        if params is not None:
            request["params"] = params
        future: asyncio.Future[JSONObject] = asyncio.get_running_loop().create_future()
        # A call given up on (past its deadline) may still be cut later: its Cut is nobody's to hear.
        future.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._waiting[identifier] = future
        if on_answer is not None:
            self._hooks[identifier] = on_answer
        try:
            self._writer.write(json.dumps(request).encode() + b"\n")
            await self._writer.drain()
        except (ConnectionError, OSError) as error:
            self._waiting.pop(identifier, None)
            raise Cut() from error
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._waiting.pop(identifier, None)
            self._hooks.pop(identifier, None)


def call_once(path: str, method: str, params: JSONObject, timeout: float = 60) -> JSONObject:
    """One call on a connection of its own, from code that is not async (a test's steps): the answer."""

    async def once() -> JSONObject:
        async with await Connection.open(path, lambda _: None) as connection:
            return await connection.call(method, params, timeout)

    return asyncio.run(once())
