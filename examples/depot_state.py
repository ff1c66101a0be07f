import json, os, socket, subprocess

# Where depotd listens: $DEPOT_SOCKET, or wherever `depotctl socket` finds it.
path = os.environ.get("DEPOT_SOCKET") or subprocess.run(["depotctl", "socket"], capture_output=True, text=True, check=True).stdout.strip()
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
    sock.connect(path)
    stream = sock.makefile("rwb")
    request = {"jsonrpc": "2.0", "id": 1, "method": "state"}
    stream.write(json.dumps(request).encode() + b"\n")
    stream.flush()
    state = json.loads(stream.readline())["result"]
    print(state["seq"], state["status"], len(state.get("items", [])))
