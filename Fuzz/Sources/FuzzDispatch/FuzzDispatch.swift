import DepotCore
import DepotJSON
import DepotServer
import Dispatch
import FuzzDriver
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded

/// A source that always lists the same twelve items and confirms any write to one of them without changing:
/// every iteration starts from a collection a load can bring back.
private struct FixedSource: WritableSource {
    let description = "fuzz:fixed"
    static let items: [JSONValue] = (1...12).map { ["id": .number(JSONNumber($0)), "name": .string("item \($0)")] }

    func fetchItems() async throws -> [JSONValue] { Self.items }

    func write(_ changes: [SourceChange], held: HeldItems?) async throws -> SourceWriteResult {
        for change in changes {
            guard let number = Int(change.id), (1...12).contains(number) else { throw SourceError.notFound(id: change.id, in: description) }
        }
        return SourceWriteResult(.applied)
    }
}

/// The server's event loop: an in-process testing loop, so that each input costs no socket, no thread hop on the
/// server's side and no poll — the dispatch fuzzer reaches millions of inputs as the other parsers do. Work handed to
/// it from other threads (answers hopping back from the repository) runs at once; its timers run when the exchange
/// moves its time on.
private let loop = NIOAsyncTestingEventLoop()

/// One server for the whole run, with small limits so that they are reached often.
private let server: SocketServer = {
    let logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
    let repository = Repository(source: FixedSource(), logger: logger)
    var limits = ConnectionLimits()
    limits.maxMessageBytes = 4096
    limits.maxBatchRequests = 16
    limits.maxBatchAnswerBytes = 8192
    limits.maxSubscriptions = 4
    limits.maxPendingRequests = 8
    limits.partialLineTimeout = .seconds(5)
    let server = SocketServer(
        configuration: ServerConfiguration(socketPath: "/nonexistent/fuzz.sock", limits: limits), repository: repository,
        eventLoopGroup: loop, logger: logger)
    // The mutations run for the whole run (depotd runs them in its service tree; a libFuzzer target has none, and is
    // called synchronously, so this is the one task that outlives an input).
    Task { await repository.run() }
    repository.load()
    return server
}()

/// The last request of every iteration: once its answer is back, everything before it was dispatched.
private let sentinel = Array(#"{"jsonrpc":"2.0","id":"fuzz-end","method":"state"}"#.utf8) + [10]

/// Sends the input on a fresh connection of the server (an in-process channel with the server's real handlers: the
/// admission, the line framing, the connection handler), then a newline and a last request, and reads until that
/// request is answered or the connection closes. Every line the server writes must be a JSON-RPC 2.0 response (with
/// an id and either a result or an error with an integer code and a message) or a notification; and the server must
/// end the exchange within a minute of its time (its timers included).
func fuzzDispatch(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let input = bytes(start, count) + [10] + sentinel
    check(exchange(input, chunk: count % 2 == 0 ? input.count : 1 + count % 97))
    return 0
}

/// Writes `input` to a new connection in reads of `chunk` bytes (framing across reads is half of what is fuzzed),
/// all in one turn of the loop, then waits for the sentinel's answer or the connection's end. Most inputs are answered
/// in that turn; an answer that comes from the repository hops back to the loop. Nothing here awaits: libFuzzer calls
/// synchronously, and every hop between threads costs more than the dispatch it measures.
private func exchange(_ input: [UInt8], chunk: Int) -> [UInt8] {
    let capture = Capture()
    let channel = NIOAsyncTestingChannel(loop: loop)
    do {
        try loop.submit {
            try channel.pipeline.syncOperations.addHandler(capture)
            try server.addConnectionHandlers(to: channel)
            channel.closeFuture.whenComplete { _ in capture.end() }
            channel.connect(to: try SocketAddress(unixDomainSocketPath: "/fuzz"), promise: nil)
            var offset = 0
            while offset < input.count, channel.isActive {
                let end = min(input.count, offset + chunk)
                channel.pipeline.fireChannelRead(NIOAny(ByteBuffer(bytes: input[offset..<end])))
                channel.pipeline.fireChannelReadComplete()
                offset = end
            }
        }.wait()
    } catch {
        fatalError("cannot make a connection of the server: \(error)")
    }
    // Nothing comes while a timer holds the answer back (a partial line's, a pipeline's): the loop's time moves on, a
    // second at a time, up to a minute of it.
    var waited = 0
    while !capture.wait(for: .milliseconds(50)) {
        waited += 1
        guard waited <= 60 else { fatalError("no answer to the last request and no close within a minute of the server's time") }
        let moved = DispatchSemaphore(value: 0)
        Task {
            await loop.advanceTime(by: .seconds(1))
            moved.signal()
        }
        moved.wait()
    }
    channel.close(promise: nil)
    return capture.output
}

/// The first handler of a connection's pipeline: keeps what the server writes (instead of a socket taking it), and
/// says when the sentinel's answer is in it or the connection has ended.
private final class Capture: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let lock = NIOLock()
    private var bytes: [UInt8] = []
    private var searched = 0
    private var done = false
    private let finished = DispatchSemaphore(value: 0)

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        let found = lock.withLock { () -> Bool in
            bytes += buffer.readableBytesView
            // Only the bytes not searched yet (and a marker's length before them) can hold the sentinel's id.
            let found = !done && contains(marker, in: bytes, from: max(0, searched - marker.count))
            searched = bytes.count
            if found { done = true }
            return found
        }
        promise?.succeed(())
        if found { finished.signal() }
    }

    func flush(context: ChannelHandlerContext) {}

    func end() {
        let first = lock.withLock { () -> Bool in
            defer { done = true }
            return !done
        }
        if first { finished.signal() }
    }

    /// Whether the exchange ended within `limit`.
    func wait(for limit: Duration) -> Bool {
        let nanoseconds = Int(limit.components.seconds) * 1_000_000_000 + Int(limit.components.attoseconds / 1_000_000_000)
        return finished.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success
    }

    var output: [UInt8] {
        lock.withLock { bytes }
    }
}

