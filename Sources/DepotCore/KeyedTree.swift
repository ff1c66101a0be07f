/// A list that changes by copying one path of a tree, never the whole: consecutive versions share every node the
/// change did not touch, so a state and the one before it cost the memory of one list plus a few nodes.
///
/// A B+-tree whose leaves hold the elements in list order, each with an order key: keys ascend along the list, so
/// an element is found by its key, and its position is the count of elements before it (each branch keeps its
/// children's counts). Looking up a position or a key, removing, replacing and inserting are O(log N) — with 64
/// entries a node, four levels hold 16 million elements. Nodes are immutable; a change builds the new path.
///
/// Keys are the caller's: `ItemCollection` spaces them `spacing` apart when it builds a list, and gives an
/// inserted element a key between its neighbours' (`key(between:and:)`); when two neighbours' keys are adjacent,
/// it builds the list again with fresh keys.
struct KeyedTree<Element: Sendable>: Sendable {
    typealias Key = UInt64

    /// The most entries (elements in a leaf, children in a branch) a node holds; a node with more splits.
    static var maxEntries: Int { 64 }
    /// The fewest entries a node other than the root holds; a node with fewer is merged with a neighbour.
    static var minEntries: Int { 16 }
    /// How full a list's nodes are when built at once: room for insertions before the first split.
    static var buildEntries: Int { 48 }

    final class Node: Sendable {
        enum Entries: Sendable {
            case leaf(keys: [Key], elements: [Element])
            case branch(children: [Node], counts: [Int], lastKeys: [Key])
        }

        /// Elements under this node.
        let count: Int
        /// The largest key under this node.
        let lastKey: Key
        let entries: Entries

        init(keys: [Key], elements: [Element]) {
            count = elements.count
            lastKey = keys[keys.count - 1]
            entries = .leaf(keys: keys, elements: elements)
        }

        init(children: [Node]) {
            let counts = children.map(\.count)
            let lastKeys = children.map(\.lastKey)
            count = counts.reduce(0, +)
            lastKey = lastKeys[lastKeys.count - 1]
            entries = .branch(children: children, counts: counts, lastKeys: lastKeys)
        }

        var entryCount: Int {
            switch entries {
            case .leaf(let keys, _): keys.count
            case .branch(let children, _, _): children.count
            }
        }
    }

    let root: Node?

    init() {
        root = nil
    }

    private init(root: Node?) {
        self.root = root
    }

    /// The elements in this order, keyed `spacing`, 2 × `spacing`, … (`spacing` > 0, small enough for the count).
    init(_ elements: some Collection<Element>, spacing: Key) {
        self.init(elements, keys: { Key($0 + 1) * spacing })
    }

    /// The elements in this order, the one at offset `i` keyed `keys(i)`; the keys must ascend.
    init(_ elements: some Collection<Element>, keys: (Int) -> Key) {
        guard !elements.isEmpty else {
            self.init()
            return
        }
        var level: [Node] = []
        level.reserveCapacity(elements.count / Self.buildEntries + 1)
        var offset = 0
        var start = elements.startIndex
        for size in Self.nodeSizes(elements.count) {
            let end = elements.index(start, offsetBy: size)
            var nodeKeys: [Key] = []
            nodeKeys.reserveCapacity(size)
            for _ in 0..<size {
                nodeKeys.append(keys(offset))
                offset += 1
            }
            level.append(Node(keys: nodeKeys, elements: Array(elements[start..<end])))
            start = end
        }
        while level.count > 1 {
            var parents: [Node] = []
            var first = 0
            for size in Self.nodeSizes(level.count) {
                parents.append(Node(children: Array(level[first..<(first + size)])))
                first += size
            }
            level = parents
        }
        self.init(root: level[0])
    }

    /// Sizes for `count` entries split into nodes of about `buildEntries`, none below `minEntries` unless only
    /// one node is needed.
    private static func nodeSizes(_ count: Int) -> [Int] {
        let nodes = Swift.max(1, (count + buildEntries - 1) / buildEntries)
        return (0..<nodes).map { count / nodes + ($0 < count % nodes ? 1 : 0) }
    }

    var count: Int { root?.count ?? 0 }

