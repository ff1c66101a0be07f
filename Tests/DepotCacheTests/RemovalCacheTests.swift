import DepotCache
import DepotCore
import DepotJSON
import DepotPlatform
import DepotTestSupport
import Foundation
import Testing

/// Counts what the repository asks of a real cache, so a test can tell one dropped row from a rewritten list.
final class CountingCache: CollectionCache {
    let cache: ItemCache
    let saves = Locked(0)
    let removals = Locked(0)
    /// Changes applied row by row, and whether each could be.
    let applications = Locked<[Bool]>([])

    init(_ cache: ItemCache) {
        self.cache = cache
    }

    func read() async throws -> CachedCollection? { try await cache.read() }

    func save(_ collection: CachedCollection) async throws {
        saves.withLock { $0 += 1 }
        try await cache.save(collection)
    }

    func remove(id: String) async throws -> Bool {
        removals.withLock { $0 += 1 }
        return try await cache.remove(id: id)
    }

    func remove(id: String, fetchedAt: Date, version: SourceVersion?) async throws -> Bool {
        removals.withLock { $0 += 1 }
        return try await cache.remove(id: id, fetchedAt: fetchedAt, version: version)
    }

    func apply(to collection: CachedCollection, from previous: SourceVersion?, changedIDs: [String], removedIDs: [String]) async throws -> Bool {
        let applied = try await cache.apply(to: collection, from: previous, changedIDs: changedIDs, removedIDs: removedIDs)
        applications.withLock { $0.append(applied) }
        return applied
    }

    func clear() async throws { try await cache.clear() }

    func discard() async throws { try await cache.discard() }
}

/// A real cache whose changes fail, as on a full disk: what the repository does then.
final class FullDiskCache: CollectionCache {
    struct DiskFull: Error {}
    let cache: ItemCache
    let failing = Locked(false)

    init(_ cache: ItemCache) {
        self.cache = cache
    }

    func read() async throws -> CachedCollection? { try await cache.read() }
    func save(_ collection: CachedCollection) async throws { try await cache.save(collection) }

    func apply(to collection: CachedCollection, from previous: SourceVersion?, changedIDs: [String], removedIDs: [String]) async throws -> Bool {
        if failing.withLock({ $0 }) { throw DiskFull() }
        return try await cache.apply(to: collection, from: previous, changedIDs: changedIDs, removedIDs: removedIDs)
    }

    func remove(id: String) async throws -> Bool {
        if failing.withLock({ $0 }) { throw DiskFull() }
        return try await cache.remove(id: id)
    }

    func remove(id: String, fetchedAt: Date, version: SourceVersion?) async throws -> Bool {
        if failing.withLock({ $0 }) { throw DiskFull() }
        return try await cache.remove(id: id, fetchedAt: fetchedAt, version: version)
    }

    func clear() async throws {
        if failing.withLock({ $0 }) { throw DiskFull() }
        try await cache.clear()
    }

    /// As on a read-only file system: the files cannot be deleted either.
    let readOnly = Locked(false)

    func discard() async throws {
        if readOnly.withLock({ $0 }) { throw DiskFull() }
        try await cache.discard()
    }
}

@Suite("A wipe or removal the cache cannot take never comes back from it")
struct UndoableCacheChangeTests {
    @Test(
        "the cache's files are deleted instead, a restart finds an empty cache, and the next list the source gives makes a new one",
        arguments: ["wipe", "remove"])
    func discarded(change: String) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("cache.sqlite")
        let source = TestSource(count: 4)
        let cache = FullDiskCache(try await ItemCache.open(at: path, logger: quietLogger))
        let repository = Repository(source: source, cache: cache, logger: quietLogger).running()
        _ = try await repository.load().result.get()
        #expect(try await cache.read()?.items.count == 4)
        cache.failing.withLock { $0 = true }
        if change == "wipe" {
            _ = try await repository.wipe().result.get()
        } else {
            _ = try await repository.remove(id: "2").result.get()
        }
        #expect(!FileManager.default.fileExists(atPath: path), "the files are gone")
        #expect(try await cache.read() == nil, "and nothing is read from it while depotd runs")
        let reopened = try await ItemCache.open(at: path, logger: quietLogger)
        #expect(try await reopened.read() == nil, "a restart starts with an empty cache: the wiped or removed items never come back")
        try reopened.close()
        try ItemCache.deleteFiles(at: path)

