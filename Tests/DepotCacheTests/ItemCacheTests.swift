import DepotCache
import DepotCore
import DepotTestSupport
import Foundation
import Testing
import depot_cache_writer

@Suite("ItemCache")
struct ItemCacheTests {
    /// Members in the source's order, unknown members, unusual number literals, non-ASCII text and escapes,
    /// kept byte for byte.
    static let texts = [
        #"{"id":25,"name":"Pikachu","types":["electric"],"weight":6.0E+1}"#,
        #"{"zeta":null,"id":"bé","nested":{"b":[1,2.50,-0],"a":"😀\n"}}"#,
        #"{"id":3,"empty":{},"list":[]}"#,
    ]

    @Test("a new cache has no list")
    func empty() async throws {
        try await withCache { cache, _ async throws in
            #expect(try await cache.read() == nil)
        }
    }

    @Test("items come back byte for byte and in order, with their fetch time, validators, source and id field")
    func roundTrip() async throws {
        try await withCache { cache, _ async throws in
            let saved = cached(try collection(Self.texts))
            try await cache.save(saved)
            let read = try #require(try await cache.read())
            #expect(read == saved)
            #expect(read.items.items.map { String(decoding: $0.json, as: UTF8.self) } == Self.texts)
            #expect(read.items.items.map(\.id) == ["25", "bé", "3"])
            #expect(read.fetchedAt == Date(timeIntervalSince1970: 1_750_000_000.123))
            #expect(read.version == SourceVersion(etag: #"W/"abc""#, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"))
            #expect(read.source == "test:items" && read.idField == "id")
        }
    }

    @Test("a version with neither validator, and an empty list, are kept as such")
    func emptyListWithoutValidators() async throws {
        try await withCache { cache, _ async throws in
            try await cache.save(cached(ItemCollection(), version: .none))
            let read = try #require(try await cache.read())
            #expect(read.items.isEmpty)
            #expect(read.version == nil)
        }
    }

    @Test("a change-log revision is kept with the list, and follows a confirmed removal")
    func revision() async throws {
        try await withCache { cache, _ async throws in
            try await cache.save(cached(try collection(Self.texts), version: SourceVersion(revision: 41)))
            #expect(try await cache.read()?.version == SourceVersion(revision: 41))
            #expect(try await cache.remove(id: "3", fetchedAt: Date(timeIntervalSince1970: 1_800_000_000), version: SourceVersion(revision: 42)))
            let read = try #require(try await cache.read())
            #expect(read.version == SourceVersion(revision: 42))
            #expect(read.items.items.map(\.id) == ["25", "bé"])
        }
    }

    @Test("fetchedAt is kept to the millisecond")
    func millisecond() async throws {
        try await withCache { cache, _ async throws in
            try await cache.save(cached(ItemCollection(), fetchedAt: Date(timeIntervalSince1970: 1_750_000_000.123_456)))
            let read = try #require(try await cache.read())
            #expect(abs(read.fetchedAt.timeIntervalSince1970 - 1_750_000_000.123) < 0.000_001)
        }
    }

