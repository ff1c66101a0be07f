"""The watch guarantees, checked over every subscription of a history (as etcd's robustness suite checks its watch:
ordered, unique, atomic, reliable, resumable):

- within a subscription every state is of the daemon run (epoch) the answer named, and seqs strictly increase;
- it starts with the state the answer named (or, resumed, with the one after `since`), and a seq is never left out
  silently: a gap is only where `skipped` says how many states went, or a `resync` starts afresh (a pipeline that
  holds a state back leaves a gap too, which is not a loss);
- a delta applies to the last success state the subscription was sent (`base`), and the items a delta-mode client
  then holds — a resumed one from what it held when its connection was cut — equal the items of that seq;
- one seq means one state: the same status and items for every subscriber of one daemon run and every `state`
  answer, pipeline by pipeline."""

from __future__ import annotations

from dataclasses import dataclass, field

from .history import JSON, History, Subscription, canonical, key_of


@dataclass
class WatchVerdict:
    subscriptions: int
    notifications: int
    states_compared: int
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def apply_delta(items: list[JSON], delta: dict[str, JSON]) -> list[JSON]:
    """The Delta schema's rule: drop `removed`, replace each `changed` item where it stands, insert each `added` at its
    index, in order."""
    id_field = delta["idField"]
    removed = set(delta["removed"])
    kept = [item for item in items if key_of(item.get(id_field)) not in removed]
    changed = {key_of(item[id_field]): item for item in delta["changed"]}
    result = [changed.get(key_of(item.get(id_field)), item) for item in kept]
    for added in delta["added"]:
        result.insert(added["index"], added["item"])
    return result


@dataclass
class _Seen:
    """What one subscriber (or a `state` answer) showed of a seq."""

    status: str
    items: str | None
    where: str


def _pipeline_key(subscription: Subscription) -> str:
    return "" if subscription.pipeline is None else canonical(subscription.pipeline)


def check_watch(history: History) -> WatchVerdict:
    verdict = WatchVerdict(len(history.subscriptions), 0, 0)
    seen: dict[tuple[str, int, str], list[_Seen]] = {}
    # What each subscription's client held after each success state: the items (a delta-mode mirror or a snapshot).
    held_after: dict[int, dict[int, list[JSON]]] = {}

    def problem(subscription: Subscription, number: int, text: str) -> None:
        if len(verdict.problems) < 50:
            verdict.problems.append(
                f"client {subscription.client}, subscription {number} ({subscription.mode}"
                f"{', pipeline ' + _pipeline_key(subscription) if subscription.pipeline is not None else ''}): {text}"
            )

    for number, subscription in enumerate(history.subscriptions):
        held_after[number] = {}
        answer = subscription.answer
        epoch, resumed = answer["epoch"], bool(answer.get("resumed"))
        since = subscription.since
        piped = subscription.pipeline is not None
        mirror: list[JSON] | None = None
        last_success: int | None = None
        previous: int | None = None
        if resumed:
            if since is None or since["epoch"] != epoch:
                problem(subscription, number, f"resumed, but since {since} is not of this run ({epoch})")
                continue
            previous = since["seq"]
            if subscription.resumes is not None:
                before = held_after.get(subscription.resumes, {})
                at_or_before = [seq for seq in before if seq <= since["seq"]]
                if at_or_before:
                    last_success = max(at_or_before)
                    mirror = before[last_success]
        for index, notification in enumerate(subscription.notifications):
            verdict.notifications += 1
            params = notification.params
            state = params["state"]
            seq = state["seq"]
            where = f"notification {index} (seq {seq})"
            if state["epoch"] != epoch:
                problem(subscription, number, f"{where} is of run {state['epoch']}, the subscription of {epoch}")
                break
            resync = bool(params.get("resync"))
            skipped = params.get("skipped")
            if index == 0 and not resumed:
                if since is not None and not resync:
                    problem(subscription, number, f"{where}: not resumed, yet the first state is not marked resync")
                if not piped and seq != answer["seq"]:
                    problem(subscription, number, f"{where}: the answer named seq {answer['seq']} as the first")
            elif previous is not None:
                if seq <= previous:
                    problem(subscription, number, f"{where} after seq {previous}: seqs must increase")
                elif not piped and not resync and seq != previous + 1 + (skipped or 0):
                    problem(subscription, number, f"{where} after seq {previous} with skipped={skipped}: a silent gap")
            if resync or params.get("pipelineChanged"):
                mirror, last_success = None, None
            previous = seq
            items: list[JSON] | None = None
            if state["status"] == "success":
                if "items" in state:
                    items = state["items"]
                elif "delta" in params:
                    delta = params["delta"]
                    if mirror is None or delta["base"] != last_success:
                        problem(
                            subscription,
                            number,
                            f"{where}: a delta from seq {delta['base']}, but the client holds "
                            f"{'nothing' if mirror is None else f'seq {last_success}'}",
                        )
                        break
                    items = apply_delta(mirror, delta)
                else:
                    problem(subscription, number, f"{where}: a success with neither items nor a delta")
                    break
                if "count" in state and state["count"] != len(items):
                    problem(subscription, number, f"{where}: count {state['count']}, but the client holds {len(items)}")
                mirror, last_success = items, seq
                held_after[number][seq] = items
            key = (epoch, seq, _pipeline_key(subscription))
            seen.setdefault(key, []).append(
                _Seen(
                    state["status"],
                    None if items is None else canonical(items),
                    f"client {subscription.client} {where}",
                )
            )

    for read in history.reads:
        state = read.state
        items = state.get("items")
        seen.setdefault((state["epoch"], state["seq"], ""), []).append(
            _Seen(state["status"], None if items is None else canonical(items), f"client {read.client}'s state call")
        )

    for (epoch, seq, pipeline), views in seen.items():
        verdict.states_compared += 1
        first = views[0]
        for other in views[1:]:
            if other.status != first.status or (
                first.items is not None and other.items is not None and other.items != first.items
            ):
                if len(verdict.problems) < 50:
                    verdict.problems.append(
                        f"run {epoch} seq {seq}{' through ' + pipeline if pipeline else ''}: {first.where} holds "
                        f"{first.status} {first.items}, {other.where} holds {other.status} {other.items}"
                    )
                break
    return verdict
