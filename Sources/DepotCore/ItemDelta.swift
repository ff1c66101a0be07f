/// How one success state's items become the next one's: the ids that went, the items that changed in place and
/// the items that came, with their index in the new list.
///
/// Applying it to the old items — drop `removed`, replace each `changed` item (same id) where it stands, then
/// insert each `added` item at its index, in ascending order — gives exactly the new items, in order. A new
/// order that is not the old one minus removals plus insertions (the source reordered items) has no delta.
public struct ItemDelta: Sendable, Equatable {
    /// An item that came, and where it stands in the new list.
    public struct Addition: Sendable, Equatable {
        public let index: Int
        public let item: Item

        public init(index: Int, item: Item) {
            self.index = index
            self.item = item
        }
    }

    /// Ids of the items that went, in their old order.
    public var removed: [String]
    /// Items whose JSON changed, in their new order.
    public var changed: [Item]
    /// Items that came, in ascending index.
    public var added: [Addition]

    public init(removed: [String] = [], changed: [Item] = [], added: [Addition] = []) {
        self.removed = removed
        self.changed = changed
        self.added = added
    }

    /// True when the items did not change.
    public var isEmpty: Bool { removed.isEmpty && changed.isEmpty && added.isEmpty }

    /// The delta from `old` to `new`; nil when the items kept are not in the same relative order.
    ///
    /// One pass over both lists in step: where the ids agree, only the bytes are compared (items carried over
    /// from the old collection share their storage, so that is a pointer check), and ids are looked up by index
    /// only where the lists part. A removal from N items costs N comparisons and one lookup.
    public init?(from old: ItemCollection, to new: ItemCollection) {
        var delta = ItemDelta()
        let (oldItems, newItems) = (old.items, new.items)
        var (oldIndex, newIndex) = (0, 0)
        while oldIndex < oldItems.count || newIndex < newItems.count {
            if oldIndex < oldItems.count, newIndex < newItems.count, oldItems[oldIndex].id == newItems[newIndex].id {
                if oldItems[oldIndex].json != newItems[newIndex].json {
                    delta.changed.append(newItems[newIndex])
                }
                oldIndex += 1
                newIndex += 1
            } else if oldIndex < oldItems.count, !new.contains(id: oldItems[oldIndex].id) {
                delta.removed.append(oldItems[oldIndex].id)
                oldIndex += 1
            } else if newIndex < newItems.count, !old.contains(id: newItems[newIndex].id) {
                delta.added.append(Addition(index: newIndex, item: newItems[newIndex]))
                newIndex += 1
            } else {
                // Both items are kept, but in another order.
                return nil
            }
        }
        self = delta
    }

    /// The items `base` becomes; nil when the delta does not fit it (see `Misfit`).
    public func applied(to base: [Item]) -> [Item]? {
        try? Self.apply(removed: removed, changed: changed, added: added.map { ($0.index, $0.item) }, to: base, id: \.id).get()
    }

    /// How a delta does not fit the items it is applied to.
    public enum Misfit: Error, Equatable, Sendable {
        /// It removes an id the items lack.
        case removesAbsent
        /// It changes an item whose id the items lack.
        case changesAbsent
        /// It adds an item at `index`, past the end of the `count` items there are then.
        case addsPastEnd(index: Int, count: Int)
    }

    /// A delta's parts applied to `base`, whatever its elements (the daemon's items, a client's JSON values), each
    /// element's id read by `id` (an element without one is kept, and is never the one changed): drop `removed`,
    /// replace each `changed` element where the element with its id stands, insert each `added` one at its index, in
    /// order. The one definition of applying a delta, for `ItemDelta` and for the clients' `WireDelta`.
    public static func apply<Element>(
        removed: [String], changed: [Element], added: [(index: Int, item: Element)], to base: [Element], id: (Element) -> String?
    ) -> Result<[Element], Misfit> {
        let removedIDs = Set(removed)
        var elements = base.filter { id($0).map { !removedIDs.contains($0) } ?? true }
        guard elements.count == base.count - removedIDs.count else { return .failure(.removesAbsent) }
        if !changed.isEmpty {
            var positions: [String: Int] = [:]
            for (index, element) in elements.enumerated() {
                if let elementID = id(element) { positions[elementID] = index }
            }
            for element in changed {
                guard let elementID = id(element), let position = positions[elementID] else { return .failure(.changesAbsent) }
                elements[position] = element
            }
        }
        for (index, element) in added {
            guard index <= elements.count else { return .failure(.addsPastEnd(index: index, count: elements.count)) }
            elements.insert(element, at: index)
        }
        return .success(elements)
    }

    /// The bytes of the delta's items and ids, about what it costs on the wire; to choose between it and the
    /// full list.
    public var payloadBytes: Int {
        removed.reduce(0) { $0 + $1.utf8.count + 3 } + changed.reduce(0) { $0 + $1.json.count + 1 }
            + added.reduce(0) { $0 + $1.item.json.count + 20 }
    }
}
