/// One whole message as a client received it: a line from depotd or the floor, a RESP reply or push from Redis.
public struct FramedMessage: Sendable {
    /// The `seq` of the state it carries, found in its first bytes; nil for messages without one.
    public var seq: Int?
    /// Every byte of the message, framing included.
    public var bytes: Int
    /// A RESP error reply, or a JSON-RPC error answer.
    public var isError: Bool
}

/// Splits a byte stream into messages, keeping only the first bytes of each (enough to find its `seq`), so
/// that a large message costs the client a scan for its end and nothing more.
public protocol MessageFramer: AnyObject {
    /// Feeds the bytes of one read; `deliver` is called for every message they complete, in order.
    func feed(_ bytes: UnsafeRawBufferPointer, _ deliver: (FramedMessage) -> Void)
    /// The first bytes of the last message completed.
    var lastHead: [UInt8] { get }
}

/// The framing of a system under test.
public enum Framing: Sendable {
    /// One message per line (depotd, the floor).
    case lines
    /// Redis's RESP replies and pushes.
    case resp

    public func makeFramer() -> any MessageFramer {
        switch self {
        case .lines: LineFramer()
        case .resp: RESPFramer()
        }
    }
}
