import DepotClient
import DepotJSON
import DepotPlatform
import DepotTestSupport
import Foundation
import Testing

@Suite("depotd: start-up, configuration and shutdown")
struct LifecycleTests {
    @Test("with no flags it serves the demo collection on the default socket, and depotctl finds it")
    func zeroConfiguration() async throws {
        let directory = TemporaryDirectory()
        let daemon = try await Daemon.start(directory: directory, useDefaultSocket: true)
        defer { Task { await daemon.cleanUp() } }
        try await daemon.process.waitForError(containing: "loaded 151 items")
        #expect(daemon.process.standardError.value.contains("seeded \(directory.path)/state/depot/items.json with the demo collection"))

        let removed = try await daemon.depotctl(["remove", "25"], useDefaultSocket: true)
        #expect(removed.status == 0, "\(removed.standardError)")
        let state = try await daemon.depotctl(["state", "--json"], useDefaultSocket: true)
        #expect(try JSONParser.parse(state.standardOutput)["items"]?.arrayValue?.count == 150)

        var status = stat()
        #expect(lstat(daemon.socketPath, &status) == 0)
        #expect(UInt32(status.st_mode) & 0o777 == 0o660, "the socket is 0660 by default")
    }

    @Test("it raises its soft open-file limit to the hard one, so a thousand subscribers are not refused under systemd's 1024")
    func raisesOpenFileLimit() async throws {
        let hard = OpenFileLimit.current.hard
        guard hard > 256 else { return }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let process = try ChildProcess(
            "/bin/sh",
            ["-c", #"ulimit -Sn 256 && exec "$0" --socket "$1" --no-initial-load"#, Binaries.depotd, directory.file("depotd.sock")],
            environment: Daemon.environment(in: directory)
        )
        defer { process.signal(SIGKILL) }
        try await process.waitForError(containing: "listening on")
        let limits = try String(contentsOfFile: "/proc/\(process.pid)/limits", encoding: .utf8)
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }
        let soft = line?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first
        #expect(soft.flatMap { Int($0) } == (hard == Int.max ? nil : hard), "\(line ?? "no Max open files line")")
    }

    @Test(
        "SIGTERM and SIGINT: subscribers see their connection close, the socket file is removed, the cache is closed, the exit status is 0",
        arguments: [SIGTERM, SIGINT])
    func terminate(signal: Int32) async throws {
        let directory = TemporaryDirectory()
        let daemon = try await Daemon.start(["--source", Daemon.writeItems(3, in: directory)], directory: directory)
        defer { Task { await daemon.cleanUp() } }
        let subscription = try await daemon.connect().subscribe()
        daemon.process.signal(signal)
        #expect(try await daemon.process.waitForExit() == 0)
        var received = 0
        for await _ in subscription { received += 1 }
        #expect(received >= 1, "the sequence ended because the connection closed")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        #expect(daemon.process.standardError.value.contains("stopped listening"))
        // The cache was closed: SQLite copied its write-ahead log into the file and deleted it.
        let cache = daemon.directory.file("state/depot/cache.sqlite")
        #expect(FileManager.default.fileExists(atPath: cache))
        #expect(!FileManager.default.fileExists(atPath: cache + "-wal"), "the next start would have a log to recover")
    }

    @Test("a socket left by a killed daemon is replaced; a live one is never stolen")
    func staleAndLiveSockets() async throws {
        let directory = TemporaryDirectory()
        let source = Daemon.writeItems(3, in: directory)
        let first = try await Daemon.start(["--source", source], directory: directory)
        first.process.signal(SIGKILL)
        _ = try await first.process.waitForExit()
        #expect(FileManager.default.fileExists(atPath: first.socketPath), "SIGKILL leaves the socket file behind")

        let second = try await Daemon.start(["--source", source], directory: directory)
        defer { Task { await second.cleanUp() } }
        #expect(try await second.connect().call("state")["seq"] != nil)

        let intruder = try ChildProcess(
            Binaries.depotd, ["--socket", second.socketPath, "--source", source], environment: Daemon.environment(in: directory))
        let status = try await intruder.waitForExit()
        #expect(status == 1)
        #expect(intruder.standardError.value.contains("another depotd is already listening on \(second.socketPath)"))
        #expect(!intruder.standardError.value.contains("serving "), "refused before its source was touched")
        #expect(try await second.connect().call("state")["seq"] != nil, "the first daemon still serves")
    }

