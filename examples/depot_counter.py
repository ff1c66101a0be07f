#!/usr/bin/env python3
"""Add to a number in one item, safely beside other writers: read the item and its etag, write it back only while it
is still that version (if_match), and on a conflict do it again from the item as it is now. Run it from several
shells at once: no increment is lost.

python3 examples/depot_counter.py ID [--field visits] [--by 1] [--socket SOCKET]
"""

import argparse
import sys

import depot


def main() -> None:
    parser = argparse.ArgumentParser(description="Add to a number in an item, never losing another writer's change.")
    parser.add_argument("id", help="the item's id (digits are sent as an integer)")
    parser.add_argument("--field", default="count", help="the member to add to (default: count; absent counts as 0)")
    parser.add_argument("--by", type=int, default=1, help="how much to add (default: 1)")
    parser.add_argument("--socket", help="default: as `depotctl socket` finds it")
    args = parser.parse_args()
    item_id: depot.ItemID = int(args.id) if args.id.lstrip("-").isdigit() else args.id
    with depot.connect(args.socket) as d:
        current = d.get(item_id, meta=True)
        for attempt in range(1, 101):
            item = dict(current.item)
            value = item.get(args.field, 0)
            if not isinstance(value, int):
                sys.exit(f"depot_counter: {args.field} of {args.id} is {value!r}, not an integer")
            item[args.field] = value + args.by
            try:
                written = d.put(item_id, item, if_match=current.etag)
            except depot.Conflict as conflict:
                if conflict.item is None or conflict.etag is None:
                    sys.exit(f"depot_counter: {args.id} was removed meanwhile")
                # Another writer came first: start again from what it wrote.
                current = depot.Versioned(conflict.item, conflict.etag)
                continue
            attempts = f"{attempt} attempt{'s' if attempt > 1 else ''}"
            print(f"{args.field} = {item[args.field]} (etag {written.etag}, after {attempts})")
            return
        sys.exit("depot_counter: 100 conflicts in a row; try again later")


if __name__ == "__main__":
    main()
