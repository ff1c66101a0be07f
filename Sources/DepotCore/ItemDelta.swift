import DepotPlatform

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

    /// The ids the delta touches: removed, changed or added.
    public var ids: Set<String> {
        Set(removed).union(changed.map(\.id)).union(added.map(\.item.id))
    }

    /// The delta from `old` to `new`; nil when the items kept are not in the same relative order.
    ///
    /// O(1) when `new` is `old`, or was made from `old` by a change (it remembers the change: `ItemCollection.delta(from:)`).
    /// Otherwise one pass over both lists in step: where the ids agree, only the bytes are compared (items carried
    /// over from the old collection share their storage, so that is a pointer check), and ids are looked up only
    /// where the lists part.
    public init?(from old: ItemCollection, to new: ItemCollection) {
        if new.isSameCollection(as: old) {
            self = ItemDelta()
            return
        }
        if let derived = new.delta(from: old) {
            self = derived
            return
        }
        var delta = ItemDelta()
        var (oldItems, newItems) = (old.items.makeIterator(), new.items.makeIterator())
        var (oldItem, newItem) = (oldItems.next(), newItems.next())
        var newIndex = 0
        while oldItem != nil || newItem != nil {
            if let kept = oldItem, let next = newItem, kept.id == next.id {
                if kept.json != next.json {
                    delta.changed.append(next)
                }
                (oldItem, newItem) = (oldItems.next(), newItems.next())
                newIndex += 1
            } else if let gone = oldItem, !new.contains(id: gone.id) {
                delta.removed.append(gone.id)
                oldItem = oldItems.next()
            } else if let came = newItem, !old.contains(id: came.id) {
                delta.added.append(Addition(index: newIndex, item: came))
                newItem = newItems.next()
                newIndex += 1
            } else {
                // Both items are kept, but in another order.
                return nil
            }
        }
        self = delta
    }

    /// The items `base` becomes; nil when the delta does not fit it (see `DeltaApplication.Misfit`).
    public func applied(to base: [Item]) -> [Item]? {
        try? DeltaApplication.apply(removed: removed, changed: changed, added: added.map { ($0.index, $0.item) }, to: base, id: \.id).get()
    }

    /// The bytes of the delta's items and ids, about what it costs on the wire; to choose between it and the
    /// full list.
    public var payloadBytes: Int {
        removed.reduce(0) { $0 + $1.utf8.count + 3 } + changed.reduce(0) { $0 + $1.json.count + 1 }
            + added.reduce(0) { $0 + $1.item.json.count + 20 }
    }
}
