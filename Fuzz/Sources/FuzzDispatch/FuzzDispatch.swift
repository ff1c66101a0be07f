import DepotCore
import DepotJSON
import DepotServer
import FuzzDriver
import Logging
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

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

/// The server's event loop, which its connections must run on.
private let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

/// One server for the whole run, on an event loop of its own, with small limits so that they are reached often.
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
    // The mutations run for the whole run (depotd runs them in its service tree; the fuzzer has none).
    Task { await repository.run() }
    repository.load()
    return server
}()

/// The last request of every iteration: once its answer is back, everything before it was dispatched.
private let sentinel = Array(#"{"jsonrpc":"2.0","id":"fuzz-end","method":"state"}"#.utf8) + [10]

/// Sends the input on a fresh connection of the server (a real socket pair), then a newline and a last request,
/// and reads until that request is answered or the connection closes. Every line the server writes must be a
/// JSON-RPC 2.0 response (with an id and either a result or an error with an integer code and a message) or a
/// notification; and the server must end the exchange within ten seconds.
func fuzzDispatch(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { fatalError("socketpair: \(errno)") }
    let channel: any Channel
    do {
        channel = try ClientBootstrap(group: loop)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try server.addConnectionHandlers(to: channel) } }
            .withConnectedSocket(pair[0])
            .wait()
    } catch {
        fatalError("cannot make a connection of the server: \(error)")
    }
    _ = channel
    let client = pair[1]
    defer { close(client) }
    let input = bytes(start, count) + [10] + sentinel
    let output = exchange(input, on: client)
    check(output)
    channel.close(promise: nil)
    return 0
}

/// Writes `input` while reading what comes back (so neither side blocks the other), until the sentinel's answer
/// or the end of the connection.
private func exchange(_ input: [UInt8], on socket: Int32) -> [UInt8] {
    var written = 0
    var output: [UInt8] = []
    var searched = 0
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        var poller = pollfd(fd: socket, events: Int16(POLLIN) | (written < input.count ? Int16(POLLOUT) : 0), revents: 0)
        guard poll(&poller, 1, 100) >= 0 || errno == EINTR else { fatalError("poll: \(errno)") }
        if poller.revents & Int16(POLLOUT) != 0, written < input.count {
            let sent = input[written...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 { written += sent } else if errno == EPIPE || errno == ECONNRESET { written = input.count }
        }
        if poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            let received = recv(socket, &buffer, buffer.count, 0)
            if received <= 0 { return output }
            output += buffer[..<received]
            // Only the bytes not searched yet (and a marker's length before them) can hold the sentinel's id.
            if contains(marker, in: output, from: max(0, searched - marker.count)) { return output }
            searched = output.count
        }
    }
    fatalError("no answer to the last request and no close within 10 s; \(output.count) bytes came")
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
