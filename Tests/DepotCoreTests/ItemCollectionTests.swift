import DepotCore
import DepotJSON
import DepotTestSupport
import Foundation
import Testing

@Suite("ItemCollection")
struct ItemCollectionTests {
    @Test("built from items that carry their ids, it keeps them in order and finds them by id")
    func fromItems() throws {
        let items = [Item(id: "b", json: Array(#"{"id":"b"}"#.utf8)), Item(id: "a", json: Array(#"{"id":"a"}"#.utf8))]
        let collection = try ItemCollection(items: items)
        #expect(Array(collection.items) == items)
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

    /// The meaning of `applying`, written as plainly as possible: a pass over the held items, hashing every id.
    static func model(_ held: [Item], _ changes: SourceChanges) -> [Item] {
        var replacements: [String: Item] = [:]
        for value in changes.changed {
            guard case .string(let id)? = value["id"] else { continue }
            replacements[id] = Item(id: id, json: value.jsonBytes)
        }
        let heldIDs = Set(held.map(\.id))
        var additions = replacements.values.filter { !heldIDs.contains($0.id) }.sorted { ItemCollection.idPrecedes($0.id, $1.id) }
        var result: [Item] = []
        for item in held {
            while let first = additions.first, ItemCollection.idPrecedes(first.id, item.id) { result.append(additions.removeFirst()) }
            if let replacement = replacements[item.id] {
                result.append(replacement)
            } else if !changes.removed.contains(item.id) {
                result.append(item)
            }
        }
        return result + additions
    }

    @Test("random chains of changes: the items, every id's position and the byte count are what the plain model gives")
    func randomChains() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<40 {
            let count = Int.random(in: 0...60, using: &random)
            var held = try ItemCollection(values: (0..<count).map { ["id": .string(String(format: "%03d", $0 * 3))] }, idField: "id")
            var previousIDs = Set(held.items.map(\.id))
            for step in 0..<12 {
                var changes = SourceChanges()
                for _ in 0..<Int.random(in: 0...4, using: &random) {
                    let id = String(format: "%03d", Int.random(in: 0..<200, using: &random))
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: changes.removed.append(id)
                    default:
                        changes.changed.append([
                            "id": .string(id), "step": .number(JSONNumber(step)), "pad": .string(String(repeating: "p", count: step)),
                        ])
                    }
                }
                let expected = Self.model(Array(held.items), changes)
                let applied = try held.applying(changes, idField: "id")
                #expect(Array(applied.items) == expected, "\(changes)")
                #expect(applied.jsonByteCount == expected.reduce(0) { $0 + $1.json.count })
                for (position, item) in expected.enumerated() where applied.position(of: item.id) != position {
                    Issue.record("\(item.id) is at \(position), the index says \(applied.position(of: item.id).map(String.init) ?? "nowhere")")
                }
                let ids = Set(expected.map(\.id))
                for gone in previousIDs.subtracting(ids) where applied.contains(id: gone) {
                    Issue.record("\(gone) was removed, yet the index finds it")
                }
                previousIDs = ids
                held = applied
            }
        }
    }

    @Test(
        "over 5,000 items in no order by id, random changes and removals: items, positions and byte counts match the model, and the delta each collection remembers turns the one before into it"
    )
    func largeUnsortedChains() throws {
        var random = SplitMix64(seed: 0xC011_EC7)
        // Ids in a shuffled order, so insertions take the scan; 5,000 items make a tree of three levels.
        let ids = (0..<5_000).map { String(format: "%05d", $0 * 2) }.shuffled(using: &random)
        var held = try ItemCollection(values: ids.map { ["id": .string($0)] }, idField: "id")
        var model = Array(held.items)
        for step in 0..<300 {
            let next: ItemCollection
            if step % 3 == 0, let victim = model.randomElement(using: &random) {
                next = held.removing(id: victim.id)
                model.removeAll { $0.id == victim.id }
            } else {
                var changes = SourceChanges()
                for _ in 0..<Int.random(in: 1...5, using: &random) {
                    let id = String(format: "%05d", Int.random(in: 0..<10_000, using: &random))
                    if Bool.random(using: &random) {
                        changes.removed.append(id)
                    } else {
                        changes.changed.append(["id": .string(id), "step": .number(JSONNumber(step))])
                    }
                }
                next = try held.applying(changes, idField: "id")
                model = Self.model(model, changes)
            }
            try #require(Array(next.items) == model, "step \(step)")
            #expect(next.jsonByteCount == model.reduce(0) { $0 + $1.json.count })
            for _ in 0..<20 {
                guard let probe = model.indices.randomElement(using: &random) else { break }
                #expect(next.position(of: model[probe].id) == probe)
                #expect(next.item(id: model[probe].id) == model[probe])
            }
            let delta = try #require(ItemDelta(from: held, to: next))
            #expect(next.delta(from: held) != nil || next.isSameCollection(as: held), "a change remembers its delta")
            #expect(delta.applied(to: Array(held.items)) == model)
            held = next
        }
    }

    @Test("a change that changes nothing (an absent id removed, an item changed to its own bytes) is the same collection")
    func noChange() throws {
        let held = try Self.collection(["a", "b"])
        #expect(try held.applying(SourceChanges(removed: ["z"]), idField: "id").isSameCollection(as: held))
        #expect(try held.applying(SourceChanges(changed: [["id": "a"]]), idField: "id").isSameCollection(as: held))
        #expect(held.removing(id: "z").isSameCollection(as: held))
    }

    @Test("110 insertions into one gap run out of keys between two items: the list is laid out afresh and stays right")
    func keysLaidOutAfresh() throws {
        var held = try Self.collection(["a", "b"])
        var expected = ["a"]
        // Each id sorts after the one before and before "b": every insertion halves the same gap.
        for count in 1...110 {
            let id = "a" + String(repeating: "~", count: count)
            held = try held.applying(SourceChanges(changed: [["id": .string(id)]]), idField: "id")
            expected.append(id)
        }
        #expect(held.items.map(\.id) == expected + ["b"])
        #expect(held.position(of: "b") == 111)
        #expect(held.position(of: "a" + String(repeating: "~", count: 50)) == 50)
    }

    @Test("one row deleted is a removal a fan-out recognises in O(1)")
    func singleDeletion() throws {
        let held = try Self.collection(["a", "b", "c"])
        let applied = try held.applying(SourceChanges(removed: ["b"]), idField: "id")
        #expect(applied.removedID(from: held) == "b")
        #expect(try held.applying(SourceChanges(removed: ["b", "c"]), idField: "id").removedID(from: held) == nil)
    }

    @Test("a changed item without its id is refused")
    func missingID() throws {
        #expect(throws: ItemCollectionError.self) {
            try Self.collection(["a"]).applying(SourceChanges(changed: [["name": "x"]]), idField: "id")
        }
    }
}
