import DepotRPC
import Logging
import NIOCore

/// Admits a new connection or refuses it, first in its pipeline (as hummingbird admits connections in a handler of
/// its own): reads the peer's credentials (SO_PEERCRED), counts the connection in against `--max-connections` and
/// `--max-connections-per-user` (root is exempt from the latter), and counts it out when it closes. A refused
/// connection gets one limitExceeded line, so its client knows why, and is closed; nothing behind this handler
/// hears of it. An admitted one's handlers hear `Admitted` (who the peer is) before `channelActive`.
final class ConnectionAdmission: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Fired to the handlers behind, before `channelActive`, for a connection admitted: who is at the other end (nil
    /// when the transport has no credentials, as an in-memory test channel).
    struct Admitted: Sendable {
        let peer: PeerCredentials?
    }

    private let connections: ConnectionCounter
    private let limits: LiveLimits
    private let counters: LimitCounters
    private let logger: Logger
    /// The uid counted in, while the connection is: it is counted out once, however it ends.
    private var counted: UInt32??

    init(connections: ConnectionCounter, limits: LiveLimits, counters: LimitCounters, logger: Logger) {
        self.connections = connections
        self.limits = limits
        self.counters = counters
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        let peer = PeerCredentials.of(context.channel)
        if let refusal = connections.admit(uid: peer?.uid, limits: limits) {
            counters.hit(refusal.limit)
            var logger = logger
            if let peer {
                logger[metadataKey: "peer_pid"] = "\(peer.pid)"
                logger[metadataKey: "peer_uid"] = "\(peer.uid)"
            }
            logger.warning("connection refused: \(refusal.error.message)")
            for part in RPCResponse(id: .null, outcome: .failure(refusal.error)).line.finishLine() {
                context.write(wrapOutboundOut(part), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(ByteBuffer()), promise: nil)
            context.close(promise: nil)
            return
        }
        counted = .some(peer?.uid)
        context.fireUserInboundEventTriggered(Admitted(peer: peer))
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection's bytes go nowhere: it is closing.
        guard counted != nil else { return }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        countOut()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        countOut()
    }

    private func countOut() {
        guard let uid = counted else { return }
        counted = nil
        connections.release(uid: uid)
    }
}
