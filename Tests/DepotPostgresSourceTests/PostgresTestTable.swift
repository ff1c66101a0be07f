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
