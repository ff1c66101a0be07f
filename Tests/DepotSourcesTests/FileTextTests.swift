import DepotCore
import DepotTestSupport
import Testing

@testable import DepotSources

@Suite("FileText: a file source's text made in pieces through a reused buffer, equal to the text made whole")
struct FileTextTests {
    /// The text as one join of the items, the model the pieces must add up to.
    static func joined(_ items: [Item]) -> [UInt8] {
        guard !items.isEmpty else { return Array("[\n]\n".utf8) }
        return Array("[\n".utf8) + Array(items.map(\.json).joined(separator: Array(",\n".utf8))) + Array("\n]\n".utf8)
    }

    static func collection(count: Int, random: inout SplitMix64) throws -> ItemCollection {
        let items = (0..<count).map { index in
            let padding = String(repeating: "x", count: Int.random(in: 0...300, using: &random))
            return Item(id: "\(index)", json: Array(#"{"id":\#(index),"p":"\#(padding)"}"#.utf8))
        }
        return try ItemCollection(items: items)
    }

    @Test("random collections through buffers of 4 bytes to 64 KiB: the same bytes and digest as the whole text", arguments: [4, 7, 64, 333, 65_536])
    func piecesAddUp(bufferSize: Int) throws {
        var random = SplitMix64(seed: UInt64(bufferSize))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 1)
        defer { buffer.deallocate() }
        for count in [0, 1, 2, 3, 50, 400] {
            let collection = try Self.collection(count: count, random: &random)
            var written: [UInt8] = []
            var pieces = 0
            let digest = FileText.write(
                collection, through: buffer,
                to: { piece in
                    #expect(piece.count <= max(bufferSize, 320), "a piece is at most the buffer, or one item longer than it")
                    written.append(contentsOf: piece)
                    pieces += 1
                    return true
                })
            let model = Self.joined(Array(collection.items))
            #expect(written == model)
            #expect(digest == ContentDigest.of(model))
            #expect(FileText.bytes(of: collection).bytes == model)
            if bufferSize == 65_536 { #expect(pieces == (model.count + 65_535) / 65_536) }
        }
    }

    @Test("a piece refused stops the writing: no digest, nothing handed after it")
    func refusedPiece() throws {
        var random = SplitMix64(seed: 9)
        let collection = try Self.collection(count: 200, random: &random)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 1)
        defer { buffer.deallocate() }
        var offered = 0
        let digest = FileText.write(
            collection, through: buffer,
            to: { _ in
                offered += 1
                return offered < 3
            })
        #expect(digest == nil)
        #expect(offered == 3)
    }
}
