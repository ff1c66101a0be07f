import DepotCore
import DepotJSON
import DepotPlatform
import DepotTestSupport
import Foundation
import Testing

@testable import DepotCache

/// A change from a change log costs the cache the rows it touches, not a new list: updates in place, removals,
/// and additions between their neighbours — and the list read back is the repository's, in order.
@Suite("Changes from a change log keep the on-disk cache in step row by row", .timeLimit(.minutes(1)))
struct ChangesCacheTests {
    static func revision(_ n: Int64) -> SourceVersion { SourceVersion(revision: n)! }

    static func withFollowing(_ body: (TestSource, CountingCache, Repository) async throws -> Void) async throws {
        try await RemovalCacheTests.withRepository { source, cache, repository in
            source.items = ["b", "d", "f"].map { ["id": .string($0)] }
            source.version = Self.revision(1)
            _ = try await repository.load().result.get()
            await repository.cacheSettled()
            try await body(source, cache, repository)
        }
    }

    @Test("updates, removals and additions at the start, between two items and at the end: no save, the same list")
    func rowByRow() async throws {
        try await Self.withFollowing { source, cache, repository in
            source.answerConditionalFetches(with: [
                .changes(
                    SourceChanges(changed: [["id": "a"], ["id": "c"], ["id": "cc"], ["id": "d", "n": 4], ["id": "g"]], removed: ["f"]),
                    version: Self.revision(7))
            ])
            let published = try await repository.follow().result.get()
            await repository.cacheSettled()
            #expect(published.state.items?.items.map(\.id) == ["a", "b", "c", "cc", "d", "g"])
            #expect(cache.saves.withLock { $0 } == 1, "the load's save only")
            #expect(cache.applications.withLock { $0 } == [true])
            let kept = try #require(try await cache.read())
            #expect(kept.items == published.state.items)
            #expect(kept.version == Self.revision(7))
        }
    }

    @Test("a cache holding another version, or no room between two items, takes the whole list instead")
    func fallBack() async throws {
        try await Self.withFollowing { source, cache, repository in
            // Another list in the cache: the changes do not apply to it.
            try await cache.cache.save(cached(try collection([#"{"id":"x"}"#]), version: Self.revision(99)))
            source.answerConditionalFetches(with: [.changes(SourceChanges(removed: ["b"]), version: Self.revision(2))])
            _ = try await repository.follow().result.get()
            await repository.cacheSettled()
            #expect(cache.applications.withLock { $0 } == [false])
            #expect(try await cache.read()?.items.items.map(\.id) == ["d", "f"])
            // 17 additions into the same gap exhaust the 2^16 positions between d and f: the 17th saves the whole list.
            for n in 0..<17 {
                let id = "e" + String(repeating: "z", count: 16 - n)
                source.answerConditionalFetches(with: [.changes(SourceChanges(changed: [["id": .string(id)]]), version: Self.revision(3 + Int64(n)))])
                _ = try await repository.follow().result.get()
            }
            await repository.cacheSettled()
            #expect(cache.applications.withLock { $0 }.suffix(2) == [true, false])
            let kept = try #require(try await cache.read())
            #expect(kept.items == repository.current.state.items)
        }
    }
}
