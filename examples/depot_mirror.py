#!/usr/bin/env python3
"""Keep a local copy of depotd's collection: depot.Mirror follows it in delta mode on a thread of its own, resumes
after a dropped connection, and starts again from a full state (resync) after a restart. Send SIGUSR1 to print the
copy as one line of JSON on stdout; progress goes to stderr.

    python3 examples/depot_mirror.py [SOCKET] [--heartbeat SECONDS]
    kill -USR1 <pid>      # prints {"epoch": …, "seq": …, "status": …, "items": [...]}
"""

import argparse
import contextlib
import json
import signal
import sys

import depot


def log(mirror: depot.Mirror) -> None:
    state = mirror.state
    if state is None:
        return
    notes = " · resync" if state.resync else ""
    notes += f" · skipped {state.skipped}" if state.skipped else ""
    print(
        f"epoch {state.epoch} · seq {state.seq} · {state.status.value} · {len(mirror.items)} items{notes}",
        file=sys.stderr,
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="Keep a local mirror of depotd's collection.")
    parser.add_argument("socket", nargs="?", help="default: as `depotctl socket` finds it")
    parser.add_argument("--heartbeat", type=float, default=10.0, help="seconds between heartbeats when idle")
    args = parser.parse_args()
    with depot.connect(args.socket) as d, depot.Mirror(d, on_change=log, heartbeat=args.heartbeat) as mirror:

        def dump(*_: object) -> None:
            state = mirror.state
            copy = {"epoch": state.epoch, "seq": state.seq, "status": state.status.value} if state else {}
            print(json.dumps({**copy, "items": mirror.items}), flush=True)

        signal.signal(signal.SIGUSR1, dump)
        while True:
            signal.pause()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
