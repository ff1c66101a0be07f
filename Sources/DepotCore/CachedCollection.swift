#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
import Foundation
#endif

/// One successful load as the cache keeps it: the items in the source's order, byte for byte, with when they
/// were fetched, the source's version validators, and which source and id field they came from.
public struct CachedCollection: Sendable, Equatable {
    /// The items, each the compact JSON text the source gave, in order.
    public var items: ItemCollection
    /// When the source sent this list (kept to the millisecond).
    public var fetchedAt: Date
    /// The source's ETag and Last-Modified for this list, for a conditional request on the next load.
    public var version: SourceVersion?
    /// The source the list came from, as configured (`file:/srv/items.json`, or a URL without credentials).
    /// A cache written for one source must not be served for another: compare before using it.
    public var source: String
    /// The member the item ids were read from; ids read with another field would not match.
    public var idField: String

    public init(items: ItemCollection, fetchedAt: Date, version: SourceVersion?, source: String, idField: String) {
        self.items = items
        self.fetchedAt = fetchedAt
        self.version = version
        self.source = source
        self.idField = idField
    }

    /// True when this list was cached for `source` with ids read from `idField`, so it may stand in for
    /// that source's answer.
    public func belongs(to source: String, idField: String) -> Bool {
        self.source == source && self.idField == idField
    }
}
