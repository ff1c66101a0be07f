"""Every method against the real depotd, and the errors it answers with, as typed values."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import REPOSITORY, Daemon, binary

import depot


def test_state_is_typed(daemon: Daemon) -> None:
    with depot.connect(daemon.socket, timeout=30) as d:
        state = d.state()
    assert state.status is depot.Status.SUCCESS
    assert state.origin is depot.Origin.SOURCE
    assert isinstance(state.fetched_at, datetime) and state.fetched_at.tzinfo == timezone.utc
    assert state.items is not None and len(state.items) == 20 == state.count
    assert state.items[0] == {"id": 1, "name": "item 1"}
    assert state.seq >= 1 and state.epoch and not state.stale


def test_get_load_remove_wipe(daemon: Daemon) -> None:
    with depot.connect(daemon.socket, timeout=30) as d:
        assert d.get(3) == {"id": 3, "name": "item 3"}
        assert d.get("3") == {"id": 3, "name": "item 3"}
        loaded = d.load()
        assert loaded.status is depot.Status.SUCCESS and loaded.items is None and loaded.count == 20
        assert d.load(items=True).items == d.state().items
        assert d.load("fastestAvailable").count == 20
        removed = d.remove(3)
        assert removed.count == 19 and removed.items is None
        optimistic = d.remove(4, optimistic=True, items=True)
        assert optimistic.items is not None and [item["id"] for item in optimistic.items][:3] == [1, 2, 5]
        assert [item["id"] for item in json.loads(daemon.items_file.read_text())][:3] == [1, 2, 5]
        wiped = d.wipe()
        assert wiped.status is depot.Status.IDLE and wiped.items is None
        assert d.state().seq == wiped.seq


def test_pipelines(daemon: Daemon) -> None:
    operators = [{"op": "filter", "where": {"field": "/id", "lt": 4}}]
    with depot.connect(daemon.socket, timeout=30) as d:
        assert d.pipelines.put("small", operators, description="the first three") is True
        assert d.pipelines.put("small", operators, description="the first three") is False
        stored = d.pipelines.get("small")
        assert stored == depot.StoredPipeline("small", operators, False, "the first three")
        assert [entry.name for entry in d.pipelines.list()] == ["small"]
        assert [item["id"] for item in d.state("small").items or []] == [1, 2, 3]
        assert [item["id"] for item in d.state(operators).items or []] == [1, 2, 3]
        with pytest.raises(depot.NotFound):
            d.get(5, pipeline="small")
        d.pipelines.delete("small")
        assert d.pipelines.list() == []
        with pytest.raises(depot.NotFound):
            d.pipelines.get("small")


def test_whoami_stats_discover(daemon: Daemon) -> None:
    with depot.connect(daemon.socket, timeout=30) as d:
        me = d.whoami()
        stats = d.stats()
        document = d.discover()
    assert me.uid == os.getuid() and depot.AccessLevel.ADMIN in me.levels
    assert stats.status is depot.Status.SUCCESS and stats.items == 20 and stats.connections >= 1
    assert stats.source.name.startswith("file:") and stats.source.fetches.calls >= 1
    assert stats.source.watching is True
    assert (
        document["info"]["version"]
        == json.loads((REPOSITORY / "rpc-schema" / "openrpc.json").read_text())["info"]["version"]
    )


def test_errors_carry_code_message_and_typed_state(daemon: Daemon) -> None:
    with depot.connect(daemon.socket, timeout=30) as d:
        with pytest.raises(depot.NotFound) as missing:
            d.get(999)
        assert missing.value.code == -32003 and "999" in missing.value.message
        with pytest.raises(depot.InvalidParams) as invalid:
            d.call("remove", {"id": 1, "optimistic": "yes"})
        assert invalid.value.code == -32602 and "optimistic" in invalid.value.message
        with pytest.raises(depot.InvalidParams) as pipeline:
            d.state([{"op": "nonsense"}])
        assert pipeline.value.data is not None
        with pytest.raises(depot.MethodNotFound):
            d.call("nonsense")
        daemon.items_file.write_text("not json")
        with pytest.raises(depot.LoadFailed) as failed:
            d.load("upToDateWithFallback")
        assert failed.value.state is not None and failed.value.state.status is depot.Status.FAILURE
        assert failed.value.state.error is not None and failed.value.state.error.code == -32001
        assert isinstance(failed.value, depot.DepotError)


def test_limit_exceeded(workdir: Path) -> None:
    running = Daemon(workdir, ["--no-cache", "--max-subscriptions", "1"])
    try:
        with depot.connect(running.socket, timeout=30) as d:
            d.call("subscribe")
            with pytest.raises(depot.LimitExceeded):
                d.call("subscribe")
    finally:
        running.stop()


def test_read_only_pipeline(workdir: Path) -> None:
    (workdir / "pipelines").mkdir()
    fixed = {"name": "fixed", "description": "one", "pipeline": [{"op": "limit", "count": 1}]}
    (workdir / "pipelines" / "fixed.json").write_text(json.dumps(fixed))
    (workdir / "depotd.json").write_text("{}")
    running = Daemon(workdir, ["--no-cache", "--config", str(workdir / "depotd.json")])
    try:
        with depot.connect(running.socket, timeout=30) as d:
            assert d.pipelines.get("fixed").read_only is True
            with pytest.raises(depot.ReadOnly):
                d.pipelines.delete("fixed")
    finally:
        running.stop()


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="runs a client as another user, or depotd in a namespace")


@needs_root
def test_forbidden_for_another_user(workdir: Path) -> None:
    """A user other than depotd's own may read, but not remove: depotd decides from the peer's credentials."""
    daemon = Daemon(workdir, ["--no-cache", "--socket-mode", "0666"])
    script = (
        "import depot, sys\n"
        f"d = depot.connect({daemon.socket!r}, timeout=30)\n"
        "assert d.state().count == 20\n"
        "try:\n    d.remove(1)\nexcept depot.Forbidden as e:\n    print(e.code, e.message)\n    sys.exit(0)\n"
        "sys.exit(1)\n"
    )
    # The package and the interpreter where nobody can read them: a clone may sit in root's home.
    shutil.copytree(Path(depot.__file__).parent, workdir / "python" / "depot")
    result = subprocess.run(
        ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", script],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(workdir / "python")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    daemon.stop()
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("-32005 ")


@needs_root
def test_storage_failed(workdir: Path) -> None:
    """The state directory is read-only (a bind mount, in a mount namespace of depotd's own): nothing can be stored."""
    state = workdir / "state-directory"
    state.mkdir()
    read_only = ["unshare", "--mount", "--propagation", "private", "sh", "-c"]
    read_only += ['mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', str(state)]
    running = Daemon(workdir, [], launcher=read_only, environment={"STATE_DIRECTORY": str(state)})
    try:
        with depot.connect(running.socket, timeout=30) as d:
            with pytest.raises(depot.StorageFailed) as problem:
                d.pipelines.put("first", [{"op": "limit", "count": 1}])
            assert problem.value.code == -32007
            assert d.pipelines.list() == []
    finally:
        running.stop()


def test_daemon_not_running_says_what_to_do(workdir: Path) -> None:
    path = str(workdir / "nothing.sock")
    with pytest.raises(depot.DaemonNotRunning) as problem:
        depot.connect(path)
    assert f"start it with `depotd --socket {path}`" in str(problem.value)


def test_connection_lost_for_calls_in_flight(daemon: Daemon) -> None:
    d = depot.connect(daemon.socket, timeout=30)
    assert d.state().count == 20
    daemon.stop()
    with pytest.raises(depot.ConnectionLost):
        d.state()
    daemon.start()
    d.reconnect()
    assert d.state().count == 20
    d.close()


def test_a_thousand_concurrent_calls_on_one_connection(daemon: Daemon) -> None:
    with depot.connect(daemon.socket, timeout=60) as d, ThreadPoolExecutor(max_workers=64) as pool:
        ids = [1 + index % 20 for index in range(1000)]
        answers = list(pool.map(d.get, ids))
    assert [item["id"] for item in answers] == ids


def test_socket_path_matches_depotctl(workdir: Path) -> None:
    depotctl = binary("depotctl")
    cases = [
        {"DEPOT_SOCKET": "/somewhere/d.sock"},
        {"RUNTIME_DIRECTORY": f"{workdir}/rt:/other"},
        {"RUNTIME_DIRECTORY": ":", "XDG_RUNTIME_DIR": f"{workdir}/xdg/"},
        {"XDG_RUNTIME_DIR": ""},
        {},
    ]
    for extra in cases:
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **extra}
        expected = subprocess.run([depotctl, "socket"], env=environment, capture_output=True, text=True, check=True)
        assert depot.socket_path(environment=environment) == expected.stdout.strip(), extra
        named = subprocess.run([depotctl, "socket", "-n", "web"], env=environment, capture_output=True, text=True)
        assert depot.socket_path(instance="web", environment=environment) == named.stdout.strip()
    with pytest.raises(ValueError):
        depot.socket_path(instance="a/b")


