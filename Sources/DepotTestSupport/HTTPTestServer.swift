import DepotPlatform
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 (a port the system picks) for testing the HTTP source without a mocked
/// client. Each request is answered by the test's `reply` function and logged in `requests`, headers and all,
/// so a test can check what was really sent. Every answer closes its connection.
package final class HTTPTestServer: Sendable {
    /// A request as the server saw it.
    package struct Request: Sendable, CustomStringConvertible {
        package let method: String
        /// The request target as sent, percent escapes and query included: `/items/a%2Fb?x=1`.
        package let uri: String
        package let headers: [(name: String, value: String)]
        /// The body as received (a PUT's item, a PATCH's patch); empty for a GET.
        package let body: [UInt8]

        /// The body as UTF-8 text.
        package var bodyText: String { String(decoding: body, as: UTF8.self) }

        /// The first value of the header `name`, compared ignoring case.
        package func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        package var description: String { "\(method) \(uri)" }
    }

    /// How the server answers a request.
    package enum Reply: Sendable {
        /// A complete response; Content-Length is set from the body.
        case respond(status: Int, headers: [(String, String)] = [], body: String = "")
        /// No answer at all: the connection stays open until the client gives up or the server stops.
        case hang
        /// The request read whole, then the connection closed with no answer: a server that made a change and crashed.
        case close
        /// 200 with a chunked body that never ends: 64 KiB chunks as fast as the client reads them, until it
        /// closes the connection (or after 1 GiB, so that a broken client cannot keep a test running forever).
        case endless
        /// A complete response, sent once `held` is released: a source that answers late, exactly when the test says.
        case held(HeldReplies, status: Int, headers: [(String, String)] = [], body: String = "")
    }

    package let port: Int
    /// Every request received, in order.
    package let requests: Condition<[Request]>
    private let serverChannel: any Channel
    private let connections: Condition<[ObjectIdentifier: any Channel]>

    /// `http://127.0.0.1:PORT` followed by `path`.
    package func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    /// Starts a server that answers every request with `reply(request)`.
    package static func start(_ reply: @escaping @Sendable (Request) -> Reply) async throws -> HTTPTestServer {
        let requests = Condition<[Request]>([])
        let connections = Condition<[ObjectIdentifier: any Channel]>([:])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                connections.update { $0[ObjectIdentifier(channel)] = channel }
                channel.closeFuture.whenComplete { _ in
                    connections.update { _ = $0.removeValue(forKey: ObjectIdentifier(channel)) }
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(reply: reply, requests: requests))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return HTTPTestServer(channel: channel, requests: requests, connections: connections)
    }

    private init(channel: any Channel, requests: Condition<[Request]>, connections: Condition<[ObjectIdentifier: any Channel]>) {
        self.serverChannel = channel
        self.port = channel.localAddress?.port ?? 0
        self.requests = requests
        self.connections = connections
    }

    /// Stops listening and closes every open connection, including those held by `.hang` and `.endless`.
    package func stop() async {
        try? await serverChannel.close()
        for connection in connections.value.values {
            try? await connection.close()
        }
    }
}

extension HTTPTestServer {
    /// Reads one request at a time, logs it, and answers it as `reply` says.
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let reply: @Sendable (Request) -> Reply
        private let requests: Condition<[Request]>
        private var head: HTTPRequestHead?
        private var body: [UInt8] = []

        init(reply: @escaping @Sendable (Request) -> Reply, requests: Condition<[Request]>) {
            self.reply = reply
            self.requests = requests
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
            case .body(let buffer):
                body.append(contentsOf: buffer.readableBytesView)
            case .end:
                guard let head else { return }
                self.head = nil
                let request = Request(
                    method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: body)
                body = []
                requests.update { $0.append(request) }
                answer(reply(request), context: context)
            }
        }

        private func answer(_ reply: Reply, context: ChannelHandlerContext) {
            let channel = context.channel
            switch reply {
            case .respond(let status, let extra, let body):
                Self.respond(on: channel, status: status, headers: extra, body: body)
            case .held(let held, let status, let extra, let body):
                held.hold { channel.eventLoop.execute { Self.respond(on: channel, status: status, headers: extra, body: body) } }
            case .hang:
                break
            case .close:
                channel.close(promise: nil)
            case .endless:
                let headers = HTTPHeaders([("Content-Type", "application/json"), ("Connection", "close")])
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
                Self.writeChunks(to: channel, chunk: ByteBuffer(repeating: UInt8(ascii: " "), count: 64 * 1024), remaining: 16 * 1024)
            }
        }

        /// Writes a whole response and closes the connection.
        private static func respond(on channel: any Channel, status: Int, headers extra: [(String, String)], body: String) {
            var headers = HTTPHeaders(extra)
            headers.replaceOrAdd(name: "Content-Length", value: String(body.utf8.count))
            headers.replaceOrAdd(name: "Connection", value: "close")
            channel.write(
                HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)),
                promise: nil)
            if !body.isEmpty {
                channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil)
            }
            channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
        }

        /// Writes `remaining` more chunks, each once the last has gone out, and stops at the first failed write.
        private static func writeChunks(to channel: any Channel, chunk: ByteBuffer, remaining: Int) {
            guard remaining > 0 else {
                channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
                return
            }
            channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(chunk))).whenSuccess {
                writeChunks(to: channel, chunk: chunk, remaining: remaining - 1)
            }
        }
    }
}

/// Answers an `HTTPTestServer` holds until the test releases them, then sends at once: a source that answers late,
/// exactly when the test says, with no sleep.
package final class HeldReplies: Sendable {
    private let state = Locked<(released: Bool, waiting: [@Sendable () -> Void])>((false, []))

    package init() {}

    /// Sends every held answer, and every later one at once.
    package func release() {
        let waiting = state.withLock { state -> [@Sendable () -> Void] in
            state.released = true
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0() }
    }

    func hold(_ answer: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.released { return true }
            state.waiting.append(answer)
            return false
        }
        if now { answer() }
    }
}
