public import DepotCore
import DepotPlatform
public import Foundation
import GRDB
import GRDBSQLite
public import Logging

/// The last successful item list, kept on disk so that a restarted depotd has items before the source answers.
///
/// One SQLite file (normally `cache.sqlite` in the state directory) in WAL mode. A save replaces the whole
/// list in one transaction, so after a crash or a `kill -9` at any moment the file holds the previous list or
/// the new one, never a mix. A removal deletes one row; it does not rewrite the list.
///
/// Every call runs on the cache's own thread (a `BlockingPool` of one), to its end, so awaiting one suspends the task without
/// holding a thread of Swift's cooperative pool, and a cancelled caller does not undo a change half made.
public final class ItemCache: Sendable {
    /// The cache file's name in the state directory.
    public static let fileName = "cache.sqlite"

    /// The cache file.
    public let path: String
    /// The database; nil once `discard` deleted its files, until a whole list is saved into a new one.
    private let database: Locked<DatabaseQueue?>
    private let migrator: DatabaseMigrator
    private let logger: Logger
    /// Where every call runs, one at a time: a thread of its own, stopped when the cache is let go.
    private let calls: BlockingPool

    /// `cache.sqlite` in `stateDirectory`.
    public static func defaultPath(in stateDirectory: String) -> String {
        stateDirectory.hasSuffix("/") ? stateDirectory + fileName : stateDirectory + "/" + fileName
    }

    /// Opens the cache at `path`, creating an empty one when there is none, and brings an older file's schema
    /// up to date. Its directory must exist.
    ///
    /// A file that is not an SQLite database, or fails SQLite's integrity check, is moved aside
    /// (`cache.sqlite.damaged-TIMESTAMP`, logged as a warning) and an empty cache is started in its place:
    /// the cache only saves a trip to the source, so depotd keeps working. A file from a newer depotd is left
    /// alone and refused (`ItemCacheError.Problem.newerSchema`), as are files depotd may not read or write.
    public static func open(at path: String, logger: Logger) async throws(ItemCacheError) -> ItemCache {
        let calls = BlockingPool(label: "depot-cache")
        return try await calls.run { () throws(ItemCacheError) in try ItemCache(path: path, logger: logger, calls: calls) }
    }

    /// Opens the cache, blocking the calling thread; `open(at:logger:)` is the same off the cooperative pool.
    /// - Parameters:
    ///   - migrator: the schema's migrations; tests give other ones to play older and newer depotds.
    ///   - calls: the thread its calls run on.
    init(
        path: String, logger: Logger, migrator: DatabaseMigrator = ItemCacheSchema.migrator, calls: BlockingPool = BlockingPool(label: "depot-cache")
    ) throws(ItemCacheError) {
        self.path = path
        self.calls = calls
        self.migrator = migrator
        self.logger = logger
        let opened: DatabaseQueue
        do {
            opened = try Self.openDatabase(path, migrator: migrator)
        } catch {
            guard case .damaged(let reason) = error else { throw error.refusal(path) }
            let setAside = try Self.setAside(path, reason: reason)
            logger.warning(
                "the cache was unreadable and was moved aside; starting with an empty cache",
                metadata: ["path": "\(path)", "movedTo": "\(setAside)", "reason": "\(reason)"]
            )
            do {
                opened = try Self.openDatabase(path, migrator: migrator)
            } catch {
                throw error.refusal(path)
            }
        }
        database = Locked(opened)
    }

    /// The cached list; nil when nothing was saved since the cache was created or cleared.
    public func read() async throws(ItemCacheError) -> CachedCollection? {
        try await access("read", withoutDatabase: nil) { database in
            try database.read { db in
                guard
                    let row = try Row.fetchOne(
                        db,
                        sql: "SELECT source, idField, fetchedAtMilliseconds, etag, lastModified, revision, digest FROM collection"
                    )
                else { return nil }
                let items = try Self.readItems(db)
                return CachedCollection(
                    items: try ItemCollection(items: items),
                    fetchedAt: Date(timeIntervalSince1970: Double(row[2] as Int64) / 1000),
                    version: SourceVersion(etag: row[3], lastModified: row[4], revision: row[5], digest: row[6]),
                    source: row[0],
                    idField: row[1]
                )
            }
        }
    }

