import DepotCache
import DepotCore
import DepotFreshness
import DepotHTTPSource
import DepotPipeline
import DepotPlatform
import DepotPostgresSource
import DepotScriptSource
import DepotServer
import DepotSources
package import DepotSystemd
import DepotWire
package import Logging
import NIOPosix
import ServiceLifecycle
import UnixSignals

/// depotd put together: one repository on its source, served on one socket until SIGTERM or SIGINT, and
/// a good citizen of systemd when it runs under it — socket activation, READY/STATUS/STOPPING, reload on
/// SIGHUP, and a watchdog that checks the daemon really answers.
public struct Daemon: Sendable {
    public let options: DaemonOptions
    public let settings: DaemonSettings
    public let workingDirectory: String
    private let level: LogLevelControl
    private let logger: Logger

    /// - Parameter level: the shared log level the log handlers follow; a reload changes it.
    package init(options: DaemonOptions, settings: DaemonSettings, workingDirectory: String, level: LogLevelControl, logger: Logger) {
        self.options = options
        self.settings = settings
        self.workingDirectory = workingDirectory
        self.level = level
        self.logger = logger
    }

    /// Runs until a graceful shutdown; throws when the daemon cannot start.
    public func run() async throws {
        raiseOpenFileLimit()
        // States and long lines come and go: their memory goes back to the system when they do.
        FreedMemory.returnLargeBlocks()
        let inherited = try SocketActivation.inheritedUnixSocket()
        if inherited == nil {
            try ensurePrivateDirectory()
        }
        // Trap SIGHUP before anything slow: its default action would end the process if a reload came early.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let notifier = SystemdNotifier()
        if let configFile = settings.configFile {
            logger.info("configuration from \(configFile)")
        }
        let socketPath = servedSocketPath(inherited)
        if inherited == nil {
            // A busy or unusable socket path is refused before the source is loaded or the cache opened.
            try SocketServer.checkSocketPath(socketPath)
        }
        // The source's connection and the repository's mutations share its thread; it outlives every service.
        try await withSourceLoop { sourceLoop in
            try await serve(socketPath: socketPath, inherited: inherited, hangups: hangups, notifier: notifier, sourceLoop: sourceLoop)
        }
    }

    /// The source, the cache, the repository and the server, as services of one group, until a graceful shutdown.
    private func serve(
        socketPath: String, inherited: InheritedSocket?, hangups: UnixSignalsSequence, notifier: SystemdNotifier, sourceLoop: SourceLoop
    ) async throws {
        let source = try Self.makeSource(settings, sourceLoop: sourceLoop, logger: logger)
        let cache: OpeningCache? = settings.cacheEnabled ? OpeningCache(path: settings.cachePath) { await openCache() } : nil
        let repository = Repository(source: source, idField: settings.idField, cache: cache, rules: settings.writeRules, logger: logger)
        let status = StatusReporter(notifier: notifier, awaitsFirstOutcome: settings.initialLoad, logger: logger)
        // Before the start-up load, so that the refresh schedule hears of its answer.
        let freshness = Freshness(settings: settings, source: source, repository: repository, clock: sourceLoop.clock, logger: logger)
        let server = makeServer(
            socketPath: socketPath, inherited: inherited, repository: repository, status: status, freshness: freshness)
        repository.addObserver(status)
        logger.info(
            "depotd \(DepotVersion.current) serving \(source.description)",
            metadata: ["source": "\(source.description)", "version": "\(DepotVersion.current)"])
        if settings.initialLoad {
            repository.load(strategy: settings.startupStrategy)
        }
        let feed = ChangeFeedRunner(following: source, repository: repository, logger: logger)
        let services = makeServices(
            server: server, repository: repository, status: status, hangups: hangups, notifier: notifier, socketPath: socketPath,
            feed: feed, freshness: freshness, cache: cache, sourceLoop: sourceLoop)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        try await group.run()
        do {
            try await cache?.close()
        } catch {
            logger.warning("the cache did not close cleanly; the next start recovers it: \(error)")
        }
    }

    /// The socket depotd serves: the one systemd passed, else the configured one.
    private func servedSocketPath(_ inherited: InheritedSocket?) -> String {
        let socketPath = inherited?.path ?? settings.socketPath
        if inherited != nil, settings.socketConfigured, socketPath != settings.socketPath {
            logger.notice(
                "serving the socket systemd passed (\(socketPath)); the socket and socketMode settings apply only when depotd binds its own")
        }
        return socketPath
    }

    private func makeServer(
        socketPath: String, inherited: InheritedSocket?, repository: Repository, status: StatusReporter, freshness: Freshness
    ) -> SocketServer {
        SocketServer(
            configuration: ServerConfiguration(
                socketPath: socketPath,
                inheritedSocket: inherited?.descriptor,
                socketMode: settings.socketMode,
                limits: settings.connectionLimits
            ),
            repository: repository,
            logger: logger,
            pipelines: PipelineLibrary(
                storeDirectory: settings.pipelinesDirectory, configuredDirectory: settings.configuredPipelinesDirectory, logger: logger),
            access: settings.access,
            cacheBytes: { [settings] in
                guard settings.cacheEnabled else { return nil }
                // SQLite's database, and its write-ahead log and shared memory while they exist.
                let files = ["", "-wal", "-shm"].compactMap { FileStamp.of(settings.cachePath + $0) }
                return files.isEmpty ? nil : Int(files.reduce(0) { $0 + $1.size })
            },
            freshness: { freshness.status },
            onListening: { status.listening() },
            onSubscribersChanged: { count in
                status.subscribersChanged(to: count)
                freshness.scheduler.subscribersChanged(to: count)
            }
        )
    }

