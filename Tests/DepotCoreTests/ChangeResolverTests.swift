import DepotJSON
import DepotTestSupport
import Testing

@testable import DepotCore

/// A client's changes resolved against the items shown: preconditions, patches, the item's checks, in order.
@Suite("ChangeResolver: preconditions, patches and checks, in order, all or none")
struct ChangeResolverTests {
    /// Refuses items whose `n` is negative, saying where.
    struct NonNegative: ItemValidator {
        func violations(of item: JSONValue) -> [ItemViolation] {
            guard case .number(let n)? = item["n"], n.literal.hasPrefix("-") else { return [] }
            return [ItemViolation(pointer: "/n", keyword: "minimum", message: "must be at least 0, found \(n.literal)")]
        }
    }

    static let resolver = ChangeResolver(idField: "id", validator: NonNegative(), maxItemBytes: 64)

    static func items() throws -> ItemCollection {
        try ItemCollection(values: [["id": "a", "n": 1], ["id": 2, "n": 2]], idField: "id")
    }

    static func resolve(_ changes: [ItemChange]) throws -> Result<ChangeResolver.Resolution, ChangeResolver.Rejection> {
        resolver.resolve(changes, against: try items())
    }

    static func object(_ text: String) -> JSONObject {
        (try? JSONParser.parse(text))?.objectValue ?? [:]
    }

    @Test("a put without its id gets it first; with it, it must be the change's; it creates or replaces")
    func puts() throws {
        let created = try Self.resolve([.put("b", Self.object(#"{"n":3}"#))]).get()
        #expect(created.writes == [.put(Item(id: "b", json: Array(#"{"id":"b","n":3}"#.utf8)))])
        #expect(created.created == [true])
        #expect(created.changes[0].expected == .anything)
        let replaced = try Self.resolve([.put("2", Self.object(#"{"n":5,"id":2}"#))]).get()
        #expect(replaced.created == [false])
        #expect(replaced.etags == [Item(id: "2", json: Array(#"{"n":5,"id":2}"#.utf8)).etag])
        guard case .failure(let wrongID) = try Self.resolve([.put("b", Self.object(#"{"id":"c"}"#))]) else {
            Issue.record("accepted")
            return
        }
        #expect(wrongID.kind == .invalidChange)
        #expect(wrongID.message.contains(#"the item's "id" is "c", not the id "b" it is put as"#))
    }

    @Test("ifMatch: the item there, at that etag; ifAbsent: no item; otherwise a conflict with what is there")
    func preconditions() throws {
        let a = try #require(try Self.items().item(id: "a"))
        let matched = try Self.resolve([.put("a", Self.object(#"{"n":2}"#), .ifMatch(a.etag))]).get()
        #expect(matched.changes[0].expected == .item(a))
        guard case .failure(let stale) = try Self.resolve([.put("a", Self.object(#"{"n":2}"#), .ifMatch("0000"))]) else {
            Issue.record("accepted")
            return
        }
        #expect(stale.kind == .conflict)
        #expect(stale.change == FailedChange(index: 0, id: "a", current: .item(a)))
        guard case .failure(let gone) = try Self.resolve([.remove("z", .ifMatch(a.etag))]) else {
            Issue.record("accepted")
            return
        }
        #expect(gone.change.current == .absent)
        guard case .failure(let there) = try Self.resolve([.put("a", [:], .ifAbsent)]) else {
            Issue.record("accepted")
            return
        }
        #expect(there.kind == .conflict && there.change.current == .item(a))
        #expect(try Self.resolve([.put("new", [:], .ifAbsent)]).get().changes[0].expected == .absent)
    }

    @Test("a patch is made to the item there, merge or JSON Patch; conditional on that item even without ifMatch")
    func patches() throws {
        let a = try #require(try Self.items().item(id: "a"))
        let merged = try Self.resolve([.patch("a", .merge(.object(Self.object(#"{"n":7,"x":true}"#))))]).get()
        #expect(merged.writes == [.put(Item(id: "a", json: Array(#"{"id":"a","n":7,"x":true}"#.utf8)))])
        #expect(merged.changes[0].expected == .item(a))
        #expect(merged.changes[0].patch != nil)
        let patch = try JSONPatch(decoding: try JSONParser.parse(#"[{"op":"test","path":"/n","value":1},{"op":"remove","path":"/n"}]"#))
        #expect(try Self.resolve([.patch("a", .jsonPatch(patch))]).get().writes == [.put(Item(id: "a", json: Array(#"{"id":"a"}"#.utf8)))])
        guard case .failure(let failedTest) = try Self.resolve([.patch("2", .jsonPatch(patch))]) else {
            Issue.record("accepted")
            return
        }
        #expect(failedTest.kind == .conflict, "a test that fails is a conflict with the item there")
        guard case .failure(let missing) = try Self.resolve([.patch("z", .merge(.object([:])))]) else {
            Issue.record("accepted")
            return
        }
        #expect(missing.kind == .notFound)
    }

    @Test(
        "a patch that changes or removes the id, or leaves no object, is refused",
        arguments: [#"{"id":"b"}"#, #"{"id":null}"#, #"[1]"#])
    func badPatches(text: String) throws {
        guard case .failure(let rejection) = try Self.resolve([.patch("a", .merge(try JSONParser.parse(text)))]) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.kind == .invalidChange)
    }

    @Test("an item over the size limit, or against the validator, is refused with every violation")
    func checks() throws {
        guard case .failure(let large) = try Self.resolve([.put("a", ["pad": .string(String(repeating: "x", count: 80))])]) else {
            Issue.record("accepted")
            return
        }
        #expect(large.kind == .invalidChange)
        #expect(large.message.contains("over the limit of 64 (--max-item-bytes"))
        guard case .failure(let invalid) = try Self.resolve([.put("a", ["n": -1])]) else {
            Issue.record("accepted")
            return
        }
        #expect(invalid.kind == .invalidItem)
        #expect(invalid.change.violations == [ItemViolation(pointer: "/n", keyword: "minimum", message: "must be at least 0, found -1")])
    }

    @Test("a batch sees its own earlier changes, and the first that fails names its index")
    func batches() throws {
        let resolved = try Self.resolve([.put("b", ["n": 1]), .patch("b", .merge(["n": 2])), .remove("a")]).get()
        #expect(resolved.writes.map(\.id) == ["b", "b", "a"])
        #expect(resolved.writes[1].item?.json == Array(#"{"id":"b","n":2}"#.utf8))
        #expect(resolved.created == [true, false, false])
        #expect(resolved.etags[2] == nil)
        guard case .failure(let failed) = try Self.resolve([.remove("a"), .patch("a", .merge([:]))]) else {
            Issue.record("accepted")
            return
        }
        #expect(failed.kind == .notFound)
        #expect(failed.change.index == 1)
    }

    @Test("a lone removal without precondition of an id not shown goes to the source; in a batch it is notFound")
    func unknownRemoval() throws {
        #expect(try Self.resolve([.remove("z")]).get().writes == [.remove(id: "z")])
        guard case .failure(let failed) = try Self.resolve([.remove("a"), .remove("z")]) else {
            Issue.record("accepted")
            return
        }
        #expect(failed.change.index == 1 && failed.kind == .notFound)
    }
}