        // The next whole list the source gives goes into a new cache, for the next start to begin with.
        cache.failing.withLock { $0 = false }
        _ = try await repository.load().result.get()
        await repository.cacheSettled()
        let listed = try #require(repository.current.state.items?.items.map(\.id))
        #expect(try await cache.read()?.items.items.map(\.id) == listed)
        let restarted = try await ItemCache.open(at: path, logger: quietLogger)
        #expect(try await restarted.read()?.items.items.map(\.id) == listed)
    }

    @Test(
        "when the files cannot be deleted either (a read-only state directory), the call fails with storageFailed, saying what is left",
        arguments: ["wipe", "remove"])
    func neitherChangedNorDeleted(change: String) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("cache.sqlite")
        let cache = FullDiskCache(try await ItemCache.open(at: path, logger: quietLogger))
        let repository = Repository(source: TestSource(count: 4), cache: cache, logger: quietLogger).running()
        _ = try await repository.load().result.get()
        cache.failing.withLock { $0 = true }
        cache.readOnly.withLock { $0 = true }
        let result = change == "wipe" ? await repository.wipe().result : await repository.remove(id: "2").result
        guard case .failure(let failure) = result else {
            Issue.record("expected storageFailed, got \(result)")
            return
        }
        #expect(failure.kind == .storageFailed)
        #expect(failure.message.contains("after a restart it would serve what it holds; make the state directory writable"), "\(failure.message)")
        #expect(failure.state == repository.current, "data is the state published: the change stands in memory")
        #expect(failure.state.state.items?.count == (change == "wipe" ? nil : 3))
        // Once the directory can be written again, the same call succeeds.
        cache.failing.withLock { $0 = false }
        cache.readOnly.withLock { $0 = false }
        if change == "wipe" {
            _ = try await repository.wipe().result.get()
        } else {
            _ = try await repository.load().result.get()
            _ = try await repository.remove(id: "3").result.get()
        }
    }
}

@Suite("A removal keeps the on-disk cache in step with one row, not a new list", .timeLimit(.minutes(1)))
struct RemovalCacheTests {
    static func withRepository(_ body: (TestSource, CountingCache, Repository) async throws -> Void) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let source = TestSource(count: 4)
        let cache = CountingCache(try await ItemCache.open(at: directory.file("cache.sqlite"), logger: quietLogger))
        let clock = Locked(Date(timeIntervalSince1970: 1_700_000_000))
        let repository = Repository(source: source, cache: cache, now: { clock.withLock { $0 } }, logger: quietLogger).running()
        try await body(source, cache, repository)
    }

    @Test(
        "the source's list is the held one less the item: one row dropped, the fetch time and version updated",
        arguments: [TestSource.DeletionAnswer.remaining, .relist])
    func oneRow(answer: TestSource.DeletionAnswer) async throws {
        try await Self.withRepository { source, cache, repository in
            source.deletionAnswer = answer
            source.version = SourceVersion(etag: #""v1""#)
            _ = try await repository.load().result.get()
            source.version = SourceVersion(etag: #""v2""#)
            let removed = try await repository.remove(id: "2", optimistic: true).result.get()
            #expect(cache.saves.withLock { $0 } == 1, "the load's save only")
            #expect(cache.removals.withLock { $0 } == 1)
            let kept = try #require(try await cache.cache.read())
            #expect(kept.items == removed.state.items)
            #expect(kept.version == (answer == .relist ? SourceVersion(etag: #""v2""#) : nil), "what the source gave with the list")
        }
    }

    @Test("the source changed in other ways too: the whole list is saved")
    func changedOtherwise() async throws {
        try await Self.withRepository { source, cache, repository in
            source.deletionAnswer = .remaining
            _ = try await repository.load().result.get()
            source.items.append(["id": 5, "name": "item 5"])
            let removed = try await repository.remove(id: "1").result.get()
            #expect(cache.saves.withLock { $0 } == 2)
            #expect(try await cache.cache.read()?.items == removed.state.items)
            #expect(removed.state.items?.items.map(\.id) == ["2", "3", "4", "5"])
        }
    }

    @Test("removed (nothing said of the rest): the row is dropped, the list's fetch time stays")
    func removedOnly() async throws {
        try await Self.withRepository { source, cache, repository in
            source.deletionAnswer = .removed
            let loaded = try await repository.load().result.get()
            _ = try await repository.remove(id: "4").result.get()
            let kept = try #require(try await cache.cache.read())
            #expect(kept.items.items.map(\.id) == ["1", "2", "3"])
            #expect(kept.fetchedAt == loaded.state.provenance?.fetchedAt)
            #expect(cache.saves.withLock { $0 } == 1)
        }
    }
}