    /// The services, in start order: a graceful shutdown stops them in reverse.
    private func makeServices(
        server: SocketServer, repository: Repository, status: StatusReporter, hangups: UnixSignalsSequence,
        notifier: SystemdNotifier, socketPath: String, feed: ChangeFeedRunner, freshness: Freshness,
        cache: OpeningCache?, sourceLoop: SourceLoop
    ) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        let logger = logger
        let reloader = Reloader(
            hangups: hangups, options: options, workingDirectory: workingDirectory, settings: settings, level: level,
            server: server, repository: repository, status: status, notifier: notifier, logger: logger,
            makeSource: { try Self.makeSource($0, sourceLoop: sourceLoop, logger: logger) },
            onSourceChanged: { source in feed.follow(source) },
            onSettingsApplied: { settings, source in freshness.apply(settings, source: source) }
        )
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        // First, so that it opens the cache at once, and stops last.
        if let cache { services.append(.init(service: cache)) }
        services += [
            // The mutations: before the server, so they stop after it (answers to one under way still go out), and
            // before the cache closes.
            // The repository, its change feed and its refresh schedule on the source's loop: a change arrives, is read,
            // applied and published, and the schedule hears of it, on one thread.
            .init(service: PreferringExecutor(repository, sourceLoop)),
            .init(service: server),
            .init(service: status),
            .init(service: reloader),
            .init(service: PreferringExecutor(feed, sourceLoop)),
            .init(service: PreferringExecutor(freshness.scheduler, sourceLoop)),
            .init(service: freshness.watcher),
        ]
        if let interval = SystemdNotifier.watchdogInterval() {
            services.append(
                .init(service: Watchdog(interval: interval, check: HealthCheck(socketPath: socketPath), notifier: notifier, logger: logger)))
        }
        // Last, so that a graceful shutdown reaches it first and STOPPING=1 goes out before connections close.
        services.append(.init(service: StoppingNotifier(notifier: notifier)))
        return services
    }

    /// The on-disk cache in the state directory, created if need be; nil when it cannot be used (logged: depotd
    /// then runs without one, as with --no-cache).
    private func openCache() async -> ItemCache? {
        do {
            try Directories.create(settings.stateDirectory, mode: 0o700)
            let cache = try await ItemCache.open(at: settings.cachePath, logger: logger)
            logger.info("cache in \(settings.cachePath)")
            return cache
        } catch {
            logger.error("running without the on-disk cache: \(error)")
            return nil
        }
    }

    /// Every connection holds a descriptor; systemd's default soft limit (1024) would refuse the 1000th
    /// subscriber, so the soft limit is raised to the hard one (524288 under systemd).
    private func raiseOpenFileLimit() {
        let (before, after) = OpenFileLimit.raiseToHardLimit()
        if after > before {
            logger.debug("raised the open-file limit from \(before) to \(after)")
        } else if after < 4096 {
            logger.notice("the open-file limit is \(after), so depotd can serve about that many connections; raise it with LimitNOFILE= or ulimit -n")
        }
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
        if (settings.source == nil || settings.cacheEnabled) && settings.stateDirectory.hasPrefix(directory + "/") {
            variables.append("XDG_STATE_HOME")
        }
        let remedy = variables.isEmpty ? "remove it" : "remove it or set " + variables.joined(separator: " and ")
        try PrivateDirectory.ensure(directory, remedy: remedy)
    }

    /// The source `settings` name: a file, an HTTP API, a PostgreSQL table, or the demo collection in the state directory (seeded on first use).
    static func makeSource(_ settings: DaemonSettings, sourceLoop: SourceLoop, logger: Logger) throws -> any Source {
        switch settings.source {
        case .file(let path)?:
            return FileSource(path: path, idField: settings.idField)
        case .http(let address)?:
            return HTTPSource(address: address, options: settings.http, logger: logger)
        case .script(let path)?:
            return try ScriptSource(path: path, idField: settings.idField)
        case .postgres(let address)?:
            let link = PostgresLink(address: address, password: settings.postgresPassword, sourceLoop: sourceLoop, logger: logger)
            let replicas = settings.postgresReplicas.map { replica in
                PostgresLink(address: replica, password: settings.postgresPassword, role: .replica, sourceLoop: sourceLoop, logger: logger)
            }
            return PostgresSource(link: link, replicas: replicas, idField: settings.idField, logger: logger)
        case nil:
            let (path, seeded) = try DemoSeeding.prepareDefaultFile(in: settings.stateDirectory)
            if seeded {
                logger.notice("seeded \(path) with the demo collection; give --source to serve your own")
            }
            return FileSource(path: path, idField: settings.idField)
        }
    }
}
