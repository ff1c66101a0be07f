public import DepotJSON

/// `put`: creates or replaces the item with that id, through the source, and answers once the source has it:
/// `{"etag", "created", "state"}`. `ifMatch`: only while the item's etag is that one; `ifAbsent`: only while there is
/// no such item — otherwise conflict (-32008), nothing changed. `optimistic`: shown to every subscriber at once, pending
/// until the source answers. The State carries `count`, not the items, unless `items` is true.
public struct PutRequest: SingleChangeRequest {
    public static let method = "put"
    public static let operation = WireChange.Operation.put

    public var change: WireChange
    public var optimistic: Bool
    public var items: Bool

    public init(change: WireChange, optimistic: Bool, items: Bool) {
        self.change = change
        self.optimistic = optimistic
        self.items = items
    }

    public init(id: JSONValue, item: JSONObject, ifMatch: String? = nil, ifAbsent: Bool = false, optimistic: Bool = false, items: Bool = false) {
        self.init(change: WireChange(.put, id: id, item: item, ifMatch: ifMatch, ifAbsent: ifAbsent), optimistic: optimistic, items: items)
    }
}
