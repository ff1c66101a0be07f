#!/usr/bin/env python3
"""Talk to depotd with nothing but Python's standard library: print the current state,
then every state change, one line each.

    python3 examples/depot_watch.py [SOCKET] [--count N]
"""
import argparse
import json
import os
import socket
import subprocess


def default_socket():
    """Where depotd listens: $DEPOT_SOCKET, or wherever `depotctl socket` finds it (the same rules as depotctl)."""
    if os.environ.get("DEPOT_SOCKET"):
        return os.environ["DEPOT_SOCKET"]
    return subprocess.run(["depotctl", "socket"], capture_output=True, text=True, check=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser(description="Print depotd's states as they change.")
    parser.add_argument("socket", nargs="?", help="default: $DEPOT_SOCKET, else `depotctl socket`")
    parser.add_argument("--count", type=int, help="stop after this many states")
    args = parser.parse_args()
    args.socket = args.socket or default_socket()

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(args.socket)
        stream = sock.makefile("rwb")

        def call(method, params=None, id=1):
            request = {"jsonrpc": "2.0", "id": id, "method": method}
            if params is not None:
                request["params"] = params
            stream.write(json.dumps(request).encode() + b"\n")
            stream.flush()

        call("subscribe")
        seen = 0
        for line in stream:                      # one JSON-RPC message per line
            message = json.loads(line)
            if message.get("method") != "stateChanged":
                continue                         # the answer to subscribe: {"subscription": "s1"}
            state = message["params"]["state"]
            items = f" · {len(state['items'])} items" if state["status"] == "success" else ""
            skipped = message["params"].get("skipped")
            print(f"seq {state['seq']} · {state['status']}{items}" + (f" · skipped {skipped}" if skipped else ""), flush=True)
            seen += 1
            if args.count is not None and seen >= args.count:
                return


if __name__ == "__main__":
    main()
