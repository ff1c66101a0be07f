import DepotCore
import DepotPlatform
import DepotTestSupport
import Testing

@Suite("ItemDelta: how one list of items becomes the next")
struct ItemDeltaTests {
    static func item(_ id: String, _ text: String = "") -> Item {
        Item(id: id, json: Array(#"{"id":"\#(id)","text":"\#(text)"}"#.utf8))
    }

    static func collection(_ items: [Item]) throws -> ItemCollection {
        try ItemCollection(items: items)
    }

    @Test("a removal is one id, whatever the size")
    func removal() throws {
        let old = try Self.collection((0..<1000).map { Self.item("\($0)") })
        let new = old.removing(id: "500")
        let delta = try #require(ItemDelta(from: old, to: new))
        #expect(delta == ItemDelta(removed: ["500"]))
        #expect(delta.applied(to: Array(old.items)) == Array(new.items))
    }

    @Test("the same items give an empty delta")
    func unchanged() throws {
        let old = try Self.collection([Self.item("a"), Self.item("b")])
        let again = try Self.collection([Self.item("a"), Self.item("b")])
        #expect(ItemDelta(from: old, to: again)?.isEmpty == true)
    }

    @Test("a changed item is sent once, in full; added items with their index")
    func changesAndAdditions() throws {
        let old = try Self.collection([Self.item("a"), Self.item("b"), Self.item("c")])
        let new = try Self.collection([Self.item("x"), Self.item("a"), Self.item("b", "new"), Self.item("y"), Self.item("c"), Self.item("z")])
        let delta = try #require(ItemDelta(from: old, to: new))
        #expect(delta.removed == [])
        #expect(delta.changed == [Self.item("b", "new")])
        #expect(delta.added.map(\.index) == [0, 3, 5])
        #expect(delta.added.map(\.item.id) == ["x", "y", "z"])
        #expect(delta.applied(to: Array(old.items)) == Array(new.items))
    }

    @Test("a reorder has no delta")
    func reorder() throws {
        let old = try Self.collection([Self.item("a"), Self.item("b"), Self.item("c")])
        let new = try Self.collection([Self.item("c"), Self.item("a"), Self.item("b")])
        #expect(ItemDelta(from: old, to: new) == nil)
    }

    @Test("a delta does not apply to items it was not made for")
    func wrongBase() throws {
        let delta = ItemDelta(removed: ["q"], changed: [], added: [])
        #expect(delta.applied(to: [Self.item("a")]) == nil)
        #expect(ItemDelta(changed: [Self.item("q")]).applied(to: [Self.item("a")]) == nil)
        #expect(ItemDelta(added: [.init(index: 5, item: Self.item("q"))]).applied(to: [Self.item("a")]) == nil)
        // Each misfit is named, for a client's message.
        let base = [Self.item("a")]
        #expect(DeltaApplication.apply(removed: ["q"], changed: [], added: [], to: base, id: \.id) == .failure(.removesAbsent))
        #expect(DeltaApplication.apply(removed: [], changed: [Self.item("q")], added: [], to: base, id: \.id) == .failure(.changesAbsent))
        #expect(
            DeltaApplication.apply(removed: [], changed: [], added: [(5, Self.item("q"))], to: base, id: \.id)
                == .failure(.addsPastEnd(index: 5, count: 1)))
    }

    @Test("random edits: applying the delta gives exactly the new items; a shuffle has none or a correct one")
    func randomEdits() throws {
        var random = SplitMix64(seed: 13)
        var nextID = 0
        for _ in 0..<500 {
            let size = Int.random(in: 0...30, using: &random)
            var old: [Item] = []
            for _ in 0..<size {
                old.append(Self.item("\(nextID)"))
                nextID += 1
            }
            var new: [Item] = []
            for item in old {
                switch Int.random(in: 0..<6, using: &random) {
                case 0: continue
                case 1: new.append(Self.item(item.id, "changed"))
                case 2:
                    new.append(Self.item("\(nextID)"))
                    nextID += 1
                    new.append(item)
                default: new.append(item)
                }
            }
            if Bool.random(using: &random) {
                new.append(Self.item("\(nextID)"))
                nextID += 1
            }
            let before = try Self.collection(old)
            let after = try Self.collection(new)
            let delta = try #require(ItemDelta(from: before, to: after))
            #expect(delta.applied(to: old) == new)
            let shuffled = try Self.collection(new.shuffled(using: &random))
            if let any = ItemDelta(from: before, to: shuffled) {
                #expect(any.applied(to: old) == Array(shuffled.items))
            }
        }
    }
}
