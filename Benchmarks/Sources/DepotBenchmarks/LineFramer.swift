#if canImport(Glibc)
import Glibc
#endif

/// Newline framing: a message ends at `\n`, found with memchr.
public final class LineFramer: MessageFramer {
    private var head = MessageHead()
    private var pendingBytes = 0
    public private(set) var lastHead: [UInt8] = []

    public init() {}

    public func feed(_ bytes: UnsafeRawBufferPointer, _ deliver: (FramedMessage) -> Void) {
        guard let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count {
            let rest = bytes.count - start
            guard let newline = memchr(base + start, 0x0A, rest) else {
                if !head.isFull { head.append(UnsafeRawBufferPointer(rebasing: bytes[start...])) }
                pendingBytes += rest
                return
            }
            let end = base.distance(to: UnsafeRawPointer(newline))
            if !head.isFull { head.append(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) }
            let message = FramedMessage(seq: head.seq, bytes: pendingBytes + end - start + 1, isError: head.hasError)
            lastHead = head.bytes
            head.reset()
            pendingBytes = 0
            deliver(message)
            start = end + 1
        }
    }
}
