"""Many clients calling everything at once, each recording what it sent, when, and what came back.

Writers get, put, patch (merge patch and JSON Patch), remove and apply — optimistic or not, with and without
preconditions — and now and then load or read the whole state. Every write gives the item a value (`v`) no other
write gives, so an item's version names the write that made it. Watchers subscribe in both modes, some through a
pipeline, some reading slowly enough to lag; they unsubscribe, cut their connection and resume from the last state
they hold. Every client reconnects when its connection is cut (depotd killed), as a real client would."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

from .connection import Connection, Cut, JSONObject
from .history import NEVER, UNSEEN, Change, History, Notification, Operation, StateRead, Subscription, canonical, key_of

ERRORS = {
    -32008: "conflict",
    -32003: "notFound",
    -32002: "changeFailed",
    -32007: "storageFailed",
    -32001: "loadFailed",
    -32004: "limitExceeded",
    -32009: "invalidItem",
    -32010: "outcomeUnknown",
    -32602: "invalidChange",
    -32005: "forbidden",
}

NEVER_ETAG = "0" * 32
"""An etag no item has (an item's etag is the start of its JSON's SHA-256)."""


@dataclass
class Keys:
    """The ids the traffic uses: single ones (integers and strings), and a group that `apply` changes together."""

    single: list[Any]
    grouped: list[Any]

    @staticmethod
    def standard() -> Keys:
        return Keys(single=[*range(1, 9), *(f"s{n}" for n in range(1, 9))], grouped=[100, 101, "g1", "g2"])

    def all(self) -> list[Any]:
        return [*self.single, *self.grouped]


def initial_items(keys: Keys) -> list[JSONObject]:
    return [{"id": identifier, "v": f"init-{identifier}"} for identifier in keys.all()]


@dataclass
class Traffic:
    """The shared record, the deadline, and what every client needs."""

    socket_path: str
    history: History
    keys: Keys
    deadline: float
    call_timeout: float = 30
    slow_watchers: float = 0.2
    """The share of watchers that read slowly enough to lag (their queue passes its bound, states are skipped)."""
    calls: int = 0
    cuts: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    other_sockets: list[str] = field(default_factory=list)
    """The sockets of a fleet's other daemons: each connection goes to one of them all, at random."""
    tag_prefix: str = ""
    """Put before every version a writer gives (a soak's round), so that no two writes of a daemon's life give one."""

    def pick_socket(self, rng: random.Random) -> str:
        return rng.choice([self.socket_path, *self.other_sockets]) if self.other_sockets else self.socket_path

    def count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    def running(self) -> bool:
        return time.monotonic() < self.deadline


def _outcome(answer: JSONObject, method: str) -> str:
    if "result" in answer:
        return "ok"
    error = answer.get("error", {})
    code = error.get("code")
    if code == -32003 and method == "get" and "no items are loaded" in str(error.get("message")):
        return "notLoaded"
    return ERRORS.get(code, f"error {code}")


