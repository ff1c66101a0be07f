public import DepotJSON

/// The items of a successful load, in the source's order, found by id or by position.
/// Ids are unique: building a collection checks them and fails with the index or id at fault.
///
/// Consecutive collections share structure: the items are held in a persistent tree (`KeyedTree`, each item with
/// an order key) and the ids' keys in another, by hash (`IDIndex`), so removing,
/// replacing or inserting an item costs O(log N) and copies neither the list nor the index; a state and the
/// replay ring's older states hold one list between them. A collection made by a change to another remembers the
/// change (`delta(from:)`), so what it costs a fan-out is the change, not the collection.
public struct ItemCollection: Sendable {
    // File-private, not private: `CollectionEdit` starts from them.
    fileprivate let tree: KeyedTree<Item>
    /// Each item's order key in `tree`, by id.
    fileprivate let keys: IDIndex
    /// The bytes of the items' JSON, summed: about the size of their encoding, known without a pass over them.
    public let jsonByteCount: Int
    /// Whether the ids ascend byte by byte along the list (a listing sorted by id): an insertion then finds its
    /// place by bisection instead of a scan.
    fileprivate let isSortedByID: Bool
    private let lineage: Lineage

    /// The items, in order.
    public var items: ItemList { ItemList(tree) }

    /// The spacing of the keys a collection is built with, at most 2³² (room for 32 insertions between two items
    /// before the keys are laid out again), less for a collection so large that the keys would overflow.
    private static func spacing(for count: Int) -> UInt64 {
        min(1 << 32, UInt64.max / UInt64(count + 2))
    }

    /// An empty collection.
    public init() {
        self.init(tree: KeyedTree(), keys: IDIndex(), jsonByteCount: 0, isSortedByID: true, derivation: nil)
    }

    private init(
        tree: KeyedTree<Item>, keys: IDIndex, jsonByteCount: Int, isSortedByID: Bool,
        derivation: Lineage.Derivation?
    ) {
        self.tree = tree
        self.keys = keys
        self.jsonByteCount = jsonByteCount
        self.isSortedByID = isSortedByID
        lineage = Lineage(derivation: derivation)
    }

