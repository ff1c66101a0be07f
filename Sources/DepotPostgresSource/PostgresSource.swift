package import DepotCore
package import DepotJSON
import DepotPlatform
import DepotSources
package import Logging
import PostgresNIO

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A table in PostgreSQL as depotd's source (`--source postgres://…`): a load reads every row, in id order, with
/// the change-log position it reflects; a removal deletes the row; and, given the version held, a load reads only
/// the changes since it — one statement that returns the changed rows as they are now — so a change of one row
/// costs one row read, whatever the table's size.
///
/// It reads with the change log `ChangeLogSQL` describes, which `PostgresLink` installs when it connects.
package struct PostgresSource: WritableSource, ChangeFeedSource {
    package let link: PostgresLink
    /// Hot standbys that loads and catch-ups read from, in order of preference (`--postgres-replica`); the primary when
    /// none is connected and up to what depotd must see (`ReplicaReads`).
    package let replicas: [PostgresLink]
    let replicaReads = Locked(ReplicaReads())
    /// The member of each item that holds its id: it must equal the row's id column.
    private let idField: String
    let logger: Logger
    /// The most changes one catch-up reads; past it, a full load is cheaper.
    private let catchUpLimit: Int
    /// The table's columns once read, for a table whose whole row is the item.
    private let columns = Locked<[String]?>(nil)
    /// How long a write whose connection was lost while it committed waits for depotd to end that connection's server
    /// process (`PostgresLink.settle`) before its answer, `outcomeUnknown`, says it may still be made.
    private let settleLimit: Duration

    package init(
        link: PostgresLink, replicas: [PostgresLink] = [], idField: String, catchUpLimit: Int = 10_000, settleLimit: Duration = .seconds(60),
        logger: Logger
    ) {
        self.link = link
        self.replicas = replicas
        self.idField = idField
        self.catchUpLimit = catchUpLimit
        self.settleLimit = settleLimit
        self.logger = logger
    }

    package var description: String { link.address.description }

    /// A table has a fleet's other daemons writing to it: a write the items held refuse is refused only once the change
    /// log was read again.
    package var othersWrite: Bool { true }

    package func fetchItems() async throws -> [JSONValue] {
        switch try await fetchItems(ifChangedSince: nil) {
        case .items(let values, _): values
        default: preconditionFailure("a read without a version held is every item")
        }
    }

    /// Reads from the first replica that is connected, within its `max_lag` (`ReplicaLag`), and has replayed up to
    /// what depotd must see — the revision held, and anything it wrote or was woken for since
    /// (`ReplicaReads.required`) — else from the primary.
    package func fetchItems(ifChangedSince version: SourceVersion?) async throws -> SourceListing {
        let needed = max(version?.revision ?? 0, replicaReads.withLock { $0.required })
        var passedOver: String?
        for (index, replica) in replicas.enumerated() where replica.isConnected && replicaReads.withLock({ $0.mayRead(index) }) {
            var why: String
            do {
                let bound = replica.address.maxLag ?? PostgresAddress.defaultMaxLag
                let lag = try await lag(of: replica)
                if let excess = lag.excess(over: bound) {
                    why = excess
                } else if let listing = try await read(since: version?.revision, from: replica, needing: needed) {
                    noteReader(replica.address.description, lag: lag.behind)
                    return listing
                } else {
                    why = "it has not replayed revision \(needed) yet"
                }
            } catch {
                why = "\(error)"
            }
            replicaReads.withLock { $0.skipOnce(index) }
            logger.debug("not reading from \(replica.address): \(why)")
            passedOver = passedOver ?? "\(replica.address) is passed over: \(why)"
        }
        noteReader(link.address.description, because: passedOver)
        guard let listing = try await read(since: version?.revision, from: link, needing: 0) else {
            preconditionFailure("the primary needs no revision")
        }
        return listing
    }

    /// What `reader` holds: the changes since `revision` when it can tell them, else every item; nil when it has not
    /// reached `needed` (a replica behind).
    private func read(since revision: Int64?, from reader: PostgresLink, needing needed: Int64) async throws -> SourceListing? {
        if let revision {
            let (listing, newest) = try await changes(since: revision, from: reader)
            if newest < needed { return nil }
            if let listing { return listing }
        }
        let (values, loaded) = try await load(from: reader)
        if loaded < needed { return nil }
        return .items(values, version: SourceVersion(revision: loaded))
    }

    /// A table read in id order: a new item goes where its id sorts.
    package var newItemPlacement: NewItemPlacement { .byID }

    /// Runs the table's change feed (`ChangeFeed`): its connection, its wake-ups and polls.
    package func followChanges(into repository: Repository, clock: any Clock<Duration>, logger: Logger) async {
        await ChangeFeed(repository: repository, source: self, clock: clock, logger: logger).run()
    }

    /// Makes the changes, in order, each one statement whose precondition is part of it (`ItemWriteSQL`), a batch in
    /// one transaction: all or none, whoever else writes the table meanwhile. Answers `.changed`: the repository then
    /// reads the change log since the revision it holds — this write, and whatever other writers did.
    package func write(_ changes: [SourceChange], held: HeldItems?) async throws -> SourceWriteResult {
        let sql = ItemWriteSQL(address: link.address, columns: try await wholeRowColumns())
        let what = changes.count == 1 ? "write \(changes[0].id) to \(link.sql.table)" : "write \(changes.count) changes to \(link.sql.table)"
        // Set once the statement that commits (the one change, or a batch's COMMIT) is sent: a connection lost after it
        // leaves the write's outcome unknown, one lost before it leaves nothing made.
        let committing = Locked(false)
        let backend = Locked<PostgresLink.Backend?>(nil)
        // Through a pooler (feed=poll) the write carries an id of its own, which settles it if its connection is lost.
        let writeID = link.address.feed == .poll ? UUID().uuidString : nil
        let created: [Bool]
        do {
            created = try await link.withSession(what) { [self, logger, description] session, _ in
                backend.withLock { $0 = session.backend }
                let created = try await write(
                    changes, with: sql, writeID: writeID, on: session.connection, committing: committing, logger: logger,
                    description: description)
                if !replicas.isEmpty {
                    // Reads its own write: no replica is read from until it has replayed this far.
                    let rows = try await session.connection.query(PostgresQuery(unsafeSQL: link.sql.revision), logger: logger).collect()
                    if let position = try rows.first?.decode(Int64.self) { replicaReads.withLock { $0.require(position) } }
                }
                return created
            }
        } catch let error as SourceError where error.kind == .unavailable && committing.withLock({ $0 }) {
            throw await unknownOutcome(
                "\(error.message): the connection was lost after the change was sent", settlement(writeID, backend.withLock { $0 }))
        } catch let lost as CommitOutcomeUnknown {
            throw await unknownOutcome(
                "\(what): \(link.address): \(PostgresErrors.describe(lost.error)), after the change was sent: whether it was committed is unknown",
                settlement(writeID, backend.withLock { $0 }))
        }
        return SourceWriteResult(.changed, created: created)
    }

    /// The answer to a write lost with its connection while it committed, once settled if it can be: the connection's
    /// server process ended (`PostgresLink.settle`), so that the statement cannot be made later — after this answer,
    /// and after a client read the item to learn whether it was made.
    private func unknownOutcome(_ message: String, _ settlement: PostgresLink.Settlement?) async -> SourceError {
        guard let settlement, await link.settle(settlement, within: settleLimit) else {
            return SourceError(
                .outcomeUnknown, "\(message); depotd could not settle it within \(settleLimit.text), so the change may still be made")
        }
        return SourceError(.outcomeUnknown, "\(message); depotd has settled it (\(settlement)): what the table holds now stays")
    }

    /// How a write cut off as it committed is settled: by its id through a pooler (a pooler's server process changes
    /// from one transaction to the next: none is the write's to end), else by ending its session's server process.
    private func settlement(_ writeID: String?, _ backend: PostgresLink.Backend?) -> PostgresLink.Settlement? {
        if let writeID { return .fenceWrite(id: writeID) }
        return backend.map { .endBackend($0) }
    }

    /// A connection lost (or ended by the server) while the statement that commits was under way.
    private struct CommitOutcomeUnknown: Error {
        let error: PSQLError
    }

    /// Whether `error`, met while the statement that commits was under way, leaves it unknown whether it was committed:
    /// no answer of the server's (the connection failed), or one that ends the session (SQLSTATE class 08, connection
    /// exception; 57, operator intervention — a shutdown), rather than one that refuses the statement.
    private static func leavesCommitUnknown(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return true }
        return state.hasPrefix("08") || state.hasPrefix("57")
    }

    private func write(
        _ changes: [SourceChange], with sql: ItemWriteSQL, writeID: String?, on connection: PostgresConnection, committing: Locked<Bool>,
        logger: Logger, description: String
    ) async throws -> [Bool] {
        // One statement needs no transaction of its own; a batch is one. (A prune of the log that the change feed
        // sends meanwhile on this connection joins it: it is retried within the hour if rolled back.)
        let batch = changes.count > 1
        func committingStatement<T>(_ statement: () async throws -> T) async throws -> T {
            committing.withLock { $0 = true }
            do {
                return try await statement()
            } catch let error as PSQLError where Self.leavesCommitUnknown(error) {
                throw CommitOutcomeUnknown(error: error)
            }
        }
        if batch { _ = try await connection.query("BEGIN", logger: logger).collect() }
        do {
            // A batch records its id first; one statement records it in itself (ChangeLogSQL.fenced).
            let log = link.sql
            if batch, let writeID {
                var binds = PostgresBindings()
                binds.append(writeID)
                _ = try await connection.query(PostgresQuery(unsafeSQL: log.recordWrite, binds: binds), logger: logger).collect()
            }
            let fence = batch ? nil : writeID.map { (log, $0) }
            var created: [Bool] = []
            for (index, change) in changes.enumerated() {
                let made =
                    batch
                    ? try await Self.make(change, with: sql, on: connection, logger: logger)
                    : try await committingStatement { try await Self.make(change, with: sql, fence: fence, on: connection, logger: logger) }
                if let made {
                    created.append(made)
                    continue
                }
                // Not made: the row is not what the change expected. Say what it is, then nothing is changed.
                let current = try await Self.current(change.id, with: sql, on: connection, logger: logger).map { document in
                    try item(id: change.id, document: document)
                }
                if batch { _ = try await connection.query("ROLLBACK", logger: logger).collect() }
                if current == nil, change.write.item == nil, change.expected == .anything {
                    throw SourceError.notFound(id: change.id, in: description)
                }
                throw SourceError.conflict(
                    index: index, change, current: current.map { Item(id: change.id, json: $0.jsonBytes) }, in: description)
            }
            if batch { _ = try await committingStatement { try await connection.query("COMMIT", logger: logger).collect() } }
            return created
        } catch let error as SourceError {
            throw error
        } catch let error as CommitOutcomeUnknown {
            throw error
        } catch {
            if batch { _ = try? await connection.query("ROLLBACK", logger: logger).collect() }
            throw error
        }
    }

    /// Runs `change`'s statement — made only while write id `fence` is not recorded, when given — whether it created
    /// its item, or nil when the row was not what it expected.
    private static func make(
        _ change: SourceChange, with sql: ItemWriteSQL, fence: (log: ChangeLogSQL, id: String)? = nil, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Bool? {
        var binds = PostgresBindings()
        binds.append(change.id)
        let statement: String
        switch (change.write, change.expected) {
        case (.put(let item), .anything):
            binds.append(String(decoding: item.json, as: UTF8.self))
            statement = sql.upsert
        case (.put(let item), .absent):
            binds.append(String(decoding: item.json, as: UTF8.self))
            statement = sql.insert
        case (.put(let item), .item(let expected)):
            binds.append(String(decoding: item.json, as: UTF8.self))
            binds.append(String(decoding: expected.json, as: UTF8.self))
            statement = sql.replace
        case (.remove, .anything):
            statement = sql.delete
        case (.remove, .item(let expected)):
            binds.append(String(decoding: expected.json, as: UTF8.self))
            statement = sql.deleteMatching
        case (.remove, .absent):
            return nil
        }
        var query = PostgresQuery(unsafeSQL: statement, binds: binds)
        if let fence {
            binds.append(fence.id)
            query = PostgresQuery(unsafeSQL: fence.log.fenced(statement, parameter: binds.count), binds: binds)
        }
        let rows = try await connection.query(query, logger: logger).collect()
        guard let row = rows.first else { return nil }
        if case .put = change.write, let created = try? row.decode(Bool.self) { return created }
        return false
    }

    /// The item with `id` as the table holds it now, as JSON text; nil when there is none.
    private static func current(_ id: String, with sql: ItemWriteSQL, on connection: PostgresConnection, logger: Logger) async throws -> String? {
        var binds = PostgresBindings()
        binds.append(id)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql.current, binds: binds), logger: logger).collect()
        return try rows.first.map { try $0.decode(String.self) }
    }

    /// The columns of a table whose whole row is the item, read once; none for a table with a doc column.
    private func wholeRowColumns() async throws -> [String] {
        guard link.address.docColumn == nil else { return [] }
        if let known = columns.withLock({ $0 }) { return known }
        let table = link.address.quotedTable
        let found = try await link.withConnection("read the columns of \(table)") { [logger] connection in
            var binds = PostgresBindings()
            binds.append(table)
            return try await connection.query(PostgresQuery(unsafeSQL: ItemWriteSQL.columnsOfTable, binds: binds), logger: logger).collect().map {
                try $0.decode(String.self)
            }
        }
        columns.withLock { $0 = found }
        return found
    }

    /// Deletes the changes older than the retention from the log, and with `feed=poll` the write ids as old. Any daemon
    /// may; it costs a statement each.
    package func pruneLog() async throws {
        let statements = [link.sql.prune] + (link.address.feed == .poll ? [link.sql.pruneWrites] : [])
        let retention = link.address.retention
        try await link.withConnection("prune \(link.sql.log)") { [logger] connection in
            for statement in statements {
                var binds = PostgresBindings()
                binds.append(Double(retention))
                _ = try await connection.query(PostgresQuery(unsafeSQL: statement, binds: binds), logger: logger).collect()
            }
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
    private func load(from reader: PostgresLink) async throws -> (values: [JSONValue], revision: Int64) {
        let sql = reader.sql.load
        let rows = try await reader.withConnection("read \(reader.sql.table)") { [logger] connection, progress in
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

    /// What changed after `revision` at `reader`, or nil when only a full load can tell (the log no longer reaches back
    /// that far, the table was truncated, the log is behind it, or there are more changes than a catch-up reads); and
    /// the newest revision there.
    private func changes(since revision: Int64, from reader: PostgresLink) async throws -> (SourceListing?, newest: Int64) {
        let sql = reader.sql.changes
        let limit = catchUpLimit
        let rows = try await reader.withConnection("read the changes of \(reader.sql.table) after \(revision)") { [logger] connection, progress in
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
                return (nil, head)
            }
            expected += 1
            guard let id else {
                logger.notice("\(link.sql.table) was truncated at revision \(position); reading the whole table")
                return (nil, head)
            }
            if final[id] == nil { order.append(id) }
            final[id] = present ? .some(try item(id: id, document: document)) : .some(nil)
        }
        if newest < revision {
            // A replica behind is the caller's to judge; the primary behind was restored from a backup.
            if reader.role == .primary {
                logger.warning(
                    "the change log of \(link.sql.table) is at \(newest), behind the revision held (\(revision)): was the database restored? Reading the whole table"
                )
            }
            return (nil, newest)
        }
        if expected - 1 < newest {
            logger.notice("more than \(limit) changes of \(link.sql.table) since revision \(revision); reading the whole table")
            return (nil, newest)
        }
        guard newest > revision, let version = SourceVersion(revision: newest) else { return (.unchanged, newest) }
        var changes = SourceChanges()
        for id in order {
            if case .some(.some(let value)) = final[id] { changes.changed.append(value) } else { changes.removed.append(id) }
        }
        return (.changes(changes, version: version), newest)
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