    /// The items in order, read through SQLite's own API: each item's bytes are copied once, straight from the
    /// row into its array (GRDB's rows would wrap them in `Data` first).
    private static func readItems(_ db: Database) throws -> [Item] {
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? 0
        var items: [Item] = []
        items.reserveCapacity(count)
        let statement = try db.makeStatement(sql: "SELECT id, json FROM item ORDER BY position")
        let handle = statement.sqliteStatement
        while true {
            let code = sqlite3_step(handle)
            guard code == SQLITE_ROW else {
                guard code == SQLITE_DONE else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                }
                return items
            }
            let id = String(
                decoding: UnsafeRawBufferPointer(start: sqlite3_column_text(handle, 0), count: Int(sqlite3_column_bytes(handle, 0))),
                as: UTF8.self)
            let json = [UInt8](UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, 1), count: Int(sqlite3_column_bytes(handle, 1))))
            items.append(Item(id: id, json: json))
        }
    }

    /// Replaces the cached list with `collection`, in one transaction, then empties the write-ahead log. After a
    /// `discard`, into a new file: the whole list is what the source gave, so the cache is rebuilt from it.
    ///
    /// The log holds the whole new list until a checkpoint copies it into the file; emptying it at once
    /// means a restart after a `kill -9` does not have to read and verify a log as large as the list.
    public func save(_ collection: CachedCollection) async throws(ItemCacheError) {
        try await access("save to", makingNew: true, withoutDatabase: ()) { database in
            try database.write { db in
                try db.execute(sql: "DELETE FROM item")
                let insert = try db.makeStatement(sql: "INSERT INTO item (position, id, json) VALUES (?, ?, ?)")
                for (index, item) in collection.items.items.enumerated() {
                    try insert.execute(arguments: [Int64(index) * Self.positionSpacing, item.id, Data(item.json)])
                }
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO collection (singleton, source, idField, fetchedAtMilliseconds, etag, lastModified, revision, digest)
                        VALUES (1, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        collection.source, collection.idField, Self.milliseconds(collection.fetchedAt),
                        collection.version?.etag, collection.version?.lastModified, collection.version?.revision, collection.version?.digest,
                    ]
                )
            }
            try Self.truncateLog(database)
        }
    }

    /// The gap `save` leaves between two items' positions, so an item added between them later (`apply`) takes a
    /// position of its own without renumbering the rest.
    static let positionSpacing: Int64 = 1 << 16

    /// Brings the cached list from `previous` to `collection` row by row (see `CollectionCache.apply`), in one
    /// transaction: a change of one row costs one row, not a new list.
    public func apply(
        to collection: CachedCollection, from previous: SourceVersion?, changedIDs: [String], removedIDs: [String]
    ) async throws(ItemCacheError) -> Bool {
        try await access("update", withoutDatabase: false) { database in
            do {
                return try Self.applyRows(database, to: collection, from: previous, changedIDs: changedIDs, removedIDs: removedIDs)
            } catch is NoRoom {
                return false
            }
        }
    }

    /// Drops the item `id` from the cached list, keeping the others in order.
    /// - Returns: false when the cached list has no such item (or there is none).
    @discardableResult
    public func remove(id: String) async throws(ItemCacheError) -> Bool {
        try await access("remove an item from", withoutDatabase: false) { database in
            try database.write { db in
                try db.cachedStatement(sql: Self.deleteItem).execute(arguments: [id])
                return db.changesCount > 0
            }
        }
    }

    /// Drops the item `id` and records that the rest of the list is what the source gave at `fetchedAt`, with
    /// `version`, in one transaction: a confirmed removal costs one row, not a new list.
    /// - Returns: false when the cached list has no such item (or there is none); then nothing changes.
    @discardableResult
    public func remove(id: String, fetchedAt: Date, version: SourceVersion?) async throws(ItemCacheError) -> Bool {
        try await access("remove an item from", withoutDatabase: false) { database in
            try database.write { db in
                try db.cachedStatement(sql: Self.deleteItem).execute(arguments: [id])
                guard db.changesCount > 0 else { return false }
                try Self.record(fetchedAt, version, in: db)
                return true
            }
        }
    }

    /// Forgets the cached list, and compacts the file so the items' bytes no longer sit in it (wipe).
    public func clear() async throws(ItemCacheError) {
        try await access("clear", withoutDatabase: ()) { database in
            try database.write { db in
                try db.execute(sql: "DELETE FROM item; DELETE FROM collection")
            }
            try database.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM")
                // Old pages also sit in the write-ahead log until a checkpoint: copy them back and empty it.
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
    }

    /// Copies the write-ahead log into the file and truncates it; a reader holding the log back only delays
    /// this to the next save or the close, so that is no error. A failed write or fsync is (see `access`).
    private static func truncateLog(_ database: DatabaseQueue) throws {
        do {
            try database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_IOERR {
            throw error
        } catch {}
    }

    /// Deletes the cache's files and stops using them: until a whole list is saved (into a new file), the cache holds
    /// nothing, and a restart meanwhile starts with an empty one. Unlinking needs no free space, so this works on a full
    /// disk; it fails on a read-only file system, naming the file left.
    public func discard() async throws(ItemCacheError) {
        database.withLock { $0 = nil }
        try Self.deleteFiles(at: path)
    }

    /// The files a cache at `path` consists of: the database, and its write-ahead log and shared memory.
    static func files(at path: String) -> [String] {
        [path, path + "-wal", path + "-shm"]
    }

    /// Whether any file of a cache at `path` exists.
    public static func filesExist(at path: String) -> Bool {
        files(at: path).contains { Glibc.access($0, F_OK) == 0 }
    }

    /// Deletes the files of a cache at `path`, those there are; throws naming the first that is left.
    public static func deleteFiles(at path: String) throws(ItemCacheError) {
        for file in files(at: path) where unlink(file) != 0 && errno != ENOENT {
            throw ItemCacheError(path: path, .database(operation: "delete", reason: "\(file) is left: \(String(cString: strerror(errno)))"))
        }
    }

    /// Closes the file (SQLite then copies the write-ahead log into it and deletes the log). Using the cache
    /// afterwards fails; the file can be opened again.
    public func close() throws(ItemCacheError) {
        do {
            try database.withLock { $0 }?.close()
        } catch {
            throw ItemCacheError(path: path, .database(operation: "close", reason: Self.reason(error)))
        }
    }

    // MARK: Internals

    /// Why opening failed: a damaged file, which may be set aside, or an error to pass on as it is.
    private enum OpeningFailure: Error {
        case damaged(String)
        case refused(ItemCacheError)

        /// The error to give the caller for a file that cannot be opened as it is.
        func refusal(_ path: String) -> ItemCacheError {
            switch self {
            case .damaged(let reason): ItemCacheError(path: path, .database(operation: "open", reason: reason))
            case .refused(let error): error
            }
        }
    }

    private static func openDatabase(_ path: String, migrator: DatabaseMigrator) throws(OpeningFailure) -> DatabaseQueue {
        do {
            try examine(path, migrator: migrator)
            var configuration = Configuration()
            configuration.label = "DepotCache"
            // WAL with synchronous=NORMAL (GRDB's setting for WAL): a commit is safe from a process crash
            // once it returns; after a power loss the last commits may be gone, but the file is never
            // corrupt nor half-written. For a cache, losing the latest list to a power cut is harmless.
            configuration.journalMode = .wal
            configuration.prepareDatabase { db in
                // A 100,000-item save grows the log to the list's size; truncate it after checkpoints.
                try db.execute(sql: "PRAGMA journal_size_limit = 4194304")
            }
            let database = try DatabaseQueue(path: path, configuration: configuration)
            try migrator.migrate(database)
            return database
        } catch let failure as OpeningFailure {
            throw failure
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw .damaged(reason(error))
        } catch {
            throw .refused(ItemCacheError(path: path, .database(operation: "open", reason: reason(error))))
        }
    }

    /// Checks an existing file through a read-only connection, before anything writes to it (GRDB's WAL
    /// set-up does): it must pass SQLite's quick integrity check and have no migration from a newer depotd.
    /// Either way the file is left exactly as it was found.
    private static func examine(_ path: String, migrator: DatabaseMigrator) throws {
        var status = stat()
        guard stat(path, &status) == 0, status.st_size > 0 else { return }
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? database.close() }
        try database.read { db in
            let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
            guard check == ["ok"] else {
                throw OpeningFailure.damaged("integrity check failed: " + check.prefix(3).joined(separator: "; "))
            }
            let unknown = try migrator.appliedIdentifiers(db).subtracting(migrator.migrations)
            guard unknown.isEmpty else {
                throw OpeningFailure.refused(ItemCacheError(path: path, .newerSchema(unknownMigrations: unknown.sorted())))
            }
        }
    }

    /// Moves a damaged cache file (and its write-ahead log) out of the way, keeping it for inspection.
    /// - Returns: where the file went.
    private static func setAside(_ path: String, reason: String) throws(ItemCacheError) -> String {
        let stamp = Int64(Date().timeIntervalSince1970)
        let destination = "\(path).damaged-\(stamp)"
        guard rename(path, destination) == 0 else {
            let why = String(cString: strerror(errno))
            throw ItemCacheError(
                path: path,
                .database(operation: "open", reason: "\(reason), and it cannot be moved aside: \(why)")
            )
        }
        _ = rename(path + "-wal", destination + "-wal")
        _ = unlink(path + "-shm")
        return destination
    }

    /// Runs `work` on the database on the cache's own thread, to its end, turning any failure into an error
    /// that names the file and the operation. Awaiting it holds no thread of Swift's pool; cancelling the task that
    /// awaits it does not interrupt it (GRDB's async calls would roll the transaction back): a removal the source
    /// confirmed as depotd stops is on disk when the cache closes, not dropped half way. After a `discard`, it returns
    /// `withoutDatabase` — unless `makingNew`: then `work` runs on a new, empty database made first.
    private func access<Value: Sendable>(
        _ operation: String,
        makingNew: Bool = false,
        withoutDatabase: Value,
        _ work: @escaping @Sendable (DatabaseQueue) throws -> Value
    ) async throws(ItemCacheError) -> Value {
        do {
            return try await calls.run { [self] in
                if let database = database.withLock({ $0 }) { return try work(database) }
                // Files left by a discard that could not delete them are not trusted, not even to be overwritten.
                guard makingNew, !Self.filesExist(at: path) else { return withoutDatabase }
                let database: DatabaseQueue
                do throws(OpeningFailure) {
                    database = try Self.openDatabase(path, migrator: migrator)
                } catch {
                    // Whatever it made of the new file goes too, or no later save would make one.
                    try? Self.deleteFiles(at: path)
                    throw error.refusal(path)
                }
                self.database.withLock { $0 = database }
                logger.notice("making a new cache, in place of the one deleted", metadata: ["path": "\(path)"])
                return try work(database)
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_IOERR {
            // A failed write or fsync (the "fsyncgate" lesson): SQLite may have taken for written what the disk never
            // kept, so the file is no longer trusted — deleted, nothing read from it again; the next whole list the
            // source gives goes into a new one (and a start meanwhile finds none).
            let deleted: String
            do throws(ItemCacheError) {
                try await discard()
                deleted = "its files were deleted; the next list the source gives goes into a new one"
            } catch {
                deleted = "deleting its files failed too (\(error)): they are no longer read or written while depotd runs"
            }
            throw ItemCacheError(
                path: path, .database(operation: operation, reason: "\(Self.reason(error)): the cache is no longer trusted, \(deleted)"))
        } catch let error as ItemCacheError {
            throw error
        } catch {
            throw ItemCacheError(path: path, .database(operation: operation, reason: Self.reason(error)))
        }
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case let error as DatabaseError:
            "\(error.message ?? "SQLite error") (SQLite code \(error.extendedResultCode.rawValue))"
        case is CancellationError:
            "cancelled"
        default:
            "\(error)"
        }
    }

    /// `date` as whole milliseconds since 1970, the unit the file keeps.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}

extension ItemCache: CollectionCache {}
