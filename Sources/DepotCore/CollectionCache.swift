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
    /// Drops the list kept.
    func clear() async throws
}
