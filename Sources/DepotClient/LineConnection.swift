import DepotJSON
import DepotRPC
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// A raw connection to a Depot socket: send lines, receive every line the daemon writes.
/// `DepotConnection` builds calls and subscriptions on it; tests use it to speak the protocol byte by byte.
public final class LineConnection: Sendable {
    private let channel: any Channel
    private let tap: (any ConnectionTap)?
    /// Every line received, without its newline, until the daemon closes the connection.
    public let lines: AsyncThrowingStream<[UInt8], any Error>

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
        do {
            let channel = try await ClientBootstrap(group: eventLoopGroup)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLineBytes: .max)))
                        try channel.pipeline.syncOperations.addHandler(LineCollector(continuation: continuation, tap: tap))
                    }
                }
                .connect(unixDomainSocketPath: path)
                .get()
            return LineConnection(channel: channel, lines: lines, tap: tap)
        } catch {
            continuation.finish()
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

    private static func explain(_ error: any Error, path: String) -> String {
        let code = (error as? IOError)?.errnoCode
        switch code {
        case ENOENT:
            return "no socket at \(path): depotd is not running there; start it with `depotd`, or give the right --socket"
        case ECONNREFUSED:
            return "nothing is listening on \(path): depotd is not running (the socket file is left from an earlier run); start it with `depotd`"
        case EACCES, EPERM:
            return "permission denied on \(path): your user must be allowed to connect (for the system daemon, be a member of its group, e.g. `depot`)"
        default:
            return "cannot connect to \(path): \(error)"
        }
    }
}

/// Passes every received line on to the stream, and ends it when the connection closes.
private final class LineCollector: ChannelInboundHandler, Sendable {
    typealias InboundIn = LineFrame

    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let tap: (any ConnectionTap)?

    init(continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation, tap: (any ConnectionTap)?) {
        self.continuation = continuation
        self.tap = tap
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .line(let line) = unwrapInboundIn(data) {
            let bytes = Array(line.readableBytesView)
            tap?.received(bytes)
            continuation.yield(bytes)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
