import DepotClient
import DepotJSON
import DepotPlatform
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Faults of the world around depotd, each on the real daemon: a clear log line and error, no crash, and service
/// again once the fault ends.
@Suite("depotd: faults")
struct FaultEndToEndTests {
    @Test("the socket file deleted while running: logged, open connections go on, and it is bound again")
    func socketFileDeleted() async throws {
        try await withDaemon(["--source", Daemon.writeItems(3, in: TemporaryDirectory())]) { daemon in
            let open = try await daemon.connect()
            _ = try await open.call("load")
            try FileManager.default.removeItem(atPath: daemon.socketPath)
            try await daemon.process.waitForError(containing: "the socket file \(daemon.socketPath) was deleted or replaced")
            #expect(try await open.call("state")["items"]?.arrayValue?.count == 3, "an open connection goes on")
            try await daemon.process.waitForError(containing: "bound \(daemon.socketPath) again: new clients can connect")
            #expect(try await daemon.connect().call("state")["items"]?.arrayValue?.count == 3, "a new client connects")
            // A clean stop removes the socket it bound last.
            daemon.process.signal(SIGTERM)
            #expect(try await daemon.process.waitForExit() == 0)
            #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        }
    }

    @Test("an HTTP source that accepts and never answers: load fails within --request-timeout, saying so; then it answers")
    func sourceNeverAnswers() async throws {
        let answering = Locked(false)
        let server = try await HTTPTestServer.start { _ in
            answering.withLock { $0 } ? .respond(status: 200, body: #"[{"id":1},{"id":2}]"#) : .hang
        }
        defer { Task { await server.stop() } }
        // No retries in the background: a retry still hanging when the server comes back would be joined by the next load.
        let arguments = [
            "--source", server.url("/items"), "--no-initial-load", "--no-cache", "--request-timeout", "\(TestTime.scale)", "--refresh-interval", "0",
        ]
        try await withDaemon(arguments) { daemon in
            let connection = try await daemon.connect()
            let error = try #require(await remoteError { _ = try await connection.call("load") }, "a source that never answers cannot load")
            #expect(error.code == -32001)
            #expect(error.message.contains("timed out") || error.message.contains("timeout"), "\(error.message)")
            #expect(error.data?["status"] == "failure", "the failure state is published")
            try await daemon.process.waitForError(containing: "load failed")
            answering.withLock { $0 = true }
            #expect(try await connection.call("load")["count"] == 2)
        }
    }

    @Test("kill -9 during an optimistic removal: after a restart, the unconfirmed removal is not half-applied, a confirmed one is kept")
    func killDuringOptimisticRemoval() async throws {
        let items = Locked([1, 2, 3])
        let deleteGate = Locked(true)  // true: DELETE hangs
        let sourceUp = Locked(true)
        let server = try await HTTPTestServer.start { request in
            guard sourceUp.withLock({ $0 }) else { return .respond(status: 503) }
            switch request.method {
            case "GET":
                let list = items.withLock { $0 }.map { #"{"id":\#($0)}"# }.joined(separator: ",")
                return .respond(status: 200, body: "[\(list)]")
            case "DELETE":
                if deleteGate.withLock({ $0 }) { return .hang }
                let id = Int(request.uri.split(separator: "/").last ?? "") ?? -1
                items.withLock { $0.removeAll { $0 == id } }
                return .respond(status: 204)
            default:
                return .respond(status: 404)
            }
        }
        defer { Task { await server.stop() } }
        let directory = TemporaryDirectory()
        let arguments = [
            "--source", server.url("/items"), "--delete-url", server.url("/items/{id}"), "--request-timeout", "60", "--log-level", "debug",
        ]
        /// The ids of the first success a fresh subscriber sees, and whether it came from the cache.
        func firstSuccess(_ daemon: Daemon) async throws -> (ids: [Int], origin: String?) {
            let subscription = try await daemon.connect().subscribe()
            for await change in subscription where change.status == "success" {
                return (change.state["items"]?.arrayValue?.compactMap { $0["id"]?.numberValue?.intValue } ?? [], change.state["origin"]?.stringValue)
            }
            return ([], nil)
        }

        // No load at start: the load below is the one list saved, which the wait for the cache then means.
        let first = try await Daemon.start(arguments + ["--no-initial-load"], directory: directory)
        _ = try await first.connect().call("load")
        try await first.waitUntilCached(3)
        let watcher = try await first.connect().subscribe()
        let remover = try await first.connectLines()
        try await remover.send(#"{"jsonrpc":"2.0","id":1,"method":"remove","params":{"id":1,"optimistic":true}}"#)
        for await change in watcher where change.status == "success" {
            if change.state["items"]?.arrayValue?.count == 2 { break }
        }
        try await withTimeout { await server.requests.wait { $0.contains { $0.method == "DELETE" } } }
        try await first.kill()

        // Restarted with the source down: only the cache speaks, and it never saw the unconfirmed removal.
        sourceUp.withLock { $0 = false }
        try FileManager.default.removeItem(atPath: first.socketPath)
        let second = try await Daemon.start(arguments, directory: directory)
        let afterCrash = try await firstSuccess(second)
        #expect(afterCrash.ids == [1, 2, 3] && afterCrash.origin == "cache", "\(afterCrash)")

        // A confirmed removal, then kill -9: the restart keeps it.
        sourceUp.withLock { $0 = true }
        deleteGate.withLock { $0 = false }
        _ = try await second.connect().call("load")
        let removed = try await second.connect().call("remove", params: ["id": 2])
        #expect(removed["count"] == 2)
        try await second.kill()
        sourceUp.withLock { $0 = false }
        try FileManager.default.removeItem(atPath: second.socketPath)
        let third = try await Daemon.start(arguments, directory: directory)
        let afterConfirmed = try await firstSuccess(third)
        #expect(afterConfirmed.ids == [1, 3] && afterConfirmed.origin == "cache", "\(afterConfirmed)")
        await third.cleanUp()
    }
}

/// The error the daemon answered `call` with; nil (and a test issue for anything else) when it answered or failed
/// otherwise.
func remoteError(_ call: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> RemoteError? {
    do {
        try await call()
        return nil
    } catch DepotClientError.remote(let error) {
        return error
    } catch {
        Issue.record("expected an error answer, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A mount namespace of the test's own, held by a sleeping process so it outlives each depotd, with `directory`
/// made a mount point the test can fill or make read-only.
struct MountNamespace {
    let holder: ChildProcess

    /// `setup` is shell run inside the new namespace with the directory as $0, before it is held.
    init(_ directory: String, setup: String) async throws {
        holder = try ChildProcess(
            "/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", "\(setup) && echo mounted && exec sleep 600", directory],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        _ = try await holder.waitForOutputLines(1)
    }

    /// Runs `executable` inside the namespace.
    func spawn(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess("/usr/bin/nsenter", ["-t", "\(holder.pid)", "-m", executable] + arguments, environment: environment)
    }

    /// Runs a shell command inside the namespace and waits for it.
    func run(_ command: String) async throws -> ChildProcess {
        let process = try spawn("/bin/sh", ["-c", command], environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        _ = try await process.waitForExit()
        return process
    }

    func stop() {
        holder.signal(SIGKILL)
    }
}

@Suite("depotd: a read-only state directory")
struct ReadOnlyStateTests {
    @Test(
        "a read-only state directory: depotd runs without its cache, saying why; a wipe the cache's files would undo fails with storageFailed; writable again, it succeeds and sticks"
    )
    func wipeOnReadOnlyState() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let namespace = try await MountNamespace(state, setup: #"mount --bind "$0" "$0""#)
        defer { namespace.stop() }
        let source = Daemon.writeItems(5, in: directory)
        var environment = Daemon.environment(in: directory)
        environment["STATE_DIRECTORY"] = state
        let socket = directory.file("d.sock")
        func depotd() async throws -> ChildProcess {
            try? FileManager.default.removeItem(atPath: socket)
            let process = try namespace.spawn(Binaries.depotd, ["--socket", socket, "--source", source], environment: environment)
            try await process.waitForError(containing: "listening on")
            return process
        }
        // A first run leaves a cache of the five items, closed as a stopped depotd closes it (its write-ahead log folded
        // in: a log left with changes in it would let SQLite read the file even from a read-only directory).
        let first = try await depotd()
        defer { first.signal(SIGKILL) }
        _ = try await DepotConnection.connect(to: socket).call("load")
        first.signal(SIGTERM)
        _ = try await first.waitForExit()

        #expect(try await namespace.run(#"mount -o remount,bind,ro "\#(state)""#).exitStatus.value == 0)
        let second = try await depotd()
        defer { second.signal(SIGKILL) }
        try await second.waitForError(containing: "running without the on-disk cache")
        let control = try await DepotConnection.connect(to: socket)
        _ = try await control.call("load")
        let wipe = try #require(await remoteError { _ = try await control.call("wipe") }, "a wipe the cache's files would undo must not answer done")
        #expect(wipe.code == -32007)
        #expect(wipe.message.contains("wiped in memory, but the cache could not take it"), "\(wipe.message)")
        #expect(wipe.message.contains("Read-only file system") && wipe.message.contains("make the state directory writable"), "\(wipe.message)")
        #expect(wipe.data?["status"] == "idle", "the state published comes as data")
        try await second.waitForError(containing: "cannot clear the cache")
        let put = await remoteError { _ = try await control.call("pipelines.put", params: ["name": "p", "pipeline": .array([])]) }
        #expect(put?.code == -32007, "nothing can be stored: \(String(describing: put))")

        // The fault ends: the same wipe succeeds (the old cache's files are deleted) and holds across a crash.
        #expect(try await namespace.run(#"mount -o remount,bind,rw "\#(state)""#).exitStatus.value == 0)
        _ = try await control.call("load")
        #expect(try await control.call("wipe")["status"] == "idle")
        second.signal(SIGKILL)
        _ = try await second.waitForExit()
        try FileManager.default.removeItem(atPath: String(source.dropFirst("file:".count)))
        let third = try await depotd()
        defer { third.signal(SIGKILL) }
        let subscription = try await DepotConnection.connect(to: socket).subscribe()
        for await change in subscription where change.status == "failure" || change.status == "success" {
            #expect(change.status == "failure", "nothing wiped is served: \(change.state.jsonText.prefix(200))")
            break
        }
    }
}

@Suite("depotd: a full disk under the cache, during load and removal")
struct FullDiskChangeTests {
    @Test("load and removal with the disk full answer, saying what the cache could not take; the removed item never comes back")
    func loadAndRemovalOnFullDisk() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let namespace = try await MountNamespace(state, setup: #"mount -t tmpfs -o size=2m tmpfs "$0""#)
        defer { namespace.stop() }
        let items = directory.file("items.json")
        let source = Daemon.writeItems(1000, in: directory, padding: 100)
        var environment = Daemon.environment(in: directory)
        environment["STATE_DIRECTORY"] = state
        let socket = directory.file("d.sock")
        func depotd(_ extra: [String] = []) async throws -> ChildProcess {
            try? FileManager.default.removeItem(atPath: socket)
            let process = try namespace.spawn(
                Binaries.depotd, ["--socket", socket, "--source", source, "--log-level", "debug"] + extra, environment: environment)
            try await process.waitForError(containing: "listening on")
            return process
        }
        // No load at start: the load below is the one list saved, which the wait for the cache then means.
        let first = try await depotd(["--no-initial-load"])
        defer { first.signal(SIGKILL) }
        let control = try await DepotConnection.connect(to: socket)
        _ = try await control.call("load")
        // The list is saved behind the load's answer: the disk fills after it is.
        try await first.waitForError(containing: "kept 1000 items in the cache")
        let fill = try await namespace.run("dd if=/dev/zero of=\(state)/fill bs=64k")
        #expect(fill.standardError.value.contains("No space left on device"), "\(fill.standardError.value)")

        // A load whose list cannot be saved: answered, with a warning; the cache keeps the list before.
        _ = Daemon.writeItems(1200, in: directory, padding: 100)
        let loaded = try await control.call("load")
        #expect(loaded["count"] == 1200)
        try await first.waitForError(containing: "cannot save 1200 items to the cache")

        // A removal the cache cannot take: answered done, and the cache's files are deleted instead.
        let removed = try await control.call("remove", params: ["id": 7])
        #expect(removed["count"] == 1199)
        try await first.waitForError(containing: "its files were deleted, so they are never served")
        first.signal(SIGKILL)
        _ = try await first.waitForExit()

        // With the source gone, nothing could bring item 7 back but the cache, and it must not.
        try FileManager.default.removeItem(atPath: items)
        let second = try await depotd()
        defer { second.signal(SIGKILL) }
        let subscription = try await DepotConnection.connect(to: socket).subscribe()
        for await change in subscription where change.status == "failure" || change.status == "success" {
            #expect(change.status == "failure", "nothing removed is served: \(change.state.jsonText.prefix(200))")
            break
        }
    }
}
