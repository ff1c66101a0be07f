public import DepotJSON

/// The items of a successful load, in the source's order, with an index by id.
/// Ids are unique: building a collection checks them and fails with the index or id at fault.
public struct ItemCollection: Sendable {
    public let items: [Item]
    private let index: ItemIndex
    /// The bytes of the items' JSON, summed: about the size of their encoding, known without a pass over them.
    public let jsonByteCount: Int

    /// An empty collection.
    public init() {
        self.init(items: [], positionByID: [:], jsonByteCount: 0)
    }

    private init(items: [Item], positionByID: [String: Int], jsonByteCount: Int) {
        self.init(items: items, index: ItemIndex(positionByID), jsonByteCount: jsonByteCount)
    }

    private init(items: [Item], index: ItemIndex, jsonByteCount: Int) {
        self.items = items
        self.index = index
        self.jsonByteCount = jsonByteCount
    }

    /// Builds the collection from a source's elements, reading each id from `idField`.
    /// String ids are used as they are; integer ids as their literal (`25` → `"25"`).
    public init(values: [JSONValue], idField: String) throws(ItemCollectionError) {
        var items: [Item] = []
        items.reserveCapacity(values.count)
        var positionByID: [String: Int] = [:]
        positionByID.reserveCapacity(values.count)
        var jsonByteCount = 0
        for (index, value) in values.enumerated() {
            guard case .object(let object) = value else {
                throw ItemCollectionError(.notAnObject(index: index, found: value.typeName))
            }
            let id = try Self.id(of: object, at: index, idField: idField)
            if let firstIndex = positionByID.updateValue(index, forKey: id) {
                throw ItemCollectionError(.duplicateID(id: id, index: index, firstIndex: firstIndex))
            }
            let item = Item(id: id, json: value.jsonBytes)
            jsonByteCount += item.json.count
            items.append(item)
        }
        self.init(items: items, positionByID: positionByID, jsonByteCount: jsonByteCount)
    }

    /// A collection from items that already carry their ids (kept by the on-disk cache, say), in this order,
    /// without parsing their JSON again. Fails with the first repeated id.
    public init(items: [Item]) throws(ItemCollectionError) {
        var positionByID: [String: Int] = [:]
        positionByID.reserveCapacity(items.count)
        var jsonByteCount = 0
        // By index rather than `enumerated()`, which copies (retains and releases) every item.
        for index in items.indices {
            if let firstIndex = positionByID.updateValue(index, forKey: items[index].id) {
                throw ItemCollectionError(.duplicateID(id: items[index].id, index: index, firstIndex: firstIndex))
            }
            jsonByteCount += items[index].json.count
        }
        self.init(items: items, positionByID: positionByID, jsonByteCount: jsonByteCount)
    }

    public var count: Int { items.count }

    public var isEmpty: Bool { items.isEmpty }

    public func contains(id: String) -> Bool {
        index.position(of: id, in: items) != nil
    }

    /// Where the item `id` is in `items`; nil when there is none.
    public func position(of id: String) -> Int? {
        index.position(of: id, in: items)
    }

    public func item(id: String) -> Item? {
        index.position(of: id, in: items).map { items[$0] }
    }

    /// The collection without the item `id`; the same collection when it has no such item.
    ///
    /// The index is not rebuilt now but derived from this one's when first looked up (see `ItemIndex`): a
    /// removal is on the path to every subscriber.
    public func removing(id: String) -> ItemCollection {
        // An index not built yet is not built for this: one pass comparing ids is cheaper than hashing them all.
        let position = index.isBuilt ? index.position(of: id, in: items) : items.firstIndex { $0.id == id }
        guard let position else { return self }
        var remaining = items
        let removed = remaining.remove(at: position)
        return ItemCollection(
            items: remaining, index: ItemIndex(removing: id, at: position, from: index), jsonByteCount: jsonByteCount - removed.json.count)
    }

