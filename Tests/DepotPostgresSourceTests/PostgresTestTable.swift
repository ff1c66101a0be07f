import DepotCore
import DepotJSON
import DepotPlatform
import DepotPostgresSource
import DepotSources
import DepotTestSupport
import Foundation
import Logging
import Testing

/// A PostgreSQL of the test's own with an `items` table (id text, doc json, unless the test gives another), and a
/// source on it whose link runs for the test's duration.
struct PostgresTestTable {
    let cluster: PostgresCluster
    let address: PostgresAddress

    static let enabled = PostgresCluster.unavailableReason == nil || PostgresCluster.mustRun

    /// Runs `body` with a fresh cluster holding `rows` (id → doc text), then removes the cluster. A failure adds
    /// the server's log.
    static func with(
        rows: [(String, String)] = [], parameters: String = "", table: String = "CREATE TABLE items (id text PRIMARY KEY, doc json NOT NULL);",
        _ body: (PostgresTestTable) async throws -> Void
    ) async throws {
        let cluster = try await PostgresCluster.start()
        do {
            try await cluster.psql(table)
            let table = PostgresTestTable(cluster: cluster, address: try PostgresAddress(parsing: cluster.sourceURI(parameters: parameters)))
            for (id, doc) in rows { try await table.insert(id, doc) }
            try await body(table)
        } catch {
            Issue.record("\(error)\n--- server log ---\n\(cluster.serverLog.suffix(3000))")
        }
        await cluster.remove()
    }

    func insert(_ id: String, _ doc: String) async throws {
        try await cluster.psql("INSERT INTO items VALUES (\(Self.literal(id)), \(Self.literal(doc)));")
    }

    /// The change log's newest position.
    func revision() async throws -> Int64 {
        Int64(try await cluster.psql("SELECT position FROM items_revision").trimmingCharacters(in: .whitespacesAndNewlines))!
    }

    /// Runs `body` while another session holds the table locked against writes (SHARE mode): a write's statement
    /// waits in its server process meanwhile, as one still on its way would. The lock goes when `body` returns.
    func withWritesLocked<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        async let locker = cluster.psql("BEGIN; LOCK TABLE items IN SHARE MODE; SELECT pg_sleep(600); COMMIT;")
        let value: T
        do {
            try await waitUntil("SELECT count(*) FROM pg_locks WHERE mode = 'ShareLock' AND granted AND relation = 'items'::regclass")
            value = try await body()
        } catch {
            try? await unlock()
            _ = try? await locker
            throw error
        }
        try await unlock()
        _ = try? await locker  // cancelled: psql fails, and the lock goes with its transaction
        return value
    }

    private func unlock() async throws {
        try await cluster.psql(
            "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(600)%' AND pid <> pg_backend_pid()")
    }

    /// Waits until `query` (a count) answers more than zero, or `wanted` when given: the server has no event to wait on,
    /// so it is asked again every 20 ms.
    func waitUntil(_ query: String, equals wanted: String? = nil) async throws {
        try await withTimeout(.seconds(60), query) {
            while true {
                let answer = try await cluster.psql(query).filter { !$0.isWhitespace }
                if let wanted { if answer == wanted { break } } else if answer != "0" { break }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A link and a source on the table, the link running while `body` runs.
    func withSource(
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        events: (@Sendable (PostgresLink.Event) -> Void)? = nil,
        _ body: (PostgresSource) async throws -> Void
    ) async throws {
        try await withSourceLoop { sourceLoop in
            let link = PostgresLink(
                address: address, password: .none, backoff: ReconnectBackoff(firstWindow: .milliseconds(100), cap: .milliseconds(400)),
                sourceLoop: sourceLoop, logger: logger)
            let source = PostgresSource(link: link, idField: "id", logger: logger)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await link.run { events?($0) } }
                try await body(source)
                group.cancelAll()
            }
        }
    }
}

/// `{"id":"ID","n":N}`
func document(_ id: String, _ n: Int) -> String {
    #"{"id":"\#(id)","n":\#(n)}"#
}
