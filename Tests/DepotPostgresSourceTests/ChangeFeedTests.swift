import DepotCore
import DepotJSON
import DepotPlatform
import DepotPostgresSource
import DepotTestSupport
import Foundation
import Logging
import Testing

/// The change feed with a repository, against a real PostgreSQL: writes from outside reach the repository's
/// observers as one state each, at the database's revision; a stopped server leaves the items marked stale and
/// removals refused with a reason; a restarted one is caught up with, writes missed while away included.
@Suite("ChangeFeed: a repository kept in step with a table", .enabled(if: PostgresTestTable.enabled))
struct ChangeFeedTests {
    /// A repository on the table with its feed running while `body` runs.
    static func withFeed(
        _ table: PostgresTestTable, backoff: ReconnectBackoff = ReconnectBackoff(firstWindow: .milliseconds(200), cap: .seconds(1)),
        _ body: (Repository, StateRecorder) async throws -> Void
    ) async throws {
        try await withSourceLoop { sourceLoop in
            let link = PostgresLink(address: table.address, password: .none, backoff: backoff, sourceLoop: sourceLoop, logger: quiet)
            let source = PostgresSource(link: link, idField: "id", logger: quiet)
            let repository = Repository(source: source, logger: quiet).running()
            let recorder = StateRecorder()
            repository.addObserver(recorder)
            let feed = ChangeFeed(repository: repository, source: source, logger: quiet)
            try await withThrowingDiscardingTaskGroup { group in
                // On the source loop, as depotd runs it.
                group.addTask(executorPreference: sourceLoop) { await feed.run() }
                _ = try await repository.load().result.get()
                try await body(repository, recorder)
                group.cancelAll()
            }
        }
    }

    /// Waits until the repository holds a success state at `revision` (and, when given, with that staleness).
    static func waitFor(_ recorder: StateRecorder, revision: Int64, stale: Bool = false) async throws -> PublishedState {
        try await withTimeout(.seconds(30), "a state at revision \(revision)") {
            await recorder.states.wait { states in
                states.last.map { $0.state.provenance?.revision == revision && $0.state.provenance?.stale == stale } ?? false
            }.last!
        }
    }

    static func ids(_ state: PublishedState) -> [String] {
        state.state.items?.items.map(\.id) ?? []
    }