    /// The collection with `changes` applied: removed ids dropped, changed items replacing the held ones where they
    /// are, new ones inserted before the first held item whose id follows theirs in UTF-8 byte order — where a
    /// listing sorted by id (PostgreSQL's `COLLATE "C"`) has them. An id both removed and changed ends changed.
    /// Fails, as building from a listing does, when a changed item is not an object or lacks its id.
    ///
    /// Costs the changes, not the collection, wherever it can: held items are found through the index, the new
    /// index is derived from this one's (see `IndexEdit`), and no id of an unchanged item is hashed. Only an
    /// insertion scans the ids (comparing bytes) for its place.
    public func applying(_ changes: SourceChanges, idField: String) throws(ItemCollectionError) -> ItemCollection {
        var replacements: [String: Item] = [:]
        replacements.reserveCapacity(changes.changed.count)
        for (index, value) in changes.changed.enumerated() {
            guard case .object(let object) = value else {
                throw ItemCollectionError(.notAnObject(index: index, found: value.typeName))
            }
            let id = try Self.id(of: object, at: index, idField: idField)
            replacements[id] = Item(id: id, json: value.jsonBytes)
        }
        var replaced: [(position: Int, item: Item)] = []
        var additions: [Item] = []
        for item in replacements.values {
            if let position = position(of: item.id) { replaced.append((position, item)) } else { additions.append(item) }
        }
        replaced.sort { $0.position < $1.position }
        additions.sort { Self.idPrecedes($0.id, $1.id) }
        var removals: [(position: Int, id: String)] = []
        for id in Set(changes.removed) where replacements[id] == nil {
            if let position = position(of: id) { removals.append((position, id)) }
        }
        removals.sort { $0.position < $1.position }
        if replaced.isEmpty, additions.isEmpty, removals.count == 1 {
            // One row deleted: a removal, which a fan-out recognises in O(1) (`removedID(from:)`).
            return removing(id: removals[0].id)
        }

        var byteCount = jsonByteCount
        var edit = IndexEdit()
        var scan = 0
        for addition in additions {
            while scan < items.count, !Self.idPrecedes(addition.id, items[scan].id) { scan += 1 }
            edit.insertionPoints.append(scan)
        }
        var result: [Item] = []
        result.reserveCapacity(items.count - removals.count + additions.count)
        var nextAddition = 0
        var nextRemoval = 0
        var nextReplacement = 0
        func insert(before position: Int) {
            while nextAddition < additions.count, edit.insertionPoints[nextAddition] == position {
                edit.inserted.append((additions[nextAddition].id, result.count))
                byteCount += additions[nextAddition].json.count
                result.append(additions[nextAddition])
                nextAddition += 1
            }
        }
        for position in items.indices {
            insert(before: position)
            if nextRemoval < removals.count, removals[nextRemoval].position == position {
                edit.removedPositions.append(position)
                edit.removedIDs.append(removals[nextRemoval].id)
                byteCount -= items[position].json.count
                nextRemoval += 1
            } else if nextReplacement < replaced.count, replaced[nextReplacement].position == position {
                byteCount += replaced[nextReplacement].item.json.count - items[position].json.count
                result.append(replaced[nextReplacement].item)
                nextReplacement += 1
            } else {
                result.append(items[position])
            }
        }
        insert(before: items.count)
        return ItemCollection(items: result, index: ItemIndex(editing: index, edit), jsonByteCount: byteCount)
    }

    /// The id of `value` read from `idField` as a collection reads it; nil when it has none.
    public static func id(of value: JSONValue, idField: String) -> String? {
        guard case .object(let object) = value else { return nil }
        return try? id(of: object, at: 0, idField: idField)
    }

    /// Whether id `a` sorts before `b` byte by byte in UTF-8, as PostgreSQL's "C" collation and memcmp order them.
    public static func idPrecedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Whether `other` is this very collection (a copy of it), not merely equal: O(1).
    public func isSameCollection(as other: ItemCollection) -> Bool {
        index === other.index
    }

    /// The id this collection lacks when it was made by `previous.removing(id:)`; nil otherwise. O(1): it compares
    /// the indexes' tokens, never the items.
    public func removedID(from previous: ItemCollection) -> String? {
        guard let removal = index.removal, removal.baseToken == previous.index.token else { return nil }
        return removal.id
    }

    /// Whether this collection is `previous` without the item `id`: the same other items, in the same order,
    /// byte for byte. Compares in one pass, without building the shorter collection.
    public func isRemoval(of id: String, from previous: ItemCollection) -> Bool {
        guard let removed = previous.index.position(of: id, in: previous.items), items.count == previous.items.count - 1 else { return false }
        return items[..<removed].elementsEqual(previous.items[..<removed])
            && items[removed...].elementsEqual(previous.items[(removed + 1)...])
    }

    private static func id(of object: JSONObject, at index: Int, idField: String) throws(ItemCollectionError) -> String {
        switch object[idField] {
        case nil:
            throw ItemCollectionError(.missingID(index: index, idField: idField))
        case .string(let id) where !id.isEmpty:
            return id
        case .string:
            throw ItemCollectionError(.invalidID(index: index, idField: idField, found: "an empty string"))
        case .number(let number) where number.isInteger:
            return number.literal
        case .number(let number):
            throw ItemCollectionError(.invalidID(index: index, idField: idField, found: "the number \(number.literal)"))
        case .some(let other):
            throw ItemCollectionError(.invalidID(index: index, idField: idField, found: "a value of type \(other.typeName)"))
        }
    }
}

extension ItemCollection: Equatable {
    public static func == (lhs: ItemCollection, rhs: ItemCollection) -> Bool {
        lhs.items == rhs.items
    }
}
