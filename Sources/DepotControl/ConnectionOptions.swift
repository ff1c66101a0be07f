import ArgumentParser
import DepotClient
import DepotPlatform

/// Options every depotctl command shares: where the daemon is, and how to print.
struct ConnectionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The daemon's socket. Env: DEPOT_SOCKET.",
            discussion:
                "Default: as depotd resolves it ($RUNTIME_DIRECTORY, $XDG_RUNTIME_DIR/depot, /run/depot or /tmp/depot-$UID), falling back to the system daemon's /run/depot/depotd.sock.",
            valueName: "path"
        ))
    var socket: String?

    @Option(
        name: [.customShort("n"), .customLong("instance")],
        help: ArgumentHelp(
            "The repository NAME of a depotd@NAME service: its socket /run/depot/NAME.sock.", valueName: "name"))
    var instance: String?

    /// The socket these options name, as `SocketLocator` resolves it.
    func socketPath() throws -> String {
        try SocketLocator(paths: .current).socketPath(explicit: socket, instance: instance)
    }

    @Flag(help: "Print raw JSON, one line per result or state; errors go to stderr as JSON too.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Give up when depotd has not answered within this long (exit 3): 2.5, 500ms, 10s, 1m.",
            discussion:
                "Default: wait as long as the answer takes (a load waits for its source). For watch, it bounds the wait for the first state.",
            valueName: "duration"
        ),
        transform: ConnectionOptions.timeout(_:))
    var timeout: Duration?

    static func timeout(_ text: String) throws -> Duration {
        guard let seconds = DurationText.seconds(text) else {
            throw ValidationError("--timeout \"\(text)\": write a duration such as 2.5, 500ms, 10s or 1m")
        }
        return .milliseconds(max(1, Int64((seconds * 1000).rounded(.up))))
    }

    /// What `body` returns from `connection`, or, when --timeout passes first, the connection closed (which ends
    /// body's wait), a line on stderr saying so, and `ExitStatus.unavailable`.
    func answer<Value: Sendable>(
        from connection: DepotConnection,
        _ body: @escaping @Sendable () async throws(DepotClientError) -> Value
    ) async throws -> Value {
        guard let timeout else { return try await body() }
        do {
            return try await withDeadline(timeout) { try await body() }
        } catch is DeadlineExceeded {
            await connection.close()
            Output.error(
                "depotd did not answer within \(timeout.text) (--timeout); it may be busy (a load waits for its source): try a longer --timeout"
            )
            throw ExitCode(ExitStatus.unavailable)
        }
    }

    /// Connects, or prints why it cannot and exits with `ExitStatus.unavailable`.
    func connect() async throws -> DepotConnection {
        let path = try socketPath()
        do {
            return try await DepotConnection.connect(to: path)
        } catch {
            Output.error(error.description)
            throw ExitCode(ExitStatus.unavailable)
        }
    }
}

/// depotctl's exit statuses.
enum ExitStatus {
    /// The daemon answered with an error.
    static let remoteError: Int32 = 1
    /// The daemon could not be reached, closed the connection, or did not answer within --timeout.
    static let unavailable: Int32 = 3
    /// The state is not a fresh success (`status`), is a failure (`state`), or a load fell back to the cache (`load`).
    static let notFresh: Int32 = 4
}
