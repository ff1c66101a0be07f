public import DepotCore
import DepotJSON
import DepotWire
public import NIOCore

/// The wire form of a delta, as the `delta` member of a delta-mode `stateChanged`'s params:
/// `,"delta":{"base":B,"idField":"id","removed":[…],"changed":[…],"added":[{"index":n,"item":{…}}…]}`, written after
/// the State (the leading comma included), so the notification is prefix, State, delta, suffix.
///
/// `idField` names the member that holds each item's id, so a client applies deltas without being told it
/// elsewhere; ids are strings (an integer id as its decimal text), as `remove` and `get` take them.
public enum DeltaEncoder {
    public static func encode(
        _ delta: ItemDelta, base: Int, idField: String, allocator: ByteBufferAllocator = ByteBufferAllocator()
    ) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 96 + delta.payloadBytes)
        buffer.writeStaticString(",\"")
        buffer.writeString(StateNotification.Param.delta)
        buffer.writeStaticString("\":{")
        StateEncoder.writeKey(DeltaMember.base, first: true, to: &buffer)
        buffer.writeString(String(base))
        StateEncoder.writeKey(DeltaMember.idField, to: &buffer)
        JSONWriter.writeString(idField, to: &buffer)
        StateEncoder.writeKey(DeltaMember.removed, to: &buffer)
        writeList(delta.removed, to: &buffer) { id, buffer in JSONWriter.writeString(id, to: &buffer) }
        StateEncoder.writeKey(DeltaMember.changed, to: &buffer)
        writeList(delta.changed, to: &buffer) { item, buffer in buffer.writeBytes(item.json) }
        StateEncoder.writeKey(DeltaMember.added, to: &buffer)
        writeList(delta.added, to: &buffer) { addition, buffer in
            buffer.writeStaticString("{")
            StateEncoder.writeKey(DeltaMember.index, first: true, to: &buffer)
            buffer.writeString(String(addition.index))
            StateEncoder.writeKey(DeltaMember.item, to: &buffer)
            buffer.writeBytes(addition.item.json)
            buffer.writeStaticString("}")
        }
        buffer.writeStaticString("}")
        return buffer
    }

    private static func writeList<Element>(
        _ elements: [Element], to buffer: inout ByteBuffer, _ write: (Element, inout ByteBuffer) -> Void
    ) {
        buffer.writeStaticString("[")
        for (index, element) in elements.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            write(element, &buffer)
        }
        buffer.writeStaticString("]")
    }
}