class Writer:
    """A client that reads and writes items, remembering each item version (and its etag) it has seen, to write with
    `ifMatch` of it."""

    def __init__(self, number: int, traffic: Traffic, rng: random.Random, batches: bool = False) -> None:
        self.number = number
        self.traffic = traffic
        self.rng = rng
        self.batches = batches
        self.tags = 0
        self.known: dict[str, tuple[str, JSONObject]] = {}

    def tag(self) -> str:
        self.tags += 1
        return f"{self.traffic.tag_prefix}c{self.number}.{self.tags}"

    async def run(self) -> None:
        while self.traffic.running():
            try:
                connection = await Connection.open(self.traffic.pick_socket(self.rng), lambda _: None)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            async with connection:
                try:
                    while self.traffic.running():
                        await self.step(connection)
                except Cut:
                    self.traffic.cuts += 1

    def learn(self, key: str, etag: Any, item: Any) -> None:
        if isinstance(etag, str) and isinstance(item, dict):
            self.known[key] = (etag, item)
        elif etag is None:
            self.known.pop(key, None)

    def precondition(self, key: str) -> tuple[str | None, str | None]:
        """An `ifMatch` etag and the item it names as canonical JSON, or none."""
        roll = self.rng.random()
        if roll < 0.05:
            return NEVER_ETAG, NEVER
        if roll < 0.45 and key in self.known:
            etag, item = self.known[key]
            return etag, canonical(item)
        return None, None

    def change(self, identifier: Any) -> tuple[JSONObject, Change, JSONObject | None]:
        """A random change of one item: its params, its model, and the item it leaves when made (None: removed)."""
        key = key_of(identifier)
        etag, named = self.precondition(key)
        params: JSONObject = {"id": identifier}
        if etag is not None:
            params["ifMatch"] = etag
        roll = self.rng.random()
        tag = self.tag()
        note = None if self.rng.random() < 0.5 else f"note {tag}"
        item: JSONObject = {"id": identifier, "v": tag}
        if note is not None:
            item["note"] = note
        if roll < 0.4:
            if_absent = etag is None and self.rng.random() < 0.2
            if if_absent:
                params["ifAbsent"] = True
            params["item"] = item
            return params, Change("put", key, item=item, if_match=named, if_absent=if_absent), item
        if roll < 0.6:
            patch: Any = {"v": tag, "note": note}
            params["patch"] = patch
            return params, Change("patch", key, patch=patch, if_match=named), item
        if roll < 0.8:
            operations: list[JSONObject] = []
            known = self.known.get(key)
            if known is not None and self.rng.random() < 0.5:
                operations.append({"op": "test", "path": "/v", "value": known[1].get("v")})
            operations.append({"op": "replace", "path": "/v", "value": tag})
            if note is None:
                operations += [{"op": "add", "path": "/note", "value": "x"}, {"op": "remove", "path": "/note"}]
            else:
                operations.append({"op": "add", "path": "/note", "value": note})
            params["patch"] = operations
            params["format"] = "json-patch"
            return params, Change("patch", key, patch=operations, format="json-patch", if_match=named), item
        return params, Change("remove", key, if_match=named), None

    async def step(self, connection: Connection) -> None:
        # A batch writer changes the grouped ids, several at a time; the others one id at a time, so that each of
        # their ids is checked alone (and the grouped ones, which applies tie together, by few clients at once).
        keys = self.traffic.keys.grouped if self.batches else self.traffic.keys.single
        roll = self.rng.random()
        if roll < 0.3:
            await self.get(connection, self.rng.choice(keys))
        elif roll < 0.8:
            await self.write(connection, [self.rng.choice(keys)], "single")
        elif roll < 0.97:
            count = self.rng.randint(1, min(3, len(keys))) if self.batches else 1
            await self.write(connection, self.rng.sample(keys, count), "apply")
        elif roll < 0.99:
            await self.state(connection)
        else:
            await self.plain(connection, "load", {"strategy": "upToDateWithFallback"})

    async def send(self, connection: Connection, method: str, params: JSONObject) -> tuple[JSONObject | None, float]:
        """The answer and when it came; None when there was none (cut, or past the deadline): then the call may or
        may not have taken effect."""
        self.traffic.calls += 1
        self.traffic.count(method)
        try:
            answer = await connection.call(method, params, self.traffic.call_timeout)
        except TimeoutError:
            return None, time.monotonic()
        except Cut:
            self.traffic.cuts += 1
            connection.close()
            raise
        return answer, time.monotonic()

    async def plain(self, connection: Connection, method: str, params: JSONObject) -> None:
        await self.send(connection, method, params)

    async def state(self, connection: Connection) -> None:
        answer, when = await self.send(connection, "state", {})
        if answer is not None and "result" in answer:
            self.traffic.history.reads.append(StateRead(self.number, when, answer["result"]))

    async def get(self, connection: Connection, identifier: Any) -> None:
        key = key_of(identifier)
        invoked = time.monotonic()
        answer, returned = await self.send(connection, "get", {"id": identifier, "meta": True})
        if answer is None:
            return
        outcome = _outcome(answer, "get")
        observed = None
        if outcome == "ok":
            result = answer["result"]
            observed = canonical(result["item"])
            self.learn(key, result["etag"], result["item"])
        self.traffic.history.operations.append(
            Operation(self.number, "get", invoked, returned, outcome, key=key, observed=observed)
        )

    async def write(self, connection: Connection, identifiers: list[Any], shape: str) -> None:
        made = [self.change(identifier) for identifier in identifiers]
        optimistic = self.rng.random() < 0.3
        if shape == "single":
            params, change, _ = made[0]
            method = change.op
        else:
            method = "apply"
            params = {"changes": [{"op": change.op, **fields} for fields, change, _ in made]}
        if optimistic:
            params["optimistic"] = True
        operation = Operation(
            self.number,
            "write",
            time.monotonic(),
            None,
            "unknown",
            changes=[change for _, change, _ in made],
            optimistic=optimistic,
        )
        self.traffic.history.operations.append(operation)
        answer, returned = await self.send(connection, method, params)
        if answer is None:
            return
        operation.returned = returned
        operation.outcome = _outcome(answer, method)
        if operation.outcome == "ok":
            result = answer["result"]
            etags = result["etags"] if method == "apply" else [result.get("etag")]
            if method == "put":
                operation.created = bool(result.get("created"))
            for (_, change, item), etag in zip(made, etags, strict=False):
                self.learn(change.key, etag, item)
        elif "error" in answer:
            data = answer["error"].get("data")
            if isinstance(data, dict):
                if isinstance(data.get("index"), int):
                    operation.failed_index = data["index"]
                if operation.outcome == "conflict" and len(made) == 1:
                    operation.observed = canonical(data["item"]) if data.get("item") is not None else None
                    if "item" not in data:
                        operation.observed = UNSEEN
                    self.learn(made[0][1].key, data.get("etag"), data.get("item"))


