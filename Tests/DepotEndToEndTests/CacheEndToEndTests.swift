import DepotCache
import DepotClient
import DepotCore
import DepotJSON
import DepotTestSupport
import Foundation
import Logging
import Testing
import depot_cache_writer

#if canImport(Glibc)
import Glibc
#endif

/// depotd with its on-disk cache: restarts keep the view, a failing source is stood in for, wipe clears the
/// disk, and `kill -9` in the middle of saving never leaves a cache that does not open or holds half a list.
@Suite("depotd: the on-disk cache across restarts and kills")
struct CacheEndToEndTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Starts depotd on `source` in `directory` (its state, and so its cache, is in there too).
    static func start(_ directory: TemporaryDirectory, source: String, _ extra: [String] = []) async throws -> Daemon {
        try await Daemon.start(["--source", source, "--log-level", "debug"] + extra, directory: directory)
    }

    @Test("after a crash, the cached list is served at once; when the source then fails, it stays, marked stale")
    func restartKeepsTheView() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let source = Daemon.writeItems(3, in: directory)
        // No load at start: the load below is the one list saved, which the wait for the cache then means.
        let first = try await Self.start(directory, source: source, ["--no-initial-load"])
        let loaded = try await first.connect().call("load")
        #expect(loaded["origin"] == "source")
        try await first.waitUntilCached(3)
        try await first.kill()

        // The source is gone: the restarted daemon shows the cached list, and says it is stale.
        try FileManager.default.removeItem(atPath: String(source.dropFirst("file:".count)))
        let second = try await Self.start(directory, source: source)
        defer { second.process.signal(SIGKILL) }
        try await second.process.waitForError(containing: "serving 3 cached items fetched at")
        // Every state from now on: the start-up load ends with the cached list marked stale (or a failure).
        var state: JSONValue = .null
        for await change in try await second.connect().subscribe() {
            state = change.state
            if state["stale"] == true || state["status"] == "failure" { break }
        }
        #expect(state["status"] == "success")
        #expect(state["origin"] == "cache")
        #expect(state["items"]?.arrayValue?.count == 3)
        #expect(state["fetchedAt"] == loaded["fetchedAt"], "the fetch time of the list the first run saved")

        let shown = try await second.depotctl(["state"])
        #expect(
            shown.standardOutput.hasPrefix("success · 3 items · cache, fetched \(loaded["fetchedAt"]?.stringValue ?? "?"), stale"),
            "\(shown.standardOutput)")
        try await second.kill()
    }

    @Test("READY and the first state come from the cache while the source has not answered yet")
    func readyFromTheCache() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // The first request gets the items; every later one hangs: a source that has become very slow.
        let answers = Condition(0)
        let server = try await HTTPTestServer.start { _ in
            answers.update { answered in
                defer { answered += 1 }
                return answered
            } == 0
                ? .respond(status: 200, headers: [("Content-Type", "application/json")], body: #"[{"id":1},{"id":2}]"#)
                : .hang
        }
        defer { Task { await server.stop() } }
        let first = try await Self.start(directory, source: server.url("/items"), ["--no-initial-load"])
        _ = try await first.connect().call("load")
        try await first.waitUntilCached(2)
        try await first.kill()

        let notify = try NotifySocket(path: directory.file("notify"))
        let second = try await Daemon.start(
            ["--source", server.url("/items")],
            directory: directory,
            environment: ["NOTIFY_SOCKET": notify.address]
        )
        defer { second.process.signal(SIGKILL) }
        let ready = try await notify.receive(until: { NotifySocket.fields($0)["READY"] == "1" })
        #expect(NotifySocket.fields(ready.last!)["STATUS"]?.hasPrefix("success · 2 items · from the cache · ") == true, "\(ready)")
        // The second run's request reaches the server, which never answers it: the cached list stands.
        _ = try await withTimeout(.seconds(60), "the second run to ask the source") {
            await server.requests.wait { $0.count == 2 }
        }
        let state = try await second.connect().call("state")
        #expect(state["origin"] == "cache")
        #expect(state["stale"] == false)
        try await second.kill()
    }

    @Test("load --strategy: fastestAvailable answers from memory without publishing; a bad strategy is -32602")
    func strategies() async throws {
        let directory = TemporaryDirectory()
        try await withDaemon(["--source", Daemon.writeItems(2, in: directory)], directory: directory) { daemon in
            let connection = try await daemon.connect()
            let loaded = try await connection.call("load")
            let fastest = try await connection.call("load", params: ["strategy": "fastestAvailable"])
            #expect(fastest == loaded)
            let error = await #expect(throws: DepotClientError.self) {
                try await connection.call("load", params: ["strategy": "fastest"])
            }
            guard case .remote(let remote)? = error else { return }
            #expect(remote.code == -32602)
            #expect(remote.message.contains(#""strategy" must be one of "fastestAvailable", "upToDateWithFallback", "returnMultipleTimes""#))

            let viaDepotctl = try await daemon.depotctl(["load", "--strategy", "fastestAvailable", "--json"])
            #expect(viaDepotctl.standardOutput == loaded.jsonText + "\n")
        }
    }

    @Test("wipe clears the disk too: after a crash, a failing source has nothing to stand in for it")
    func wipeClearsTheDisk() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let source = Daemon.writeItems(3, in: directory)
        let first = try await Self.start(directory, source: source)
        let connection = try await first.connect()
        _ = try await connection.call("load")
        _ = try await connection.call("wipe")
        try await first.kill()

        let cache = try await ItemCache.open(at: directory.file("state/depot/cache.sqlite"), logger: Self.quiet)
        #expect(try await cache.read() == nil)
        try cache.close()
    }

    /// 20 by default; `DEPOT_DAEMON_KILLS=200` for a longer run.
    static let kills = ProcessInfo.processInfo.environment["DEPOT_DAEMON_KILLS"].flatMap { Int($0) } ?? 20

    @Test("kill -9 while depotd saves a new list, many times: the cache always opens and holds one whole list")
    func killedWhileSaving() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let sourcePath = directory.file("items.json")
        let cachePath = directory.file("state/depot/cache.sqlite")
        var random = SplitMix64(seed: 0xDE_907D)
        var failures: [String] = []
        // The newest generation depotd said it kept in the cache: a save that finished survives a kill.
        var lastSaved = 0
        var killedAfterSuccess = 0

        for kill in 1...Self.kills {
            // Generation g: count(g) items (1 to 4,000) of about 200 bytes, every one tagged g.
            let generation = kill
            let items = CacheGeneration.items(generation).items
            _ = directory.write("items.json", "[" + items.map { String(decoding: $0.json, as: UTF8.self) }.joined(separator: ",") + "]")
            let daemon = try await Self.start(directory, source: "file:" + sourcePath, ["--no-initial-load", "--log-level", "debug"])
            let connection = try await daemon.connectLines()
            var lines = connection.lines.makeAsyncIterator()
            try await connection.send(#"{"jsonrpc":"2.0","id":"s","method":"subscribe"}"#)
            try await connection.send(#"{"jsonrpc":"2.0","id":"l","method":"load"}"#)
            // Kill at an event: most often when the success is published (the save starts right after it),
            // sometimes when the load starts.
            let killAt = Int.random(in: 0..<4, using: &random) == 0 ? "loading" : "success"
            while let line = try await lines.next() {
                let message = try JSONParser.parse(line)
                if message["params"]?["state"]?["status"]?.stringValue == killAt { break }
            }
            if killAt == "success" { killedAfterSuccess += 1 }
            try await daemon.kill()
            // The list is saved behind the load (a load answers before): only a save depotd said it finished counts.
            if daemon.process.standardError.value.contains("kept \(items.count) items in the cache") { lastSaved = generation }

            let cache = try await ItemCache.open(at: cachePath, logger: Self.quiet)
            defer { try? cache.close() }
            guard let list = try await cache.read() else {
                if lastSaved > 0 { failures.append("kill \(kill): no list, though generation \(lastSaved) was saved") }
                continue
            }
            let found = list.items.items.first.flatMap { Int($0.id.dropFirst().prefix { $0 != "-" }) } ?? -1
            if found < lastSaved || found > generation {
                failures.append("kill \(kill): generation \(found) in the cache; \(lastSaved) was saved, \(generation) written")
            } else if list.items.items != CacheGeneration.items(found).items {
                failures.append("kill \(kill): generation \(found) is not whole: \(list.items.count) items of \(CacheGeneration.count(found))")
            }
        }
        #expect(failures == [])
        #expect(killedAfterSuccess > 0)
        print("depotd killed \(Self.kills) times (\(killedAfterSuccess) as a save began): \(failures.count) failures")
    }
}

