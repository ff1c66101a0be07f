public import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// One unit of input: a line without its newline, or the news that a line exceeded the limit.
public enum LineFrame: Sendable {
    case line(ByteBuffer)
    case tooLong(limit: Int)
    /// A line has begun and is not finished yet, and `bytes` of it have come, in a buffer of `held` bytes (its
    /// capacity: what the line costs in memory); the next `.line` finishes it. Sent each time more of it arrives, so
    /// a connection can bound how long a line may sit unfinished and how much memory it holds meanwhile.
    case unfinished(bytes: Int, held: Int)
}

/// Line framing, one JSON-RPC message per line: splits input into lines at `\n`. A line longer than `maxLineBytes` is reported once as `.tooLong` and
/// nothing after it is decoded, because the connection is about to be closed; the oversized bytes are not
/// kept. At end of input, a last line without its newline is still delivered.
public struct LineFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = LineFrame

    public let maxLineBytes: Int
    /// How far the current buffer has been searched for a newline, so no byte is scanned twice.
    private var scanned = 0
    private var overflowed = false
    /// The bytes of the line now being received that `.unfinished` last reported.
    private var reportedUnfinished = 0

    public init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if overflowed {
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            return .needMoreData
        }
        let readable = buffer.readableBytes
        guard let length = Self.newline(in: buffer, from: scanned) else {
            scanned = readable
            if readable > maxLineBytes {
                reportTooLong(context: context, buffer: &buffer)
            } else if readable > reportedUnfinished {
                reportedUnfinished = readable
                context.fireChannelRead(wrapInboundOut(.unfinished(bytes: readable, held: max(readable, buffer.capacity))))
            }
            return .needMoreData
        }
        scanned = 0
        reportedUnfinished = 0
        guard length <= maxLineBytes else {
            reportTooLong(context: context, buffer: &buffer)
            return .needMoreData
        }
        // Cannot fail: `length` bytes come before the newline found in the readable bytes.
        // swift-format-ignore: NeverForceUnwrap
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(.line(line)))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if seenEOF, !overflowed, buffer.readableBytes > 0 {
            // Cannot fail: it takes exactly the readable bytes.
            // swift-format-ignore: NeverForceUnwrap
            let line = buffer.readSlice(length: buffer.readableBytes)!
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        return .needMoreData
    }

    /// The offset of the first newline in `buffer`'s readable bytes at or after `start`, found with memchr: a
    /// line of megabytes is searched at memory speed, where a generic search over the buffer's view goes a byte at
    /// a time (many times slower unoptimised, which the tests' debug build is).
    private static func newline(in buffer: ByteBuffer, from start: Int) -> Int? {
        buffer.withUnsafeReadableBytes { bytes in
            guard start < bytes.count, let base = bytes.baseAddress,
                let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start)
            else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    private mutating func reportTooLong(context: ChannelHandlerContext, buffer: inout ByteBuffer) {
        overflowed = true
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        context.fireChannelRead(wrapInboundOut(.tooLong(limit: maxLineBytes)))
    }
}
