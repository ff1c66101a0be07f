public import DepotCore
public import DepotJSON
import DepotSources
public import Logging
import PostgresNIO

/// A table in PostgreSQL as depotd's source (`--source postgres://…`): a load reads every row, in id order, with
/// the change-log position it reflects; a removal deletes the row; and, given the version held, a load reads only
/// the changes since it — one statement that returns the changed rows as they are now — so a change of one row
/// costs one row read, whatever the table's size.
///
/// It reads with the change log `ChangeLogSQL` describes, which `PostgresLink` installs when it connects.
public struct PostgresSource: Source {
    public let link: PostgresLink
    /// The member of each item that holds its id: it must equal the row's id column.
    private let idField: String
    private let logger: Logger
    /// The most changes one catch-up reads; past it, a full load is cheaper.
    private let catchUpLimit: Int

    public init(link: PostgresLink, idField: String, catchUpLimit: Int = 10_000, logger: Logger) {
        self.link = link
        self.idField = idField
        self.catchUpLimit = catchUpLimit
        self.logger = logger
    }

    public var description: String { link.address.description }

    public func fetchItems() async throws -> [JSONValue] {
        try await load().values
    }

    public func fetchItems(ifChangedSince version: SourceVersion?) async throws -> SourceListing {
        if let revision = version?.revision, let listing = try await changes(since: revision) {
            return listing
        }
        let (values, revision) = try await load()
        return .items(values, version: SourceVersion(revision: revision))
    }

    public func deleteItem(id: String) async throws -> SourceDeletion {
        let sql = link.sql.delete
        let deleted = try await link.withConnection("delete \(id) from \(link.sql.table)") { [logger] connection in
            var binds = PostgresBindings()
            binds.append(id)
            return try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect().count
        }
        guard deleted > 0 else { throw SourceError.notFound(id: id, in: description) }
        return .changed
    }

    /// Deletes the changes older than the retention from the log. Any daemon may; it costs one statement.
    public func pruneLog() async throws {
        let sql = link.sql.prune
        let retention = link.address.retention
        try await link.withConnection("prune \(link.sql.log)") { [logger] connection in
            var binds = PostgresBindings()
            binds.append(Double(retention))
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect()
        }
    }

    // MARK: Reading

    /// Every row of `sequence`, telling `progress` as they arrive (every 256 rows).
    private static func collect(_ sequence: PostgresRowSequence, progress: QueryProgress) async throws -> [PostgresRow] {
        var rows: [PostgresRow] = []
        for try await row in sequence {
            rows.append(row)
            if rows.count % 256 == 0 { progress.advanced() }
        }
        return rows
    }

    /// Every item in id order, and the revision they are at.
    private func load() async throws -> (values: [JSONValue], revision: Int64) {
        let sql = link.sql.load
        let rows = try await link.withConnection("read \(link.sql.table)") { [logger] connection, progress in
            try await Self.collect(connection.query(PostgresQuery(unsafeSQL: sql), logger: logger), progress: progress)
        }
        var revision: Int64 = 0
        var values: [JSONValue] = []
        values.reserveCapacity(rows.count)
        for row in rows {
            let (position, id, present, document) = try row.decode((Int64, String?, Bool, String?).self)
            revision = position
            guard present, let id else { continue }
            values.append(try item(id: id, document: document))
        }
        return (values, revision)
    }

    /// What changed after `revision`, or nil when only a full load can tell (the log no longer reaches back that
    /// far, the table was truncated, the log is behind it, or there are more changes than a catch-up reads).
    private func changes(since revision: Int64) async throws -> SourceListing? {
        let sql = link.sql.changes
        let limit = catchUpLimit
        let rows = try await link.withConnection("read the changes of \(link.sql.table) after \(revision)") { [logger] connection, progress in
            var binds = PostgresBindings()
            binds.append(revision)
            binds.append(Int64(limit))
            return try await Self.collect(connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger), progress: progress)
        }
        var newest: Int64 = revision
        var expected = revision + 1
        var final: [String: JSONValue?] = [:]
        var order: [String] = []
        for row in rows {
            let (head, position, id, present, document) = try row.decode((Int64, Int64?, String?, Bool, String?).self)
            newest = head
            guard let position else { continue }
            guard position == expected else {
                logger.notice(
                    "the change log of \(link.sql.table) no longer holds revision \(expected) (older than its retention); reading the whole table")
                return nil
            }
            expected += 1
            guard let id else {
                logger.notice("\(link.sql.table) was truncated at revision \(position); reading the whole table")
                return nil
            }
            if final[id] == nil { order.append(id) }
            final[id] = present ? .some(try item(id: id, document: document)) : .some(nil)
        }
        if newest < revision {
            logger.warning(
                "the change log of \(link.sql.table) is at \(newest), behind the revision held (\(revision)): was the database restored? Reading the whole table"
            )
            return nil
        }
        if expected - 1 < newest {
            logger.notice("more than \(limit) changes of \(link.sql.table) since revision \(revision); reading the whole table")
            return nil
        }
        guard newest > revision, let version = SourceVersion(revision: newest) else { return .unchanged }
        var changes = SourceChanges()
        for id in order {
            if case .some(.some(let value)) = final[id] { changes.changed.append(value) } else { changes.removed.append(id) }
        }
        return .changes(changes, version: version)
    }

    /// A row's item: its document parsed, holding its id as the id column does.
    private func item(id: String, document: String?) throws -> JSONValue {
        guard let document else {
            throw SourceError(.invalidData, "\(description): the row with id \(id) has no document (NULL)")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(document.utf8))
        } catch {
            throw SourceError(.invalidData, "\(description): the document of row \(id) is not JSON: \(error)")
        }
        guard case .object(let object) = value else {
            throw SourceError(.invalidData, "\(description): the document of row \(id) is \(value.typeName), not an object")
        }
        let member: String? =
            switch object[idField] {
            case .string(let text): text
            case .number(let number) where number.isInteger: number.literal
            default: nil
            }
        guard member == id else {
            throw SourceError(
                .invalidData,
                "\(description): the row with id \(id) holds an item whose \"\(idField)\" is \(member.map { "\"\($0)\"" } ?? "missing"); an item's id must equal its row's id column"
            )
        }
        return value
    }
}
