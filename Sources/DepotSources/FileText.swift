import DepotCore

/// The text a file source writes for a collection — a JSON array with one item per line, each item its held bytes —
/// made in pieces through a buffer that is reused, with the digest of the whole. A rewrite of a 20 MB file then
/// neither allocates 20 MB nor faults it in and unmaps it again (whose TLB shootdowns stop every thread of the
/// process, the event loops too), and the copies stay in the cache.
enum FileText {
    /// Hands `emit` the text of `collection` in pieces of at most `buffer.count` bytes (an item longer than the
    /// buffer goes as a piece of its own), stopping at the first piece `emit` refuses; the digest of the pieces
    /// handed, which is that of the whole text when every piece was taken, else nil.
    static func write(
        _ collection: ItemCollection, through buffer: UnsafeMutableRawBufferPointer, to emit: (UnsafeRawBufferPointer) -> Bool
    ) -> String? {
        precondition(buffer.count >= 4, "a file text's buffer holds at least its separators")
        var digest = ContentDigest.Running()
        var used = 0
        func flush() -> Bool {
            guard used > 0 else { return true }
            let piece = UnsafeRawBufferPointer(rebasing: buffer[0..<used])
            used = 0
            digest.add(piece)
            return emit(piece)
        }
        func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
            if used + bytes.count > buffer.count {
                guard flush() else { return false }
                if bytes.count > buffer.count {
                    digest.add(bytes)
                    return emit(bytes)
                }
            }
            UnsafeMutableRawBufferPointer(rebasing: buffer[used..<(used + bytes.count)]).copyMemory(from: bytes)
            used += bytes.count
            return true
        }
        func append(_ text: StaticString) -> Bool {
            append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        guard append("[\n") else { return nil }
        var first = true
        for item in collection.items {
            if !first { guard append(",\n") else { return nil } }
            first = false
            guard item.json.withUnsafeBytes({ append($0) }) else { return nil }
        }
        if !first { guard append("\n") else { return nil } }
        guard append("]\n"), flush() else { return nil }
        return digest.finish()
    }
}
