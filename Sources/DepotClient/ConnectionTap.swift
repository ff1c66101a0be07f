/// Sees the bytes a connection sends and every line it receives, as they cross the socket: a seam for tracing a
/// session, or for holding each of depotd's messages to the protocol's document, as the suite does.
///
/// Called on whatever thread sends or receives, so it must be thread-safe; it must not block.
public protocol ConnectionTap: Sendable {
    /// Bytes about to be written, exactly as they go out (lines with their newlines, or any fragment).
    func sent(_ bytes: [UInt8])
    /// The sending side was closed: bytes sent after the last newline were the last line.
    func finishedSending()
    /// One line received, without its newline.
    func received(_ line: [UInt8])
}
