import DequeModule

/// The optimistic writes depotd shows before the source has confirmed them, in the order they were admitted — the
/// order the source is asked to make them in. What subscribers see is always the items the source confirmed with
/// every pending write applied on top, in order: so when the source refuses one, taking it out of the layer and
/// applying the others again undoes that write alone, never another (the rollback bug of Apollo, redux-query and
/// TanStack DB, where one failed write rolls back the others still pending).
///
/// A value with no locks and no time: the repository's state holds it (`RepositoryState`).
struct PendingLayer: Sendable, Equatable {
    /// One pending write: a put, patch, removal or batch, as the item writes it comes to.
    struct Entry: Sendable, Equatable {
        /// Numbers the write for its confirmation or refusal; unique for the repository's life.
        let number: Int
        var writes: [ItemWrite]

        var ids: Set<String> { Set(writes.map(\.id)) }
    }

    private(set) var entries: Deque<Entry> = []

    /// How many writes are pending.
    var count: Int { entries.count }

    var isEmpty: Bool { entries.isEmpty }

    /// The oldest pending write: the next the source is asked to make.
    var first: Entry? { entries.first }

    /// Adds a write after the others.
    mutating func append(_ entry: Entry) {
        entries.append(entry)
    }

    /// Takes write `number` out of the layer (confirmed, or refused); nil when it is not there.
    @discardableResult
    mutating func remove(_ number: Int) -> Entry? {
        guard let index = entries.firstIndex(where: { $0.number == number }) else { return nil }
        return entries.remove(at: index)
    }

    /// Replaces what write `number` writes (a patch applied again to the item the source holds); nil when it is not there.
    @discardableResult
    mutating func replace(_ number: Int, with writes: [ItemWrite]) -> Entry? {
        guard let index = entries.firstIndex(where: { $0.number == number }) else { return nil }
        let old = entries[index]
        entries[index].writes = writes
        return old
    }

    /// `confirmed` with every pending write applied, in order; `confirmed` itself when none is pending.
    func applied(to confirmed: ItemCollection, placement: NewItemPlacement) -> ItemCollection {
        guard !entries.isEmpty else { return confirmed }
        return confirmed.applying(entries.flatMap(\.writes), placement: placement)
    }
}
