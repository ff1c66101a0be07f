public import DepotJSON

/// The items of a successful load, in the source's order, with an index by id.
/// Ids are unique: building a collection checks them and fails with the index or id at fault.
public struct ItemCollection: Sendable {
    public let items: [Item]
    private let positionByID: [String: Int]

    /// An empty collection.
    public init() {
        self.items = []
        self.positionByID = [:]
    }

    /// Builds the collection from a source's elements, reading each id from `idField`.
    /// String ids are used as they are; integer ids as their literal (`25` → `"25"`).
    public init(values: [JSONValue], idField: String) throws(ItemCollectionError) {
        var items: [Item] = []
        items.reserveCapacity(values.count)
        var positionByID: [String: Int] = [:]
        positionByID.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            guard case .object(let object) = value else {
                throw ItemCollectionError(.notAnObject(index: index, found: value.typeName))
            }
            let id = try Self.id(of: object, at: index, idField: idField)
            if let firstIndex = positionByID.updateValue(index, forKey: id) {
                throw ItemCollectionError(.duplicateID(id: id, index: index, firstIndex: firstIndex))
            }
            items.append(Item(id: id, json: value.jsonBytes))
        }
        self.items = items
        self.positionByID = positionByID
    }

    /// A collection from items that already carry their ids (kept by the on-disk cache, say), in this order,
    /// without parsing their JSON again. Fails with the first repeated id.
    public init(items: [Item]) throws(ItemCollectionError) {
        var positionByID: [String: Int] = [:]
        positionByID.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            if let firstIndex = positionByID.updateValue(index, forKey: item.id) {
                throw ItemCollectionError(.duplicateID(id: item.id, index: index, firstIndex: firstIndex))
            }
        }
        self.items = items
        self.positionByID = positionByID
    }

    /// A collection from items whose ids are already known to be unique (for example a subset of another collection).
    init(uniqueItems items: [Item]) {
        var positionByID: [String: Int] = [:]
        positionByID.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            positionByID[item.id] = index
        }
        self.items = items
        self.positionByID = positionByID
    }

    public var count: Int { items.count }

    public var isEmpty: Bool { items.isEmpty }

    public func contains(id: String) -> Bool {
        positionByID[id] != nil
    }

    public func item(id: String) -> Item? {
        positionByID[id].map { items[$0] }
    }

    /// The collection without the item `id`; the same collection when it has no such item.
    public func removing(id: String) -> ItemCollection {
        guard let position = positionByID[id] else { return self }
        var remaining = items
        remaining.remove(at: position)
        return ItemCollection(uniqueItems: remaining)
    }

    /// Whether this collection is `previous` without the item `id`: the same other items, in the same order,
    /// byte for byte. Compares in one pass, without building the shorter collection.
    public func isRemoval(of id: String, from previous: ItemCollection) -> Bool {
        guard let removed = previous.positionByID[id], items.count == previous.items.count - 1 else { return false }
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
