extension ItemCollection {
    /// The delta from this collection to `other`, when they differ only in the items of `touched`: every other item is
    /// in both, byte for byte, in the same order relative to each other (the pending writes shown over a source's
    /// items, before and after the source confirmed or refused one of them). O(T log N) for T touched ids, never a
    /// pass over the items: so the state a confirmation publishes is derived from the one subscribers hold, and the
    /// fan-out's delta costs the change.
    ///
    /// A touched item in both whose place among the others changed goes as a removal and an addition.
    public func delta(to other: ItemCollection, touching touched: Set<String>) -> ItemDelta {
        /// The touched items of `collection` in order, each with its position and its rank among the untouched ones
        /// (how many come before it), which is the same in both collections for an item that did not move.
        func placed(in collection: ItemCollection) -> [(id: String, position: Int, rank: Int)] {
            let found = touched.compactMap { id in collection.position(of: id).map { (id: id, position: $0) } }.sorted { $0.position < $1.position }
            return found.enumerated().map { index, entry in (entry.id, entry.position, entry.position - index) }
        }
        let mine = placed(in: self)
        let theirs = placed(in: other)
        let theirRank = Dictionary(uniqueKeysWithValues: theirs.map { ($0.id, $0.rank) })
        // Kept in place: in both, with the same rank, and in the same order among themselves.
        var kept = Set(mine.filter { theirRank[$0.id] == $0.rank }.map(\.id))
        let keptOrder = mine.filter { kept.contains($0.id) }.map(\.id)
        if keptOrder != theirs.filter({ kept.contains($0.id) }).map(\.id) {
            kept = []
        }
        var delta = ItemDelta()
        for entry in mine where !kept.contains(entry.id) {
            delta.removed.append(entry.id)
        }
        for entry in theirs {
            // Touched ids come from `other` or `self`, so the lookups find them.
            guard let item = other.item(id: entry.id) else { continue }
            if kept.contains(entry.id) {
                if let held = self.item(id: entry.id), held.json != item.json { delta.changed.append(item) }
            } else {
                delta.added.append(ItemDelta.Addition(index: entry.position, item: item))
            }
        }
        return delta
    }
}
