/// What a write does to one item of a collection: puts its new JSON (replacing the item with its id, or adding it), or
/// removes it. Every change a client asks for — a put, a patch, a removal — comes to one of these once the repository
/// has resolved it against the items.
public enum ItemWrite: Sendable, Equatable {
    case put(Item)
    case remove(id: String)

    /// The id of the item written.
    public var id: String {
        switch self {
        case .put(let item): item.id
        case .remove(let id): id
        }
    }

    /// The item's JSON after the write; nil for a removal.
    public var item: Item? {
        if case .put(let item) = self { return item }
        return nil
    }
}

/// Where a source puts an item it did not hold, so that what depotd shows before the source answers is where the
/// source's answer will have it.
public enum NewItemPlacement: Sendable, Equatable {
    /// After every other item: a file appends it.
    case last
    /// Where its id sorts, byte by byte: a table read in id order (`COLLATE "C"`).
    case byID
}
