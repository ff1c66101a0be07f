import DepotJSON
import DepotRPC
import DepotTestSupport
import DepotWire
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import DepotServer

/// ConnectionAdmission alone, in embedded channels: what it lets through, what a refused connection gets, and that every
/// connection admitted is counted out once.
@Suite("ConnectionAdmission: counted in, or told why and closed")
struct ConnectionAdmissionTests {
    /// Hears what reaches the handlers behind admission.
    final class Behind: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        var admitted: [ConnectionAdmission.Admitted] = []
        var active = false
        var read: [String] = []

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let admission = event as? ConnectionAdmission.Admitted { admitted.append(admission) }
        }

        func channelActive(context: ChannelHandlerContext) { active = true }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            read.append(String(buffer: unwrapInboundIn(data)))
        }
    }

    struct Admission {
        let connections = ConnectionCounter()
        let counters = LimitCounters()
        let limits: LiveLimits
        let log = LogRecorder()

        init(maxConnections: Int) {
            limits = LiveLimits(ConnectionLimits(maxConnections: maxConnections))
        }

        /// A connection through a new admission handler, made active.
        func connect() throws -> (channel: EmbeddedChannel, behind: Behind) {
            let behind = Behind()
            let channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandler(
                ConnectionAdmission(connections: connections, limits: limits, counters: counters, logger: log.logger()))
            try channel.pipeline.syncOperations.addHandler(behind)
            try channel.connect(to: SocketAddress(unixDomainSocketPath: "/depot-test")).wait()
            return (channel, behind)
        }
    }

    @Test("within the bound: the handlers behind hear who it is, then channelActive, then its bytes; closing counts it out")
    func admitted() throws {
        let admission = Admission(maxConnections: 1)
        let (channel, behind) = try admission.connect()
        #expect(behind.admitted.count == 1 && behind.admitted.first?.peer == nil, "an embedded channel has no credentials")
        #expect(behind.active)
        try channel.writeInbound(ByteBuffer(string: "hello"))
        #expect(behind.read == ["hello"])
        #expect(admission.connections.total == 1)
        _ = try channel.finish()
        #expect(admission.connections.total == 0, "counted out when it closed")
    }

    @Test("past --max-connections: one limitExceeded line, closed, nothing behind hears of it; a place freed admits again")
    func refused() throws {
        let admission = Admission(maxConnections: 1)
        let (first, _) = try admission.connect()
        let (refused, behind) = try admission.connect()
        var written = ""
        while var part = try refused.readOutbound(as: ByteBuffer.self) { written += part.readString(length: part.readableBytes) ?? "" }
        let error = try JSONParser.parse(written)["error"]
        #expect(error?["code"]?.numberValue?.intValue == DepotErrorCode.limitExceeded, "\(written)")
        #expect(error?["message"]?.stringValue?.contains("--max-connections") == true)
        #expect(!refused.isActive, "closed")
        #expect(behind.admitted.isEmpty && !behind.active && behind.read.isEmpty)
        #expect(admission.counters.count(.maxConnections) == 1)
        #expect(admission.log.all.contains { $0.contains("connection refused") })
        #expect(admission.connections.total == 1, "the refused one was never counted")

        _ = try first.finish()
        let (again, behindAgain) = try admission.connect()
        #expect(behindAgain.active)
        _ = try again.finish()
        #expect(admission.connections.total == 0)
    }
}
