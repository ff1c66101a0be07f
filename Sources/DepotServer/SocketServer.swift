public import DepotCore
public import DepotPipeline
import DepotPlatform
import DepotRPC
public import Logging
public import NIOCore
import NIOExtras
public import NIOPosix
public import ServiceLifecycle

/// Serves one repository on a Unix socket until graceful shutdown.
///
/// On graceful shutdown or cancellation it stops accepting and sends every connection NIO's
/// `ChannelShouldQuiesceEvent`: each writes the answers it has in flight (for up to `shutdownTimeout`) and closes.
/// Once all are closed, the socket file is removed.
public final class SocketServer: Service {
    private let configuration: ServerConfiguration
    private let repository: Repository
    private let eventLoopGroup: any EventLoopGroup
    let fanout: StateFanout
    /// The threads CPU-heavy work runs on (large encodings and answers): the server's own, started and stopped by `run`.
    private let pool: CPUPool
    private let dispatcher: RPCDispatcher<any DepotSession>
    private let logger: Logger
    private let onListening: @Sendable () -> Void
    private let limits: LiveLimits
    private let access: AccessControl
    /// The connections open now and what their users hold, against the limits; how often each limit was reached.
    let statistics: ServerStatistics
    var connections: ConnectionCounter { statistics.connections }

    /// - Parameters:
    ///   - freshness: what keeps the items fresh, for `stats`; nil when nothing does.
    ///   - onListening: called once the socket accepts connections.
    ///   - onSubscribersChanged: called with the number of active subscriptions whenever it changes.
    public init(
        configuration: ServerConfiguration,
        repository: Repository,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger,
        pipelines: PipelineLibrary? = nil,
        access: AccessPolicy = .default,
        cacheBytes: @escaping @Sendable () -> Int? = { nil },
        freshness: @escaping @Sendable () -> FreshnessStatus? = { nil },
        onListening: @escaping @Sendable () -> Void = {},
        onSubscribersChanged: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.repository = repository
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        self.onListening = onListening
        let settings = LiveSettings(limits: configuration.limits, access: access)
        self.limits = LiveLimits(settings)
        self.pool = CPUPool()
        self.fanout = StateFanout(
            eventLoops: Array(eventLoopGroup.makeIterator()), epoch: repository.epoch, limits: limits,
            idField: { [repository] in repository.idField },
            library: pipelines ?? PipelineLibrary(storeDirectory: nil, logger: logger), encodingObserver: configuration.encodingObserver,
            pool: pool, onSubscribersChanged: onSubscribersChanged)
        self.access = AccessControl(settings)
        self.statistics = ServerStatistics(cacheBytes: cacheBytes, freshness: freshness)
        self.dispatcher = DepotMethods.dispatcher(repository: repository, fanout: fanout, access: self.access, statistics: statistics)
        repository.addObserver(fanout)
    }

    /// The access policy in force.
    public var accessPolicy: AccessPolicy { access.current }

    /// Replaces the access policy (a reload): every later call is checked against it, on open connections too, and
    /// subscriptions whose reader no longer holds `read` end, told why.
    public func updateAccess(_ policy: AccessPolicy) {
        access.current = policy
        let access = access
        fanout.endSubscriptions(unless: { access.level(of: $0) != nil }, reason: "read access was withdrawn by a change of depotd's access setting")
    }

    /// The named pipelines the daemon keeps.
    public var pipelines: PipelineLibrary { fanout.library }

    /// The named pipelines `names` changed outside the socket (a reload read the configured ones again): their
    /// subscriptions switch to what they are now, or end.
    public func namedPipelinesChanged(_ names: some Sequence<String>) {
        for name in names {
            fanout.namedPipelineChanged(name)
        }
    }

    /// The names of the methods this server answers.
    public var methodNames: [String] { dispatcher.methodNames }

    /// Active subscriptions, across all connections.
    public var subscriberCount: Int { fanout.subscriberCount }

    /// The limits in force.
    public var currentLimits: ConnectionLimits { limits.current }

    /// Changes the limits while the server runs (see `LiveLimits` for when each takes effect).
    public func updateLimits(_ newLimits: ConnectionLimits) {
        limits.update(newLimits)
    }

    /// How often the socket file is checked: deleted or replaced, it is bound again as soon as its path is free.
    static let socketCheckInterval = Duration.seconds(1)

    /// Checks, before anything slow starts, that the socket can be bound at `path`: its directory exists or can
    /// be made, and nothing is there but a stale socket (another depotd listening there is an error). `run`
    /// checks again when it binds; this check lets depotd refuse at once, before it loads its source.
    public static func checkSocketPath(_ path: String) throws {
        try SocketFile.prepare(path)
    }

