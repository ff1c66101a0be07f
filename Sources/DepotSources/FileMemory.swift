import DepotCore
import DepotPlatform

/// What a file source knows of its file as it last read or wrote it: the items, the digest of the bytes, where each
/// item stands (`FileLayout`), and the file's stamp then. While the file still has that stamp, that is its content: a
/// refresh set off by the source's own write costs a stat, and a write need not read and scan the file again (at
/// 100,000 items, 20 MB on every write, competing with the fan-out for the CPU). Any other stamp — the file edited,
/// replaced or touched since — and the file is read again.
final class FileMemory: Sendable {
    /// The file's content, as read or written.
    struct Content: Sendable {
        let items: ItemCollection
        /// `ContentDigest.of` its bytes.
        let digest: String
        let layout: FileLayout
    }

    private let known = Locked<(stamp: FileStamp, idField: String, content: Content)?>(nil)

    /// The content known, if the file still has `stamp` and the ids were read from `idField`.
    func content(ifStill stamp: FileStamp?, idField: String) -> Content? {
        known.withLock { known in
            guard let known, let stamp, known.stamp == stamp, known.idField == idField else { return nil }
            return known.content
        }
    }

    /// The content known with `digest`, whatever the stamp: the file was touched, or written back as it was.
    func content(withDigest digest: String, idField: String) -> Content? {
        known.withLock { known in
            guard let known, known.content.digest == digest, known.idField == idField else { return nil }
            return known.content
        }
    }

    /// Remembers `content` as the file's while it has `stamp`; forgets when there is no stamp.
    func remember(_ content: Content, stamp: FileStamp?, idField: String) {
        known.withLock { $0 = stamp.map { ($0, idField, content) } }
    }

    /// Forgets the content: the file may hold anything now (a write failed part way).
    func forget() {
        known.withLock { $0 = nil }
    }
}
