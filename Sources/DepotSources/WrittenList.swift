import DepotCore
import DepotPlatform

/// The list a file source last wrote, with the stamp of the file it wrote and the digest of its bytes: while the
/// file still has that stamp, its content is that list, and a removal need not read and parse it again (at
/// 100,000 items, a parse of 20 MB on every removal, competing with the fan-out for the CPU). Any other stamp — the
/// file edited, replaced or touched since — and the file is read again.
final class WrittenList: Sendable {
    struct Written: Sendable {
        let items: ItemCollection
        /// `ContentDigest.of` the bytes written.
        let digest: String
    }

    private let written = Locked<(stamp: FileStamp, idField: String, content: Written)?>(nil)

    /// The list written and its digest, if the file still has `stamp` and the ids were read from `idField`.
    func content(ifStill stamp: FileStamp?, idField: String) -> Written? {
        written.withLock { written in
            guard let written, let stamp, written.stamp == stamp, written.idField == idField else { return nil }
            return written.content
        }
    }

    /// Remembers `items` (whose bytes have `digest`) as the content of the file with `stamp`; forgets when there is
    /// no stamp.
    func remember(_ items: ItemCollection, digest: String, stamp: FileStamp?, idField: String) {
        written.withLock { $0 = stamp.map { ($0, idField, Written(items: items, digest: digest)) } }
    }

    /// Forgets what was written: the file may hold anything now (a write failed part way).
    func forget() {
        written.withLock { $0 = nil }
    }
}
