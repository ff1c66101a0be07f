import DepotCore
import DepotPlatform
import DepotServer
import DepotSources
import Logging
import NIOPosix
import ServiceLifecycle

/// depotd put together: one repository on its source, served on one socket until SIGTERM or SIGINT.
public struct Daemon: Sendable {
    public let settings: DaemonSettings
    private let logger: Logger

    public init(settings: DaemonSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    /// Runs until a graceful shutdown; throws when the daemon cannot start.
    public func run() async throws {
        try ensurePrivateDirectory()
        let source = try makeSource()
        let repository = Repository(source: source, idField: settings.idField, logger: logger)
        let server = DepotServer(
            configuration: ServerConfiguration(
                socketPath: settings.socketPath,
                socketMode: settings.socketMode,
                limits: ConnectionLimits(maxMessageBytes: settings.maxMessageBytes, subscriberQueueLimit: settings.subscriberQueue)
            ),
            repository: repository,
            logger: logger
        )
        logger.info("serving \(source.description)", metadata: ["source": "\(source.description)"])
        if settings.initialLoad {
            repository.load()
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: server)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }

    /// Makes sure the fallback directory under /tmp is this user's alone before the socket or the state is
    /// put in it. This must come first: the server creates a missing socket directory with mode 0755, and
    /// would use one someone else made.
    private func ensurePrivateDirectory() throws {
        guard let directory = settings.privateDirectory else { return }
        var variables: [String] = []
        if settings.socketPath.hasPrefix(directory + "/") {
            variables.append("XDG_RUNTIME_DIR")
        }
        if settings.source == nil && settings.stateDirectory.hasPrefix(directory + "/") {
            variables.append("XDG_STATE_HOME")
        }
        let remedy = variables.isEmpty ? "remove it" : "remove it or set " + variables.joined(separator: " and ")
        try PrivateDirectory.ensure(directory, remedy: remedy)
    }

    private func makeSource() throws -> any Source {
        switch settings.source {
        case .file(let path)?:
            return FileSource(path: path, idField: settings.idField)
        case nil:
            let (path, seeded) = try DemoSeeding.prepareDefaultFile(in: settings.stateDirectory)
            if seeded {
                logger.notice("seeded \(path) with the demo collection; give --source to serve your own")
            }
            return FileSource(path: path, idField: settings.idField)
        }
    }
}
