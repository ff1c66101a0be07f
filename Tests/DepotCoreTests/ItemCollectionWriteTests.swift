import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

/// Writes applied to a collection as a source applies them, a delta applied to a collection, and the delta between two
/// collections that differ only in a known set of ids — each against a plain model of the list.
@Suite("ItemCollection: writes, deltas applied, and deltas over touched ids")
struct ItemCollectionWriteTests {
    static func item(_ id: String, _ version: Int = 0) -> Item {
        Item(id: id, json: Array(#"{"id":"\#(id)","v":\#(version)}"#.utf8))
    }

    /// The model: writes applied to an array in order, new items last or where their id sorts.
    static func model(_ items: [Item], _ writes: [ItemWrite], _ placement: NewItemPlacement) -> [Item] {
        var list = items
        for write in writes {
            let index = list.firstIndex { $0.id == write.id }
            switch write {
            case .put(let item):
                if let index {
                    list[index] = item
                } else if placement == .byID {
                    let at = list.firstIndex { ItemCollection.idPrecedes(item.id, $0.id) } ?? list.count
                    list.insert(item, at: at)
                } else {
                    list.append(item)
                }
            case .remove:
                if let index { list.remove(at: index) }
            }
        }
        return list
    }

    /// Random writes over ids `i0`…`i19`, half of them held.
    static func randomWrites(_ random: inout SplitMix64, count: Int) -> [ItemWrite] {
        (0..<count).map { _ in
            let id = "i\(Int.random(in: 0..<20, using: &random))"
            return Bool.random(using: &random) ? .remove(id: id) : .put(item(id, Int.random(in: 1...9, using: &random)))
        }
    }

    @Test("writes give the model's list, and the delta applied to the old list gives the new one", arguments: [NewItemPlacement.last, .byID])
    func writesMatchTheModel(placement: NewItemPlacement) throws {
        var random = SplitMix64(seed: 39)
        for round in 0..<400 {
            let held = (0..<20).filter { _ in Bool.random(using: &random) }.map { Self.item("i\($0)") }
            let sortedHeld = placement == .byID ? held.sorted { ItemCollection.idPrecedes($0.id, $1.id) } : held.shuffled(using: &random)
            let collection = try ItemCollection(items: sortedHeld)
            let writes = Self.randomWrites(&random, count: Int.random(in: 1...6, using: &random))
            let written = collection.applying(writes, placement: placement)
            let expected = Self.model(sortedHeld, writes, placement)
            #expect(Array(written.items).map(\.id) == expected.map(\.id), "round \(round): \(sortedHeld.map(\.id)) \(writes)")
            #expect(Array(written.items) == expected, "round \(round)")
            if !written.isSameCollection(as: collection) {
                let delta = try #require(written.delta(from: collection), "a written collection knows its delta")
                #expect(delta.applied(to: sortedHeld) == expected, "round \(round)")
            }
            for item in expected { #expect(written.item(id: item.id) == item) }
        }
    }

    @Test("writes that change nothing give the same collection")
    func noChange() throws {
        let collection = try ItemCollection(items: [Self.item("a"), Self.item("b")])
        #expect(collection.applying([.put(Self.item("a")), .remove(id: "z")], placement: .last).isSameCollection(as: collection))
    }

    @Test("a delta applied to a collection gives the list the delta describes, derived from it; a misfit is nil")
    func deltaApplied() throws {
        var random = SplitMix64(seed: 7)
        for _ in 0..<300 {
            let old = try ItemCollection(items: (0..<20).filter { _ in Bool.random(using: &random) }.map { Self.item("i\($0)") })
            let new = old.applying(Self.randomWrites(&random, count: 4), placement: .last)
            let delta = try #require(ItemDelta(from: old, to: new))
            let applied = try #require(old.applying(delta))
            #expect(Array(applied.items) == Array(new.items))
            if delta.isEmpty {
                #expect(applied.isSameCollection(as: old))
            } else {
                #expect(applied.delta(from: old) == delta)
            }
        }
        let one = try ItemCollection(items: [Self.item("a")])
        #expect(one.applying(ItemDelta(removed: ["b"])) == nil)
        #expect(one.applying(ItemDelta(added: [.init(index: 3, item: Self.item("c"))])) == nil)
        #expect(one.applying(ItemDelta(added: [.init(index: 0, item: Self.item("a"))])) == nil)
    }

    @Test("the delta over touched ids turns one collection into the other, whatever moved, as a full comparison would")
    func deltaOverTouchedIDs() throws {
        var random = SplitMix64(seed: 11)
        for round in 0..<500 {
            // Two collections made from one base by different writes, then the ids either touched.
            let base = try ItemCollection(items: (0..<20).filter { _ in Bool.random(using: &random) }.map { Self.item("i\($0)") })
            let firstWrites = Self.randomWrites(&random, count: Int.random(in: 0...5, using: &random))
            let secondWrites = Self.randomWrites(&random, count: Int.random(in: 0...5, using: &random))
            let placement: NewItemPlacement = Bool.random(using: &random) ? .last : .byID
            let first = base.applying(firstWrites, placement: placement)
            let second = base.applying(secondWrites, placement: placement)
            let touched = Set((firstWrites + secondWrites).map(\.id))
            let delta = first.delta(to: second, touching: touched)
            let applied = try #require(first.applying(delta), "round \(round)")
            #expect(Array(applied.items) == Array(second.items), "round \(round): \(firstWrites) then \(secondWrites)")
        }
    }
}
