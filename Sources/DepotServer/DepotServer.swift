import DepotCore
import DepotRPC
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Serves one repository on a Unix socket until graceful shutdown.
///
/// On graceful shutdown or cancellation it stops accepting, lets each connection finish the requests it has in flight (up to
/// `shutdownTimeout`), closes every connection, and removes its socket file.
public final class DepotServer: Service {
    private let configuration: ServerConfiguration
    private let repository: Repository
    private let eventLoopGroup: any EventLoopGroup
    let fanout: StateFanout
    private let dispatcher: RPCDispatcher<any DepotSession>
    private let logger: Logger
    private let onListening: @Sendable () -> Void
    private let connections = Mutex<[ObjectIdentifier: any Channel]>([:])
    private let limits: LiveLimits

    /// - Parameters:
    ///   - onListening: called once the socket accepts connections.
    ///   - onSubscribersChanged: called with the number of active subscriptions whenever it changes.
    public init(
        configuration: ServerConfiguration,
        repository: Repository,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton,
        logger: Logger,
        onListening: @escaping @Sendable () -> Void = {},
        onSubscribersChanged: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.repository = repository
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        self.onListening = onListening
        self.limits = LiveLimits(configuration.limits)
        self.fanout = StateFanout(eventLoops: Array(eventLoopGroup.makeIterator()), onSubscribersChanged: onSubscribersChanged)
        self.dispatcher = DepotMethods.dispatcher(repository: repository, fanout: fanout)
        repository.addObserver(fanout)
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

    public func run() async throws {
        let path = configuration.socketPath
        let listener: any Channel
        var identity: SocketFile.Identity?
        if let inherited = configuration.inheritedSocket {
            // Socket activation: systemd bound the socket, owns its file, and keeps it across restarts.
            listener = try await bootstrap().withBoundSocket(inherited).get()
            logger.info("listening on \(path), the socket systemd passed", metadata: ["socket": "\(path)"])
        } else {
            try SocketFile.prepare(path)
            listener = try await bootstrap().bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false).get()
            identity = SocketFile.identity(of: path)
            do {
                try SocketFile.setMode(path, configuration.socketMode)
            } catch {
                try? await listener.close()
                SocketFile.remove(path, ifStill: identity)
                throw error
            }
            logger.info("listening on \(path)", metadata: ["socket": "\(path)"])
        }
        onListening()

        // Serve until a graceful shutdown (SIGTERM, SIGINT) or cancellation closes the listener.
        await withTaskCancellationHandler {
            try? await withGracefulShutdownHandler {
                try await listener.closeFuture.get()
            } onGracefulShutdown: {
                listener.close(promise: nil)
            }
        } onCancel: {
            listener.close(promise: nil)
        }
        try? await listener.close()
        await closeConnections()
        SocketFile.remove(path, ifStill: identity)
        logger.info("stopped listening on \(path)")
    }

    private func bootstrap() -> ServerBootstrap {
        ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: 4096)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = ConnectionHandler(dispatcher: dispatcher, fanout: fanout, limits: limits, logger: logger)
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLineBytes: limits.maxMessageBytes)))
                    try channel.pipeline.syncOperations.addHandler(handler)
                    track(channel)
                }
            }
    }

    private func track(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        connections.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = connections.withLock { $0.removeValue(forKey: key) }
        }
    }

    /// Asks every connection to finish and close; closes those still open after the timeout.
    private func closeConnections() async {
        let open = connections.withLock { Array($0.values) }
        guard !open.isEmpty else { return }
        logger.info("closing \(open.count) connections")
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(ServerShutdownEvent())
        }
        let timeout = configuration.shutdownTimeout
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for channel in open {
                    try? await channel.closeFuture.get()
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            if await group.next() == false {
                let remaining = connections.withLock { Array($0.values) }
                logger.warning("\(remaining.count) connections did not finish within \(timeout); closing them")
                for channel in remaining {
                    channel.close(promise: nil)
                }
            }
            group.cancelAll()
        }
        for channel in open {
            try? await channel.closeFuture.get()
        }
    }
}
