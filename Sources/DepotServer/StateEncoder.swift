public import DepotCore
import DepotJSON
import DepotOperators
import DepotPipeline
import DepotPlatform
import DepotWire
public import NIOCore

/// The wire form of a published state:
/// `{"seq":N,"epoch":"…","status":"idle"|"loading"|"success"|"failure", …}`; a success adds
/// `"origin":"source"|"cache"|"memory","fetchedAt":"<RFC 3339>","stale":false,` (`"revision":N,` from a source with a change log)
/// `"pending":N,` `"items":[…]` (the short members
/// first, so a reader sees them before a long list), a failure adds `"error":{"code":…,"message":…}`.
///
/// Items are already compact JSON, so encoding a success state is one pass of copies into one buffer.
/// `WireState` reads it back; the tests hold both to rpc-schema/openrpc.json.
public enum StateEncoder {
    /// How a success state carries its items; the other states are the same in every form.
    public enum Form: Sendable {
        /// `items` in full, as `state`, `get` and snapshot-mode subscriptions send it.
        case snapshot
        /// `count`, then `items` in full: a delta-mode subscription's success state when it sends no delta.
        case countedItems
        /// `count` and no `items`: a delta-mode subscription's success state that comes with a `delta`.
        case countOnly
    }

    /// `epoch` names the run `published.seq` belongs to (`Repository.epoch`).
    public static func encode(
        _ published: PublishedState, epoch: String, form: Form = .snapshot, allocator: ByteBufferAllocator = ByteBufferAllocator()
    ) -> ByteBuffer {
        let itemBytes = form == .countOnly ? 0 : published.state.items.map { $0.jsonByteCount + $0.count } ?? 0
        var buffer = allocator.buffer(capacity: 160 + itemBytes)
        buffer.writeStaticString("{")
        writeKey(StateMember.seq, first: true, to: &buffer)
        buffer.writeString(String(published.seq))
        writeKey(StateMember.epoch, to: &buffer)
        JSONWriter.writeString(epoch, to: &buffer)
        writeKey(StateMember.status, to: &buffer)
        writeQuoted(StateStatus(published.state.status).rawValue, to: &buffer)
        switch published.state {
        case .idle, .loading:
            break
        case .success(let collection, let provenance):
            writeKey(StateMember.origin, to: &buffer)
            writeQuoted(ItemOrigin(provenance.origin).rawValue, to: &buffer)
            writeKey(StateMember.fetchedAt, to: &buffer)
            writeQuoted(RFC3339.string(from: provenance.fetchedAt), to: &buffer)
            writeKey(StateMember.stale, to: &buffer)
            buffer.writeStaticString(provenance.stale ? "true" : "false")
            if let reason = provenance.staleReason {
                writeKey(StateMember.staleReason, to: &buffer)
                JSONWriter.writeString(reason, to: &buffer)
            }
            if let revision = provenance.revision {
                writeKey(StateMember.revision, to: &buffer)
                buffer.writeString(String(revision))
            }
            writeKey(StateMember.pending, to: &buffer)
            buffer.writeString(String(provenance.pending))
            if form != .snapshot {
                writeKey(StateMember.count, to: &buffer)
                buffer.writeString(String(collection.count))
            }
            guard form != .countOnly else { break }
            writeKey(StateMember.items, to: &buffer)
            buffer.writeStaticString("[")
            for (index, item) in collection.items.enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
                buffer.writeBytes(item.json)
            }
            buffer.writeStaticString("]")
        case .failure(let error):
            writeKey(StateMember.error, to: &buffer)
            buffer.writeStaticString("{")
            writeKey(StateMember.Error.code, first: true, to: &buffer)
            buffer.writeString(String(DepotErrorCode.code(for: error.kind)))
            writeKey(StateMember.Error.message, to: &buffer)
            JSONWriter.writeString(error.message, to: &buffer)
            buffer.writeStaticString("}")
        }
        buffer.writeStaticString("}")
        return buffer
    }

    /// `"name":`, after a comma unless it is the object's first member. Member names are plain ASCII.
    static func writeKey(_ name: String, first: Bool = false, to buffer: inout ByteBuffer) {
        if !first { buffer.writeInteger(UInt8(ascii: ",")) }
        writeQuoted(name, to: &buffer)
        buffer.writeInteger(UInt8(ascii: ":"))
    }

    /// A string that needs no escaping (a member name or an enum's raw value), in quotes.
    static func writeQuoted(_ text: String, to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "\""))
        buffer.writeString(text)
        buffer.writeInteger(UInt8(ascii: "\""))
    }
}
