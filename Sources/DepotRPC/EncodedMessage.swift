public import DepotJSON
public import NIOCore

/// One outgoing line as a list of buffers, written together with one gather write.
///
/// Small pieces are copied into a running buffer; large pre-encoded buffers (a published state) are
/// appended as parts of their own, so they are never copied per response or per subscriber.
public struct EncodedMessage: Sendable {
    /// Pre-encoded buffers at least this large are referenced rather than copied.
    static let sharingThreshold = 4096

    public private(set) var parts: [ByteBuffer] = []
    private var tail: ByteBuffer
    private let allocator: ByteBufferAllocator

    public init(allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        self.allocator = allocator
        self.tail = allocator.buffer(capacity: 256)
    }

    public mutating func append(raw staticString: StaticString) {
        tail.writeStaticString(staticString)
    }

    public mutating func append(json value: JSONValue) {
        JSONWriter.write(value, to: &tail)
    }

    public mutating func append(body: ResultBody) {
        switch body {
        case .value(let value):
            append(json: value)
        case .encoded(let buffer):
            append(shared: buffer)
        }
    }

    public mutating func append(integer: Int) {
        tail.writeString(String(integer))
    }

    public mutating func append(string: String) {
        JSONWriter.writeString(string, to: &tail)
    }

    /// Appends a buffer that is already encoded.
    public mutating func append(shared buffer: ByteBuffer) {
        guard buffer.readableBytes >= Self.sharingThreshold else {
            var copy = buffer
            tail.writeBuffer(&copy)
            return
        }
        if tail.readableBytes > 0 {
            parts.append(tail)
            tail = allocator.buffer(capacity: 64)
        }
        parts.append(buffer)
    }

    /// The bytes so far.
    public var byteCount: Int {
        parts.reduce(tail.readableBytes) { $0 + $1.readableBytes }
    }

    /// Appends another message's bytes (its large buffers still shared, not copied).
    public mutating func append(_ other: EncodedMessage) {
        for part in other.parts {
            append(shared: part)
        }
        append(shared: other.tail)
    }

    /// The parts, ending with the line's newline.
    public consuming func finishLine() -> [ByteBuffer] {
        tail.writeInteger(UInt8(ascii: "\n"))
        parts.append(tail)
        return parts
    }

    /// Every byte of the line, in one array, for a client that reads whole lines.
    public consuming func lineBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        for var part in finishLine() {
            bytes += part.readBytes(length: part.readableBytes) ?? []
        }
        return bytes
    }
}