    /// Builds the collection from a source's elements, reading each id from `idField`.
    /// String ids are used as they are; integer ids as their literal (`25` → `"25"`).
    public init(values: [JSONValue], idField: String) throws(ItemCollectionError) {
        var items: [Item] = []
        items.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            guard case .object(let object) = value else {
                throw ItemCollectionError(.notAnObject(index: index, found: value.typeName))
            }
            items.append(Item(id: try Self.id(of: object, at: index, idField: idField), json: value.jsonBytes))
        }
        try self.init(items: items)
    }

    /// A collection from items that already carry their ids (kept by the on-disk cache, say), in this order,
    /// without parsing their JSON again. Fails with the first repeated id.
    public init(items: [Item]) throws(ItemCollectionError) {
        let spacing = Self.spacing(for: items.count)
        var jsonByteCount = 0
        var isSortedByID = true
        var ids: [String] = []
        ids.reserveCapacity(items.count)
        // By index rather than `enumerated()`, which copies (retains and releases) every item.
        for index in items.indices {
            ids.append(items[index].id)
            jsonByteCount += items[index].json.count
            if isSortedByID, index > 0, !Self.idPrecedes(items[index - 1].id, items[index].id) { isSortedByID = false }
        }
        let keys: IDIndex
        do {
            keys = try IDIndex(ids: ids, keys: { UInt64($0 + 1) * spacing })
        } catch {
            throw ItemCollectionError(.duplicateID(id: error.id, index: error.index, firstIndex: error.firstIndex))
        }
        self.init(
            tree: KeyedTree(items, spacing: spacing), keys: keys, jsonByteCount: jsonByteCount, isSortedByID: isSortedByID,
            derivation: nil)
    }

    public var count: Int { tree.count }

    public var isEmpty: Bool { tree.count == 0 }

    public func contains(id: String) -> Bool {
        keys[id] != nil
    }

    /// Where the item `id` is in `items`; nil when there is none. O(log N).
    public func position(of id: String) -> Int? {
        keys[id].flatMap { tree.find($0)?.position }
    }

    public func item(id: String) -> Item? {
        keys[id].flatMap { tree.element($0) }
    }

    /// The collection without the item `id`; the same collection when it has no such item. O(log N).
    public func removing(id: String) -> ItemCollection {
        guard let key = keys[id], let removed = tree.element(key) else { return self }
        return ItemCollection(
            tree: tree.removing(key), keys: keys.removing(id), jsonByteCount: jsonByteCount - removed.json.count, isSortedByID: isSortedByID,
            derivation: Lineage.Derivation(base: lineage, delta: ItemDelta(removed: [id])))
    }

    /// The collection with `changes` applied: removed ids dropped, changed items replacing the held ones where they
    /// are, new ones inserted before the first held item whose id follows theirs in UTF-8 byte order — where a
    /// listing sorted by id (PostgreSQL's `COLLATE "C"`) has them. An id both removed and changed ends changed; a
    /// changed item whose bytes are those held is no change. Fails, as building from a listing does, when a changed
    /// item is not an object or lacks its id.
    ///
    /// Costs O(log N) a change, and the collection remembers the changes as its delta from this one. Only an
    /// insertion into a list whose ids do not ascend scans the ids (comparing bytes) for its place.
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
        var edit = CollectionEdit(self)
        var removals: [(position: Int, id: String)] = []
        for id in Set(changes.removed) where replacements[id] == nil {
            if let key = keys[id], let found = tree.find(key) { removals.append((found.position, id)) }
        }
        for removal in removals {
            edit.remove(removal.id)
        }
        var additions: [Item] = []
        for item in replacements.values {
            if keys[item.id] != nil { edit.replace(item) } else { additions.append(item) }
        }
        additions.sort { Self.idPrecedes($0.id, $1.id) }
        for addition in additions {
            edit.insert(addition)
        }
        guard !edit.isEmpty else { return self }
        removals.sort { $0.position < $1.position }
        // One row deleted is a delta of one removed id, which `removedID(from:)` recognises as `removing(id:)`'s.
        let delta = edit.delta(removed: removals.map(\.id))
        return ItemCollection(
            tree: edit.tree, keys: edit.keys, jsonByteCount: edit.jsonByteCount, isSortedByID: isSortedByID,
            derivation: Lineage.Derivation(base: lineage, delta: delta))
    }

    /// The collection with `writes` applied in order, as a source applies them: a put replaces the item with its id
    /// where it stands, or adds it where `placement` says; a removal drops it (an id not held is no change). An id
    /// removed and put again within the writes is new again: it goes where new items go. The collection remembers the
    /// writes as its delta from this one. O(log N) a write (an insertion by id into a list whose ids do not ascend
    /// scans for its place).
    public func applying(_ writes: [ItemWrite], placement: NewItemPlacement) -> ItemCollection {
        // The final value of each id written, and the ids that come into being, in the order they (last) did.
        var final: [String: Item?] = [:]
        var arrivals: [String] = []
        for write in writes {
            let present = final[write.id].map { $0 != nil } ?? contains(id: write.id)
            switch write {
            case .put(let item):
                if !present { arrivals.append(item.id) }
                final[item.id] = .some(item)
            case .remove(let id):
                if present { arrivals.removeAll { $0 == id } }
                final[id] = .some(nil)
            }
        }
        // Placed by id, an item removed and put again stands where it stood: a change, not a move.
        if placement == .byID { arrivals.removeAll { contains(id: $0) } }
        let arriving = Set(arrivals)
        var edit = CollectionEdit(self)
        var removals: [(position: Int, id: String)] = []
        for (id, value) in final {
            guard let key = keys[id], let found = tree.find(key) else { continue }
            if let item = value, !arriving.contains(id) {
                edit.replace(item)
            } else {
                removals.append((found.position, id))
            }
        }
        for removal in removals {
            edit.remove(removal.id)
        }
        for id in arrivals {
            guard case .some(.some(let item)) = final[id] else { continue }
            switch placement {
            case .last: edit.append(item)
            case .byID: edit.insert(item)
            }
        }
        guard !edit.isEmpty else { return self }
        removals.sort { $0.position < $1.position }
        return ItemCollection(
            tree: edit.tree, keys: edit.keys, jsonByteCount: edit.jsonByteCount, isSortedByID: edit.sorted,
            derivation: Lineage.Derivation(base: lineage, delta: edit.delta(removed: removals.map(\.id))))
    }

    /// The collection `delta` makes of this one — its removals dropped, its changes put in place, its additions
    /// inserted at their index — remembering `delta` as its derivation; nil when the delta does not fit (it removes or
    /// changes an id not held, adds one held or past the end). O(log N) an item of the delta.
    public func applying(_ delta: ItemDelta) -> ItemCollection? {
        guard !delta.isEmpty else { return self }
        var edit = CollectionEdit(self)
        for id in delta.removed {
            guard contains(id: id) else { return nil }
            edit.remove(id)
        }
        for item in delta.changed {
            guard let held = edit.item(id: item.id) else { return nil }
            if held.json != item.json { edit.replace(item) }
        }
        for addition in delta.added {
            guard addition.index <= edit.tree.count, edit.item(id: addition.item.id) == nil else { return nil }
            edit.insert(addition.item, at: addition.index)
        }
        return ItemCollection(
            tree: edit.tree, keys: edit.keys, jsonByteCount: edit.jsonByteCount, isSortedByID: edit.sorted,
            derivation: Lineage.Derivation(base: lineage, delta: delta))
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
        lineage === other.lineage
    }

    /// The delta from `previous` when this collection was made from that very one by `removing(id:)` or
    /// `applying(_:idField:)`; nil otherwise. O(1): it compares identities, never the items.
    public func delta(from previous: ItemCollection) -> ItemDelta? {
        guard let derivation = lineage.derivation, derivation.base === previous.lineage else { return nil }
        return derivation.delta
    }

    /// The ids in which this collection can differ from `previous`: none when it is that very collection, those of its
    /// delta when it was made from it by a change; nil when it was not (anything may differ). O(1) besides the delta.
    public func changedIDs(since previous: ItemCollection) -> Set<String>? {
        if isSameCollection(as: previous) { return [] }
        return delta(from: previous)?.ids
    }

    /// The id this collection lacks when it was made by `previous.removing(id:)`; nil otherwise. O(1).
    public func removedID(from previous: ItemCollection) -> String? {
        guard let delta = delta(from: previous), delta.changed.isEmpty, delta.added.isEmpty, delta.removed.count == 1 else { return nil }
        return delta.removed[0]
    }

    /// Whether this collection is `previous` without the item `id`: the same other items, in the same order,
    /// byte for byte. O(1) when it was made so; otherwise compares in one pass, without building the shorter
    /// collection.
    public func isRemoval(of id: String, from previous: ItemCollection) -> Bool {
        if let removed = removedID(from: previous) { return removed == id }
        guard previous.contains(id: id), count == previous.count - 1 else { return false }
        var mine = tree.makeIterator()
        for item in previous.tree where item.id != id {
            guard mine.next() == item else { return false }
        }
        return true
    }

    /// The list with fresh keys, spaced evenly: for an insertion between two items whose keys are adjacent.
    fileprivate static func laidOut(_ tree: KeyedTree<Item>) -> (tree: KeyedTree<Item>, keys: IDIndex) {
        let spacing = spacing(for: tree.count)
        let items = Array(tree)
        guard let keys = try? IDIndex(ids: items.map(\.id), keys: { UInt64($0 + 1) * spacing }) else {
            preconditionFailure("a collection's ids repeat")
        }
        return (KeyedTree(items, spacing: spacing), keys)
    }

    /// The position before which `id` goes: before the first item whose id follows it, by bisection in a list
    /// whose ids ascend, else by a scan.
    fileprivate static func insertionPosition(of id: String, in tree: KeyedTree<Item>, sorted: Bool) -> Int {
        if sorted {
            var (low, high) = (0, tree.count)
            while low < high {
                let middle = (low + high) / 2
                if idPrecedes(id, tree.entry(at: middle).element.id) { high = middle } else { low = middle + 1 }
            }
            return low
        }
        var position = 0
        for item in tree {
            if idPrecedes(id, item.id) { break }
            position += 1
        }
        return position
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
    /// The same items in the same order: O(1) for one collection, or one made from the other by a change.
    public static func == (lhs: ItemCollection, rhs: ItemCollection) -> Bool {
        if lhs.isSameCollection(as: rhs) { return true }
        if let delta = lhs.delta(from: rhs) ?? rhs.delta(from: lhs) { return delta.isEmpty }
        return lhs.items == rhs.items
    }
}

