import DepotCache
import DepotCore
import DepotJSON
import DepotTestSupport
import Foundation
import Testing

/// The repository's retrieval strategies with a real SQLite cache and the test source: which of memory, cache
/// and source answers, what is published (and marked), and how removals and wipes keep the cache in step.
@Suite("Repository with an on-disk cache: retrieval strategies")
struct RepositoryStrategyTests {
    /// A repository on `source` with a cache in a fresh directory, and the states it publishes.
    struct Setup {
        let source: TestSource
        let cache: ItemCache
        let repository: Repository
        let recorder = StateRecorder()

        /// Each state as `status` or `success[ids] origin(stale)`, for exact comparisons.
        var trace: [String] {
            recorder.states.value.map { published in
                guard let items = published.state.items, let provenance = published.state.provenance else {
                    return published.state.status.rawValue
                }
                let ids = items.items.map(\.id).joined(separator: ",")
                return "success[\(ids)] \(provenance.origin.rawValue)\(provenance.stale ? " stale" : "")"
            }
        }
    }

    static let earlier = Date(timeIntervalSince1970: 1_700_000_000)
    static let later = Date(timeIntervalSince1970: 1_800_000_000)

    /// Runs `body` with a fresh repository on a test source of `count` items and a cache in a temporary
    /// directory; its clock says `earlier`.
    static func withSetup(count: Int = 3, _ body: (Setup) async throws -> Void) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let source = TestSource(count: count)
        let cache = try await ItemCache.open(at: directory.file("cache.sqlite"), logger: quietLogger)
        let repository = Repository(source: source, cache: cache, now: { earlier }, logger: quietLogger).running()
        let setup = Setup(source: source, cache: cache, repository: repository)
        repository.addObserver(setup.recorder)
        try await body(setup)
    }

    /// A second repository (a restart) on the same cache and source; its clock says `later`.
    static func restart(_ setup: Setup) -> Setup {
        let repository = Repository(source: setup.source, cache: setup.cache, now: { later }, logger: quietLogger).running()
        let restarted = Setup(source: setup.source, cache: setup.cache, repository: repository)
        repository.addObserver(restarted.recorder)
        return restarted
    }

    @Test("a load from the source keeps its list, fetch time and version in the cache")
    func loadSaves() async throws {
        try await Self.withSetup { setup in
            setup.source.version = SourceVersion(etag: #""v1""#)
            _ = try await setup.repository.load().result.get()
            let kept = try #require(try await setup.cache.read())
            #expect(kept.items.items.map(\.id) == ["1", "2", "3"])
            #expect(kept.fetchedAt == Self.earlier)
            #expect(kept.version == SourceVersion(etag: #""v1""#))
            #expect(kept.source == "test:memory" && kept.idField == "id")
            #expect(setup.trace == ["idle", "loading", "success[1,2,3] source"])
        }
    }

    @Test("upToDateWithFallback: the source fails, the cached list is published marked stale, and is the answer")
    func fallback() async throws {
        try await Self.withSetup { setup in
            _ = try await setup.repository.load().result.get()
            let restarted = Self.restart(setup)
            setup.source.failNextFetch()
            let answer = try await restarted.repository.load(strategy: .upToDateWithFallback).result.get()
            #expect(restarted.trace == ["idle", "loading", "success[1,2,3] cache stale"])
            #expect(
                answer.state.provenance
                    == Provenance(origin: .cache, fetchedAt: Self.earlier, stale: true, staleReason: "test source is down"),
                "the answer says why the items are stale: the source's error")
        }
    }

    @Test("upToDateWithFallback without a cached list: the failure stands")
    func fallbackWithoutCache() async throws {
        try await Self.withSetup { setup in
            setup.source.failNextFetch()
            let result = await setup.repository.load(strategy: .upToDateWithFallback).result
            #expect(throws: RepositoryError.self) { try result.get() }
            #expect(setup.trace == ["idle", "loading", "failure"])
        }
    }

    @Test("returnMultipleTimes: the cached list at once, then the source's; if the source fails, the cached list again, stale")
    func multipleTimes() async throws {
        try await Self.withSetup { setup in
            _ = try await setup.repository.load().result.get()
            setup.source.items = Array(setup.source.items.prefix(2))

            let restarted = Self.restart(setup)
            let answer = try await restarted.repository.load(strategy: .returnMultipleTimes).result.get()
            #expect(restarted.trace == ["idle", "success[1,2,3] cache", "success[1,2] source"])
            #expect(answer.state.provenance == .source(at: Self.later))
            #expect(setup.source.calls.value.fetchesStarted == 2)

            let again = Self.restart(setup)
            setup.source.failNextFetch()
            _ = try await again.repository.load(strategy: .returnMultipleTimes).result.get()
            #expect(again.trace == ["idle", "success[1,2] cache", "success[1,2] cache stale"])
        }
    }

    @Test("returnMultipleTimes with a version in the cache: the source is asked about it and a 304 keeps the items")
    func multipleTimesConditional() async throws {
        try await Self.withSetup { setup in
            setup.source.version = SourceVersion(etag: #""v1""#)
            _ = try await setup.repository.load().result.get()
            let restarted = Self.restart(setup)
            _ = try await restarted.repository.load(strategy: .returnMultipleTimes).result.get()
            #expect(setup.source.calls.value.versionsAsked == [nil, SourceVersion(etag: #""v1""#)])
            #expect(setup.source.calls.value.unchangedAnswers == 1)
            #expect(restarted.trace == ["idle", "success[1,2,3] cache", "success[1,2,3] source"])
        }
    }

    @Test("fastestAvailable: memory first (nothing published, no source call), then the cache, then the source")
    func fastest() async throws {
        try await Self.withSetup { setup in
            let first = try await setup.repository.load(strategy: .fastestAvailable).result.get()
            #expect(setup.trace == ["idle", "loading", "success[1,2,3] source"])
            let second = try await setup.repository.load(strategy: .fastestAvailable).result.get()
            #expect(second == first, "the state in memory, as published")
            #expect(setup.source.calls.value.fetchesStarted == 1)
            #expect(setup.recorder.states.value.count == 3, "nothing new published")

            let restarted = Self.restart(setup)
            let cached = try await restarted.repository.load(strategy: .fastestAvailable).result.get()
            #expect(restarted.trace == ["idle", "success[1,2,3] cache"])
            #expect(cached.state.provenance == Provenance(origin: .cache, fetchedAt: Self.earlier, stale: false))
            #expect(setup.source.calls.value.fetchesStarted == 1, "the cache answered")
        }
    }

    @Test("a removal keeps the cache in step; an optimistic one is derived in memory first; wipe clears memory and disk")
    func removeAndWipe() async throws {
        try await Self.withSetup { setup in
            _ = try await setup.repository.load().result.get()
            _ = try await setup.repository.remove(id: "2", optimistic: true).result.get()
            #expect(setup.trace.suffix(2) == ["success[1,3] memory", "success[1,3] source"])
            #expect(try await setup.cache.read()?.items.items.map(\.id) == ["1", "3"])

            // The delete succeeds, the refetch fails: the removal stands, and the cache drops the id too.
            setup.source.failNextFetch()
            _ = try await setup.repository.remove(id: "3").result.get()
            #expect(setup.trace.last == "success[1] memory")
            #expect(try await setup.cache.read()?.items.items.map(\.id) == ["1"])

            _ = try await setup.repository.wipe().result.get()
            #expect(try await setup.cache.read() == nil)
            #expect(setup.trace.last == "idle")
        }
    }

    @Test("a cached list of another source or id field is not served")
    func otherSource() async throws {
        try await Self.withSetup { setup in
            try await setup.cache.save(
                CachedCollection(
                    items: try ItemCollection(values: [["id": 9]], idField: "id"),
                    fetchedAt: Self.earlier, version: nil, source: "file:/elsewhere.json", idField: "id"
                ))
            setup.source.failNextFetch()
            let result = await setup.repository.load(strategy: .upToDateWithFallback).result
            #expect(throws: RepositoryError.self) { try result.get() }
            #expect(setup.trace == ["idle", "loading", "failure"])
        }
    }
}
