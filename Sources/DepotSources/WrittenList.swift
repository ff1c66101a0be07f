import DepotCore
import DepotPlatform

/// The list a file source last wrote, with the stamp of the file it wrote: while the file still has that
/// stamp, its content is that list, and a removal need not read and parse it again (at 100,000 items, a parse
/// of 20 MB on every removal, competing with the fan-out for the CPU). Any other stamp — the file edited,
/// replaced or touched since — and the file is read again.
final class WrittenList: Sendable {
    private let written = Locked<(stamp: FileStamp, idField: String, items: ItemCollection)?>(nil)

    /// The list written, if the file still has `stamp` and its ids were read from `idField`.
    func items(ifStill stamp: FileStamp?, idField: String) -> ItemCollection? {
        written.withLock { written in
            guard let written, let stamp, written.stamp == stamp, written.idField == idField else { return nil }
            return written.items
        }
    }

    /// Remembers `items` as the content of the file with `stamp`; forgets when there is no stamp.
    func remember(_ items: ItemCollection, stamp: FileStamp?, idField: String) {
        written.withLock { $0 = stamp.map { ($0, idField, items) } }
    }
}
