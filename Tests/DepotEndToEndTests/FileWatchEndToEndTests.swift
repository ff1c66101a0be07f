import DepotClient
import DepotCore
import DepotJSON
import DepotOperators
import DepotTestSupport
import DepotWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// depotd watching its `file:` source, on tmpfs and on the disk, under each way files are really written: a
/// delta-mode subscriber (a `CollectionMirror`) must end holding exactly the file, having seen no half-written file
/// and no failure on the way.
@Suite("depotd: a watched file, written every way files are written")
struct FileWatchEndToEndTests {
    /// A daemon serving `items.json` in a directory on `filesystem`, with a delta-mode subscriber mirroring it.
    struct Watched: Sendable {
        let daemon: Daemon
        let files: TemporaryDirectory
        let path: String
        /// Every state the subscriber applied, as its status line: `success a,b`, `stale a,b`, `failure`.
        let seen: Condition<[String]>
        let mirror: Condition<CollectionMirror>

        /// The list of items with these ids, as a file holds it.
        static func list(_ ids: [String]) -> String {
            "[" + ids.map { #"{"id": "\#($0)", "name": "item \#($0)"}"# }.joined(separator: ",\n") + "]\n"
        }

        /// Waits until the subscriber's last state is a fresh success with exactly `ids`, in order.
        func holds(_ ids: [String], _ what: String) async throws {
            try await withTimeout(.seconds(60), what) { await seen.wait { $0.last == "success \(ids.joined(separator: ","))" } }
            #expect(mirror.value.items.compactMap { $0["id"]?.stringValue } == ids, "the mirror holds what the file holds")
        }

        /// The source's fetch count, from stats.
        func fetches() async throws -> Int {
            try DepotStatistics(decoding: try await daemon.connect().call("stats")).fetches.calls
        }
    }

