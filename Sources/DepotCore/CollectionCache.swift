#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
import Foundation
#endif

/// Where the repository keeps the last list the source gave, so a restart or a failing source still has items
/// to show. DepotCache's `ItemCache` (SQLite) is the one depotd uses.
///
/// The repository calls it from its mutations, one at a time; errors are logged and never fail a mutation.
public protocol CollectionCache: Sendable {
    /// The list kept, or nil when there is none.
    func read() async throws -> CachedCollection?
    /// Replaces the list kept, whole.
    func save(_ collection: CachedCollection) async throws
    /// Drops one item from the list kept; false when it was not there.
    @discardableResult
    func remove(id: String) async throws -> Bool
    /// Drops one item from the list kept and records that the rest is what the source gave at `fetchedAt`,
    /// with `version`: a removal the source confirmed costs one row, not a new list. False when it was not there.
    @discardableResult
    func remove(id: String, fetchedAt: Date, version: SourceVersion?) async throws -> Bool
    /// Brings the list kept from `previous` to `collection` row by row, when it is what `previous` names (same
    /// version): the items of `changedIDs` written, those of `removedIDs` dropped, new ones put between their
    /// neighbours; and records `fetchedAt` and `collection`'s version. False, with nothing changed, when it cannot
    /// (another list is kept, or no room between two neighbours): then save the whole list.
    func apply(
        to collection: CachedCollection, from previous: SourceVersion?, changedIDs: [String], removedIDs: [String]
    ) async throws -> Bool
    /// Drops the list kept.
    func clear() async throws
    /// Makes sure the list kept is never read again, when a removal or a wipe could not be applied to it (a full
    /// disk): its files are deleted (which needs no space) and it reads as empty from now on. Throws when even that
    /// fails (a read-only file system), saying what is left on disk.
    func discard() async throws
}
