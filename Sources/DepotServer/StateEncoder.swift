import DepotCore
import DepotJSON
import NIOCore

/// The wire form of a published state:
/// `{"seq":N,"status":"idle"|"loading"|"success"|"failure","items":[…],"error":{"code":…,"message":…}}`,
/// with `items` only on success and `error` only on failure.
///
/// Items are already compact JSON, so encoding a success state is one pass of copies into one buffer.
public enum StateEncoder {
    public static func encode(_ published: PublishedState, allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        let itemBytes = published.state.items?.items.reduce(0) { $0 + $1.json.count + 1 } ?? 0
        var buffer = allocator.buffer(capacity: 64 + itemBytes)
        buffer.writeStaticString("{\"seq\":")
        buffer.writeString(String(published.seq))
        buffer.writeStaticString(",\"status\":\"")
        buffer.writeString(published.state.status.rawValue)
        buffer.writeStaticString("\"")
        switch published.state {
        case .idle, .loading:
            break
        case .success(let collection):
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
