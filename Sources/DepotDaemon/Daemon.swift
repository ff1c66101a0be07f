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
