import DepotCore
import DepotJSON
import DepotPostgresSource
import DepotTestSupport
import Logging
import Testing

/// Writes to a real PostgreSQL table: each change one statement with its precondition in it, a batch one transaction,
/// whatever the table's shape — a json or jsonb doc column, a text or integer id, or the whole row as the item.
@Suite("PostgresSource: writes with the precondition in the statement", .enabled(if: PostgresTestTable.enabled))
struct PostgresWriteTests {
    static func item(_ text: String) throws -> Item {
        let value = try JSONParser.parse(text)
        return Item(id: ItemCollection.id(of: value, idField: "id") ?? "", json: value.jsonBytes)
    }

    static func put(_ text: String, expecting expected: SourceChange.Expectation = .anything) throws -> SourceChange {
        SourceChange(.put(try item(text)), expected: expected)
    }

    /// The rows as `id=document` lines, in id order.
    static func rows(_ table: PostgresTestTable, _ document: String = "doc") async throws -> String {
        try await table.cluster.psql("SELECT id || '=' || \(document)::text FROM items ORDER BY id")
    }

    @Test("a put creates or replaces, saying which; the change log has it, and a catch-up brings it back")
    func put() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            try await table.withSource { source in
                let start = try #require(try await source.fetchItems(ifChangedSince: nil).version)
                let created = try await source.write([try Self.put(#"{"id":"b","n":2}"#)], held: nil)
                #expect(created == SourceWriteResult(.changed, created: [true]))
                let replaced = try await source.write([try Self.put(#"{"id":"a","n":10}"#)], held: nil)
                #expect(replaced.created == [false])
                #expect(try await Self.rows(table) == "a={\"id\":\"a\",\"n\":10}\nb={\"id\":\"b\",\"n\":2}\n")
                guard case .changes(let changes, let version) = try await source.fetchItems(ifChangedSince: start) else {
                    Issue.record("no changes")
                    return
                }
                #expect(version.revision == 2)
                #expect(changes.changed.map(\.jsonText).sorted() == [#"{"id":"a","n":10}"#, #"{"id":"b","n":2}"#])
            }
        }
    }

    @Test("ifAbsent, ifMatch and a patch's base are checked in the statement: a conflict names the change and the row as it is")
    func preconditions() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            try await table.withSource { source in
                let a = try Self.item(document("a", 1))
                await #expect(
                    throws: SourceError.conflict(index: 0, try Self.put(#"{"id":"a"}"#, expecting: .absent), current: a, in: source.description)
                ) {
                    try await source.write([try Self.put(#"{"id":"a"}"#, expecting: .absent)], held: nil)
                }
                // Another writer changes the row: a change made from the old version is refused, with the new one.
                try await table.cluster.psql(#"UPDATE items SET doc = '{"id": "a", "n": 7}' WHERE id = 'a'"#)
                let stale = try Self.put(#"{"id":"a","n":2}"#, expecting: .item(a))
                let conflict = try #require(await #expect(throws: SourceError.self) { try await source.write([stale], held: nil) })
                #expect(conflict.kind == .conflict)
                #expect(conflict.conflict?.current?.json == Array(#"{"id":"a","n":7}"#.utf8))
                // Spaced or not, the same item matches: items are compared as jsonb.
                let current = try Self.item(#"{"id":"a","n":7}"#)
                #expect(try await source.write([try Self.put(#"{"id":"a","n":8}"#, expecting: .item(current))], held: nil).created == [false])
                await #expect(throws: SourceError.self) {
                    try await source.write([SourceChange(.remove(id: "a"), expected: .item(current))], held: nil)
                }
                await #expect(throws: SourceError.notFound(id: "z", in: source.description)) {
                    try await source.write([SourceChange(.remove(id: "z"))], held: nil)
                }
                #expect(try await Self.rows(table) == "a={\"id\":\"a\",\"n\":8}\n")
            }
        }
    }

    @Test("a batch is one transaction: a change that fails leaves every row as it was, and the log without a gap")
    func batch() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1)), ("b", document("b", 2))]) { table in
            try await table.withSource { source in
                _ = try await source.fetchItems(ifChangedSince: nil)  // installs the change log
                let before = try await table.revision()
                let failing = [try Self.put(#"{"id":"c"}"#), SourceChange(.remove(id: "a")), try Self.put(#"{"id":"b"}"#, expecting: .absent)]
                let error = try #require(await #expect(throws: SourceError.self) { try await source.write(failing, held: nil) })
                #expect(error.conflict?.index == 2)
                #expect(try await Self.rows(table) == "a=\(document("a", 1))\nb=\(document("b", 2))\n")
                #expect(try await table.revision() == before, "nothing logged")
                let made = try await source.write([try Self.put(#"{"id":"c"}"#), SourceChange(.remove(id: "a"))], held: nil)
                #expect(made.created == [true, false])
                #expect(try await table.revision() == before + 2)
            }
        }
    }

    @Test(
        "any table shape: a jsonb doc and an integer id, or the whole row as the item",
        arguments: [
            ("CREATE TABLE items (id integer PRIMARY KEY, doc jsonb NOT NULL);", ""),
            ("CREATE TABLE items (id integer PRIMARY KEY, name text, tags text[], added timestamptz DEFAULT now());", "doc_column=*"),
        ])
    func shapes(schema: String, parameters: String) async throws {
        try await PostgresTestTable.with(parameters: parameters, table: schema) { table in
            try await table.withSource { source in
                let wholeRow = parameters.contains("*")
                let first = try Self.put(wholeRow ? #"{"id":7,"name":"seven","tags":["x"],"added":null}"# : #"{"id":7,"name":"seven"}"#)
                #expect(try await source.write([first], held: nil).created == [true])
                guard case .items(let values, _) = try await source.fetchItems(ifChangedSince: nil), let stored = values.first else {
                    Issue.record("no rows")
                    return
                }
                let held = try Self.item(stored.jsonText)
                let changed = try Self.put(
                    wholeRow ? #"{"id":7,"name":"SEVEN","tags":[],"added":null}"# : #"{"id":7,"name":"SEVEN"}"#, expecting: .item(held))
                #expect(try await source.write([changed], held: nil).created == [false])
                #expect(
                    try await table.cluster.psql("SELECT count(*) FROM items WHERE id = 7 AND \(wholeRow ? "name" : "doc->>'name'") = 'SEVEN'")
                        == "1\n")
                _ = try await source.write([SourceChange(.remove(id: "7"), expected: .anything)], held: nil)
                #expect(try await table.cluster.psql("SELECT count(*) FROM items") == "0\n")
            }
        }
    }

    @Test(
        "through a repository that has not followed another daemon's writes yet: a write is refused for an item only once the log says so too"
    )
    func refusalsReadTheLogFirst() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            try await table.withSource { source in
                try await table.withSource { other in
                    let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
                    let writer = Repository(source: source, logger: quiet).running()
                    let lagging = Repository(source: other, logger: quiet).running()
                    _ = try await writer.load().result.get()
                    _ = try await lagging.load().result.get()
                    _ = try await writer.apply([.put("b", ["n": 2]), .put("c", ["n": 3])]).result.get()
                    #expect(lagging.item(id: "b") == nil, "it has not read the log since")
                    // A patch of an item the other daemon made: made, not answered notFound from the items held.
                    _ = try await lagging.apply([.patch("b", .merge(["n": 20]))]).result.get()
                    #expect(try await Self.rows(table).contains(#"b={"id":"b","n":20}"#))
                    // A create-only put of an item there: a conflict, though the items held lacked it, with the item there.
                    let refused = await lagging.apply([.put("c", ["n": 30], .ifAbsent)]).result
                    guard case .failure(let conflict) = refused else {
                        Issue.record("expected a conflict, got \(refused)")
                        return
                    }
                    #expect(conflict.kind == .conflict)
                    #expect(conflict.change?.current == .item(Item(id: "c", json: Array(#"{"id":"c","n":3}"#.utf8))))
                    // An item neither holds: notFound.
                    let missing = await lagging.apply([.patch("z", .merge(["n": 1]))]).result
                    guard case .failure(let notFound) = missing else {
                        Issue.record("expected notFound, got \(missing)")
                        return
                    }
                    #expect(notFound.kind == .notFound)
                    // With the database down, what it holds cannot be checked: not notFound, but changeFailed, saying so.
                    try await table.cluster.stopServer()
                    let unchecked = await lagging.apply([.patch("y", .merge(["n": 1]))]).result
                    try await table.cluster.startServer()
                    guard case .failure(let failed) = unchecked else {
                        Issue.record("expected changeFailed, got \(unchecked)")
                        return
                    }
                    #expect(failed.kind == .changeFailed)
                    #expect(failed.message.contains("cannot be read now"))
                }
            }
        }
    }

    @Test("a refusal from the items held waits for the writes pending before it, then reads the log: an optimistic patch")
    func refusalAfterPendingWrites() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            try await table.withSource { source in
                try await table.withSource { other in
                    let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
                    let log = LogRecorder()
                    let writer = Repository(source: source, logger: quiet).running()
                    let lagging = Repository(source: other, logger: log.logger(level: .debug)).running()
                    _ = try await writer.load().result.get()
                    _ = try await lagging.load().result.get()
                    _ = try await writer.apply([.put("b", ["n": 2])]).result.get()
                    #expect(lagging.item(id: "b") == nil, "it has not read the log since")
                    // The table locked against writes, so that the lagging daemon's optimistic put stays pending.
                    let (pending, patched) = try await table.withWritesLocked {
                        let pending = lagging.apply([.put("d", ["n": 4])], optimistic: true)
                        try await withTimeout(.seconds(60), "the put to be shown") { await log.waitForLine(containing: "pending as write") }
                        // An optimistic patch of the item the other daemon made: not answered notFound from the items held
                        // while the put is pending, but made once the put is, after the log was read.
                        let patched = lagging.apply([.patch("b", .merge(["n": 20]))], optimistic: true)
                        // (Before the fix it was answered notFound at once, and this line never came.)
                        try await withTimeout(.seconds(60), "the patch to wait for the pending put") {
                            await log.waitForLine(containing: "reading the change log once the pending writes are made")
                        }
                        return (pending, patched)
                    }
                    _ = try await pending.result.get()
                    _ = try await patched.result.get()
                    #expect(try await Self.rows(table).contains(#"b={"id":"b","n":20}"#))
                    #expect(try await Self.rows(table).contains(#"d={"id":"d","n":4}"#))
                }
            }
        }
    }

    @Test("a write whose connection is lost as it commits is settled before it is answered: its server process is ended")
    func settledBeforeAnswered() async throws {
        // A one-second query time-out; the table locked, so that the put's statement waits in its server process as a
        // statement in flight would: depotd gives up on the connection while the server still holds the statement.
        try await PostgresTestTable.with(rows: [("a", document("a", 1))], parameters: "connect_timeout=1") { table in
            let log = LogRecorder()
            try await table.withSource(logger: log.logger(level: .info)) { source in
                _ = try await source.fetchItems(ifChangedSince: nil)
                let lost = try await table.withWritesLocked {
                    try #require(
                        await #expect(throws: SourceError.self) { try await source.write([try Self.put(#"{"id":"b","n":2}"#)], held: nil) })
                }
                #expect(lost.kind == .outcomeUnknown)
                #expect(lost.message.contains("depotd has settled it (ending backend"), "\(lost.message)")
                #expect(log.all.contains { $0.contains("the write is settled") })
                // Without the settling, the put's server process would make it now that the lock is gone, after the
                // answer. Wait until no statement of it is left running, then look.
                try await table.waitUntil(
                    "SELECT count(*) = 0 FROM pg_stat_activity WHERE query LIKE 'INSERT INTO \"items\"%' AND state <> 'idle'", equals: "t")
                #expect(try await Self.rows(table) == "a={\"id\":\"a\",\"n\":1}\n", "the write answered outcomeUnknown was made after its answer")
            }
        }
    }

    @Test("through a repository: an optimistic put is shown, then confirmed by the change log; a second daemon sees it")
    func repository() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            try await table.withSource { source in
                try await table.withSource { other in
                    let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
                    let writer = Repository(source: source, logger: quiet).running()
                    let reader = Repository(source: other, logger: quiet).running()
                    _ = try await writer.load().result.get()
                    _ = try await reader.load().result.get()
                    let outcome = try await writer.apply([.put("b", ["n": 2])], optimistic: true).result.get()
                    #expect(outcome.state.state.provenance?.pending == 0)
                    #expect(outcome.state.state.provenance?.revision == 1, "confirmed at the log's revision")
                    #expect(writer.item(id: "b")?.json == Array(#"{"id":"b","n":2}"#.utf8))
                    let followed = try await reader.follow().result.get()
                    #expect(followed.state.items == outcome.state.state.items, "the same items at the same revision on both daemons")
                    #expect(reader.item(id: "b")?.etag == writer.item(id: "b")?.etag)
                }
            }
        }
    }
}
