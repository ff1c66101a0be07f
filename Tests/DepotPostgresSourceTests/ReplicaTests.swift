import DepotCore
import DepotJSON
import DepotPlatform
import DepotPostgresSource
import DepotSources
import DepotTestSupport
import Logging
import Testing

/// ReplicaReads as a value: what a read from a replica must reach, and a replica passed over once.
@Suite("ReplicaReads: where a read may go")
struct ReplicaReadsTests {
    @Test("required only rises; a replica passed over is skipped once, then read again; a change of reader is told once")
    func value() {
        var reads = ReplicaReads()
        reads.require(5)
        reads.require(3)
        #expect(reads.required == 5)
        let first = reads.mayRead(0)
        reads.skipOnce(0)
        let skipped = reads.mayRead(0)
        let again = reads.mayRead(0)
        let other = reads.mayRead(1)
        #expect(first && !skipped && again, "skipped once, then read again")
        #expect(other)
        let toReplica = reads.read(from: "replica", lag: .milliseconds(300))
        #expect(reads.lag == .milliseconds(300))
        let (same, toPrimary) = (reads.read(from: "replica", lag: .zero), reads.read(from: "primary"))
        #expect(toReplica && !same && toPrimary)
        #expect(reads.reader == "primary")
        #expect(reads.lag == nil, "the primary is behind nothing")
    }
}

/// ReplicaLag from what a standby tells: read from only while within the bound.
@Suite("ReplicaLag: whether a standby is near enough to read from")
struct ReplicaLagTests {
    @Test(
        "a standby within max_lag is read; one further behind, not receiving, not telling, or promoted is passed over, saying why",
        arguments: [
            (true, true, Double?.some(0), Duration.zero, String?.none),
            (true, true, 0.25, .milliseconds(250), nil),
            (true, true, 0.2504, .milliseconds(250), nil),
            (true, true, 0.251, .milliseconds(250), "it is 0.251 s behind its primary, more than max_lag=0.25"),
            (true, true, 7200, .seconds(5), "it is 7200 s behind its primary, more than max_lag=5"),
            (true, true, -0.5, .zero, nil),
            (true, false, 0, .seconds(5), "it is not receiving from its primary (no WAL receiver)"),
            (true, true, nil, .seconds(5), "it has WAL to replay and has replayed no transaction since it started"),
            (false, true, 0, .seconds(5), "it is not a standby (promoted?), so its table may differ from the primary's"),
        ])
    func excess(inRecovery: Bool, receiving: Bool, seconds: Double?, bound: Duration, expected: String?) {
        #expect(ReplicaLag(inRecovery: inRecovery, receiving: receiving, seconds: seconds).excess(over: bound) == expected)
    }
}

