import DepotCore

@testable import DepotSources

extension FileText {
    /// The whole text of `collection` in one array, and its digest: the file as a removal writes it, for the tests.
    static func bytes(of collection: ItemCollection) -> (bytes: [UInt8], digest: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(collection.jsonByteCount + 2 * collection.count + 4)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { buffer.deallocate() }
        let digest = write(
            collection, through: buffer,
            to: {
                bytes.append(contentsOf: $0)
                return true
            })
        guard let digest else { preconditionFailure("an array takes every piece, so the digest is the whole text's") }
        return (bytes, digest)
    }
}