    /// The element at `position` (0 ≤ `position` < `count`) and its key.
    func entry(at position: Int) -> (key: Key, element: Element) {
        guard var node = root, position >= 0, position < node.count else {
            preconditionFailure("position \(position) is outside a list of \(count) elements")
        }
        var rest = position
        while true {
            switch node.entries {
            case .leaf(let keys, let elements):
                return (keys[rest], elements[rest])
            case .branch(let children, let counts, _):
                var child = 0
                while rest >= counts[child] {
                    rest -= counts[child]
                    child += 1
                }
                node = children[child]
            }
        }
    }

    /// The element of `key`; nil when no element has it. Cheaper than `find`, which counts the position too.
    func element(_ key: Key) -> Element? {
        guard var node = root, key <= node.lastKey else { return nil }
        while true {
            switch node.entries {
            case .leaf(let keys, let elements):
                let index = Self.firstIndex(in: keys, notBelow: key)
                return index < keys.count && keys[index] == key ? elements[index] : nil
            case .branch(let children, _, let lastKeys):
                node = children[Self.firstIndex(in: lastKeys, notBelow: key)]
            }
        }
    }

    /// The position and element of `key`; nil when no element has it.
    func find(_ key: Key) -> (position: Int, element: Element)? {
        guard var node = root, key <= node.lastKey else { return nil }
        var before = 0
        while true {
            switch node.entries {
            case .leaf(let keys, let elements):
                let index = Self.firstIndex(in: keys, notBelow: key)
                guard index < keys.count, keys[index] == key else { return nil }
                return (before + index, elements[index])
            case .branch(let children, let counts, let lastKeys):
                let child = Self.firstIndex(in: lastKeys, notBelow: key)
                for sibling in 0..<child { before += counts[sibling] }
                node = children[child]
            }
        }
    }

    /// The list with `element` in place of the element keyed `key`, which must be there.
    func replacing(_ key: Key, with element: Element) -> KeyedTree {
        guard let root, let replaced = Self.replace(key, with: element, in: root) else {
            preconditionFailure("no element has key \(key)")
        }
        return KeyedTree(root: replaced)
    }

    /// The list without the element keyed `key`; this list when there is none.
    func removing(_ key: Key) -> KeyedTree {
        guard let root else { return self }
        switch Self.remove(key, from: root) {
        case .absent:
            return self
        case .removed(var newRoot):
            // A root branch left with one child gives way to it: the tree gets shallower as it empties.
            while let node = newRoot, case .branch(let children, _, _) = node.entries, children.count == 1 {
                newRoot = children[0]
            }
            return KeyedTree(root: newRoot)
        }
    }

    /// The list with `element`, keyed `key`, where the key's order puts it. `key` must be new to the list.
    func inserting(_ element: Element, key: Key) -> KeyedTree {
        guard let root else { return KeyedTree(root: Node(keys: [key], elements: [element])) }
        let nodes = Self.insert(element, key: key, into: root)
        return KeyedTree(root: nodes.count == 1 ? nodes[0] : Node(children: nodes))
    }

    // MARK: - Paths

    private static func replace(_ key: Key, with element: Element, in node: Node) -> Node? {
        switch node.entries {
        case .leaf(let keys, var elements):
            let index = firstIndex(in: keys, notBelow: key)
            guard index < keys.count, keys[index] == key else { return nil }
            elements[index] = element
            return Node(keys: keys, elements: elements)
        case .branch(var children, _, let lastKeys):
            let child = firstIndex(in: lastKeys, notBelow: key)
            guard child < children.count, let replaced = replace(key, with: element, in: children[child]) else { return nil }
            children[child] = replaced
            return Node(children: children)
        }
    }

    private enum Removal {
        case absent
        /// The node without the element; nil when that was its last.
        case removed(Node?)
    }

    private static func remove(_ key: Key, from node: Node) -> Removal {
        switch node.entries {
        case .leaf(var keys, var elements):
            let index = firstIndex(in: keys, notBelow: key)
            guard index < keys.count, keys[index] == key else { return .absent }
            keys.remove(at: index)
            elements.remove(at: index)
            return .removed(keys.isEmpty ? nil : Node(keys: keys, elements: elements))
        case .branch(var children, _, let lastKeys):
            let child = firstIndex(in: lastKeys, notBelow: key)
            guard child < children.count, case .removed(let remaining) = remove(key, from: children[child]) else { return .absent }
            if let remaining {
                children[child] = remaining
                if remaining.entryCount < minEntries, children.count > 1 {
                    rebalance(&children, around: child)
                }
            } else {
                children.remove(at: child)
            }
            return .removed(children.isEmpty ? nil : Node(children: children))
        }
    }

