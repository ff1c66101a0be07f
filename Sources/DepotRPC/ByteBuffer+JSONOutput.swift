public import DepotJSON
public import NIOCore

/// Lets the JSON writer encode straight into the buffers that go to the socket, without an intermediate array.
extension ByteBuffer: JSONOutput {
    @inlinable
    public mutating func writeJSONByte(_ byte: UInt8) {
        writeInteger(byte)
    }

    @inlinable
    public mutating func writeJSONBytes(_ bytes: UnsafeRawBufferPointer) {
        writeBytes(bytes)
    }
}
