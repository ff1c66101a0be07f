import DepotClient
import DepotJSON
import DepotTestSupport
import Foundation
import Testing

@Suite("Scripts: socat and Python, as the README shows them")
struct ScriptingTests {
    /// socat and python3 are installed by scripts/install-dependencies; a missing one is a failed test,
    /// never a skipped one, so a broken set-up cannot pass unnoticed.
    static func require(_ tool: String) throws -> String {
        try #require(RepositoryFiles.executable(named: tool), "\(tool) is not installed: run scripts/install-dependencies")
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

    @Test("the README's Python example prints the seq, the status and the item count")
    func pythonStateExample() async throws {
        let python = try Self.require("python3")
        let example = try RepositoryFiles.text("examples/depot_state.py")
        #expect(try RepositoryFiles.text("README.md").contains(example), "README.md shows examples/depot_state.py as it is")
        try await DepotctlTests.withDemo { daemon in
            let seq = try await daemon.connect().call("state")["seq"]?.numberValue?.intValue ?? -1
            let environment = Daemon.environment(in: daemon.directory).merging(["DEPOT_SOCKET": daemon.socketPath]) { _, new in new }
            let result = try await CommandResult.run(python, [RepositoryFiles.path("examples/depot_state.py")], environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "\(seq) success 151\n")
        }
    }

    @Test("examples/depot_watch.py prints the current state, then each change")
    func pythonWatchExample() async throws {
        let python = try Self.require("python3")
        try await DepotctlTests.withDemo { daemon in
            let watcher = try ChildProcess(
                python, [RepositoryFiles.path("examples/depot_watch.py"), daemon.socketPath, "--count", "2"],
                environment: Daemon.environment(in: daemon.directory)
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
}
