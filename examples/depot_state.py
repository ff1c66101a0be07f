import json, os, socket

path = os.environ.get("DEPOT_SOCKET") or os.path.expandvars("$XDG_RUNTIME_DIR/depot/depotd.sock")
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
    sock.connect(path)
    stream = sock.makefile("rwb")
    request = {"jsonrpc": "2.0", "id": 1, "method": "state"}
    stream.write(json.dumps(request).encode() + b"\n")
    stream.flush()
    state = json.loads(stream.readline())["result"]
    print(state["seq"], state["status"], len(state.get("items", [])))