def test_socket_path_falls_back_to_the_system_socket_only_when_nothing_is_at_the_default(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = workdir / "system.sock"
    monkeypatch.setattr(depot._paths, "SYSTEM_SOCKET", str(system))
    own = workdir / "own"
    own.mkdir()
    environment = {"RUNTIME_DIRECTORY": str(own)}
    # Nothing at the default and no system socket: the default.
    assert depot.socket_path(environment=environment) == f"{own}/depotd.sock"
    system.touch()
    # Nothing at the default, something at the system socket's path: that one.
    assert depot.socket_path(environment=environment) == str(system)
    # Something at the default: the default again; an explicit choice always wins.
    (own / "depotd.sock").touch()
    assert depot.socket_path(environment=environment) == f"{own}/depotd.sock"
    assert depot.socket_path(environment={"DEPOT_SOCKET": "/missing.sock"}) == "/missing.sock"


def test_threads_share_a_connection_with_a_watch(daemon: Daemon) -> None:
    with depot.connect(daemon.socket, timeout=30) as d:
        watch = d.watch()
        first = next(watch)
        done = threading.Event()

        def remove() -> None:
            d.remove(1)
            done.set()

        threading.Thread(target=remove).start()
        seen = [next(watch) for _ in range(2)]
        assert done.wait(30)
        assert [state.status for state in seen] == [depot.Status.LOADING, depot.Status.SUCCESS]
        assert seen[-1].items == (first.items or [])[1:]
        watch.close()


def test_removal_refused_rolls_back(workdir: Path) -> None:
    """An HTTP source on loopback whose DELETE answers 403: the optimistic removal is rolled back, and the error
    carries the State after the rollback."""
    body = json.dumps([{"id": index, "name": f"item {index}"} for index in range(1, 6)]).encode()
    deletes: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_DELETE(self) -> None:
            deletes.append(self.path)
            self.send_response(403)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    running = Daemon(workdir, ["--no-cache", "--delete-url", base + "/items/{id}"], source=base + "/items")
    try:
        with depot.connect(running.socket, timeout=30) as d:
            with pytest.raises(depot.RemovalRefused) as refused:
                d.remove(2, optimistic=True)
            assert refused.value.code == -32002 and depot.RemoveFailed is depot.RemovalRefused
            assert deletes == ["/items/2"]
            assert refused.value.state is not None and refused.value.state.count == 5
            assert [item["id"] for item in d.state().items or []] == [1, 2, 3, 4, 5]
    finally:
        running.stop()
        server.shutdown()
