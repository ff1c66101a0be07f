import DepotCore
import DepotJSON
import Testing

@Suite("ItemCollection")
struct ItemCollectionTests {
    @Test("built from items that carry their ids, it keeps them in order and finds them by id")
    func fromItems() throws {
        let items = [Item(id: "b", json: Array(#"{"id":"b"}"#.utf8)), Item(id: "a", json: Array(#"{"id":"a"}"#.utf8))]
        let collection = try ItemCollection(items: items)
        #expect(collection.items == items)
        #expect(collection.item(id: "a") == items[1])
        #expect(collection.removing(id: "b").items == [items[1]])
    }

    @Test("built from items, a repeated id fails naming both positions")
    func repeatedID() {
        let item = Item(id: "7", json: Array(#"{"id":7}"#.utf8))
        #expect(throws: ItemCollectionError(.duplicateID(id: "7", index: 2, firstIndex: 0))) {
            try ItemCollection(items: [item, Item(id: "8", json: Array(#"{"id":8}"#.utf8)), item])
        }
    }

    @Test("removals one after another keep the index and the byte count right, as a collection built anew has them")
    func successiveRemovals() throws {
        var random = SystemRandomNumberGenerator()
        let items = (0..<200).map { Item(id: "\($0)", json: Array(#"{"id":"\#($0)","n":"\#(String(repeating: "x", count: $0 % 7))"}"#.utf8)) }
        var collection = try ItemCollection(items: items)
        var remaining = items
        while !remaining.isEmpty {
            let victim = remaining.remove(at: Int.random(in: 0..<remaining.count, using: &random))
            collection = collection.removing(id: victim.id)
            let rebuilt = try ItemCollection(items: remaining)
            #expect(collection == rebuilt)
            #expect(!collection.contains(id: victim.id))
            #expect(collection.jsonByteCount == rebuilt.jsonByteCount)
            #expect(collection.jsonByteCount == remaining.reduce(0) { $0 + $1.json.count })
            for item in remaining where collection.item(id: item.id) != item {
                Issue.record("\(item.id) is not found where it stands after removing \(victim.id)")
            }
        }
        #expect(collection.removing(id: "nothing").isEmpty)
    }

    @Test("a collection made by removing names the id it lacks, for exactly the collection it was made from")
    func removedID() throws {
        let items = (0..<5).map { Item(id: "\($0)", json: Array(#"{"id":"\#($0)"}"#.utf8)) }
        let base = try ItemCollection(items: items)
        let removed = base.removing(id: "2")
        #expect(removed.removedID(from: base) == "2")
        #expect(removed.removedID(from: try ItemCollection(items: items)) == nil, "an equal collection is not the one it was made from")
        #expect(base.removedID(from: removed) == nil)
        let twice = removed.removing(id: "4")
        #expect(twice.removedID(from: removed) == "4")
        #expect(twice.removedID(from: base) == nil)
        #expect(twice.item(id: "3") == items[3], "the derived index of a derived index finds every item")
        #expect(twice.items.map(\.id) == ["0", "1", "3"])
    }
}

@Suite("ItemCollection.applying: changes from a change log")
struct ItemCollectionApplyingTests {
    static func collection(_ ids: [String]) throws -> ItemCollection {
        try ItemCollection(values: ids.map { ["id": .string($0)] }, idField: "id")
    }

    @Test(
        "removals drop, changes replace in place, new ids go where a listing sorted by UTF-8 bytes has them",
        arguments: [
            (["b", "d"], SourceChanges(changed: [["id": "a"], ["id": "c"], ["id": "e"]]), ["a", "b", "c", "d", "e"]),
            (["b", "d"], SourceChanges(removed: ["b", "x"]), ["d"]),
            (["B", "a", "é"], SourceChanges(changed: [["id": "Z"], ["id": "b"], ["id": "ü"]]), ["B", "Z", "a", "b", "é", "ü"]),
            (["a"], SourceChanges(changed: [["id": "a", "n": 2]], removed: ["a"]), ["a"]),
            ([], SourceChanges(changed: [["id": "2"], ["id": "10"]]), ["10", "2"]),
        ] as [([String], SourceChanges, [String])])
    func applying(held: [String], changes: SourceChanges, expected: [String]) throws {
        let applied = try Self.collection(held).applying(changes, idField: "id")
        #expect(applied.items.map(\.id) == expected)
        let sorted = expected.sorted { ItemCollection.idPrecedes($0, $1) }
        #expect(sorted == expected, "the expectation itself is in byte order")
    }

    @Test("a changed item replaces the held one byte for byte, and the sizes follow")
    func replacement() throws {
        let held = try ItemCollection(values: [["id": "a", "n": 1], ["id": "b"]], idField: "id")
        let applied = try held.applying(SourceChanges(changed: [["id": "a", "n": 22]]), idField: "id")
        #expect(String(decoding: applied.items[0].json, as: UTF8.self) == #"{"id":"a","n":22}"#)
        #expect(applied.jsonByteCount == held.jsonByteCount + 1)
        #expect(applied.contains(id: "b"))
    }

    @Test("a changed item without its id is refused")
    func missingID() throws {
        #expect(throws: ItemCollectionError.self) {
            try Self.collection(["a"]).applying(SourceChanges(changed: [["name": "x"]]), idField: "id")
        }
    }
}
