"""One run of the suite against an HTTP source: an API of the suite's own (standard library, on loopback) that serves
the list and each item with an ETag, takes a PUT, PATCH and DELETE of one item (`If-Match`, `If-None-Match: *`), and
changes items by itself meanwhile, as other users of an API do; depotd refreshes the list every second. The traffic
and the checks are the file run's, with one difference, by design (README, "Each source"): reads are left out of
linearizability, as in a fleet — depotd's memory follows the API's own changes at its next refresh, a moment later.
Every precondition is the API's to check (`ifMatch` as `If-Match` with the item's ETag, which depotd reads first;
`ifAbsent` as `If-None-Match: *`; a JSON Patch's `test`), and held to the model.

The API's own changes are writes of the history (client -2), each at the instant it was made under the API's lock."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import shutil
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .connection import Connection
from .daemon import Daemon
from .faults import each_fault, freeze, restart
from .history import JSON, UNSEEN, Change, History, Operation, canonical, key_of
from .linearizability import check
from .model import PatchConflict, json_patch, merge_patch
from .run import Report, RunSettings, run_clients, tally
from .traffic import Keys, Traffic, initial_items
from .watch import check_watch

API_CLIENT = -2
"""The client number of the API's own changes in the history."""


def item_etag(item: JSON) -> str:
    """An item's strong ETag: a digest of its JSON as the API writes it."""
    return '"' + hashlib.sha256(json.dumps(item).encode()).hexdigest()[:32] + '"'


class ItemAPI:
    """The items, the lock every request and own change takes, and how the API behaves now (`mode`): `normal`, `hang`
    (requests wait until the mode changes), `fail` (503), `slow` (each answer 50 to 300 ms late), `reset` (a write is
    made, then its connection closed without an answer)."""

    def __init__(self, items: list[JSON], history: History) -> None:
        self.items: dict[str, JSON] = {key_of(item["id"]): item for item in items}
        self.history = history
        self.lock = threading.Lock()
        self.mode = "normal"
        self.changed = threading.Condition()
        self.own_changes = 0
        self.server: ThreadingHTTPServer | None = None
        self.port = 0

    def start(self) -> None:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                api.serve(self, "GET")

            def do_PUT(self) -> None:
                api.serve(self, "PUT")

            def do_PATCH(self) -> None:
                api.serve(self, "PATCH")

            def do_DELETE(self) -> None:
                api.serve(self, "DELETE")

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def restart(self) -> None:
        """The API's process restarted: its listening socket closed (connections refused a moment), then open again."""
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()
        self.start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def set_mode(self, mode: str) -> None:
        with self.changed:
            self.mode = mode
            self.changed.notify_all()

    def listing(self) -> list[JSON]:
        with self.lock:
            return list(self.items.values())

    def serve(self, request: BaseHTTPRequestHandler, method: str) -> None:
        with self.changed:
            self.changed.wait_for(lambda: self.mode != "hang", timeout=60)
            mode = self.mode
        if mode == "fail":
            return self.answer(request, 503, b'{"error":"unavailable"}')
        if mode == "slow":
            time.sleep(random.uniform(0.05, 0.3))
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(length) if length else b""
        path = urllib.parse.urlparse(request.path).path
        if method == "GET" and path == "/items":
            with self.lock:
                text = json.dumps(list(self.items.values())).encode()
            etag = '"' + hashlib.sha256(text).hexdigest()[:32] + '"'
            if request.headers.get("If-None-Match") == etag:
                return self.answer(request, 304, b"", etag)
            return self.answer(request, 200, text, etag)
        if not path.startswith("/items/"):
            return self.answer(request, 404, b"{}")
        key = urllib.parse.unquote(path[len("/items/") :])
        if method == "GET":
            with self.lock:
                item = self.items.get(key)
            if item is None:
                return self.answer(request, 404, b"{}")
            return self.answer(request, 200, json.dumps(item).encode(), item_etag(item))
        status = self.write(method, key, body, request.headers.get("Content-Type", ""), request.headers)
        if mode == "reset":
            # Made, but the answer is lost with its connection: the client cannot know which.
            request.close_connection = True
            request.connection.close()
            return None
        return self.answer(request, status, b"{}")

    def write(self, method: str, key: str, body: bytes, media_type: str, headers: Any) -> int:
        with self.lock:
            current = self.items.get(key)
            condition = headers.get("If-Match")
            if condition is not None and (current is None or item_etag(current) != condition):
                return 412
            if method == "DELETE":
                if current is None:
                    return 404
                del self.items[key]
                return 204
            try:
                document = json.loads(body)
            except ValueError:
                return 400
            if method == "PUT":
                if headers.get("If-None-Match") == "*" and current is not None:
                    return 412
                self.items[key] = document
                return 201 if current is None else 200
            if current is None:
                return 404
            if media_type.startswith("application/json-patch+json"):
                try:
                    self.items[key] = json_patch(current, document)
                except PatchConflict:
                    return 409
            else:
                self.items[key] = merge_patch(current, document)
            return 200

    def answer(self, request: BaseHTTPRequestHandler, status: int, body: bytes, etag: str | None = None) -> None:
        request.send_response(status)
        if status != 304 and status != 204:
            request.send_header("Content-Type", "application/json")
            request.send_header("Content-Length", str(len(body)))
        if etag is not None:
            request.send_header("ETag", etag)
        request.end_headers()
        if status not in (204, 304):
            request.wfile.write(body)

    def change_by_itself(self, keys: Keys, rng: random.Random) -> None:
        """One change of the API's own, recorded as a write at the instant it was made: a new version of an item, or
        one removed or made again."""
        identifier = rng.choice(keys.all())
        key = key_of(identifier)
        with self.lock:
            began = time.monotonic()
            self.own_changes += 1
            current = self.items.get(key)
            if current is not None and rng.random() < 0.2:
                del self.items[key]
                change = Change("remove", key)
            else:
                item = {"id": identifier, "v": f"api.{self.own_changes}"}
                self.items[key] = item
                change = Change("put", key, item=item)
            self.history.operations.append(
                Operation(API_CLIENT, "write", began, time.monotonic(), "ok", changes=[change])
            )