/// The sentinel's id as its answer carries it.
private let marker = Array(#""id":"fuzz-end""#.utf8)

private func contains(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Bool {
    guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return false }
    for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
        if haystack[index..<index + needle.count].elementsEqual(needle) { return true }
    }
    return false
}

/// Every line is a JSON-RPC 2.0 response, batch of responses, or notification.
private func check(_ output: [UInt8]) {
    for line in output.split(separator: 10, omittingEmptySubsequences: false).dropLast() {
        // The long lines are the protocol's document and whole states, the same every time: their frame is checked,
        // their body was parsed when the seeds first ran.
        if line.count > 16384 {
            precondition(line.starts(with: Array(#"{"jsonrpc":"2.0","#.utf8)) && line.last == UInt8(ascii: "}"), "a long line that is not a message")
            continue
        }
        guard let message = try? JSONParser.parse(Array(line)) else {
            fatalError("a line that is not JSON: \(String(decoding: line.prefix(300), as: UTF8.self))")
        }
        if case .array(let responses) = message {
            precondition(!responses.isEmpty, "an empty batch answer")
            responses.forEach(checkResponse)
        } else if message["method"] != nil {
            precondition(
                message["jsonrpc"] == "2.0" && message["id"] == nil && message["params"]?.objectValue != nil,
                "a bad notification: \(message.jsonText.prefix(300))")
        } else {
            checkResponse(message)
        }
    }
}

private func checkResponse(_ response: JSONValue) {
    let text = response.jsonText.prefix(300)
    guard case .object(let members) = response else { fatalError("a response that is not an object: \(text)") }
    precondition(members["jsonrpc"] == "2.0" && members["id"] != nil, "a response without jsonrpc 2.0 or an id: \(text)")
    switch (members["result"], members["error"]) {
    case (_?, nil):
        break
    case (nil, let error?):
        precondition(error["code"]?.numberValue?.intValue != nil && error["message"]?.stringValue != nil, "a bad error object: \(text)")
    default:
        fatalError("a response must hold a result or an error, not both or neither: \(text)")
    }
}

@main
enum FuzzDispatchMain {
    static func main() {
        runFuzzer(fuzzDispatch)
    }
}