    @Test("a socket path in a directory that does not exist is refused, and no directories are made")
    func mistypedSocketDirectory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let socket = directory.file("no-such-dir/depot/depotd.sock")
        let result = try await CommandResult.run(
            Binaries.depotd, ["--socket", socket, "--source", Daemon.writeItems(1, in: directory)], environment: Daemon.environment(in: directory))
        #expect(result.status == 1)
        #expect(result.standardError.contains("\(directory.file("no-such-dir")) does not exist"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("no-such-dir")))
    }

    @Test("depotctl says what is at a path that is not a socket")
    func notASocket() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let environment = Daemon.environment(in: directory)
        let file = try await CommandResult.run(Binaries.depotctl, ["state", "--socket", "/etc/passwd"], environment: environment)
        #expect(file.status == 3)
        #expect(file.standardError.hasPrefix("depotctl: /etc/passwd is a regular file, not a socket:"), "\(file.standardError)")
        let folder = try await CommandResult.run(Binaries.depotctl, ["state", "--socket", directory.path], environment: environment)
        #expect(folder.standardError.hasPrefix("depotctl: \(directory.path) is a directory, not a socket:"), "\(folder.standardError)")
    }

    @Test("settings: flags beat DEPOT_SOCKET/DEPOT_SOURCE, which beat the config file")
    func configurationPrecedence() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let fromFile = Daemon.writeItems(1, in: directory, name: "file.json")
        let fromEnvironment = Daemon.writeItems(2, in: directory, name: "env.json")
        let config = directory.write(
            "depotd.json",
            """
            {"source": "\(fromFile)", "socket": "\(directory.file("config.sock"))", "subscriberQueue": 4, "initialLoad": true}
            """)
        let environment = Daemon.environment(in: directory).merging(["DEPOT_SOURCE": fromEnvironment, "DEPOT_SOCKET": directory.file("env.sock")]) {
            _, new in new
        }
        let process = try ChildProcess(Binaries.depotd, ["--config", config], environment: environment)
        try await process.waitForError(containing: "listening on \(directory.file("env.sock"))")
        try await process.waitForError(containing: "loaded 2 items")
        process.signal(SIGTERM)
        #expect(try await process.waitForExit() == 0)

        let flagged = try ChildProcess(Binaries.depotd, ["--config", config, "--socket", directory.file("flag.sock")], environment: environment)
        try await flagged.waitForError(containing: "listening on \(directory.file("flag.sock"))")
        flagged.signal(SIGTERM)
        #expect(try await flagged.waitForExit() == 0)
    }

    @Test("an invalid setting stops depotd before it starts, with a message naming it")
    func invalidSettings() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let cases: [([String], String)] = [
            (["--socket-mode", "999"], "999"),
            (["--source", "ftp://example.com/items.json"], "ftp://example.com/items.json"),
            (["--log-level", "loud"], "loud"),
            (["--config", directory.file("missing.json")], "missing.json"),
        ]
        for (arguments, mention) in cases {
            let result = try await CommandResult.run(
                Binaries.depotd, ["--socket", directory.file("x.sock")] + arguments, environment: Daemon.environment(in: directory))
            #expect(result.status != 0, "\(arguments)")
            #expect(result.standardError.contains(mention), "\(arguments): \(result.standardError)")
        }
    }

    @Test("a source that cannot be read is a failure state naming the file, not a crash")
    func unreadableSource() async throws {
        let directory = TemporaryDirectory()
        try await withDaemon(["--source", "file:" + directory.file("absent.json")], directory: directory) { daemon in
            let error = await #expect(throws: DepotClientError.self) { try await daemon.connect().call("load") }
            guard case .remote(let remote)? = error else { return }
            #expect(remote.code == -32001)
            #expect(remote.message == "cannot read \(directory.file("absent.json")): No such file or directory")
            #expect(remote.data?["status"] == "failure")
        }
    }

    @Test("--help documents every option")
    func help() async throws {
        let result = try await CommandResult.run(Binaries.depotd, ["--help"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 0)
        for option in [
            "--socket", "--source", "--id-field", "--config", "--max-message-bytes", "--subscriber-queue", "--subscriber-queue-bytes",
            "--replay-states", "--replay-bytes", "--socket-mode",
            "--log-level",
            "--no-initial-load", "DEPOT_SOCKET", "DEPOT_SOURCE",
        ] {
            #expect(result.standardOutput.contains(option), "\(option) is documented")
        }
    }
}

@Suite("depotd: a collection the file system will not let it rewrite")
struct ReadOnlyCollectionTests {
    @Test("a removal the file system refuses is changeFailed, rolled back, and the file is unchanged")
    func readOnlyDirectory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let collection = directory.file("collection")
        try FileManager.default.createDirectory(atPath: collection, withIntermediateDirectories: false)
        let items = #"[{"id": 1}, {"id": 2}]"#
        let path = collection + "/items.json"
        try items.write(toFile: path, atomically: false, encoding: .utf8)
        // A directory and a file depotd may read but not change. Root may change anything, so as root
        // depotd runs as nobody (setpriv), as a system service would run as its own user.
        chmod(collection, 0o555)
        chmod(path, 0o444)
        chmod(directory.path, 0o755)
        let asRoot = getuid() == 0
        let launcher = asRoot ? ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", Binaries.depotd] : [Binaries.depotd]
        let run = directory.file("run")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: false)
        chmod(run, 0o777)
        let socket = run + "/depotd.sock"
        let daemon = try ChildProcess(
            launcher[0],
            Array(launcher.dropFirst()) + ["--socket", socket, "--socket-mode", "0666", "--source", "file:" + path],
            environment: Daemon.environment(in: directory)
        )
        defer { daemon.signal(SIGKILL) }
        try await daemon.waitForError(containing: "listening on")
        let ledger = ProtocolLedger()
        defer { ledger.expectConformance() }
        let connection = try await DepotConnection.connect(to: socket, tap: ledger.checker())
        _ = try await connection.call("load")
        let error = await #expect(throws: DepotClientError.self) {
            try await connection.call("remove", params: ["id": "1", "optimistic": true])
        }
        guard case .remote(let remote)? = error else { return }
        #expect(remote.code == -32002)
        #expect(remote.message.contains("read-only") || remote.message.contains("Permission denied"), "\(remote.message)")
        #expect(remote.data?["count"] == 2, "rolled back")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == items)
        chmod(collection, 0o755)
    }
}