    /// Runs `body` with a daemon serving, on `filesystem`, the file `layOut` makes (by default `items.json` holding
    /// `ids`), and a subscriber that has seen its first state.
    static func withWatched(
        on filesystem: TestFilesystem, _ ids: [String] = ["a", "b"], arguments: [String] = [],
        layOut: @Sendable (TemporaryDirectory) -> String = { $0.write("items.json", Watched.list(["a", "b"])) },
        _ body: @escaping @Sendable (Watched) async throws -> Void
    ) async throws {
        let files = filesystem.temporaryDirectory()
        defer { files.remove() }
        let path = ids == ["a", "b"] ? layOut(files) : files.write("items.json", Watched.list(ids))
        try await withDaemon(["--source", "file:" + path, "--no-cache"] + arguments) { daemon in
            let seen = Condition<[String]>([])
            let mirror = Condition(CollectionMirror())
            let subscription = try await daemon.connect().subscribe(SubscribeRequest(mode: .delta))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await change in subscription where change.heartbeat == nil {
                        let line = mirror.update { mirror -> String in
                            do {
                                try mirror.apply(change)
                            } catch {
                                return "mismatch: \(error)"
                            }
                            let ids = mirror.items.compactMap { $0["id"]?.stringValue }.joined(separator: ",")
                            guard let status = mirror.state?.status.rawValue else { return "?" }
                            return status == "success" ? (change.state["stale"] == true ? "stale " : "success ") + ids : status
                        }
                        seen.update { $0.append(line) }
                    }
                }
                let watched = Watched(daemon: daemon, files: files, path: path, seen: seen, mirror: mirror)
                try await watched.holds(ids, "the first state")
                // On a loaded machine the subscription can come before the start-up load ends (`loading` first): the
                // writes under test begin after the first success, and so does what the subscriber is held to.
                seen.update { $0 = Array($0.drop { !$0.hasPrefix("success ") }) }
                try await body(watched)
                #expect(seen.value.allSatisfy { !$0.hasPrefix("mismatch") }, "\(seen.value)")
                group.cancelAll()
            }
        }
    }

    /// Writes `text` into an open descriptor, whole.
    static func write(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    /// A file written beside the watched one, on the same file system, to be renamed or copied over it.
    static func staged(_ watched: Watched, _ ids: [String]) -> String {
        let other = watched.files.subdirectory("elsewhere")
        return other.write("new.json", Watched.list(ids))
    }

    static func neverBroken(_ watched: Watched) {
        #expect(watched.seen.value.allSatisfy { $0.hasPrefix("success ") }, "no failure, no stale state, no half file: \(watched.seen.value)")
    }

    @Test("written in place (> truncates, then two writes with a pause): read once closed, never half", arguments: TestFilesystem.allCases)
    func inPlace(_ filesystem: TestFilesystem) async throws {
        try await Self.withWatched(on: filesystem, arguments: ["--log-level", "trace"]) { watched in
            let text = Watched.list(["a", "b", "c"])
            let descriptor = open(watched.path, O_WRONLY | O_TRUNC)
            let half = text.utf8.count / 2
            Self.write(descriptor, String(decoding: text.utf8.prefix(half), as: UTF8.self))
            try await watched.daemon.process.waitForError(containing: "\(watched.path): writing")
            // A slow writer: depotd has seen the write begin; three settle times pass with the file half written (the
            // workload's shape, not a wait for an event).
            usleep(300_000)
            Self.write(descriptor, String(decoding: text.utf8.dropFirst(half), as: UTF8.self))
            close(descriptor)
            try await watched.holds(["a", "b", "c"], "the whole file")
            Self.neverBroken(watched)
        }
    }

    @Test("cp over it", arguments: TestFilesystem.allCases)
    func copiedOver(_ filesystem: TestFilesystem) async throws {
        try await Self.withWatched(on: filesystem) { watched in
            let result = try await CommandResult.run("/bin/cp", [Self.staged(watched, ["c", "d"]), watched.path], environment: [:])
            #expect(result.status == 0)
            try await watched.holds(["c", "d"], "the copy")
            Self.neverBroken(watched)
        }
    }

    @Test("sed -i: a temporary file renamed over it", arguments: TestFilesystem.allCases)
    func sedInPlace(_ filesystem: TestFilesystem) async throws {
        try await Self.withWatched(on: filesystem) { watched in
            let result = try await CommandResult.run("/usr/bin/sed", ["-i", "s/\"b\"/\"z\"/", watched.path], environment: [:])
            #expect(result.status == 0, "\(result.standardError)")
            try await watched.holds(["a", "z"], "the edit")
            Self.neverBroken(watched)
        }
    }

    @Test("vim's write: the file renamed to a backup, a new one written and closed, the backup deleted", arguments: TestFilesystem.allCases)
    func vimWrite(_ filesystem: TestFilesystem) async throws {
        try await Self.withWatched(on: filesystem) { watched in
            // The system calls vim makes with backupcopy=no (as strace shows them), in order.
            rename(watched.path, watched.path + "~")
            let descriptor = open(watched.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            Self.write(descriptor, Watched.list(["a", "b", "v"]))
            fsync(descriptor)
            close(descriptor)
            unlink(watched.path + "~")
            try await watched.holds(["a", "b", "v"], "the new file")
            Self.neverBroken(watched)
        }
    }

    @Test("mv from elsewhere", arguments: TestFilesystem.allCases)
    func movedIn(_ filesystem: TestFilesystem) async throws {
        try await Self.withWatched(on: filesystem) { watched in
            #expect(rename(Self.staged(watched, ["m"]), watched.path) == 0)
            try await watched.holds(["m"], "the moved file")
            Self.neverBroken(watched)
        }
    }

    @Test("deleted: stale, saying the file was deleted; created again: read, fresh", arguments: TestFilesystem.allCases)
    func deletedAndCreated(_ filesystem: TestFilesystem) async throws {
        try await Self.withWatched(on: filesystem) { watched in
            unlink(watched.path)
            try await withTimeout(.seconds(60), "the stale state") { await watched.seen.wait { $0.last == "stale a,b" } }
            let state = try await watched.daemon.connect().call("state")
            #expect(state["staleReason"]?.stringValue?.contains("\(watched.path) was deleted") == true, "\(state)")
            watched.files.write("items.json", Watched.list(["n"]))
            try await watched.holds(["n"], "the new file")
            #expect(watched.seen.value == ["success a,b", "stale a,b", "success n"], "one state each: \(watched.seen.value)")
        }
    }

    @Test("a symlinked path whose directory link is swapped atomically (the ConfigMap ..data pattern)", arguments: TestFilesystem.allCases)
    func configMap(_ filesystem: TestFilesystem) async throws {
        // As the kubelet lays a ConfigMap out: items.json → ..data/items.json, ..data → a timestamped directory.
        let layOut: @Sendable (TemporaryDirectory) -> String = { files in
            TestFiles.makeDirectory(files.file("..2026_11_26_1"))
            files.write("..2026_11_26_1/items.json", Watched.list(["a", "b"]))
            TestFiles.makeSymbolicLink(files.file("..data"), to: "..2026_11_26_1")
            TestFiles.makeSymbolicLink(files.file("items.json"), to: "..data/items.json")
            return files.file("items.json")
        }
        try await Self.withWatched(on: filesystem, layOut: layOut) { watched in
            let files = watched.files
            // The update: a new directory, a new link to it renamed over ..data, the old directory removed.
            TestFiles.makeDirectory(files.file("..2026_11_26_2"))
            files.write("..2026_11_26_2/items.json", Watched.list(["c", "d"]))
            TestFiles.makeSymbolicLink(files.file("..data_tmp"), to: "..2026_11_26_2")
            #expect(rename(files.file("..data_tmp"), files.file("..data")) == 0)
            _ = try await CommandResult.run("/bin/rm", ["-rf", files.file("..2026_11_26_1")], environment: [:])
            try await watched.holds(["c", "d"], "the swapped file")
            // The watch follows the link: an edit in the new directory shows too.
            files.write("..2026_11_26_2/items.json", Watched.list(["e"]))
            try await watched.holds(["e"], "the edit in the new directory")
            Self.neverBroken(watched)
        }
    }

    @Test("a burst of 1,000 writes in a second: a handful of loads, the last equal to the file", arguments: TestFilesystem.allCases)
    func burst(_ filesystem: TestFilesystem) async throws {
        try await Self.withWatched(on: filesystem) { watched in
            let before = try await watched.fetches()
            let start = ContinuousClock.now
            for index in 1...1000 {
                let descriptor = open(watched.path, O_WRONLY | O_TRUNC)
                Self.write(descriptor, Watched.list(["w\(index)"]))
                close(descriptor)
                // Spread over about a second, as a busy writer would (the workload's pace, not a wait for an event).
                let due = start.advanced(by: .milliseconds(index))
                if ContinuousClock.now < due { try await Task.sleep(until: due) }
            }
            try await watched.holds(["w1000"], "the last write")
            let loads = try await watched.fetches() - before
            #expect(loads >= 1 && loads <= 10, "\(loads) loads for 1,000 writes")
            Self.neverBroken(watched)
        }
    }

    @Test("depotd's own rewrite after a removal is read back and publishes nothing more")
    func ownRewrite() async throws {
        try await Self.withWatched(on: .disk, ["a", "b", "c"], arguments: ["--log-level", "debug"]) { watched in
            _ = try await watched.daemon.connect().call(RemoveRequest(id: "b"))
            try await watched.holds(["a", "c"], "the removal")
            // The watch sees the rewrite and reads the file back: the same bytes the removal wrote.
            try await watched.daemon.process.waitForError(containing: "\(watched.path) changed; refreshing")
            try await watched.daemon.process.waitForError(containing: "refreshed file:\(watched.path): unchanged")
            let seen = watched.seen.value
            #expect(seen == ["success a,b,c", "loading", "success a,c"], "one state for the removal, none for the rewrite: \(seen)")
        }
    }

    @Test("a directory that does not exist: a clear line, and depotd serves on without watching")
    func missingDirectory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("nowhere/items.json")
        try await withDaemon(["--source", "file:" + path, "--no-cache"], directory: directory) { daemon in
            try await daemon.process.waitForError(
                containing:
                    "not watching \(path) for changes: cannot watch \(directory.file("nowhere")): it does not exist; depotd goes on without watching it"
            )
            let stats = try DepotStatistics(decoding: try await daemon.connect().call("stats"))
            #expect(stats.refresh?.watchedFile == nil && stats.refresh?.watchProblem?.contains("does not exist") == true)
            #expect(stats.status == "failure")
        }
    }

    @Test("a watch the system refuses (the user's inotify instances used up): a line that says which limit, and depotd serves on")
    func inotifyLimit() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) runs a command as another user")
        // A uid of its own, which no other test uses, so that using up its inotify instances disturbs nobody else.
        let user = ["--reuid=64999", "--regid=64999", "--clear-groups"]
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let depotd = directory.file("depotd")
        do {
            try FileManager.default.linkItem(atPath: Binaries.depotd, toPath: depotd)
        } catch {
            try FileManager.default.copyItem(atPath: Binaries.depotd, toPath: depotd)
        }
        let path = directory.write("items.json", #"[{"id": 1}]"#)
        #expect(try await CommandResult.run("/bin/chown", ["-R", "64999:64999", directory.path], environment: [:]).status == 0)
        let hog = try ChildProcess(
            "/usr/bin/setpriv",
            user + [
                "/usr/bin/python3", "-c",
                "import ctypes, signal\nlibc = ctypes.CDLL(None)\nn = 0\nwhile libc.inotify_init1(0) >= 0: n += 1\nprint(n, flush=True)\nsignal.pause()",
            ], environment: [:])
        defer { hog.signal(SIGKILL) }
        let held = try await hog.waitForOutputLines(1)
        try #require(Int(held.first ?? "") ?? 0 > 0, "the helper holds this uid's inotify instances: \(held)")
        let socket = directory.file("d.sock")
        let daemon = try ChildProcess(
            "/usr/bin/setpriv", user + [depotd, "--socket", socket, "--source", "file:" + path, "--no-cache"],
            environment: ["HOME": directory.path, "PATH": "/usr/bin:/bin"])
        defer { daemon.signal(SIGKILL) }
        try await daemon.waitForError(containing: "listening on")
        try await daemon.waitForError(
            containing:
                "not watching \(path) for changes: cannot start inotify: this user's inotify instances are used up (fs.inotify.max_user_instances is "
        )
        let connection = try await DepotConnection.connect(to: socket)
        #expect(try await connection.call("state")["items"]?.arrayValue?.count == 1, "depotd serves on")
        let stats = try DepotStatistics(decoding: try await connection.call("stats"))
        #expect(stats.refresh?.watchProblem?.contains("max_user_instances") == true)
    }
}
