import DepotCore
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