    public func run() async throws {
        let path = configuration.socketPath
        let listeners: Listeners
        if let inherited = configuration.inheritedSocket {
            // Socket activation: systemd bound the socket, owns its file, and keeps it across restarts.
            let quiescing = ServerQuiescingHelper(group: eventLoopGroup)
            let channel = try await bootstrap(quiescing).withBoundSocket(inherited).get()
            listeners = Listeners(.init(channel: channel, quiescing: quiescing, identity: nil))
            logger.info("listening on \(path), the socket systemd passed", metadata: ["socket": "\(path)"])
        } else {
            try SocketFile.prepare(path)
            listeners = Listeners(try await bind(path))
            logger.info("listening on \(path)", metadata: ["socket": "\(path)"])
        }
        // From here on nothing throws: the pool started now is stopped below, once every connection is closed.
        pool.start()
        onListening()

        // Serve until a graceful shutdown (SIGTERM, SIGINT) or cancellation, keeping the socket file in place; then
        // stop accepting and quiesce every connection: each closes once its answers are written, or at its deadline.
        let (stop, stopping) = AsyncStream<Void>.makeStream()
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await self.keepListening(listeners, at: path, stopping: stopping) }
                    group.addTask { await self.giveBackFreedMemory() }
                    for await _ in stop {}
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                self.logger.info("stopping: no new connections; each connection closes once its answers are written")
                stopping.finish()
                listeners.initiateShutdown()
            }
        } onCancel: {
            stopping.finish()
            listeners.initiateShutdown()
        }
        // Starts the shutdown if the listener closed on its own, or joins the one under way; returns once every
        // listener and connection is closed.
        await listeners.shutDown()
        // No shared pipeline evaluates after this: nothing is posted to loops that are going away.
        await fanout.stopPipelines()
        // The encodings and answers handed to the pool are done before its threads stop.
        await pool.shutDown()
        SocketFile.remove(path, ifStill: listeners.current.identity)
        logger.info("stopped listening on \(path)")
    }

    /// Binds the socket at `path` in a directory only this user can enter, gives it its mode there, then moves it
    /// into place: no one can connect before the socket has the mode it is meant to have, whatever the umask.
    private func bind(_ path: String) async throws -> Listeners.Listener {
        let quiescing = ServerQuiescingHelper(group: eventLoopGroup)
        let staging = try SocketFile.Staging(for: path)
        defer { staging?.remove() }
        let bindPath = staging?.socketPath ?? path
        let channel = try await bootstrap(quiescing).bind(unixDomainSocketPath: bindPath, cleanupExistingSocketFile: false).get()
        do {
            try SocketFile.setMode(bindPath, configuration.socketMode)
            try staging?.moveSocket()
        } catch {
            try? await channel.close()
            SocketFile.remove(bindPath, ifStill: SocketFile.identity(of: bindPath))
            throw error
        }
        return .init(channel: channel, quiescing: quiescing, identity: SocketFile.identity(of: path))
    }

    /// Until cancelled: once a second, asks the allocator to give its free memory back to the system when the
    /// `TrimSchedule` says so (after a burst of memory let go, and once the connections' churn settles).
    private func giveBackFreedMemory() async {
        var schedule = TrimSchedule()
        var last = statistics.connections.turnover
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            let released = statistics.memory.takeReleased()
            let turnover = statistics.connections.turnover
            let tick = TrimSchedule.Tick(releasedBytes: released, opened: turnover.opened - last.opened, closed: turnover.closed - last.closed)
            last = turnover
            if schedule.tick(tick) {
                logger.trace("giving free memory back to the system", metadata: ["released": "\(released)", "closed": "\(tick.closed)"])
                FreedMemory.trim()
            }
        }
    }

    /// Until cancelled: stops the server when its listener closes on its own, and when the socket file it bound is
    /// deleted or replaced, says so and binds it again once the path is free (connections already open go on).
    private func keepListening(_ listeners: Listeners, at path: String, stopping: AsyncStream<Void>.Continuation) async {
        var reported = false
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.socketCheckInterval)
            guard !Task.isCancelled, !listeners.isShuttingDown else { return }
            let listener = listeners.current
            guard listener.channel.isActive else {
                logger.error("the listening socket \(path) closed; stopping")
                stopping.finish()
                return
            }
            // A socket systemd passed is systemd's to keep.
            guard let identity = listener.identity, SocketFile.identity(of: path) != identity else { continue }
            if !reported {
                logger.error(
                    "the socket file \(path) was deleted or replaced: new clients cannot connect (open connections go on); depotd binds it again as soon as the path is free"
                )
                reported = true
            }
            guard SocketFile.identity(of: path) == nil else { continue }
            do {
                await listeners.replace(with: try await bind(path))
                logger.notice("bound \(path) again: new clients can connect", metadata: ["socket": "\(path)"])
                reported = false
            } catch {
                logger.error("cannot bind \(path) again, trying again in \(Self.socketCheckInterval): \(error)")
            }
        }
    }

    private func bootstrap(_ quiescing: ServerQuiescingHelper) -> ServerBootstrap {
        ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelInitializer { [logger] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                    // Out of descriptors, accept would fail at once again and again: stop polling it a while, and say so.
                    try channel.pipeline.syncOperations.addHandler(AcceptPause(pause: AcceptFailureLog.backoff, logger: logger))
                    try channel.pipeline.syncOperations.addHandler(AcceptFailureLog(logger: logger))
                }
            }
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            // One read per connection per turn of its event loop (not NIO's 4): a connection that floods its input
            // gets no longer turns than the others, so a loop's turn stays short and the others' answers go out.
            .childChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try addConnectionHandlers(to: channel)
                }
            }
    }

    /// Makes `channel` one of this server's connections: adds the line framing and the connection's handler, as
    /// every accepted connection gets them. For a connection that did not come through the socket it listens on —
    /// the in-process fuzzer's, say. Call it on `channel`'s event loop, which must be one of the server's; the
    /// channel should allow remote half-closure, as accepted ones do.
    public func addConnectionHandlers(to channel: any Channel) throws {
        let shutdownTimeout = TimeAmount(configuration.shutdownTimeout)
        let handler = ConnectionHandler(
            dispatcher: dispatcher, fanout: fanout, limits: limits, shutdownTimeout: shutdownTimeout, logger: logger,
            connections: statistics.connections, memory: statistics.memory, counters: statistics.limits,
            dropQueuedMutations: { [repository] in repository.dropQueued(by: $0) }
        )
        try channel.pipeline.syncOperations.addHandler(
            ConnectionAdmission(connections: statistics.connections, limits: limits, counters: statistics.limits, logger: logger))
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLineBytes: limits.maxMessageBytes)))
        try channel.pipeline.syncOperations.addHandler(handler)
    }
}
