#!/usr/bin/env python3
"""Talk to depotd with nothing but Python's standard library: print the current state,
then every state change, one line each.

    python3 examples/depot_watch.py [SOCKET] [--count N]
"""
import argparse
import json
import os
import socket


def default_socket():
    """The socket depotd listens on when started without --socket, found as `depotctl socket` finds it:
    $DEPOT_SOCKET, else $XDG_RUNTIME_DIR/depot/depotd.sock, else /run/depot/depotd.sock for root and
    /tmp/depot-$UID/depotd.sock for others; when nothing is there, the system daemon's /run/depot/depotd.sock."""
    if os.environ.get("DEPOT_SOCKET"):
        return os.environ["DEPOT_SOCKET"]
    runtime = os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    if runtime:
        own = os.path.join(runtime, "depotd.sock")
    elif os.environ.get("XDG_RUNTIME_DIR"):
        own = os.path.join(os.environ["XDG_RUNTIME_DIR"], "depot", "depotd.sock")
    else:
        own = "/run/depot/depotd.sock" if os.getuid() == 0 else f"/tmp/depot-{os.getuid()}/depotd.sock"
    if not os.path.exists(own) and os.path.exists("/run/depot/depotd.sock"):
        return "/run/depot/depotd.sock"
    return own


def main():
    parser = argparse.ArgumentParser(description="Print depotd's states as they change.")
    parser.add_argument("socket", nargs="?", default=default_socket())
    parser.add_argument("--count", type=int, help="stop after this many states")
    args = parser.parse_args()

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
