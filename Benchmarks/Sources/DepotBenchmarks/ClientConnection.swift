#if canImport(Glibc)
import Glibc
#endif

/// Receives the messages of the connections in a `ReaderPool`, on the pool's threads.
public protocol MessageSink: AnyObject, Sendable {
    /// `time` is when the read that completed the message returned.
    func received(_ message: FramedMessage, at time: UInt64, on connection: ClientConnection)
    /// The server closed the connection or it failed.
    func closed(_ connection: ClientConnection)
}

/// One client socket of the load generator: a subscriber, or an RPC client in a closed loop.
///
/// Sendable without checks because, once added to a `ReaderPool`, its mutable state is touched only by the
/// one reader thread that owns it; the driver reads it only after that thread is done with it (a round's
/// wait, or the end of a run, orders the two through a semaphore).
public final class ClientConnection: @unchecked Sendable {
    public let fd: Int32
    /// Its position among the connections of a scenario.
    public let index: Int
    let framer: any MessageFramer
    let sink: any MessageSink

    // Owned by the reader thread.
    public var messageCount = 0
    public var highestSeq = -1
    var countedGeneration = 0
    /// For closed-loop clients: the request to repeat, when it was last sent, and the latencies measured.
    var request: [UInt8] = []
    var sentAt: UInt64 = 0
    var latencies: [UInt64] = []
    public internal(set) var lastAnswerBytes = 0
    var isOpen = true

    public init(fd: Int32, index: Int, framing: Framing, sink: any MessageSink) {
        self.fd = fd
        self.index = index
        self.framer = framing.makeFramer()
        self.sink = sink
    }

    /// Sends the request again and notes when (from the reader thread; requests are small, so the socket takes them at once).
    func sendRequest() {
        sentAt = MonotonicClock.now()
        try? UnixSocket.writeAll(fd, request)
    }

    public func close() {
        Glibc.close(fd)
    }
}
