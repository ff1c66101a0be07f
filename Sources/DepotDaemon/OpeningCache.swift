import DepotCache
import DepotCore
import Foundation

/// The on-disk cache while it opens: the open (with its integrity check, which reads the whole file) runs in
/// the background, so the socket accepts and reads answer at once; the repository's first cache call waits
/// for it. A cache that cannot be opened acts as an empty one (the open already logged why).
struct OpeningCache: CollectionCache {
    let opening: Task<ItemCache?, Never>

    init(_ open: @escaping @Sendable () async -> ItemCache?) {
        opening = Task { await open() }
    }

    func read() async throws -> CachedCollection? {
        try await opening.value?.read()
    }

    func save(_ collection: CachedCollection) async throws {
        try await opening.value?.save(collection)
    }

    @discardableResult
    func remove(id: String) async throws -> Bool {
        try await opening.value?.remove(id: id) ?? false
    }

    @discardableResult
    func remove(id: String, fetchedAt: Date, version: SourceVersion?) async throws -> Bool {
        try await opening.value?.remove(id: id, fetchedAt: fetchedAt, version: version) ?? false
    }

    func clear() async throws {
        try await opening.value?.clear()
    }

    func discard() async throws {
        try await opening.value?.discard()
    }

    /// Closes the file once it is open, so the next start finds no write-ahead log to recover.
    func close() async throws {
        try await opening.value?.close()
    }
}
