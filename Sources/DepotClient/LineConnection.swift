import DepotJSON
import DepotPlatform
import DepotRPC
public import NIOCore
public import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// A raw connection to a Depot socket: send lines, receive every line the daemon writes.
/// `DepotConnection` builds calls and subscriptions on it; a client that speaks the protocol line by line uses it alone.
public final class LineConnection: Sendable {
    /// Where received lines go: the `lines` stream, or a receiver called on the connection's event loop.
    enum Sink: Sendable {
        case stream(AsyncThrowingStream<[UInt8], any Error>.Continuation)
        /// `line` for each line; `closed` once, when the connection ends.
        case receiver(line: @Sendable ([UInt8]) -> Void, closed: @Sendable () -> Void)
    }

    private let channel: any Channel
    private let tap: (any ConnectionTap)?
    /// Every line received, without its newline, until the daemon closes the connection. (Empty for a
    /// connection whose lines go to a receiver, as `DepotConnection`'s do.)
    public let lines: AsyncThrowingStream<[UInt8], any Error>

    /// The event loop the connection lives on.
    var eventLoop: any EventLoop { channel.eventLoop }

    private init(channel: any Channel, lines: AsyncThrowingStream<[UInt8], any Error>, tap: (any ConnectionTap)?) {
        self.channel = channel
        self.lines = lines
        self.tap = tap
    }

    /// Connects to the Unix socket at `path`; `tap`, when given, sees everything sent and received.
    public static func connect(
        to path: String,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        tap: (any ConnectionTap)? = nil
    ) async throws(DepotClientError) -> LineConnection {
        let (lines, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        return try await connect(to: path, eventLoopGroup: eventLoopGroup, tap: tap, sink: .stream(continuation), lines: lines)
    }

    /// Connects, handing every line to `sink` as it arrives.
    static func connect(
        to path: String,
        eventLoopGroup: any EventLoopGroup,
        tap: (any ConnectionTap)?,
        sink: Sink,
        lines: AsyncThrowingStream<[UInt8], any Error> = AsyncThrowingStream { $0.finish() }
    ) async throws(DepotClientError) -> LineConnection {
        do {
            let channel = try await ClientBootstrap(group: eventLoopGroup)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLineBytes: .max)))
                        try channel.pipeline.syncOperations.addHandler(LineCollector(sink: sink, tap: tap))
                    }
                }
                .connect(unixDomainSocketPath: path)
                .get()
            return LineConnection(channel: channel, lines: lines, tap: tap)
        } catch {
            LineCollector.finish(sink, error: nil)
            throw .cannotConnect(path: path, reason: Self.explain(error, path: path))
        }
    }

    /// Sends `line` followed by a newline.
    public func send(_ line: String) async throws {
        try await send(bytes: Array(line.utf8) + [UInt8(ascii: "\n")])
    }

    /// Sends bytes exactly as given (no newline is added).
    public func send(bytes: [UInt8]) async throws {
        tap?.sent(bytes)
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Closes the sending side only; the daemon answers what it has and may then close.
    public func finishSending() async throws {
        tap?.finishedSending()
        try await channel.close(mode: .output)
    }

    public func close() async {
        try? await channel.close()
    }

    /// What is at `path` when it is something other than a socket ("a regular file", "a directory"), else nil.
    private static func notASocket(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFSOCK: return nil
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a directory"
        case S_IFLNK: return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK ? nil : "a link to something else"
        case S_IFIFO: return "a named pipe"
        default: return "a device"
        }
    }

    /// How to start a depotd on `path`, as this machine has it installed.
    private static func start(_ path: String) -> String {
        StartCommand(paths: .current).command(forSocket: path)
    }

    private static func explain(_ error: any Error, path: String) -> String {
        let code = (error as? IOError)?.errnoCode
        if let kind = notASocket(path) {
            return "\(path) is \(kind), not a socket: give depotd's socket with --socket (`depotctl socket` prints where depotctl looks)"
        }
        switch code {
        case ENOTDIR:
            return "no socket at \(path): a part of that path is not a directory; give depotd's socket with --socket"
        case ENOENT:
            return "no socket at \(path): depotd is not running there; start it with `\(start(path))`, or give the right --socket"
        case ECONNREFUSED:
            return
                "nothing is listening on \(path): depotd is not running (the socket file is left from an earlier run); start it with `\(start(path))`"
        case EACCES, EPERM:
            return
                "permission denied on \(path): your user must be allowed to connect (for the system daemon, be a member of its group, e.g. `depot`)"
        default:
            return "cannot connect to \(path): \(error)"
        }
    }
}

/// Passes every received line on to the sink, and tells it when the connection closes.
private final class LineCollector: ChannelInboundHandler, Sendable {
    typealias InboundIn = LineFrame

    private let sink: LineConnection.Sink
    private let tap: (any ConnectionTap)?

    init(sink: LineConnection.Sink, tap: (any ConnectionTap)?) {
        self.sink = sink
        self.tap = tap
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .line(let line) = unwrapInboundIn(data) else { return }
        let bytes = Array(line.readableBytesView)
        tap?.received(bytes)
        switch sink {
        case .stream(let continuation): continuation.yield(bytes)
        case .receiver(let receive, _): receive(bytes)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        Self.finish(sink, error: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        Self.finish(sink, error: error)
        context.close(promise: nil)
    }

    /// Ends the stream, or tells the receiver the connection is closed (which it must take calmly more than once).
    static func finish(_ sink: LineConnection.Sink, error: (any Error)?) {
        switch sink {
        case .stream(let continuation): continuation.finish(throwing: error)
        case .receiver(_, let closed): closed()
        }
    }
}
