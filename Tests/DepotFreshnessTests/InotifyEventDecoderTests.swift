import DepotFreshness
import Glibc
import NIOCore
import Testing

@Suite("InotifyEventDecoder: the kernel's records, cut into events")
struct InotifyEventDecoderTests {
    /// A record as the kernel writes it: the header in the machine's byte order, then the name padded with NULs.
    static func record(watch: Int32, mask: Int32, cookie: UInt32 = 0, name: String = "", padding: Int = 0) -> [UInt8] {
        var buffer = ByteBuffer()
        let nameBytes = name.isEmpty ? [] : Array(name.utf8) + Array(repeating: 0, count: 1 + padding)
        buffer.writeInteger(watch, endianness: .host)
        buffer.writeInteger(UInt32(bitPattern: mask), endianness: .host)
        buffer.writeInteger(cookie, endianness: .host)
        buffer.writeInteger(UInt32(nameBytes.count), endianness: .host)
        buffer.writeBytes(nameBytes)
        return Array(buffer.readableBytesView)
    }

    static func decodeAll(_ chunks: [[UInt8]]) throws -> [InotifyEvent] {
        var decoder = InotifyEventDecoder()
        var buffer = ByteBuffer()
        var events: [InotifyEvent] = []
        for chunk in chunks {
            buffer.writeBytes(chunk)
            while let event = try decoder.decode(buffer: &buffer) { events.append(event) }
        }
        return events
    }

    @Test("several records in one read, names unpadded; an overflow has no watch and no name")
    func records() throws {
        let bytes =
            Self.record(watch: 1, mask: IN_CLOSE_WRITE, name: "items.json", padding: 5)
            + Self.record(watch: 1, mask: IN_MOVED_TO, cookie: 42, name: "x")
            + Self.record(watch: -1, mask: IN_Q_OVERFLOW)
        let events = try Self.decodeAll([bytes])
        #expect(
            events == [
                InotifyEvent(watch: 1, mask: UInt32(IN_CLOSE_WRITE), name: "items.json"),
                InotifyEvent(watch: 1, mask: UInt32(IN_MOVED_TO), cookie: 42, name: "x"),
                InotifyEvent(watch: -1, mask: UInt32(IN_Q_OVERFLOW)),
            ])
        #expect(events[2].isOverflow)
    }

    @Test("a record cut anywhere waits for the rest")
    func cut() throws {
        let bytes = Self.record(watch: 3, mask: IN_DELETE, name: "items.json", padding: 3)
        for cut in 1..<bytes.count {
            #expect(
                try Self.decodeAll([Array(bytes[..<cut]), Array(bytes[cut...])]) == [
                    InotifyEvent(watch: 3, mask: UInt32(IN_DELETE), name: "items.json")
                ])
        }
    }
}
