/// Where `JSONWriter` puts bytes. `Array<UInt8>` conforms here; NIO's `ByteBuffer` conforms in another
/// module, so this target needs no dependencies.
public protocol JSONOutput {
    mutating func writeJSONByte(_ byte: UInt8)
    mutating func writeJSONBytes(_ bytes: UnsafeRawBufferPointer)
}

extension Array: JSONOutput where Element == UInt8 {
    @inlinable
    public mutating func writeJSONByte(_ byte: UInt8) {
        append(byte)
    }

    @inlinable
    public mutating func writeJSONBytes(_ bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }
}