/// A PostgreSQL source with a real hot standby (`pg_basebackup -R`, streaming): loads and catch-ups read from it; a
/// write is read back from the primary until the standby has replayed it; a standby paused or down is passed over.
@Suite("PostgresSource: reads from a hot standby", .enabled(if: PostgresTestTable.enabled))
struct ReplicaTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func wait(_ what: String, until condition: @escaping @Sendable () -> Bool) async throws {
        try await withTimeout(.seconds(60), what) {
            while !condition() { try await Task.sleep(for: .milliseconds(20)) }
        }
    }

    /// Runs `body` with a table holding one row ("a") on a primary and `count` hot standbys of it, on a source loop; a
    /// failure adds the first standby's log. The standbys are removed after.
    static func withStandbys(
        _ count: Int, _ body: (PostgresTestTable, [PostgresCluster], SourceLoop) async throws -> Void
    ) async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            var standbys: [PostgresCluster] = []
            do {
                for _ in 0..<count { standbys.append(try await PostgresCluster.startStandby(of: table.cluster)) }
                try await withSourceLoop { loop in try await body(table, standbys, loop) }
            } catch {
                Issue.record("\(error)\n--- the standby's log ---\n\(standbys.first?.serverLog.suffix(3000) ?? "")")
            }
            for standby in standbys { await standby.remove() }
        }
    }

    /// A link to `address` that retries soon (0.1–0.4 s), as `role`.
    static func link(_ address: PostgresAddress, role: PostgresLink.Role = .primary, on loop: SourceLoop) -> PostgresLink {
        PostgresLink(
            address: address, password: .none, backoff: ReconnectBackoff(firstWindow: .milliseconds(100), cap: .milliseconds(400)), role: role,
            sourceLoop: loop, logger: quiet)
    }

    /// Runs `body` while `links` keep their connections, as a change feed would, then stops them.
    static func whileConnected(
        _ links: [PostgresLink], on loop: SourceLoop, _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for link in links {
                group.addTask(executorPreference: loop) { await link.run { _ in } }
            }
            try await body()
            group.cancelAll()
        }
    }

    @Test("reads go to the standby; a write is read back from the primary; a paused or stopped standby is passed over")
    func readsFromStandby() async throws {
        try await Self.withStandbys(1) { table, standbys, loop in
            let standby = standbys[0]
            let replicaAddress = try PostgresAddress(parsing: standby.sourceURI())
            let primary = Self.link(table.address, on: loop)
            let replica = Self.link(replicaAddress, role: .replica, on: loop)
            let source = PostgresSource(link: primary, replicas: [replica], idField: "id", logger: Self.quiet)
            let repository = Repository(source: source, logger: Self.quiet).running()
            let feed = ChangeFeed(repository: repository, source: source, logger: Self.quiet)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask(executorPreference: loop) { await feed.run() }
                // The feed is installed on the primary by its link, then replayed by the standby.
                try await Self.wait("the standby to be connected") { replica.isConnected }
                _ = try await repository.load().result.get()
                #expect(source.reading == replicaAddress.description)

                // Replay paused: a write is read back from the primary, and holds.
                try await standby.psql("SELECT pg_wal_replay_pause()")
                let written = try await repository.apply([.put("b", ["n": 2])]).result.get()
                #expect(written.state.state.items?.items.map(\.id) == ["a", "b"])
                #expect(source.reading == table.address.description)
                #expect(repository.item(id: "b") != nil)

                // Replay resumed and caught up: reads go back to the standby (after the once it is passed over).
                try await standby.psql("SELECT pg_wal_replay_resume()")
                try await standby.waitUntilReplayed(from: table.cluster)
                _ = try await repository.load().result.get()
                _ = try await repository.load().result.get()
                #expect(source.reading == replicaAddress.description)
                #expect(repository.item(id: "b") != nil, "never back in time")

                // The standby stopped: reads go to the primary.
                try await standby.stopServer()
                try await Self.wait("the standby's link to notice") { !replica.isConnected }
                try await table.insert("c", document("c", 3))
                _ = try await repository.load().result.get()
                #expect(source.reading == table.address.description)
                #expect(repository.item(id: "c") != nil)
                group.cancelAll()
            }
        }
    }

    /// `sql`'s one value at `cluster`, trimmed.
    static func value(_ sql: String, at cluster: PostgresCluster) async throws -> String {
        try await cluster.psql(sql).filter { !$0.isWhitespace }
    }

    /// Waits until `sql` at `cluster` answers `t`.
    static func wait(_ what: String, at cluster: PostgresCluster, until sql: String) async throws {
        try await withTimeout(.seconds(60), what) {
            while try await value(sql, at: cluster) != "t" { try await Task.sleep(for: .milliseconds(20)) }
        }
    }

    /// Waits until `standby` has WAL it has not replayed (its replay paused) and its newest replayed commit is more than
    /// `seconds` old: the lag depotd's `ReplicaLag` reads.
    static func waitUntilBehind(_ standby: PostgresCluster, by seconds: Double) async throws {
        try await wait(
            "the standby to be \(seconds) s behind", at: standby,
            until:
                "SELECT extract(epoch FROM now() - pg_last_xact_replay_timestamp()) > \(seconds) AND pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()"
        )
    }

    @Test("a standby further behind than max_lag, cut off from its primary, or promoted is passed over; one within it is read, stale")
    func lagBound() async throws {
        try await Self.withStandbys(1) { table, standbys, loop in
            let standby = standbys[0]
            // Two daemons' sources on the same standby: one bounds its lag at 0.5 s, the other at an hour.
            func source(_ parameters: String, as user: String) throws -> (PostgresSource, PostgresLink) {
                let uri = standby.sourceURI(parameters: parameters).replacing("\(PostgresCluster.user)@", with: "\(user)@")
                let replica = Self.link(try PostgresAddress(parsing: uri), role: .replica, on: loop)
                return (PostgresSource(link: Self.link(table.address, on: loop), replicas: [replica], idField: "id", logger: Self.quiet), replica)
            }
            // The lenient one reads the standby as a role with no privilege but SELECT: what it asks a standby about its
            // lag, any role may.
            try await table.cluster.psql("CREATE ROLE reader LOGIN")
            let (strict, lenient) = (try source("max_lag=0.5", as: PostgresCluster.user), try source("max_lag=3600", as: "reader"))
            let repositories = [strict.0, lenient.0].map { Repository(source: $0, logger: Self.quiet).running() }
            try await Self.whileConnected([strict.0.link, strict.1, lenient.0.link, lenient.1], on: loop) {
                @Sendable func loadBoth() async throws {
                    for repository in repositories { _ = try await repository.load().result.get() }
                }
                @Sendable func readers() -> [Bool] {
                    [strict, lenient].map { $0.0.reading == $0.1.address.description }
                }
                try await Self.wait("the standby to be connected") { strict.1.isConnected && lenient.1.isConnected }
                // The feed's objects are made by the primary's link on its first read; a transaction replayed since the
                // standby started gives its lag a time to count from.
                _ = try await strict.0.fetchItems(ifChangedSince: nil)
                try await table.cluster.psql("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
                try await table.insert("b", document("b", 2))
                try await standby.waitUntilReplayed(from: table.cluster)
                try await loadBoth()
                #expect(readers() == [true, true], "both read from the standby")

                // Replay paused, a row written straight to the table, and the standby more than 0.5 s behind.
                try await standby.psql("SELECT pg_wal_replay_pause()")
                try await table.insert("c", document("c", 3))
                try await Self.waitUntilBehind(standby, by: 0.6)
                try await loadBoth()
                #expect(readers() == [false, true], "the strict one reads the primary")
                #expect(repositories[0].item(id: "c") != nil, "the strict one sees the row")
                #expect(repositories[1].item(id: "c") == nil, "the lenient one reads the standby, stale within its bound")
                #expect(strict.0.readLag == nil)
                #expect((lenient.0.readLag ?? .zero) > .milliseconds(500), "stats tells how far behind: \(String(describing: lenient.0.readLag))")

                // Replay resumed: back to the standby (after the once it was passed over).
                try await standby.psql("SELECT pg_wal_replay_resume()")
                try await standby.waitUntilReplayed(from: table.cluster)
                try await loadBoth()
                try await loadBoth()
                #expect(readers() == [true, true])
                #expect(repositories.allSatisfy { $0.item(id: "c") != nil })

                // Cut off from the primary (no WAL receiver): how far behind is unknown, so neither reads it.
                let conninfo = try await standby.psql("SHOW primary_conninfo").split(separator: "\n").first.map(String.init) ?? ""
                try await standby.psql("ALTER SYSTEM SET primary_conninfo = ''; SELECT pg_reload_conf()")
                try await Self.wait("the WAL receiver to stop", at: standby, until: "SELECT NOT EXISTS (SELECT FROM pg_stat_wal_receiver)")
                try await table.insert("d", document("d", 4))
                try await loadBoth()
                #expect(readers() == [false, false])
                #expect(repositories.allSatisfy { $0.item(id: "d") != nil })

                // Receiving again, then promoted: not a standby, so passed over however lenient.
                let quoted = conninfo.replacing("'", with: "''")
                try await standby.psql("ALTER SYSTEM SET primary_conninfo = '\(quoted)'; SELECT pg_reload_conf()")
                try await Self.wait("the WAL receiver to start", at: standby, until: "SELECT EXISTS (SELECT FROM pg_stat_wal_receiver)")
                try await standby.waitUntilReplayed(from: table.cluster)
                try await loadBoth()
                try await loadBoth()
                #expect(readers() == [true, true])
                try await standby.psql("SELECT pg_promote()")
                try await Self.wait("the standby to be promoted", at: standby, until: "SELECT NOT pg_is_in_recovery()")
                try await standby.psql("INSERT INTO items (id, doc) VALUES ('split', '{\"id\": \"split\"}')")
                try await loadBoth()
                #expect(readers() == [false, false])
                #expect(repositories.allSatisfy { $0.item(id: "split") == nil }, "the promoted server's own row is never read")
            }
        }
    }

    @Test("a standby further behind than max_lag is passed over for the next one, not the primary")
    func nextReplica() async throws {
        try await Self.withStandbys(2) { table, standbys, loop in
            let primary = Self.link(table.address, on: loop)
            let replicas = try standbys.map {
                Self.link(try PostgresAddress(parsing: $0.sourceURI(parameters: "max_lag=0.5")), role: .replica, on: loop)
            }
            let source = PostgresSource(link: primary, replicas: replicas, idField: "id", logger: Self.quiet)
            let repository = Repository(source: source, logger: Self.quiet).running()
            try await Self.whileConnected([primary] + replicas, on: loop) {
                try await Self.wait("both standbys to be connected") { replicas.allSatisfy(\.isConnected) }
                _ = try await source.fetchItems(ifChangedSince: nil)
                try await table.insert("b", document("b", 2))
                for standby in standbys { try await standby.waitUntilReplayed(from: table.cluster) }
                _ = try await repository.load().result.get()
                #expect(source.reading == replicas[0].address.description, "the first in order of preference")

                try await standbys[0].psql("SELECT pg_wal_replay_pause()")
                try await table.insert("c", document("c", 3))
                try await standbys[1].waitUntilReplayed(from: table.cluster)
                try await Self.waitUntilBehind(standbys[0], by: 0.6)
                _ = try await repository.load().result.get()
                #expect(source.reading == replicas[1].address.description)
                #expect(repository.item(id: "c") != nil)
            }
        }
    }
}
