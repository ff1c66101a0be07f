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

    @Flag(help: "Print raw JSON, one line per result or state.")
    var json = false

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
    /// The daemon could not be reached, or closed the connection.
    static let unavailable: Int32 = 3
    /// The state is not a fresh success (`status`), is a failure (`state`), or a load fell back to the cache (`load`).
    static let notFresh: Int32 = 4
}