    @Test("inserts, updates and deletes from outside: one success state per transaction, at the database's revision, no loading")
    func outsideWrites() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            try await Self.withFeed(table) { repository, recorder in
                let start = recorder.states.value.count
                try await table.insert("c", document("c", 3))
                _ = try await Self.waitFor(recorder, revision: 1)
                try await table.cluster.psql(
                    "BEGIN; INSERT INTO items VALUES ('b', '\(document("b", 2))'); UPDATE items SET doc = '\(document("a", 10))' WHERE id = 'a'; COMMIT;"
                )
                let afterUpdate = try await Self.waitFor(recorder, revision: 3)
                #expect(Self.ids(afterUpdate) == ["a", "b", "c"])
                #expect(try afterUpdate.state.items?.item(id: "a")?.value == JSONParser.parse(document("a", 10)))
                try await table.cluster.psql("DELETE FROM items WHERE id IN ('a', 'c')")
                let afterDelete = try await Self.waitFor(recorder, revision: 5)
                #expect(Self.ids(afterDelete) == ["b"])
                let published = recorder.states.value[start...]
                #expect(published.map(\.state.status).allSatisfy { $0 == .success }, "a change never publishes loading")
                #expect(published.compactMap(\.state.provenance?.revision) == [1, 3, 5], "one state per transaction")
                #expect(try await table.revision() == 5)
                #expect(repository.current.seq == recorder.states.value.last?.seq)
            }
        }
    }

    @Test("feed=poll: no LISTEN, nothing kept in the session; outside writes arrive at the next poll, a sub-second one")
    func pollFeed() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))], parameters: "feed=poll&poll_interval=0.2") { table in
            try await table.cluster.psql("ALTER SYSTEM SET log_statement = 'all'; SELECT pg_reload_conf();")
            try await Self.withFeed(table) { repository, recorder in
                try await table.insert("b", document("b", 2))
                _ = try await Self.waitFor(recorder, revision: 1)
                try await table.cluster.psql("DELETE FROM items WHERE id = 'a'")
                let afterDelete = try await Self.waitFor(recorder, revision: 2)
                #expect(Self.ids(afterDelete) == ["b"])
                _ = try await repository.remove(id: "b").result.get()
                _ = try await Self.waitFor(recorder, revision: 3)
            }
            let statements = table.cluster.serverLog.split(separator: "\n").filter { $0.contains("statement:") || $0.contains("execute") }
            #expect(statements.contains { $0.contains("items_changes") }, "the log was read")
            #expect(!statements.contains { $0.contains("LISTEN") || $0.contains(" SET ") || $0.contains("PREPARE") }, "\(statements)")
        }
    }

    @Test("each poll waits 75–100 % of poll_interval, drawn anew: never longer than the interval, not in lockstep")
    func pollJitter() async throws {
        try await PostgresTestTable.with(parameters: "feed=poll&poll_interval=1") { table in
            try await withSourceLoop { sourceLoop in
                let link = PostgresLink(address: table.address, password: .none, sourceLoop: sourceLoop, logger: quiet)
                let source = PostgresSource(link: link, idField: "id", logger: quiet)
                let repository = Repository(source: source, logger: quiet).running()
                let clock = ManualClock()
                let feed = ChangeFeed(repository: repository, source: source, clock: clock, logger: quiet)
                try await withThrowingDiscardingTaskGroup { group in
                    group.addTask { await feed.run() }
                    var waits: [Duration] = []
                    var previous = clock.now
                    for _ in 0..<20 {
                        let after = previous
                        let armed = try await withTimeout(.seconds(30), "the next poll's timer") {
                            await clock.sleepers.wait { $0.contains { $0 > after } }
                        }
                        let deadline = try #require(armed.first { $0 > previous })
                        waits.append(previous.duration(to: deadline))
                        clock.advance(to: deadline)
                        previous = deadline
                    }
                    #expect(waits.allSatisfy { $0 >= .milliseconds(750) && $0 <= .seconds(1) }, "\(waits)")
                    #expect(Set(waits).count > 10, "drawn anew each time: \(waits)")
                    group.cancelAll()
                }
            }
        }
    }

    @Test("the wake trigger dropped (no NOTIFY at commit): daemons follow at their poll interval and do not put it back")
    func withoutNotify() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))], parameters: "poll_interval=0.2") { table in
            try await Self.withFeed(table) { _, _ in }  // installs the feed
            try await table.cluster.psql("DROP TRIGGER depot_wake_listeners ON items")
            try await Self.withFeed(table) { _, recorder in
                try await table.insert("b", document("b", 2))
                #expect(Self.ids(try await Self.waitFor(recorder, revision: 1)) == ["a", "b"])
            }
            let triggers = try await table.cluster.psql("SELECT count(*) FROM pg_trigger WHERE tgname = 'depot_wake_listeners'")
            #expect(triggers.filter { !$0.isWhitespace } == "0")
        }
    }

    @Test("a removal through the repository is one DELETE and one catch-up; its own wake-up costs nothing")
    func removal() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1)), ("b", document("b", 2))]) { table in
            try await Self.withFeed(table) { repository, recorder in
                let removed = try await repository.remove(id: "a").result.get()
                #expect(Self.ids(removed) == ["b"])
                #expect(removed.state.provenance?.revision == 1)
                try await table.insert("z", document("z", 26))
                _ = try await Self.waitFor(recorder, revision: 2)
                let revisions = recorder.states.value.compactMap(\.state.provenance?.revision)
                #expect(revisions.filter { $0 == 1 }.count == 1, "the removal's own NOTIFY published nothing more")
            }
        }
    }

    @Test("the server stops: items stay, marked stale, removals are refused with the reason; it starts again: caught up")
    func serverRestart() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1)), ("b", document("b", 2))]) { table in
            try await Self.withFeed(table) { repository, recorder in
                try await table.cluster.stopServer()
                let stale = try await Self.waitFor(recorder, revision: 0, stale: true)
                #expect(Self.ids(stale) == ["a", "b"])
                let refused = await repository.remove(id: "a").result
                guard case .failure(let error) = refused else {
                    Issue.record("a removal while disconnected must fail")
                    return
                }
                #expect(
                    error.message.contains("not connected") || error.message.contains("cannot reach") || error.message.contains("connection"),
                    "\(error.message)")
                #expect(Self.ids(repository.current) == ["a", "b"], "the rollback leaves the items as they were")
                try await table.cluster.startServer()
                try await table.insert("c", document("c", 3))
                let caughtUp = try await Self.waitFor(recorder, revision: 1)
                #expect(Self.ids(caughtUp) == ["a", "b", "c"])
            }
        }
    }

    @Test("writes made while the connection was down (their NOTIFY lost) are read on reconnect: LISTEN, then catch up")
    func missedNotifications() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            // A first reconnect that waits up to 3 s: the writes below almost always land while depotd is away.
            try await Self.withFeed(table, backoff: ReconnectBackoff(firstWindow: .seconds(3), cap: .seconds(3))) { repository, recorder in
                try await table.cluster.psql(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'")
                try await table.insert("b", document("b", 2))
                try await table.cluster.psql("DELETE FROM items WHERE id = 'a'")
                let caughtUp = try await Self.waitFor(recorder, revision: 2)
                #expect(Self.ids(caughtUp) == ["b"])
                #expect(repository.sourceVersion?.revision == 2)
            }
        }
    }
}
