#!/usr/bin/env python3
"""Print depotd's current state, then every state change, one line each (the depot package applies the deltas).

python3 examples/depot_watch.py [SOCKET] [--count N] [--follow]
"""

import argparse

import depot


def main() -> None:
    parser = argparse.ArgumentParser(description="Print depotd's states as they change.")
    parser.add_argument("socket", nargs="?", help="default: as `depotctl socket` finds it")
    parser.add_argument("--count", type=int, help="stop after this many states")
    parser.add_argument("--follow", action="store_true", help="reconnect and resume when the connection drops")
    args = parser.parse_args()
    with depot.connect(args.socket) as d:
        for seen, state in enumerate(d.watch(follow=args.follow), start=1):
            items = f" · {state.count} items" if state.is_success else ""
            skipped = f" · skipped {state.skipped}" if state.skipped else ""
            print(f"seq {state.seq} · {state.status.value}{items}{skipped}", flush=True)
            if args.count is not None and seen >= args.count:
                return


if __name__ == "__main__":
    main()
