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
        let (toReplica, same, toPrimary) = (reads.read(from: "replica"), reads.read(from: "replica"), reads.read(from: "primary"))
        #expect(toReplica && !same && toPrimary)
        #expect(reads.reader == "primary")
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

    @Test("reads go to the standby; a write is read back from the primary; a paused or stopped standby is passed over")
    func readsFromStandby() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            let standby = try await PostgresCluster.startStandby(of: table.cluster)
            do {
                let replicaAddress = try PostgresAddress(parsing: standby.sourceURI())
                let backoff = ReconnectBackoff(firstWindow: .milliseconds(100), cap: .milliseconds(400))
                try await withSourceLoop { loop in
                    let primary = PostgresLink(address: table.address, password: .none, backoff: backoff, sourceLoop: loop, logger: Self.quiet)
                    let replica = PostgresLink(
                        address: replicaAddress, password: .none, backoff: backoff, role: .replica, sourceLoop: loop, logger: Self.quiet)
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
            } catch {
                Issue.record("\(error)\n--- the standby's log ---\n\(standby.serverLog.suffix(3000))")
            }
            await standby.remove()
        }
    }
}