@dataclass
class APIInjector:
    """Every `interval` seconds (±50 %), one of `kinds`: `kill` or `freeze` of depotd, as for a file; and the API
    `http-hang` (no answer for 0.5 to 4 s), `http-fail` (503 for 0.5 to 4 s), `http-slow` (answers 50 to 300 ms late
    for 3 s), `http-reset` (for 1 s every write is made and its connection closed without an answer),
    `http-restart` (the API's socket closed and opened again)."""

    daemon: Daemon
    api: ItemAPI
    kinds: list[str]
    interval: float
    rng: random.Random
    deadline: float
    faults: list[str] = field(default_factory=list)

    async def run(self) -> None:
        await each_fault(self.kinds, self.interval, self.rng, self.deadline, self.inject)

    async def inject(self, kind: str) -> None:
        """One fault of `kind`, recorded once it has healed."""
        if kind == "kill":
            await restart(self.daemon)
        elif kind == "freeze":
            await freeze(self.daemon, self.rng)
        elif kind in ("http-hang", "http-fail", "http-slow", "http-reset"):
            self.api.set_mode(kind.removeprefix("http-"))
            try:
                await asyncio.sleep(
                    3 if kind == "http-slow" else 1 if kind == "http-reset" else self.rng.uniform(0.5, 4)
                )
            finally:
                self.api.set_mode("normal")
        elif kind == "http-restart":
            await asyncio.to_thread(self.api.restart)
        else:
            raise ValueError(f"unknown fault {kind}")
        self.faults.append(kind)


async def _converged(daemon: Daemon, api: ItemAPI, problems: list[str]) -> None:
    """With every fault healed and the API still: depotd, after a load, holds what the API lists."""
    expected = canonical(api.listing())
    async with await Connection.open(daemon.socket_path, lambda _: None) as connection:
        loaded = await connection.call("load", {"strategy": "upToDateWithFallback"}, 60)
        state = (await connection.call("state", {}, 60)).get("result", {})
    if canonical(state.get("items")) != expected:
        problems.append(f"depotd holds {canonical(state.get('items'))} (load: {loaded}), the API {expected}")


def run_http(settings: RunSettings) -> Report:
    seed = settings.chosen_seed()
    rng = random.Random(seed)
    directory = tempfile.mkdtemp(prefix="depot-robustness-http.")
    keys = Keys.standard()
    items = initial_items(keys)
    history = History(initial={key_of(item["id"]): canonical(item) for item in items})
    api = ItemAPI(items, history)
    api.start()
    base = f"http://127.0.0.1:{api.port}/items"
    daemon = Daemon(
        settings.depotd,
        directory,
        [
            "--source", base, "--put-url", f"{base}/{{id}}", "--patch-url", f"{base}/{{id}}",
            "--delete-url", f"{base}/{{id}}", "--refresh-interval", "1", "--refresh-jitter", "0", "--retry-max", "1",
        ],
    )  # fmt: skip
    final: list[str] = []
    daemon.start()
    try:
        deadline = time.monotonic() + settings.seconds
        traffic = Traffic(daemon.socket_path, history, keys, deadline, slow_watchers=settings.slow_watchers)
        injector = APIInjector(daemon, api, settings.faults, settings.interval, random.Random(rng.random()), deadline)
        changer = random.Random(rng.random())

        async def own_changes() -> None:
            while time.monotonic() < deadline:
                await asyncio.sleep(changer.uniform(0.05, 0.5))
                api.change_by_itself(keys, changer)

        async def everything() -> None:
            async with asyncio.TaskGroup() as group:
                group.create_task(own_changes())
                group.create_task(run_clients(traffic, settings.clients, rng, injector.run(), batches=False))
            api.set_mode("normal")
            if not daemon.alive():
                daemon.start()
            daemon.thaw()
            await _converged(daemon, api, final)

        asyncio.run(everything())
        if settings.history_path is not None:
            history.save(settings.history_path)
        writes = [operation for operation in history.operations if operation.kind == "write"]
        conditional = 0
        for operation in writes:
            conditional += any(change.if_match is not None for change in operation.changes)
            if operation.client != API_CLIENT:
                # A conflict's item and a put's `created` come from depotd's view: not held to the model.
                operation.created = None
                if operation.outcome == "conflict":
                    operation.observed = UNSEEN
        outcomes, kinds = tally(history.operations, injector.faults)
        kinds["the API's own changes"] = api.own_changes
        return Report(
            source="HTTP API",
            seed=seed,
            seconds=settings.seconds,
            clients=settings.clients,
            layout=f"{conditional} writes with ifMatch, checked by the API",
            calls=traffic.calls,
            counts=traffic.counts,
            outcomes=outcomes,
            faults=kinds,
            cuts=traffic.cuts,
            restarts=daemon.starts - 1,
            watch=check_watch(history),
            linearizability=check(writes, history.initial),
            final=final,
            left_out_reads=len(history.operations) - len(writes),
            left_out="reads (depotd's list follows the API's own changes at its next refresh)",
            agreement="depotd holds what the API lists",
        )
    finally:
        daemon.stop()
        api.stop()
        if not settings.keep:
            shutil.rmtree(directory, ignore_errors=True)
