import DepotTestSupport
import Testing

@testable import DepotCore

@Suite("KeyedTree: a persistent list against a plain array")
struct KeyedTreeTests {
    typealias Tree = KeyedTree<Int>

    /// The model: the elements with their keys, in order.
    struct Model {
        var entries: [(key: UInt64, element: Int)]
    }

    @Test(
        "built at once, of every size up to three levels, it holds the elements in order with their keys",
        arguments: [0, 1, 2, 16, 47, 48, 49, 64, 65, 97, 3_071, 3_072, 3_073, 10_000])
    func built(count: Int) throws {
        let tree = Tree(Array(0..<count), spacing: 10)
        try Self.check(tree, against: Model(entries: (0..<count).map { (UInt64($0 + 1) * 10, $0) }))
    }

    @Test("random insertions, removals and replacements: each version equals the model, and older versions stay as they were")
    func randomOperations() throws {
        var random = SplitMix64(seed: 0x5EED_7EE5)
        for round in 0..<12 {
            let start = [0, 1, 50, 700, 4_000][round % 5]
            var tree = Tree(Array(0..<start), spacing: 1 << 20)
            var model = Model(entries: (0..<start).map { (UInt64($0 + 1) << 20, $0) })
            var versions: [(Tree, Model)] = []
            for step in 0..<1_500 {
                let operation = Int.random(in: 0..<10, using: &random)
                if model.entries.isEmpty || operation < 4 {
                    // Insert at a random position, keyed midway between the neighbours.
                    let position = Int.random(in: 0...model.entries.count, using: &random)
                    let low = position == 0 ? 0 : model.entries[position - 1].key
                    let high = position == model.entries.count ? low + (1 << 21) : model.entries[position].key
                    guard high - low >= 2 else { continue }
                    let key = low + (high - low) / 2
                    let element = 1_000_000 + round * 10_000 + step
                    tree = tree.inserting(element, key: key)
                    model.entries.insert((key, element), at: position)
                } else if operation < 8 {
                    let position = Int.random(in: 0..<model.entries.count, using: &random)
                    tree = tree.removing(model.entries[position].key)
                    model.entries.remove(at: position)
                } else {
                    let position = Int.random(in: 0..<model.entries.count, using: &random)
                    let element = -step
                    tree = tree.replacing(model.entries[position].key, with: element)
                    model.entries[position].element = element
                }
                if step % 100 == 0 {
                    try Self.check(tree, against: model)
                    versions.append((tree, model))
                }
            }
            try Self.check(tree, against: model)
            for (old, oldModel) in versions {
                try Self.check(old, against: oldModel)
            }
        }
    }

    @Test("emptied one element at a time from either end, it stays balanced and ends empty")
    func emptied() throws {
        for fromFront in [true, false] {
            var model = Model(entries: (0..<5_000).map { (UInt64($0 + 1), $0) })
            var tree = Tree(Array(0..<5_000), spacing: 1)
            while !model.entries.isEmpty {
                let entry = fromFront ? model.entries.removeFirst() : model.entries.removeLast()
                tree = tree.removing(entry.key)
                if model.entries.count % 250 == 0 { try Self.check(tree, against: model) }
            }
            #expect(tree.root == nil)
        }
    }

    @Test("a key that is not there: removing it is the same tree, finding it finds nothing")
    func absentKey() {
        let tree = Tree([1, 2, 3], spacing: 10)
        #expect(tree.removing(15).root === tree.root)
        #expect(tree.removing(40).root === tree.root)
        #expect(tree.find(15) == nil)
        #expect(tree.find(0) == nil)
        #expect(tree.find(40) == nil)
        #expect(Tree().removing(1).root == nil)
    }

    /// The tree holds the model's elements and keys, finds each by position and by key, and keeps the B-tree's
    /// shape: every leaf at one depth, every node but the root within its entry bounds, counts and last keys true.
    static func check(_ tree: Tree, against model: Model) throws {
        try #require(tree.count == model.entries.count)
        var iterator = tree.makeIterator()
        var position = 0
        while let entry = iterator.nextEntry() {
            try #require(entry.key == model.entries[position].key && entry.element == model.entries[position].element, "at \(position)")
            position += 1
        }
        try #require(position == model.entries.count)
        for position in stride(from: 0, to: model.entries.count, by: max(1, model.entries.count / 97)) {
            let (key, element) = model.entries[position]
            #expect(tree.entry(at: position) == (key, element))
            #expect(tree.find(key).map { $0 == (position, element) } ?? false, "key \(key) at \(position)")
        }
        if let root = tree.root {
            var leafDepths = Set<Int>()
            try checkNode(root, depth: 0, isRoot: true, leafDepths: &leafDepths)
            #expect(leafDepths.count == 1, "leaves at depths \(leafDepths)")
        }
    }

    private static func checkNode(_ node: Tree.Node, depth: Int, isRoot: Bool, leafDepths: inout Set<Int>) throws {
        if !isRoot {
            #expect(node.entryCount >= Tree.minEntries, "a node of \(node.entryCount) entries below the root")
        }
        #expect(node.entryCount <= Tree.maxEntries)
        switch node.entries {
        case .leaf(let keys, let elements):
            leafDepths.insert(depth)
            #expect(keys.count == elements.count && node.count == elements.count && keys.last == node.lastKey)
            #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }, "keys ascend in a leaf")
        case .branch(let children, let counts, let lastKeys):
            #expect(!isRoot || children.count >= 2, "a root branch has two children or more")
            #expect(counts == children.map(\.count) && lastKeys == children.map(\.lastKey))
            #expect(node.count == counts.reduce(0, +) && node.lastKey == lastKeys.last)
            #expect(zip(lastKeys, lastKeys.dropFirst()).allSatisfy { $0 < $1 }, "children's keys ascend")
            for child in children {
                try checkNode(child, depth: depth + 1, isRoot: false, leafDepths: &leafDepths)
            }
        }
    }
}