    /// Merges the underfull child at `index` with a neighbour, splitting the two again in even halves when
    /// together they overfill a node.
    private static func rebalance(_ children: inout [Node], around index: Int) {
        let first = index + 1 < children.count ? index : index - 1
        let merged = concatenate(children[first], children[first + 1])
        children.replaceSubrange(first...(first + 1), with: merged)
    }

    /// Two neighbouring nodes of one level as one node, or two even halves when one would overfill.
    private static func concatenate(_ left: Node, _ right: Node) -> [Node] {
        switch (left.entries, right.entries) {
        case (.leaf(let leftKeys, let leftElements), .leaf(let rightKeys, let rightElements)):
            return split(keys: leftKeys + rightKeys, elements: leftElements + rightElements)
        case (.branch(let leftChildren, _, _), .branch(let rightChildren, _, _)):
            return split(children: leftChildren + rightChildren)
        default:
            preconditionFailure("neighbouring nodes of one level are both leaves or both branches")
        }
    }

    private static func insert(_ element: Element, key: Key, into node: Node) -> [Node] {
        switch node.entries {
        case .leaf(var keys, var elements):
            let index = firstIndex(in: keys, notBelow: key)
            precondition(index == keys.count || keys[index] != key, "key \(key) is in the list already")
            keys.insert(key, at: index)
            elements.insert(element, at: index)
            return split(keys: keys, elements: elements)
        case .branch(var children, _, let lastKeys):
            // Past every key: the last child takes it.
            let child = Swift.min(firstIndex(in: lastKeys, notBelow: key), children.count - 1)
            children.replaceSubrange(child...child, with: insert(element, key: key, into: children[child]))
            return split(children: children)
        }
    }

    private static func split(keys: [Key], elements: [Element]) -> [Node] {
        guard keys.count > maxEntries else { return [Node(keys: keys, elements: elements)] }
        let half = keys.count / 2
        return [
            Node(keys: Array(keys[..<half]), elements: Array(elements[..<half])),
            Node(keys: Array(keys[half...]), elements: Array(elements[half...])),
        ]
    }

    private static func split(children: [Node]) -> [Node] {
        guard children.count > maxEntries else { return [Node(children: children)] }
        let half = children.count / 2
        return [Node(children: Array(children[..<half])), Node(children: Array(children[half...]))]
    }

    /// The first index of ascending `keys` whose key is `key` or greater; `keys.count` when none is.
    private static func firstIndex(in keys: [Key], notBelow key: Key) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension KeyedTree: Sequence {
    /// Walks the leaves in order: O(1) per element, amortised.
    struct Iterator: IteratorProtocol {
        /// The branches above the current leaf, each with the index of its next child.
        private var path: [(node: Node, next: Int)] = []
        private var keys: [Key] = []
        private var elements: [Element] = []
        private var index = 0

        init(root: Node?) {
            if let root { descend(from: root) }
        }

        /// The next element with its key.
        mutating func nextEntry() -> (key: Key, element: Element)? {
            while index == elements.count {
                guard let top = path.popLast() else { return nil }
                guard case .branch(let children, _, _) = top.node.entries, top.next < children.count else { continue }
                path.append((top.node, top.next + 1))
                descend(from: children[top.next])
            }
            defer { index += 1 }
            return (keys[index], elements[index])
        }

        mutating func next() -> Element? {
            nextEntry()?.element
        }

        private mutating func descend(from node: Node) {
            var node = node
            while case .branch(let children, _, _) = node.entries {
                path.append((node, 1))
                node = children[0]
            }
            if case .leaf(let keys, let elements) = node.entries {
                (self.keys, self.elements, index) = (keys, elements, 0)
            }
        }
    }

    func makeIterator() -> Iterator {
        Iterator(root: root)
    }

    var underestimatedCount: Int { count }
}
