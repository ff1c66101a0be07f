import DepotClient
import DepotJSON
import DepotTestSupport
import DepotWire
import Foundation
import Testing

@Suite("Scripts: socat and Python, as the README shows them")
struct ScriptingTests {
    /// socat and python3 are installed by scripts/install-dependencies; a missing one is a failed test,
    /// never a skipped one, so a broken set-up cannot pass unnoticed.
    static func require(_ tool: String) throws -> String {
        try #require(RepositoryFiles.executable(named: tool), "\(tool) is not installed: run scripts/install-dependencies")
    }

    /// The examples import the depot package from the tree, as `pip install ./clients/python` would install it.
    static func pythonEnvironment(in directory: TemporaryDirectory) -> [String: String] {
        Daemon.environment(in: directory).merging(["PYTHONPATH": RepositoryFiles.path("clients/python/src")]) { _, new in new }
    }

    @Test("socat: one request on stdin, its answer on stdout")
    func socatRequest() async throws {
        let socat = try Self.require("socat")
        try await DepotctlTests.withDemo { daemon in
            let result = try await CommandResult.run(
                socat, ["-", "UNIX-CONNECT:\(daemon.socketPath)"],
                environment: Daemon.environment(in: daemon.directory),
                input: #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"id":25}}"# + "\n"
            )
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == #"{"jsonrpc":"2.0","id":1,"result":{"id":25,"name":"Pikachu","types":["electric"]}}"# + "\n")
        }
    }

    @Test("the README's Python example prints the seq, the status and the item count, finding the socket itself")
    func pythonStateExample() async throws {
        let python = try Self.require("python3")
        let example = try RepositoryFiles.text("examples/depot_state.py")
        #expect(try RepositoryFiles.text("README.md").contains(example), "README.md shows examples/depot_state.py as it is")
        // depotd and the example each find the default socket: the example by the same rules as `depotctl socket`.
        let directory = TemporaryDirectory()
        let daemon = try await Daemon.start(directory: directory, useDefaultSocket: true)
        do {
            let seq = try await daemon.connect().call("load")["seq"]?.numberValue?.intValue ?? -1
            let result = try await CommandResult.run(
                python, [RepositoryFiles.path("examples/depot_state.py")], environment: Self.pythonEnvironment(in: directory))
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "\(seq) success 151\n")
        } catch {
            Issue.record(error)
        }
        await daemon.cleanUp()
    }

    @Test("examples/depot_watch.py prints the current state, then each change")
    func pythonWatchExample() async throws {
        let python = try Self.require("python3")
        try await DepotctlTests.withDemo { daemon in
            let watcher = try ChildProcess(
                python, [RepositoryFiles.path("examples/depot_watch.py"), daemon.socketPath, "--count", "2"],
                environment: Self.pythonEnvironment(in: daemon.directory)
            )
            let first = try await watcher.waitForOutputLines(1)
            #expect(first[0].hasSuffix("· success · 151 items"))
            _ = try await daemon.connect().call("wipe")
            #expect(try await watcher.waitForExit() == 0, "\(watcher.standardError.value)")
            let lines = watcher.standardOutput.value.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines.last?.hasSuffix("· idle") == true)
        }
    }

    @Test("examples/depot_mirror.py keeps the collection in delta mode, and starts again when the daemon restarts")
    func pythonMirrorExample() async throws {
        let python = try Self.require("python3")
        let directory = TemporaryDirectory()
        let source = Daemon.writeItems(50, in: directory)
        var daemon = try await Daemon.start(["--source", source], directory: directory)
        let mirror = try ChildProcess(
            python, [RepositoryFiles.path("examples/depot_mirror.py"), daemon.socketPath, "--heartbeat", "0.5"],
            environment: Self.pythonEnvironment(in: directory)
        )
        defer { mirror.signal(SIGKILL) }
        /// Waits until the mirror logged `seq` of the run `epoch`, then has it print itself and returns what it printed.
        func printed(atSeq seq: Int, of epoch: String, lines: Int) async throws -> JSONValue {
            try await withTimeout(.seconds(60), "the mirror to apply seq \(seq)") {
                await mirror.standardError.wait { $0.contains("epoch \(epoch) · seq \(seq) · ") || $0.contains("Traceback") }
            }
            mirror.signal(SIGUSR1)
            let output = try await mirror.waitForOutputLines(lines)
            return try JSONParser.parse(try #require(output.last))
        }
        do {
            let control = try await daemon.connect()
            let loaded = try await control.call(LoadRequest())
            _ = try await printed(atSeq: loaded.seq, of: loaded.epoch, lines: 1)
            _ = try await control.call(RemoveRequest(id: "7", optimistic: true))
            let removed = try await control.call(RemoveRequest(id: "9", items: true))
            let copy = try await printed(atSeq: removed.seq, of: removed.epoch, lines: 2)
            #expect(copy["items"]?.arrayValue == removed.items, "the mirror holds the daemon's items")

            // A restart: another epoch, so the mirror reconnects and starts again from the current state.
            try await daemon.kill()
            daemon = try await Daemon.start(["--source", source], directory: directory)
            let reloaded = try await daemon.connect().call(LoadRequest(items: true))
            let again = try await printed(atSeq: reloaded.seq, of: reloaded.epoch, lines: 3)
            #expect(again["epoch"]?.stringValue == reloaded.epoch)
            #expect(again["items"]?.arrayValue == reloaded.items)
            #expect(
                mirror.standardError.value.contains("epoch \(reloaded.epoch) · ") && mirror.standardError.value.contains(" · resync"),
                "the first state after the restart is a resync, which replaces the copy")
            #expect(!mirror.standardError.value.contains("Traceback"), "\(mirror.standardError.value)")
            await daemon.cleanUp()
        } catch {
            await daemon.cleanUp()
            throw error
        }
    }
}
