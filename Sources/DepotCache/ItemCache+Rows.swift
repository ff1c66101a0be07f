import DepotCore
import Foundation
import GRDB

/// Bringing the cached list up to date row by row (`ItemCache.apply`): a change of one row costs one row, not a new list.
extension ItemCache {
    static func applyRows(
        _ database: DatabaseQueue, to collection: CachedCollection, from previous: SourceVersion?, changedIDs: [String], removedIDs: [String]
    ) throws -> Bool {
        try database.write { db in
            guard
                let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT source, idField, etag, lastModified, revision, digest FROM collection")),
                row[0] as String == collection.source, row[1] as String == collection.idField,
                SourceVersion(etag: row[2], lastModified: row[3], revision: row[4], digest: row[5]) == previous
            else { return false }
            for id in removedIDs {
                try db.cachedStatement(sql: Self.deleteItem).execute(arguments: [id])
            }
            var additions: [Int] = []
            for id in changedIDs {
                guard let index = collection.items.position(of: id) else { continue }
                try db.cachedStatement(sql: "UPDATE item SET json = ? WHERE id = ?").execute(arguments: [
                    Data(collection.items.items[index].json), id,
                ])
                if db.changesCount == 0 { additions.append(index) }
            }
            // New items from the last to the first, so the item after each is always in the cache already; each takes
            // the middle of the gap between that item and the one before it.
            for index in additions.sorted(by: >) {
                let item = collection.items.items[index]
                let low: Int64
                let high: Int64
                if index + 1 < collection.items.count {
                    guard
                        let after = try Int64.fetchOne(
                            db.cachedStatement(sql: "SELECT position FROM item WHERE id = ?"), arguments: [collection.items.items[index + 1].id])
                    else { throw NoRoom() }
                    high = after
                    low =
                        try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(position) FROM item WHERE position < ?"), arguments: [after])
                        ?? after - 2
                        * Self.positionSpacing
                } else {
                    low = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(position) FROM item")) ?? 0
                    high = low + 2 * Self.positionSpacing
                }
                guard high - low > 1 else { throw NoRoom() }
                try db.cachedStatement(sql: "INSERT INTO item (position, id, json) VALUES (?, ?, ?)").execute(
                    arguments: [low + (high - low) / 2, item.id, Data(item.json)])
            }
            try Self.record(collection.fetchedAt, collection.version, in: db)
            return true
        }
    }

    static let deleteItem = "DELETE FROM item WHERE id = ?"

    /// Records that the list is what the source gave at `fetchedAt`, with `version`. The statements of a change (this
    /// one, and those of its rows) are prepared once per connection and kept (`cachedStatement`): parsing and
    /// authorising them again took about a tenth of a PostgreSQL change's CPU.
    static func record(_ fetchedAt: Date, _ version: SourceVersion?, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE collection SET fetchedAtMilliseconds = ?, etag = ?, lastModified = ?, revision = ?, digest = ?")
            .execute(arguments: [Self.milliseconds(fetchedAt), version?.etag, version?.lastModified, version?.revision, version?.digest])
    }

    /// No position left between two neighbours: the transaction is rolled back and the whole list saved instead.
    struct NoRoom: Error {}
}
