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
        /// Derived in memory from items held: an optimistic removal, or a removal whose refetch failed.
        case memory
    }

    public var origin: Origin
    /// When the source gave the list these items come from.
    public var fetchedAt: Date
    /// True when the source was asked and failed, and these items stand in for its answer.
    public var stale: Bool

    public init(origin: Origin, fetchedAt: Date, stale: Bool = false) {
        self.origin = origin
        self.fetchedAt = fetchedAt
        self.stale = stale
    }

    /// Items the source gave just now.
    public static func source(at date: Date) -> Provenance {
        Provenance(origin: .source, fetchedAt: date)
    }

    /// Items derived in memory from these ones: same fetch time and staleness.
    public var derived: Provenance {
        Provenance(origin: .memory, fetchedAt: fetchedAt, stale: stale)
    }
}
