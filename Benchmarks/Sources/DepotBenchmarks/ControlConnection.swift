#if canImport(Glibc)
import Glibc
#endif

/// A blocking connection that sends one command and reads its whole answer, framed like the subscribers'
/// messages: what triggers a state change, and what sets things up.
public final class ControlConnection {
    public let fd: Int32
    private let framer: any MessageFramer
    private var ready: [FramedMessage] = []
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)

    public init(path: String, framing: Framing) throws {
        fd = try UnixSocket.connect(to: path)
        framer = framing.makeFramer()
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    public func send(_ bytes: [UInt8]) throws {
        try UnixSocket.writeAll(fd, bytes)
    }

    public func send(line: String) throws {
        try send(Array((line + "\n").utf8))
    }

    /// The next whole message from the server; `head` holds its first bytes.
    public func receive() throws -> (message: FramedMessage, head: [UInt8]) {
        while ready.isEmpty {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchError("the server closed a control connection") }
            framer.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { ready.append($0) }
        }
        let message = ready.removeFirst()
        // The head of the last message framed; control answers come one at a time, so it is this one's.
        return (message, framer.lastHead)
    }

    /// Sends a depotd request and returns the seq of the state in its answer; throws for an error answer.
    public func call(_ line: String) throws -> Int? {
        try send(line: line)
        let (answer, head) = try receive()
        if answer.isError {
            throw BenchError("depotd answered \(line) with an error: \(String(decoding: head, as: UTF8.self))…")
        }
        return answer.seq
    }
}
