import DepotCore
import DepotJSON
import DepotPostgresSource
import DepotSources
import DepotTestSupport
import Logging
import PostgresNIO
import Testing

/// Daemons with `feed=poll` through a real PgBouncer in transaction mode, with fewer server connections than daemons:
/// loads, catch-ups, removals and writes (a batch's transaction included) all work, and the database sees only the
/// pool's connections.
@Suite(
    "Through PgBouncer in transaction mode: feed=poll",
    .enabled(if: PgBouncer.unavailableReason == nil || PostgresCluster.mustRun))
struct PgBouncerTests {
    /// Runs `body` with the table as reached through a PgBouncer in transaction mode of `poolSize` server connections,
    /// its URI given `parameters`; a failure adds PgBouncer's log. PgBouncer is stopped and removed after.
    static func withPooled(
        _ table: PostgresTestTable, poolSize: Int = 5, parameters: String = "", _ body: (PostgresTestTable) async throws -> Void
    ) async throws {
        let bouncer = try await PgBouncer.start(in: table.cluster, poolMode: "transaction", poolSize: poolSize)
        do {
            try await body(
                PostgresTestTable(cluster: table.cluster, address: try PostgresAddress(parsing: bouncer.sourceURI(parameters: parameters))))
        } catch {
            Issue.record("\(error)\n--- PgBouncer's log ---\n\(bouncer.log.suffix(3000))")
        }
        await bouncer.remove()
    }

    @Test("two daemons on one server connection: load, outside writes, a removal, puts, a patch with ifMatch and a batch")
    func throughTransactionPooling() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            try await Self.withPooled(table, poolSize: 1, parameters: "feed=poll&poll_interval=0.2") { pooled in
                try await ChangeFeedTests.withFeed(pooled) { first, firstStates in
                    try await ChangeFeedTests.withFeed(pooled) { second, secondStates in
                        try await table.insert("b", document("b", 2))
                        _ = try await ChangeFeedTests.waitFor(firstStates, revision: 1)
                        _ = try await ChangeFeedTests.waitFor(secondStates, revision: 1)
                        _ = try await first.remove(id: "a").result.get()
                        _ = try await second.apply([.put("c", ["n": 3])]).result.get()
                        let b = try #require(second.item(id: "b"))
                        _ = try await first.apply([.patch("b", .merge(["n": 20]), .ifMatch(b.etag))]).result.get()
                        _ = try await second.apply([.put("d", ["n": 4]), .put("e", ["n": 5])]).result.get()
                        let last = try await table.revision()
                        let one = try await ChangeFeedTests.waitFor(firstStates, revision: last)
                        let other = try await ChangeFeedTests.waitFor(secondStates, revision: last)
                        #expect(ChangeFeedTests.ids(one) == ["b", "c", "d", "e"])
                        #expect(one.state.items == other.state.items, "both daemons hold the table at its revision")
                        #expect(try await PostgresWriteTests.rows(table).contains(#"b={"id":"b","n":20}"#))
                        // The database saw the pool's one connection (and psql's own), never a daemon's.
                        let sessions = try await table.cluster.psql(
                            "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")
                        #expect(sessions.filter { !$0.isWhitespace } == "1")
                    }
                }
            }
        }
    }

    @Test("a write cut off as it commits, through the pooler: fenced off by its id before it is answered, never made after")
    func fencedThroughPooler() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            try await Self.withPooled(table, poolSize: 3, parameters: "feed=poll&connect_timeout=1") { pooled in
                let log = LogRecorder()
                try await pooled.withSource(logger: log.logger(level: .info)) { source in
                    _ = try await source.fetchItems(ifChangedSince: nil)
                    // The table locked: the put's statement waits in a server process, as one in flight would.
                    let lost = try await table.withWritesLocked {
                        try #require(
                            await #expect(throws: SourceError.self) {
                                try await source.write([try PostgresWriteTests.put(#"{"id":"b","n":2}"#)], held: nil)
                            })
                    }
                    #expect(lost.kind == .outcomeUnknown)
                    #expect(lost.message.contains("depotd has settled it (fencing off write"), "\(lost.message)")
                    // The statement goes on once the lock is gone — and fails on the fenced id.
                    try await table.waitUntil(
                        "SELECT count(*) = 0 FROM pg_stat_activity WHERE query LIKE '%depot_fence%' AND state <> 'idle' AND pid <> pg_backend_pid()",
                        equals: "t")
                    #expect(try await PostgresWriteTests.rows(table) == "a={\"id\":\"a\",\"n\":1}\n", "made after its answer")
                    // A write that is not cut off records its id and is made.
                    _ = try await source.write([try PostgresWriteTests.put(#"{"id":"c","n":3}"#)], held: nil)
                    #expect(try await table.cluster.psql("SELECT count(*) FROM items_writes").filter { !$0.isWhitespace } == "2")
                }
            }
        }
    }

    @Test("feed=poll sets JIT off for its session where the server takes it, and connects without it through PgBouncer")
    func jitOff() async throws {
        try await PostgresTestTable.with(parameters: "feed=poll") { table in
            try await Self.withPooled(table, parameters: "feed=poll") { pooled in
                for (place, expected) in [(table, "off"), (pooled, "on")] {
                    try await place.withSource { source in
                        let jit = try await source.link.withConnection("show jit") { connection in
                            try await connection.query("SHOW jit", logger: quiet).collect().first?.decode(String.self)
                        }
                        #expect(jit == expected, "\(place.address)")
                    }
                }
            }
        }
    }

    @Test("feed=listen through PgBouncer is refused at connection, and the log says to use feed=poll")
    func listenThroughPooler() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            try await Self.withPooled(table) { pooled in
                let log = LogRecorder()
                try await pooled.withSource(logger: log.logger(level: .warning)) { source in
                    let line = try await withTimeout(.seconds(30), "the refusal") {
                        await log.waitForLine(containing: "unsupported startup parameter")
                    }
                    #expect(line.contains("add feed=poll to the URI"), "\(line)")
                    await #expect(throws: SourceError.self) { try await source.fetchItems() }
                }
            }
        }
    }
}
