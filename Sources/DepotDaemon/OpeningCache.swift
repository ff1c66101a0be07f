import DepotCache
import DepotCore
import DepotPlatform
import Foundation
import ServiceLifecycle

/// The on-disk cache while it opens: the open (with its integrity check, which reads the whole file) runs as this
/// service's work, in the background, so the socket accepts and reads answer at once; the repository's first cache
/// call waits for it. A cache that cannot be opened reads as empty (the open already logged why); but its files may
/// still hold a list (a read-only state directory), so a wipe or removal then fails until they are deleted — the
/// repository deletes them (`discard`), or fails the call when it cannot, rather than answer done and let a restart
/// serve what it removed.
final class OpeningCache: CollectionCache, Service {
    private let opening = Eventual<ItemCache?>()
    private let open: @Sendable () async -> ItemCache?
    /// Where the cache's files are.
    let path: String

    init(path: String, _ open: @escaping @Sendable () async -> ItemCache?) {
        self.path = path
        self.open = open
    }

    /// Opens the cache, hands it to the calls waiting for it, and stays until shutdown (closing the cache is the
    /// daemon's last step, once every service has stopped).
    func run() async throws {
        opening.resolve(await open())
        try? await gracefulShutdown()
    }

    /// The error for a change to a cache that could not be opened but whose files are there.
    private struct NotOpen: Error, CustomStringConvertible {
        let path: String
        var description: String { "the cache \(path) could not be opened, and its files hold the list from before" }
    }

    /// The open cache; nil when it could not be opened and left no file; NotOpen when it left files.
    private func openCache() async throws -> ItemCache? {
        if let cache = try await opening.value { return cache }
        guard ItemCache.filesExist(at: path) else { return nil }
        throw NotOpen(path: path)
    }

    func read() async throws -> CachedCollection? {
        try await opening.value?.read()
    }

    func save(_ collection: CachedCollection) async throws {
        try await opening.value?.save(collection)
    }

    func apply(
        to collection: CachedCollection, from previous: SourceVersion?, changedIDs: [String], removedIDs: [String]
    ) async throws -> Bool {
        try await openCache()?.apply(to: collection, from: previous, changedIDs: changedIDs, removedIDs: removedIDs) ?? false
    }

    @discardableResult
    func remove(id: String) async throws -> Bool {
        try await openCache()?.remove(id: id) ?? false
    }

    @discardableResult
    func remove(id: String, fetchedAt: Date, version: SourceVersion?) async throws -> Bool {
        try await openCache()?.remove(id: id, fetchedAt: fetchedAt, version: version) ?? false
    }

    func clear() async throws {
        try await openCache()?.clear()
    }

    func discard() async throws {
        if let cache = try await opening.value {
            try await cache.discard()
        } else {
            try ItemCache.deleteFiles(at: path)
        }
    }

    /// Closes the file once it is open, so the next start finds no write-ahead log to recover.
    func close() async throws {
        try await opening.value?.close()
    }
}
