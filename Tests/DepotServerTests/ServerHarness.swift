import DepotClient
import DepotCore
import DepotJSON
import DepotTestSupport
import Logging
import NIOPosix
import ServiceLifecycle
import Testing

@testable import DepotServer

/// A SocketServer running in this process on a real Unix socket in a temporary directory, with a
/// test source behind its repository.
struct RunningServer: CheckedEndpoint {
    let directory: TemporaryDirectory
    let socketPath: String
    let source: TestSource
    let repository: Repository
    let server: SocketServer
    /// Counts the server's encodings of states, and holds back those on the CPU pool when closed.
    let encodings: EncodingRecorder
    /// Holds every message the server sends to the test to rpc-schema/openrpc.json; checked when it stops.
    let ledger = ProtocolLedger()
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Starts a server and returns once its socket accepts connections.
    static func start(
        source: TestSource = TestSource(count: 3),
        limits: ConnectionLimits = ConnectionLimits(),
        socketMode: UInt32 = ServerConfiguration.defaultSocketMode,
        shutdownTimeout: Duration = .seconds(30),
        directory: TemporaryDirectory = TemporaryDirectory(),
        socketName: String = "depotd.sock"
    ) async throws -> RunningServer {
        let socketPath = directory.file(socketName)
        let repository = Repository(source: source, logger: quiet)
        /// nil while starting; then whether it listens, or the error it stopped with.
        let outcome = Condition<Result<Void, any Error>?>(nil)
        let encodings = EncodingRecorder()
        let server = SocketServer(
            configuration: ServerConfiguration(
                socketPath: socketPath, socketMode: socketMode, limits: limits, shutdownTimeout: shutdownTimeout, encodingObserver: encodings),
            repository: repository,
            logger: quiet,
            onListening: { outcome.update { $0 = .success(()) } }
        )
        let group = ServiceGroup(services: [repository, server], gracefulShutdownSignals: [], cancellationSignals: [], logger: quiet)
        let task = Task {
            do {
                try await group.run()
            } catch {
                // If run() fails before listening, surface its error instead of waiting forever.
                outcome.update { if $0 == nil { $0 = .failure(error) } }
                throw error
            }
        }
        let started = try await withTimeout(.seconds(30), "the server to listen") {
            await outcome.wait { $0 != nil }
        }
        try started?.get()
        return RunningServer(
            directory: directory, socketPath: socketPath, source: source, repository: repository, server: server, encodings: encodings, group: group,
            task: task)
    }

    /// Stops the server (as on cancellation) and waits for it to finish; removes the directory. Fails the test for
    /// every message the server sent that breaks the protocol's document.
    func stop() async {
        ledger.expectConformance()
        task.cancel()
        _ = try? await task.value
        directory.remove()
    }

    /// Starts a graceful shutdown, as SIGTERM does.
    func triggerGracefulShutdown() async {
        await group.triggerGracefulShutdown()
    }

    /// Waits for the server to finish and rethrows its error.
    func waitUntilStopped() async throws {
        try await task.value
    }
}

/// Runs `body` with a started server and always stops it afterwards. `timeout` is the safety net for the whole of
/// `body`: a test of many round trips gives a longer one, for the suite runs a dozen tests at once on two cores.
func withServer<Value: Sendable>(
    source: TestSource = TestSource(count: 3),
    limits: ConnectionLimits = ConnectionLimits(),
    timeout: Duration = .seconds(60),
    _ body: @escaping @Sendable (RunningServer) async throws -> Value
) async throws -> Value {
    let server = try await RunningServer.start(source: source, limits: limits)
    do {
        let value = try await withTimeout(timeout, "the test's exchanges with the server") { try await body(server) }
        await server.stop()
        return value
    } catch {
        await server.stop()
        throw error
    }
}

extension LineConnection {
    /// The next line, parsed; fails when the connection ends first.
    func nextMessage(_ iterator: inout AsyncThrowingStream<[UInt8], any Error>.Iterator) async throws -> JSONValue {
        guard let line = try await iterator.next() else { throw ConnectionEnded() }
        return try JSONParser.parse(line)
    }
}

struct ConnectionEnded: Error {}

extension DepotSubscription {
    /// Collects states until one with `seq` arrives; returns them all.
    func collect(untilSeq seq: Int) async throws -> [StateChange] {
        var changes: [StateChange] = []
        for await change in self {
            changes.append(change)
            if let current = change.seq, current >= seq { return changes }
        }
        throw ConnectionEnded()
    }
}
