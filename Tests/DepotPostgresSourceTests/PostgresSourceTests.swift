import DepotCore
import DepotJSON
import DepotPlatform
import DepotPostgresSource
import DepotTestSupport
import Logging
import Testing

/// The postgres:// source against a real PostgreSQL: a load reads the table in id order at a revision, a catch-up
/// reads only what changed, a removal deletes the row, and what a catch-up cannot tell becomes a full load.
@Suite("PostgresSource: a table, its change log and its revisions", .enabled(if: PostgresTestTable.enabled))
struct PostgresSourceTests {
    @Test("a load reads every row in id byte order, with the revision the change log is at; the feed is installed once")
    func load() async throws {
        try await PostgresTestTable.with(rows: [("b", document("b", 2)), ("a", document("a", 1)), ("B", document("B", 3))]) { table in
            try await table.withSource { source in
                guard case .items(let values, let version) = try await source.fetchItems(ifChangedSince: nil) else {
                    Issue.record("not a listing")
                    return
                }
                #expect(values.map { $0.jsonText } == [document("B", 3), document("a", 1), document("b", 2)])
                // The rows were inserted before the feed was installed: the log starts at 0.
                #expect(version == SourceVersion(revision: 0))
            }
            #expect(
                try await table.cluster.psql("SELECT obj_description(to_regprocedure('items_record_change()'), 'pg_proc')") == ChangeLogSQL.version
                    + "\n")
            try await table.insert("c", document("c", 4))
            #expect(try await table.revision() == 1)
            try await table.withSource { source in
                let listing = try await source.fetchItems(ifChangedSince: nil)
                let expected: [JSONValue] = try [document("B", 3), document("a", 1), document("b", 2), document("c", 4)].map { text in
                    try JSONParser.parse(text)
                }
                #expect(listing == .items(expected, version: SourceVersion(revision: 1)))
            }
        }
    }

    @Test("after a revision, only the changes: inserts, updates, deletes, an id changed, several changes of one row")
    func changes() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            try await table.withSource { source in
                let start = try #require(try await source.fetchItems(ifChangedSince: nil).version)
                #expect(try await source.fetchItems(ifChangedSince: start) == .unchanged)
                try await table.cluster.psql(
                    """
                    INSERT INTO items VALUES ('b', '\(document("b", 2))'), ('c', '\(document("c", 3))');
                    UPDATE items SET doc = '\(document("b", 20))' WHERE id = 'b';
                    DELETE FROM items WHERE id = 'a';
                    UPDATE items SET id = 'd', doc = '\(document("d", 4))' WHERE id = 'c';
                    """)
                let listing = try await source.fetchItems(ifChangedSince: start)
                guard case .changes(let changes, let version) = listing else {
                    Issue.record("expected changes, got \(listing)")
                    return
                }
                #expect(version.revision == 6, "insert 2 rows, update 1, delete 1, and an id change counts twice")
                #expect(changes.changed.map(\.jsonText).sorted() == [document("b", 20), document("d", 4)])
                #expect(changes.removed.sorted() == ["a", "c"])
                let held = try ItemCollection(values: [try JSONParser.parse(document("a", 1))], idField: "id")
                let applied = try held.applying(changes, idField: "id")
                guard case .items(let all, _) = try await source.fetchItems(ifChangedSince: nil) else { return }
                #expect(applied == (try ItemCollection(values: all, idField: "id")), "changes applied equal a full load")
            }
        }
    }

    @Test("a removal deletes the row and asks for the changes; a row already gone is notFound")
    func removal() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1)), ("b", document("b", 2))]) { table in
            try await table.withSource { source in
                _ = try await source.fetchItems(ifChangedSince: nil)
                #expect(try await source.deleteItem(id: "a") == .changed)
                #expect(try await table.cluster.psql("SELECT id FROM items") == "b\n")
                await #expect(throws: SourceError.notFound(id: "a", in: source.description)) {
                    try await source.deleteItem(id: "a")
                }
            }
        }
    }

    @Test("a log pruned past the revision held, a truncate, or a log behind it: a full load instead of changes")
    func fullLoadWhenTheLogCannotTell() async throws {
        try await PostgresTestTable.with(rows: [("a", document("a", 1))]) { table in
            try await table.withSource { source in
                let start = try #require(try await source.fetchItems(ifChangedSince: nil).version)
                try await table.insert("b", document("b", 2))
                try await table.insert("c", document("c", 3))
                try await table.cluster.psql("DELETE FROM items_changes WHERE position = 1")
                #expect(try await source.fetchItems(ifChangedSince: start).isFullListing(count: 3, revision: 2))
                try await table.cluster.psql("TRUNCATE items")
                #expect(try await source.fetchItems(ifChangedSince: SourceVersion(revision: 2)).isFullListing(count: 0, revision: 3))
                #expect(try await source.fetchItems(ifChangedSince: SourceVersion(revision: 99)).isFullListing(count: 0, revision: 3))
            }
        }
    }

    @Test("more changes than a catch-up reads: a full load")
    func tooManyChanges() async throws {
        try await PostgresTestTable.with { table in
            try await withSourceLoop { sourceLoop in
                let link = PostgresLink(address: table.address, password: .none, sourceLoop: sourceLoop, logger: quiet)
                let source = PostgresSource(link: link, idField: "id", catchUpLimit: 3, logger: quiet)
                try await withThrowingDiscardingTaskGroup { group in
                    group.addTask { await link.run { _ in } }
                    let start = try #require(try await source.fetchItems(ifChangedSince: nil).version)
                    try await table.cluster.psql("INSERT INTO items SELECT g::text, json_build_object('id', g::text) FROM generate_series(1, 3) g")
                    guard case .changes(let changes, _) = try await source.fetchItems(ifChangedSince: start) else {
                        Issue.record("three changes fit a catch-up of three")
                        return
                    }
                    #expect(changes.changed.count == 3)
                    try await table.cluster.psql("INSERT INTO items SELECT g::text, json_build_object('id', g::text) FROM generate_series(4, 7) g")
                    #expect(try await source.fetchItems(ifChangedSince: SourceVersion(revision: 3)).isFullListing(count: 7, revision: 7))
                    group.cancelAll()
                }
            }
        }
    }

    @Test("a row whose document lacks its id, or holds another, or is not an object, is refused with the row named")
    func badDocuments() async throws {
        for (doc, expected) in [(#"{"n":1}"#, "missing"), (#"{"id":"z"}"#, #""z""#), ("[1]", "array")] {
            try await PostgresTestTable.with(rows: [("a", doc)]) { table in
                try await table.withSource { source in
                    do {
                        _ = try await source.fetchItems(ifChangedSince: nil)
                        Issue.record("accepted \(doc)")
                    } catch let error as SourceError {
                        #expect(error.kind == .invalidData)
                        #expect(error.message.contains("row") && error.message.contains("a") && error.message.contains(expected), "\(error)")
                    }
                }
            }
        }
    }
}

let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

extension SourceListing {
    var version: SourceVersion? {
        switch self {
        case .items(_, let version), .collection(_, _, let version): version
        case .changes(_, let version): version
        case .unchanged: nil
        }
    }

    func isFullListing(count: Int, revision: Int64) -> Bool {
        guard case .items(let values, let version) = self else { return false }
        return values.count == count && version == SourceVersion(revision: revision)
    }
}

extension JSONValue {
    var jsonText: String { String(decoding: jsonBytes, as: UTF8.self) }
}