/// What makes a collection itself: an object of its own (copies of the collection share it), and the change that
/// made it from another.
private final class Lineage: Sendable {
    struct Derivation: Sendable {
        /// The lineage of the collection changed. Weak: a collection does not keep every one before it alive, and one
        /// let go can never be mistaken for a new one that took its place in memory.
        weak let base: Lineage?
        let delta: ItemDelta
    }

    let derivation: Derivation?

    init(derivation: Derivation?) {
        self.derivation = derivation
    }
}

/// Changes from a source applied to a collection one at a time, with what the delta needs to know of them.
private struct CollectionEdit {
    private(set) var tree: KeyedTree<Item>
    private(set) var keys: IDIndex
    private(set) var jsonByteCount: Int
    /// Whether the ids still ascend along the list.
    private(set) var sorted: Bool
    private var changedIDs: [String] = []
    private var addedIDs: [String] = []
    private var removedAny = false

    init(_ collection: ItemCollection) {
        (tree, keys, jsonByteCount, sorted) = (collection.tree, collection.keys, collection.jsonByteCount, collection.isSortedByID)
    }

    var isEmpty: Bool { !removedAny && changedIDs.isEmpty && addedIDs.isEmpty }

    mutating func remove(_ id: String) {
        guard let key = keys[id], let removed = tree.element(key) else { return }
        keys = keys.removing(id)
        jsonByteCount -= removed.json.count
        tree = tree.removing(key)
        removedAny = true
    }