/// The state directory on a tiny tmpfs in a mount namespace of the test's own (held by a sleeping process, so it
/// outlives each depotd), filled up while depotd runs.
@Suite("depotd: a full disk under the cache")
struct FullDiskTests {
    @Test("wipe with the disk full answers, and after a crash and restart with the source gone, nothing wiped is served")
    func wipeOnFullDisk() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let holder = try ChildProcess(
            "/usr/bin/unshare",
            ["-m", "--propagation", "private", "/bin/sh", "-c", "mount -t tmpfs -o size=2m tmpfs \"$0\" && echo mounted && exec sleep 600", state],
            environment: [:])
        defer { holder.signal(SIGKILL) }
        _ = try await holder.waitForOutputLines(1)
        let source = Daemon.writeItems(2000, in: directory, padding: 100)
        var environment = Daemon.environment(in: directory)
        environment["STATE_DIRECTORY"] = state
        func depotd() throws -> ChildProcess {
            try ChildProcess(
                "/usr/bin/nsenter", ["-t", "\(holder.pid)", "-m", Binaries.depotd, "--socket", directory.file("d.sock"), "--source", source],
                environment: environment)
        }
        func control() async throws -> DepotConnection {
            try await DepotConnection.connect(to: directory.file("d.sock"))
        }

        let first = try depotd()
        defer { first.signal(SIGKILL) }
        try await first.waitForError(containing: "listening on")
        _ = try await control().call("load")
        // Fill the rest of the disk, from inside the namespace.
        let fill = try ChildProcess(
            "/usr/bin/nsenter", ["-t", "\(holder.pid)", "-m", "/bin/dd", "if=/dev/zero", "of=\(state)/fill", "bs=64k"], environment: [:])
        _ = try await fill.waitForExit()
        #expect(fill.standardError.value.contains("No space left on device"), "\(fill.standardError.value)")

        let wiped = try await control().call("wipe")
        #expect(wiped["status"] == "idle")
        try await first.waitForError(containing: "its files were deleted, so they are never served")
        first.signal(SIGKILL)
        _ = try await first.waitForExit()

        // The source is gone too: only the cache could bring the items back, and it must not.
        try FileManager.default.removeItem(atPath: String(source.dropFirst("file:".count)))
        try FileManager.default.removeItem(atPath: directory.file("d.sock"))
        let second = try depotd()
        defer { second.signal(SIGKILL) }
        try await second.waitForError(containing: "listening on")
        let subscription = try await control().subscribe()
        for await change in subscription where change.status == "failure" || change.status == "success" {
            #expect(change.status == "failure", "no wiped item is served: \(change.state.jsonText.prefix(200))")
            break
        }
    }
}
