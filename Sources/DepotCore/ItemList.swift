/// A collection's items in order: a view of the persistent tree they are held in (`KeyedTree`).
///
/// Iterating is O(1) an item; reading by position is O(log N) (at most four levels up to 16 million items), so
/// a pass over the items iterates rather than indexes.
public struct ItemList: RandomAccessCollection, Sendable {
    let tree: KeyedTree<Item>

    init(_ tree: KeyedTree<Item>) {
        self.tree = tree
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { tree.count }
    public var count: Int { tree.count }

    public subscript(position: Int) -> Item {
        tree.entry(at: position).element
    }

    public struct Iterator: IteratorProtocol {
        var base: KeyedTree<Item>.Iterator

        public mutating func next() -> Item? {
            base.next()
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(base: tree.makeIterator())
    }

    public var underestimatedCount: Int { tree.count }
}

extension ItemList: Equatable {
    /// The same items in the same order; O(1) when both are one version of the tree.
    public static func == (lhs: ItemList, rhs: ItemList) -> Bool {
        if lhs.tree.root === rhs.tree.root { return true }
        return lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

extension ItemList: ExpressibleByArrayLiteral {
    /// A list of these items, for comparisons in tests; ids are not checked here (`ItemCollection` does).
    public init(arrayLiteral items: Item...) {
        self.init(KeyedTree(items, spacing: 1))
    }
}