    /// Puts `item` in place of the held item with its id; the same bytes are no change.
    mutating func replace(_ item: Item) {
        guard let key = keys[item.id], let held = tree.element(key), held.json != item.json else { return }
        jsonByteCount += item.json.count - held.json.count
        tree = tree.replacing(key, with: item)
        changedIDs.append(item.id)
    }

    /// Inserts `item` where a listing sorted by id has it.
    mutating func insert(_ item: Item) {
        insert(item, at: ItemCollection.insertionPosition(of: item.id, in: tree, sorted: sorted))
    }

    /// Inserts `item` after the last item.
    mutating func append(_ item: Item) {
        insert(item, at: tree.count)
    }

    /// Inserts `item` at `position`, noting whether the ids still ascend (its neighbours tell).
    mutating func insert(_ item: Item, at position: Int) {
        if sorted,
            (position > 0 && !ItemCollection.idPrecedes(tree.entry(at: position - 1).element.id, item.id))
                || (position < tree.count && !ItemCollection.idPrecedes(item.id, tree.entry(at: position).element.id))
        {
            sorted = false
        }
        var newKey = key(before: position)
        if newKey == nil {
            (tree, keys) = ItemCollection.laidOut(tree)
            newKey = key(before: position)
        }
        guard let newKey else { preconditionFailure("no room for a key in a list laid out afresh") }
        tree = tree.inserting(item, key: newKey)
        keys = keys.setting(item.id, to: newKey)
        jsonByteCount += item.json.count
        addedIDs.append(item.id)
    }

    /// The item `id` as the edit has it so far.
    func item(id: String) -> Item? {
        keys[id].flatMap { tree.element($0) }
    }

    /// A key between those of the items at `position` − 1 and `position`; nil when they are adjacent.
    private func key(before position: Int) -> UInt64? {
        let low: UInt64 = position == 0 ? 0 : tree.entry(at: position - 1).key
        let high: UInt64 =
            position < tree.count ? tree.entry(at: position).key : low.addingReportingOverflow(1 << 33).overflow ? .max : low + (1 << 33)
        return high - low < 2 ? nil : low + (high - low) / 2
    }

    /// The delta of the edit: `removed` in their old order, the changed items and the additions where they now are.
    func delta(removed: [String]) -> ItemDelta {
        func placed(_ ids: [String]) -> [(position: Int, item: Item)] {
            ids.compactMap { id in keys[id].flatMap { tree.find($0) }.map { ($0.position, $0.element) } }.sorted { $0.position < $1.position }
        }
        return ItemDelta(
            removed: removed, changed: placed(changedIDs).map(\.item),
            added: placed(addedIDs).map { ItemDelta.Addition(index: $0.position, item: $0.item) })
    }
}
