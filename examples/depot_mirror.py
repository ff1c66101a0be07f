#!/usr/bin/env python3
"""Keep a local copy of depotd's collection with nothing but Python's standard library.

Subscribes in delta mode, applies every delta, checks `count` after every state, and when the
connection drops (a daemon restart, a suspend) reconnects with backoff and jitter and resumes
after the last state it holds: depotd replays what it missed, or says `resync` and sends the
current state in full. Send SIGUSR1 to print the mirror as one line of JSON on stdout; progress
goes to stderr.

    python3 examples/depot_mirror.py [SOCKET] [--heartbeat SECONDS]
    kill -USR1 <pid>      # prints {"epoch": …, "seq": …, "status": …, "items": [...]}
"""
import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time


def default_socket():
    """Where depotd listens: $DEPOT_SOCKET, or wherever `depotctl socket` finds it (the same rules as depotctl)."""
    if os.environ.get("DEPOT_SOCKET"):
        return os.environ["DEPOT_SOCKET"]
    return subprocess.run(["depotctl", "socket"], capture_output=True, text=True, check=True).stdout.strip()


class Mismatch(Exception):
    """The mirror no longer fits the daemon's notifications: start again from a full state."""


class Mirror:
    """What the client holds: the last state, and the items of the last success state."""

    def __init__(self):
        self.state = None       # the last State applied (in delta mode a success may lack items)
        self.items = []         # the items of the last success state
        self.success_seq = None  # its seq: the base the next delta must name

    def since(self):
        return {"epoch": self.state["epoch"], "seq": self.state["seq"]} if self.state else None

    def apply(self, params):
        state, delta = params["state"], params.get("delta")
        if state["status"] == "success":
            if delta is not None:
                if delta["base"] != self.success_seq:
                    raise Mismatch(f"a delta based on seq {delta['base']}, but the mirror holds {self.success_seq}")
                self.items = apply_delta(self.items, delta)
            else:
                self.items = state["items"]
            if "count" in state and state["count"] != len(self.items):
                raise Mismatch(f"the state has {state['count']} items, the mirror {len(self.items)}")
            self.success_seq = state["seq"]
        elif params.get("resync"):
            self.items, self.success_seq = [], None
        self.state = state

    def dump(self):
        state = self.state or {}
        return {"epoch": state.get("epoch"), "seq": state.get("seq"), "status": state.get("status"), "items": self.items}


def item_id(item, id_field):
    value = item.get(id_field)
    return value if isinstance(value, str) else json.dumps(value)  # integer ids travel as their decimal text


def apply_delta(items, delta):
    """Drop `removed`, replace each `changed` item where it stands, insert each `added` item at its index."""
    id_field = delta["idField"]
    removed = set(delta["removed"])
    kept = [item for item in items if item_id(item, id_field) not in removed]
    if len(kept) != len(items) - len(removed):
        raise Mismatch("the delta removes ids the mirror does not hold")
    position = {item_id(item, id_field): index for index, item in enumerate(kept)}
    for item in delta["changed"]:
        index = position.get(item_id(item, id_field))
        if index is None:
            raise Mismatch("the delta changes an item the mirror does not hold")
        kept[index] = item
    for addition in delta["added"]:
        if addition["index"] > len(kept):
            raise Mismatch("the delta adds past the end")
        kept.insert(addition["index"], addition["item"])
    return kept


def log(text):
    print(text, file=sys.stderr, flush=True)


def follow(path, mirror, heartbeat):
    """One connection: subscribe (resuming when the mirror holds something) and apply until it drops."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(path)
        # Three missed heartbeats: the connection is dead even if the kernel has not said so.
        sock.settimeout(3 * heartbeat)
        stream = sock.makefile("rwb")
        params = {"mode": "delta", "heartbeat": heartbeat}
        if mirror.since():
            params["since"] = mirror.since()
        stream.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "subscribe", "params": params}).encode() + b"\n")
        stream.flush()
        for line in stream:
            message = json.loads(line)
            if message.get("id") == 1:
                if "error" in message:
                    raise Mismatch(message["error"]["message"])
                result = message["result"]
                log(f"subscribed: epoch {result['epoch']}, seq {result['seq']}, resumed {str(result['resumed']).lower()}")
            elif message.get("method") == "stateChanged":
                params = message["params"]
                mirror.apply(params)
                state = params["state"]
                notes = "".join(f" · {note}" for note in ("resync",) if params.get(note))
                notes += f" · skipped {params['skipped']}" if params.get("skipped") else ""
                notes += " · delta" if "delta" in params else ""
                log(f"seq {state['seq']} · {state['status']} · {len(mirror.items)} items{notes}")


def main():
    parser = argparse.ArgumentParser(description="Keep a local mirror of depotd's collection.")
    parser.add_argument("socket", nargs="?", help="default: $DEPOT_SOCKET, else `depotctl socket`")
    parser.add_argument("--heartbeat", type=float, default=10.0, help="seconds between heartbeats when idle")
    args = parser.parse_args()
    args.socket = args.socket or default_socket()

    mirror = Mirror()
    # The handler reads `mirror` when the signal comes, so it prints the mirror in use then.
    signal.signal(signal.SIGUSR1, lambda *_: print(json.dumps(mirror.dump()), flush=True))
    backoff = 0.1
    while True:
        started = time.monotonic()
        try:
            follow(args.socket, mirror, args.heartbeat)
            log("depotd closed the connection")
        except Mismatch as problem:
            log(f"starting again from a full state: {problem}")
            mirror = Mirror()
            continue
        except (OSError, ValueError) as problem:
            log(f"lost depotd at {args.socket}: {problem}")
        if time.monotonic() - started > 30:
            backoff = 0.1  # the connection lasted: start the backoff again
        # Full jitter, so a fleet of mirrors does not reconnect in step after a daemon restart.
        delay = random.uniform(0, backoff)
        backoff = min(backoff * 2, 10.0)
        log(f"reconnecting in {delay:.2f} s")
        time.sleep(delay)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass

