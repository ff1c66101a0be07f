"""A local copy of depotd's collection, kept up to date by a thread of its own."""

from __future__ import annotations

import threading
from typing import Callable, Dict, List, Optional

from .client import Depot
from .errors import DepotError
from .types import Item, PipelineArg, State, item_id

#: Called with the mirror after each state it applied, on the mirror's thread.
Callback = Callable[["Mirror"], None]


class Mirror:
    """Follows depotd in delta mode on a connection of its own (to `depot`'s socket) and keeps what it holds equal
    to the daemon's state, across restarts (it resumes, or resyncs). Thread-safe: read `.items`, `.by_id` and
    `.state` from any thread; `wait_for` blocks until a predicate holds.

    `.items` are the current state's items — empty while it is not a success (idle after a wipe, loading, failure);
    `.last_success` keeps the last success for a display that shows it meanwhile. `.by_id` keys items by their id as
    deltas name it: a string id as it is, an integer as its decimal text."""

    def __init__(
        self,
        depot: Depot,
        pipeline: Optional[PipelineArg] = None,
        *,
        on_change: Optional[Callback] = None,
        id_field: str = "id",
        heartbeat: float = 10.0,
    ) -> None:
        self._condition = threading.Condition()
        self._state: Optional[State] = None
        self._last_success: Optional[State] = None
        self._by_id: Optional[Dict[str, Item]] = None
        self._id_field = id_field
        self._callbacks: List[Callback] = [on_change] if on_change is not None else []
        self._error: Optional[BaseException] = None
        self._stop = threading.Event()
        self._depot = Depot(depot.socket_path, timeout=depot.timeout)
        self._thread = threading.Thread(
            target=self._follow, args=(pipeline, heartbeat), name="depot-mirror", daemon=True
        )
        self._thread.start()

    def __enter__(self) -> Mirror:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def state(self) -> Optional[State]:
        """The last State applied (whole: a success carries its items); None before the first."""
        with self._condition:
            return self._state

    @property
    def pending(self) -> int:
        """How many optimistic writes the items show that the source has not confirmed yet (0 while not a success)."""
        with self._condition:
            return self._state.pending if self._state is not None and self._state.is_success else 0

    @property
    def last_success(self) -> Optional[State]:
        with self._condition:
            return self._last_success

    @property
    def items(self) -> List[Item]:
        with self._condition:
            state = self._state
            return list(state.items) if state is not None and state.is_success and state.items is not None else []

    @property
    def by_id(self) -> Dict[str, Item]:
        """The items by id, made on first use after each state (applying a state does not pay for it)."""
        with self._condition:
            if self._by_id is None:
                state = self._state
                items = state.items if state is not None and state.is_success and state.items is not None else []
                self._by_id = {item_id(item, self._id_field): item for item in items}
            return dict(self._by_id)

    @property
    def error(self) -> Optional[BaseException]:
        """Why the mirror stopped following, when it did (a subscription depotd ended); None while it follows."""
        with self._condition:
            return self._error

    def add_callback(self, callback: Callback) -> None:
        """Calls `callback(mirror)` after each state applied, on the mirror's thread."""
        with self._condition:
            self._callbacks.append(callback)

    def wait_for(self, predicate: Callable[[Mirror], bool], timeout: Optional[float] = None) -> bool:
        """Blocks until `predicate(mirror)` is true (checked now and after each state); False after `timeout`
        seconds without it. Raises the mirror's error if it stopped following meanwhile."""
        with self._condition:
            held = self._condition.wait_for(lambda: self._error is not None or predicate(self), timeout)
            if self._error is not None and not predicate(self):
                raise self._error
            return bool(held)

    def close(self) -> None:
        """Stops following and closes the mirror's connection."""
        self._stop.set()
        self._depot.close()
        self._thread.join()

    def _follow(self, pipeline: Optional[PipelineArg], heartbeat: float) -> None:
        try:
            for state in self._depot.watch(pipeline, follow=True, heartbeat=heartbeat, stop=self._stop):
                self._apply(state)
        except DepotError as problem:
            if not self._stop.is_set():
                with self._condition:
                    self._error = problem
                    self._condition.notify_all()

    def _apply(self, state: State) -> None:
        with self._condition:
            self._state = state
            self._by_id = None
            if state.is_success and state.items is not None:
                self._last_success = state
            self._condition.notify_all()
            callbacks = list(self._callbacks)
        for callback in callbacks:
            callback(self)
