#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
import Foundation
#endif

/// Where the items of a success state come from and how fresh they are, so a client can tell a list the
/// source just gave from one read back from the disk cache after the source failed.
public struct Provenance: Sendable, Equatable {
    public enum Origin: String, Sendable, CaseIterable {
        /// The source gave these items (or confirmed them unchanged) in this load or removal.
        case source
        /// Read from the on-disk cache: the last list the source gave, possibly in an earlier run.
        case cache
        /// Derived in memory from items held: optimistic writes not yet confirmed, or a removal whose refetch failed.
        case memory
    }

    public var origin: Origin
    /// When the source gave the list these items come from.
    public var fetchedAt: Date
    /// True when the source was asked and failed, and these items stand in for its answer.
    public var stale: Bool
    /// The position in the source's change log these items reflect (a PostgreSQL source), so two daemons' states
    /// can be compared: the same items have the same revision everywhere. nil for sources without a log, and for
    /// items derived in memory (an optimistic removal), which no position describes.
    public var revision: Int64?
    /// Why the items are stale, in words a user can act on (the source's error); nil when they are not.
    public var staleReason: String?
    /// How many optimistic writes the items show that the source has not confirmed yet (each put, patch, removal or
    /// batch counts one); 0 when they are all the source's.
    public var pending: Int

    public init(
        origin: Origin, fetchedAt: Date, stale: Bool = false, revision: Int64? = nil, staleReason: String? = nil, pending: Int = 0
    ) {
        self.origin = origin
        self.fetchedAt = fetchedAt
        self.stale = stale
        self.revision = revision
        self.staleReason = stale ? staleReason : nil
        self.pending = pending
    }

    /// Items the source gave just now, at `revision` when it keeps a change log.
    public static func source(at date: Date, revision: Int64? = nil) -> Provenance {
        Provenance(origin: .source, fetchedAt: date, revision: revision)
    }

    /// Items derived in memory from these ones: same fetch time and staleness, no revision.
    public var derived: Provenance {
        Provenance(origin: .memory, fetchedAt: fetchedAt, stale: stale, staleReason: staleReason)
    }

    /// The same provenance, showing `count` pending writes.
    public func pending(_ count: Int) -> Provenance {
        var provenance = self
        provenance.pending = count
        return provenance
    }

    /// The same items, marked stale: the source can no longer be asked (`reason`: its connection is lost).
    public func markedStale(because reason: String) -> Provenance {
        var provenance = self
        provenance.stale = true
        provenance.staleReason = reason
        return provenance
    }
}