class Watcher:
    """A client that subscribes and reads what it is sent — some slowly — and cuts and resumes."""

    def __init__(self, number: int, traffic: Traffic, rng: random.Random) -> None:
        self.number = number
        self.traffic = traffic
        self.rng = rng
        self.connections = 0
        self.open: dict[Any, int] = {}
        self.last: tuple[int, JSONObject] | None = None
        """The subscription (its index in the history) and the last state it was sent: where a resume starts."""

    def notified(self, message: JSONObject) -> None:
        params = message.get("params", {})
        number = self.open.get(params.get("subscription"))
        if number is None:
            return
        subscription = self.traffic.history.subscriptions[number]
        if message["method"] == "stateChanged":
            subscription.notifications.append(Notification(time.monotonic(), params))
            self.last = (number, params["state"])
        elif message["method"] == "subscriptionEnded":
            subscription.ended = str(params.get("reason"))

    def pipeline(self) -> Any:
        roll = self.rng.random()
        if roll < 0.7:
            return None
        if roll < 0.85:
            return [{"op": "filter", "where": {"field": "/note", "exists": True}}]
        return [{"op": "sort", "by": "/v"}, {"op": "limit", "count": 5}]

    async def run(self) -> None:
        slow = self.rng.random() < self.traffic.slow_watchers
        while self.traffic.running():
            try:
                connection = await Connection.open(self.traffic.pick_socket(self.rng), self.notified)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            self.connections += 1
            async with connection:
                try:
                    await self.session(connection, slow)
                except (Cut, TimeoutError):
                    self.traffic.cuts += 1
            self.open.clear()

    async def subscribe(self, connection: Connection, resume: bool) -> None:
        params: JSONObject = {"mode": self.rng.choice(["snapshot", "delta"])}
        resumes = None
        pipeline = self.pipeline()
        if resume and self.last is not None:
            number, state = self.last
            previous = self.traffic.history.subscriptions[number]
            params["mode"], pipeline = previous.mode, previous.pipeline
            params["since"] = {"epoch": state["epoch"], "seq": state["seq"]}
            resumes = number
        if pipeline is not None:
            params["pipeline"] = pipeline
        self.traffic.calls += 1
        self.traffic.count("subscribe")
        # Recorded as the answer is read, so that the notifications after it find their subscription.
        subscription = Subscription(
            self.number, self.connections, params["mode"], pipeline, params.get("since"), {}, resumes=resumes
        )
        history = self.traffic.history

        def answered(answer: JSONObject) -> None:
            if "result" in answer:
                subscription.answer = answer["result"]
                history.subscriptions.append(subscription)
                self.open[answer["result"]["subscription"]] = len(history.subscriptions) - 1

        await connection.call("subscribe", params, self.traffic.call_timeout, on_answer=answered)

    async def session(self, connection: Connection, slow: bool) -> None:
        await self.subscribe(connection, resume=True)
        while self.traffic.running():
            await asyncio.sleep(self.rng.uniform(0.1, 2.0))
            roll = self.rng.random()
            if slow and roll < 0.3:
                connection.paused_until = time.monotonic() + self.rng.uniform(0.5, 3)
            elif roll < 0.4:
                self.traffic.calls += 1
                self.traffic.count("state")
                answer = await connection.call("state", {}, self.traffic.call_timeout)
                if "result" in answer:
                    self.traffic.history.reads.append(StateRead(self.number, time.monotonic(), answer["result"]))
            elif roll < 0.55 and self.open:
                subscription = self.rng.choice(list(self.open))
                self.traffic.calls += 1
                self.traffic.count("unsubscribe")
                await connection.call("unsubscribe", {"subscription": subscription}, self.traffic.call_timeout)
                self.traffic.history.subscriptions[self.open.pop(subscription)].ended = "unsubscribed"
                await self.subscribe(connection, resume=False)
            elif roll < 0.7:
                self.traffic.count("cut")
                return
            elif roll < 0.8 and len(self.open) < 3:
                await self.subscribe(connection, resume=False)
