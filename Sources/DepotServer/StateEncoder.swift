import DepotCore
import DepotJSON
import NIOCore

/// The wire form of a published state:
/// `{"seq":N,"status":"idle"|"loading"|"success"|"failure", …}`; a success adds
/// `"origin":"source"|"cache"|"memory","fetchedAt":"<RFC 3339>","stale":false,"items":[…]` (the short members
/// first, so a reader sees them before a long list), a failure adds `"error":{"code":…,"message":…}`.
///
/// Items are already compact JSON, so encoding a success state is one pass of copies into one buffer.
public enum StateEncoder {
    public static func encode(_ published: PublishedState, allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        let itemBytes = published.state.items?.items.reduce(0) { $0 + $1.json.count + 1 } ?? 0
        var buffer = allocator.buffer(capacity: 160 + itemBytes)
        buffer.writeStaticString("{\"seq\":")
        buffer.writeString(String(published.seq))
        buffer.writeStaticString(",\"status\":\"")
        buffer.writeString(published.state.status.rawValue)
        buffer.writeStaticString("\"")
        switch published.state {
        case .idle, .loading:
            break
        case .success(let collection, let provenance):
            buffer.writeStaticString(",\"origin\":\"")
            buffer.writeString(provenance.origin.rawValue)
            buffer.writeStaticString("\",\"fetchedAt\":\"")
            buffer.writeString(RFC3339.string(from: provenance.fetchedAt))
            buffer.writeStaticString(provenance.stale ? "\",\"stale\":true" : "\",\"stale\":false")
            buffer.writeStaticString(",\"items\":[")
            for (index, item) in collection.items.enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
                buffer.writeBytes(item.json)
            }
            buffer.writeStaticString("]")
        case .failure(let error):
            buffer.writeStaticString(",\"error\":{\"code\":")
            buffer.writeString(String(error.code.rawValue))
            buffer.writeStaticString(",\"message\":")
            JSONWriter.writeString(error.message, to: &buffer)
            buffer.writeStaticString("}")
        }
        buffer.writeStaticString("}")
        return buffer
    }
}
