/// Where a PostgreSQL source's reads may go among its replicas, as a value the source keeps under a lock: what a
/// replica must have replayed for a read from it to be taken, which replica to pass over once, and where reads went last.
///
/// A read from a replica is taken only when the replica has reached `required` and the revision the items held are at:
/// so depotd never goes back in time, and reads its own writes — a catch-up after a write is read from the primary
/// until a replica has replayed it.
package struct ReplicaReads: Sendable {
    /// The revision a read must reflect at least: the newest depotd wrote, or was woken for.
    package private(set) var required: Int64 = 0
    /// Replicas found behind, or failing, on their last read: passed over once, then tried again.
    private var skipped: Set<Int> = []
    /// Where reads went last: a replica's or the primary's address.
    package private(set) var reader: String?
    /// How far behind its primary the replica read last was; nil after a read from the primary.
    package private(set) var lag: Duration?

    package init() {}

    /// Raises `required` to `revision` (never lowers it).
    package mutating func require(_ revision: Int64) {
        required = max(required, revision)
    }

    /// Whether replica `index` may be read now; one passed over (`skipOnce`) is not, this once.
    package mutating func mayRead(_ index: Int) -> Bool {
        skipped.remove(index) == nil
    }

    /// Passes replica `index` over at the next read: it was behind, or failed.
    package mutating func skipOnce(_ index: Int) {
        skipped.insert(index)
    }

    /// Records that a read went to `reader`, `lag` behind its primary (nil: the primary): true when the last one went
    /// elsewhere.
    package mutating func read(from reader: String, lag: Duration? = nil) -> Bool {
        defer { (self.reader, self.lag) = (reader, lag) }
        return self.reader != reader
    }
}