    @Test("a save replaces the whole previous list and its metadata")
    func replace() async throws {
        try await withCache { cache, _ async throws in
            try await cache.save(cached(try collection(Self.texts)))
            let second = CachedCollection(
                items: try collection([#"{"id":"x","n":1}"#, #"{"id":25,"n":2}"#]),
                fetchedAt: Date(timeIntervalSince1970: 1_800_000_000),
                version: SourceVersion(etag: "\"2\""),
                source: "file:/srv/other.json",
                idField: "id"
            )
            try await cache.save(second)
            #expect(try await cache.read() == second)
        }
    }

    @Test("remove drops one item and keeps the others in order; an unknown id changes nothing")
    func remove() async throws {
        try await withCache { cache, _ async throws in
            let saved = cached(try collection(Self.texts))
            try await cache.save(saved)
            #expect(try await cache.remove(id: "bé"))
            #expect(try await cache.remove(id: "bé") == false)
            #expect(try await cache.remove(id: "404") == false)
            let read = try #require(try await cache.read())
            #expect(read.items == saved.items.removing(id: "bé"))
            #expect(read.fetchedAt == saved.fetchedAt && read.version == saved.version)
        }
    }

    @Test("remove on a cache without a list is false")
    func removeWithoutList() async throws {
        try await withCache { cache, _ async throws in
            #expect(try await cache.remove(id: "25") == false)
            #expect(try await cache.read() == nil)
        }
    }

    @Test("a list saved after removals gets every item back, even the removed ones")
    func saveAfterRemove() async throws {
        try await withCache { cache, _ async throws in
            let saved = cached(try collection(Self.texts))
            try await cache.save(saved)
            try await cache.remove(id: "25")
            try await cache.save(saved)
            #expect(try await cache.read() == saved)
        }
    }

    @Test("clear forgets the list, and no item's bytes stay in the files")
    func clear() async throws {
        try await withCache { cache, path async throws in
            try await cache.save(cached(try collection(Self.texts)))
            try await cache.clear()
            #expect(try await cache.read() == nil)
            for file in [path, path + "-wal"] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                #expect(bytes.range(of: Data("Pikachu".utf8)) == nil, "\(file) still holds an item")
            }
            try await cache.save(cached(try collection(Self.texts)))
            #expect(try await cache.read()?.items.count == 3)
        }
    }

    @Test("the list survives closing and opening again")
    func reopen() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("cache.sqlite")
        let saved = cached(try collection(Self.texts))
        let first = try await ItemCache.open(at: path, logger: quietLogger)
        try await first.save(saved)
        try await first.remove(id: "3")
        try first.close()
        let second = try await ItemCache.open(at: path, logger: quietLogger)
        #expect(
            try await second.read()
                == CachedCollection(
                    items: saved.items.removing(id: "3"), fetchedAt: saved.fetchedAt, version: saved.version,
                    source: saved.source, idField: saved.idField
                ))
    }

    @Test("the file is in WAL mode")
    func walMode() async throws {
        try await withCache { cache, path async throws in
            try await cache.save(cached(try collection(Self.texts)))
            // Byte 18 of the header is the file format's write version: 2 means WAL.
            let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(20)
            #expect(header[18] == 2 && header[19] == 2)
        }
    }

    @Test("a save leaves the write-ahead log empty, and closing removes it")
    func logKeptSmall() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("cache.sqlite")
        let cache = try await ItemCache.open(at: path, logger: quietLogger)
        let texts = (0..<2_000).map { #"{"id":\#($0),"padding":"\#(String(repeating: "x", count: 200))"}"# }
        try await cache.save(cached(try collection(texts)))
        let log = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
        #expect(log == 0, "a 400 kB list went through the log; a kill now would leave it to recover")
        try cache.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try await ItemCache.open(at: path, logger: quietLogger).read()?.items.count == 2_000)
    }

    @Test("belongs(to:idField:) tells whether a list may stand in for a source")
    func belongs() throws {
        let list = cached(ItemCollection())
        #expect(list.belongs(to: "test:items", idField: "id"))
        #expect(!list.belongs(to: "file:/srv/items.json", idField: "id"))
        #expect(!list.belongs(to: "test:items", idField: "key"))
    }

    @Test("calls from many tasks at once are each applied whole")
    func concurrentCalls() async throws {
        try await withCache { cache, _ async throws in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for generation in 1...8 {
                    group.addTask { try await cache.save(cached(CacheGeneration.items(generation))) }
                    group.addTask { _ = try await cache.read() }
                }
                try await group.waitForAll()
            }
            let read = try #require(try await cache.read())
            let generation = try #require(read.items.items.first.map { Int($0.id.dropFirst().prefix { $0 != "-" })! })
            #expect(read.items == CacheGeneration.items(generation))
        }
    }

    @Test("an error names the file and says what to do")
    func missingDirectory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("missing/cache.sqlite")
        do {
            _ = try await ItemCache.open(at: path, logger: quietLogger)
            Issue.record("opened a cache in a missing directory")
        } catch {
            #expect(error.path == path)
            #expect(error.description.contains("cannot open the cache \(path)"))
            #expect(error.description.contains("move the file away"))
        }
    }
}

@Suite("ItemCache.remove(id:fetchedAt:version:)")
struct ItemCacheStampedRemovalTests {
    @Test("drops the row and records the new fetch time and version, in one transaction")
    func dropsAndStamps() async throws {
        try await withCache { cache, _ in
            try await cache.save(cached(try collection([#"{"id":1}"#, #"{"id":2}"#, #"{"id":3}"#])))
            let later = Date(timeIntervalSince1970: 1_760_000_000.5)
            #expect(try await cache.remove(id: "2", fetchedAt: later, version: SourceVersion(etag: #""v9""#)))
            let kept = try #require(try await cache.read())
            #expect(kept.items.items.map(\.id) == ["1", "3"])
            #expect(kept.fetchedAt == later)
            #expect(kept.version == SourceVersion(etag: #""v9""#))
        }
    }

    @Test("an id the list does not hold changes nothing, not even the fetch time")
    func missingIDChangesNothing() async throws {
        try await withCache { cache, _ in
            let list = cached(try collection([#"{"id":1}"#]))
            try await cache.save(list)
            #expect(!(try await cache.remove(id: "7", fetchedAt: Date(timeIntervalSince1970: 1_760_000_000), version: nil)))
            #expect(try await cache.read() == list)
        }
    }
}
