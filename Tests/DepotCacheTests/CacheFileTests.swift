import DepotCore
import DepotTestSupport
import Foundation
import GRDB
import Testing
import depot_cache_writer

@testable import DepotCache

/// What opening does with files it did not just create: older schemas, newer ones, and damaged files.
@Suite("ItemCache files")
struct CacheFileTests {
    static let texts = [#"{"id":1,"name":"one"}"#, #"{"id":2,"name":"two"}"#]

    @Test("the schema is at v3, and opening again migrates nothing and keeps the list")
    func currentSchema() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await Self.savedFile(in: directory)
        let database = try DatabaseQueue(path: path)
        #expect(try await database.read { try ItemCacheSchema.migrator.appliedMigrations($0) } == ["v1", "v2", "v3"])
        try database.close()
        #expect(try await ItemCache.open(at: path, logger: quietLogger).read()?.items.count == 2)
    }

    @Test("a file from an older depotd is migrated on open and keeps its list")
    func olderSchema() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await Self.savedFile(in: directory)
        // Play a later depotd whose v4 adds a column: the file written at v3 must gain it and keep its items.
        let later = {
            var migrator = ItemCacheSchema.migrator
            migrator.registerMigration("v4") { db in
                try db.execute(sql: "ALTER TABLE collection ADD COLUMN note TEXT NOT NULL DEFAULT 'migrated'")
            }
            return migrator
        }()
        let v4 = try ItemCache(path: path, logger: quietLogger, migrator: later)
        #expect(try await v4.read()?.items == (try collection(Self.texts)))
        try v4.close()
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        #expect(try await database.read { try String.fetchOne($0, sql: "SELECT note FROM collection") } == "migrated")
        #expect(try await database.read { try later.appliedMigrations($0) } == ["v1", "v2", "v3", "v4"])
    }

    @Test("a file from before digests (v2) gains the column on open, keeps its list and version, and keeps digests from then on")
    func beforeDigests() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("cache.sqlite")
        // The v1 and v2 schemas exactly as released, and GRDB's record of them, written without this depotd's v3.
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1'), ('v2');
                    CREATE TABLE collection (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), source TEXT NOT NULL, idField TEXT NOT NULL,
                        fetchedAtMilliseconds INTEGER NOT NULL, etag TEXT, lastModified TEXT, revision INTEGER);
                    CREATE TABLE item (position INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, json BLOB NOT NULL);
                    INSERT INTO collection VALUES (1, 'test:items', 'id', 1000, '"e1"', NULL, NULL);
                    INSERT INTO item VALUES (1, '1', CAST('{"id":1,"name":"one"}' AS BLOB));
                    """)
        }
        try old.close()

        let cache = try await ItemCache.open(at: path, logger: quietLogger)
        let read = try #require(try await cache.read())
        #expect(read.items.items.map(\.id) == ["1"])
        #expect(read.version == SourceVersion(etag: #""e1""#))
        let digest = "sha256:" + String(repeating: "ab", count: 32)
        try await cache.save(cached(read.items, version: SourceVersion(etag: #""e2""#, digest: digest)))
        #expect(try await cache.read()?.version == SourceVersion(etag: #""e2""#, digest: digest))
        try cache.close()
    }

    @Test("a file from a newer depotd is refused, untouched, with what to do")
    func newerSchema() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = try await Self.savedFile(in: directory)
        let database = try DatabaseQueue(path: path)
        try await database.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v4')") }
        try database.close()

        let log = LogRecorder()
        do {
            _ = try await ItemCache.open(at: path, logger: log.logger())
            Issue.record("opened a cache written by a newer depotd")
        } catch {
            #expect(error.problem == .newerSchema(unknownMigrations: ["v4"]))
            #expect(error.description.contains(path))
            #expect(error.description.contains("newer depotd"))
            #expect(error.description.contains("move the file away"))
        }
        #expect(!TestFiles.entries(directory.path).contains { $0.contains("damaged") })
        let reopened = try DatabaseQueue(path: path)
        defer { try? reopened.close() }
        #expect(try await reopened.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } == 2)
    }

    @Test("a file of garbage is moved aside with a warning, and the cache starts empty")
    func garbage() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("cache.sqlite")
        let garbage = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        TestFiles.write(path, bytes: garbage)
        try await expectSetAside(path, in: directory, keeping: garbage)
    }

    @Test("a database whose pages are damaged is moved aside with a warning, and the cache starts empty")
    func damagedPages() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("cache.sqlite")
        let cache = try await ItemCache.open(at: path, logger: quietLogger)
        try await cache.save(cached(CacheGeneration.items(3)))
        try cache.close()
        // Keep the header (so SQLite takes it for a database) and overwrite the pages after the first.
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count > 3 * 4096)
        for index in 4096..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 131) }
        TestFiles.write(path, bytes: bytes)
        try await expectSetAside(path, in: directory, keeping: bytes)
    }

    @Test("an empty file is taken for a new cache")
    func emptyFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("cache.sqlite", "")
        let cache = try await ItemCache.open(at: path, logger: quietLogger)
        #expect(try await cache.read() == nil)
        try await cache.save(cached(try collection(Self.texts)))
        #expect(try await cache.read()?.items.count == 2)
    }

    /// `cache.sqlite` in `directory`, written and closed by this depotd, holding `texts`.
    private static func savedFile(in directory: TemporaryDirectory) async throws -> String {
        let path = directory.file("cache.sqlite")
        let cache = try await ItemCache.open(at: path, logger: quietLogger)
        try await cache.save(cached(try collection(texts)))
        try cache.close()
        return path
    }

    /// Opens the damaged file at `path` and checks that it was moved aside whole, logged, and replaced by an
    /// empty, working cache.
    private func expectSetAside(_ path: String, in directory: TemporaryDirectory, keeping bytes: [UInt8]) async throws {
        let log = LogRecorder()
        let cache = try await ItemCache.open(at: path, logger: log.logger())
        #expect(try await cache.read() == nil)
        try await cache.save(cached(try collection(Self.texts)))
        #expect(try await cache.read()?.items.count == 2)

        // Lines are `level message key=value …`.
        let warning = try #require(log.all.first { $0.hasPrefix("warning ") })
        #expect(warning.contains("moved aside"))
        #expect(warning.contains(" path=\(path)"))
        let movedTo = try #require(warning.split(separator: " ").first { $0.hasPrefix("movedTo=") }.map { String($0.dropFirst("movedTo=".count)) })
        #expect(movedTo.hasPrefix(path + ".damaged-"))
        let moved = TestFiles.bytes(movedTo)
        #expect(moved == bytes, "the file moved aside has \(moved?.count ?? 0) bytes, not the \(bytes.count) found")
    }
}
