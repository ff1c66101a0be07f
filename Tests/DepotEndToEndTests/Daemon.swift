import DepotClient
import DepotJSON
import DepotTestSupport
import Foundation
import Testing

/// The real depotd binary, started on a socket in a temporary directory for one test.
struct Daemon: CheckedEndpoint {
    let directory: TemporaryDirectory
    let socketPath: String
    let process: ChildProcess
    /// Holds every message this daemon sends to the test to rpc-schema/openrpc.json; checked at clean-up.
    let ledger = ProtocolLedger()

    /// An environment that points everything depotd and depotctl might look at into `directory`.
    static func environment(in directory: TemporaryDirectory) -> [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory.path,
            "XDG_RUNTIME_DIR": directory.file("run"),
            "XDG_STATE_HOME": directory.file("state"),
        ]
    }

    /// Starts depotd with `arguments` (plus `--socket` unless `useDefaultSocket`), through `launcher` when given, and
    /// returns once it listens.
    static func start(
        _ arguments: [String] = [],
        directory: TemporaryDirectory = TemporaryDirectory(),
        useDefaultSocket: Bool = false,
        environment extra: [String: String] = [:],
        launcher: [String] = []
    ) async throws -> Daemon {
        let socketPath = useDefaultSocket ? directory.file("run/depot/depotd.sock") : directory.file("depotd.sock")
        // $XDG_RUNTIME_DIR exists wherever a user logs in; depotd makes only its own `depot` directory in it.
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true)
        let environment = Self.environment(in: directory).merging(extra) { _, new in new }
        // A launcher (`ip netns exec NS`) execs depotd in place: the child's pid is depotd's.
        let command = launcher + [Binaries.depotd] + (useDefaultSocket ? [] : ["--socket", socketPath]) + arguments
        let process = try ChildProcess(command[0], Array(command.dropFirst()), environment: environment)
        let daemon = Daemon(directory: directory, socketPath: socketPath, process: process)
        // The server's own line, naming the socket: a PostgreSQL source logs "listening on" its channel too, and
        // under load that line could come first, and the test connect before the socket was there.
        try await withTimeout(.seconds(60), "depotd to listen") {
            await process.standardError.wait { $0.contains("listening on \(socketPath)") || process.exitStatus.value != nil }
        }
        guard process.exitStatus.value == nil else {
            throw DaemonDidNotStart(log: process.standardError.value)
        }
        return daemon
    }

    /// Writes a collection of `count` items (`{"id": n, "name": "item n", …}`) and returns its `file:` URI.
    static func writeItems(_ count: Int, in directory: TemporaryDirectory, name: String = "items.json", padding: Int = 0) -> String {
        let pad = String(repeating: "p", count: padding)
        let items = (1...count).map { #"{"id": \#($0), "name": "item \#($0)", "pad": "\#(pad)"}"# }
        return "file:" + directory.write(name, "[\n" + items.joined(separator: ",\n") + "\n]\n")
    }

    /// Runs depotctl against this daemon, with `extra` in its environment (an `EDITOR`) and `input` on its standard input.
    func depotctl(
        _ arguments: [String], useDefaultSocket: Bool = false, environment extra: [String: String] = [:], input: String? = nil
    ) async throws -> CommandResult {
        try await CommandResult.run(
            Binaries.depotctl,
            arguments + (useDefaultSocket ? [] : ["--socket", socketPath]),
            environment: Self.environment(in: directory).merging(extra) { _, new in new }, input: input
        )
    }

    /// Kills the daemon if it still runs and removes its directory; fails the test for every message the daemon
    /// sent that breaks the protocol's document.
    func cleanUp() async {
        try? await kill()
        directory.remove()
    }

    /// Waits until the daemon has saved a list of `count` items in its cache. A load answers before the list it keeps
    /// is saved (the cache is updated behind the mutations): a test that kills the daemon and expects the cache to hold
    /// the list waits for this first. Needs `--log-level debug`, which logs each list saved.
    func waitUntilCached(_ count: Int) async throws {
        try await process.waitForError(containing: "kept \(count) items in the cache")
    }

    /// Kills the daemon with SIGKILL, as a crash would, and waits for it; its directory (and its cache) stays.
    /// Fails the test for every message it sent that breaks the protocol's document.
    func kill() async throws {
        ledger.expectConformance()
        if process.exitStatus.value == nil {
            process.signal(SIGKILL)
            _ = try await process.waitForExit()
        }
    }
}

struct DaemonDidNotStart: Error, CustomStringConvertible {
    let log: String
    var description: String { "depotd exited before listening:\n\(log)" }
}

/// Runs `body` with a started daemon and always cleans up after it; `timeout` is the safety net for the whole body.
func withDaemon<Value: Sendable>(
    _ arguments: [String] = [],
    directory: TemporaryDirectory = TemporaryDirectory(),
    timeout: Duration = .seconds(120),
    _ body: @escaping @Sendable (Daemon) async throws -> Value
) async throws -> Value {
    let daemon = try await Daemon.start(arguments, directory: directory)
    do {
        let value = try await withTimeout(timeout, "the test's exchanges with depotd") { try await body(daemon) }
        await daemon.cleanUp()
        return value
    } catch {
        await daemon.cleanUp()
        throw error
    }
}
