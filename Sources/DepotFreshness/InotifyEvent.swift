package import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// One inotify event as the kernel writes it (`struct inotify_event`): the watch it concerns (-1 for a queue
/// overflow), what happened (`mask`), the cookie that pairs the two halves of a rename, and the name of the entry
/// in the watched directory ("" for the directory itself).
package struct InotifyEvent: Sendable, Equatable, CustomStringConvertible {
    package var watch: Int32
    package var mask: UInt32
    package var cookie: UInt32
    package var name: String

    package init(watch: Int32, mask: UInt32, cookie: UInt32 = 0, name: String = "") {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }

    package func has(_ flag: Int32) -> Bool {
        mask & UInt32(bitPattern: flag) != 0
    }

    /// The kernel's queue overflowed: events were lost, so anything may have changed.
    package var isOverflow: Bool { has(IN_Q_OVERFLOW) }

    package var description: String {
        let names: [(Int32, String)] = [
            (IN_MODIFY, "MODIFY"), (IN_ATTRIB, "ATTRIB"), (IN_CLOSE_WRITE, "CLOSE_WRITE"), (IN_MOVED_FROM, "MOVED_FROM"),
            (IN_MOVED_TO, "MOVED_TO"), (IN_CREATE, "CREATE"), (IN_DELETE, "DELETE"), (IN_DELETE_SELF, "DELETE_SELF"),
            (IN_MOVE_SELF, "MOVE_SELF"), (IN_UNMOUNT, "UNMOUNT"), (IN_Q_OVERFLOW, "Q_OVERFLOW"), (IN_IGNORED, "IGNORED"),
        ]
        let flags = names.filter { has($0.0) }.map(\.1).joined(separator: "|")
        return "\(watch) \(flags)\(name.isEmpty ? "" : " \(name)")"
    }
}

/// Cuts the bytes read from an inotify descriptor into events: a 16-byte header (watch, mask, cookie, name length,
/// in the machine's byte order), then the name, padded with NULs to the length given.
package struct InotifyEventDecoder: NIOSingleStepByteToMessageDecoder {
    package typealias InboundOut = InotifyEvent

    static let headerSize = 16

    package init() {}

    package mutating func decode(buffer: inout ByteBuffer) throws -> InotifyEvent? {
        let start = buffer.readerIndex
        guard let watch = buffer.getInteger(at: start, endianness: .host, as: Int32.self),
            let mask = buffer.getInteger(at: start + 4, endianness: .host, as: UInt32.self),
            let cookie = buffer.getInteger(at: start + 8, endianness: .host, as: UInt32.self),
            let length = buffer.getInteger(at: start + 12, endianness: .host, as: UInt32.self),
            buffer.readableBytes >= Self.headerSize + Int(length)
        else { return nil }
        buffer.moveReaderIndex(forwardBy: Self.headerSize)
        let name = buffer.readBytes(length: Int(length)) ?? []
        return InotifyEvent(
            watch: watch, mask: mask, cookie: cookie, name: String(decoding: name.prefix { $0 != 0 }, as: UTF8.self))
    }

    package mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> InotifyEvent? {
        try decode(buffer: &buffer)
    }
}
