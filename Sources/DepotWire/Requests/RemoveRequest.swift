public import DepotJSON
public import DepotRPC

/// `remove`: deletes an item from the source and answers the State published when the removal completed;
/// changeFailed (-32002) or notFound (-32003) with the rolled-back State as data. `ifMatch`: only while the item's etag
/// is that one, else conflict (-32008) with the item there as data. The State carries `count`, not the items, unless
/// `items` is true.
public struct RemoveRequest: StateAnsweringRequest {
    public static let method = "remove"
    public static let accessLevel = AccessLevel.write
    public static let paramNames = ["id", "optimistic", "ifMatch", "items"]

    public var id: String
    /// Only while the item's etag is this one.
    public var ifMatch: String?
    /// Publish the items without `id` at once, before the source confirms.
    public var optimistic: Bool
    /// Answer with the items (and the error's State with them); otherwise with their `count`.
    public var items: Bool

    public init(id: String, optimistic: Bool = false, ifMatch: String? = nil, items: Bool = false) {
        self.id = id
        self.optimistic = optimistic
        self.ifMatch = ifMatch
        self.items = items
    }

    public init(params: Params) throws(RPCError) {
        id = try params.itemID("id")
        optimistic = try params.bool("optimistic", default: false)
        ifMatch = try WireChange(.remove, members: params.members, others: ["optimistic", "items"]).ifMatch
        items = try params.bool("items", default: false)
    }

    public var params: JSONObject? {
        var params: JSONObject = ["id": .string(id)]
        if optimistic { params["optimistic"] = true }
        if let ifMatch { params["ifMatch"] = .string(ifMatch) }
        if items { params["items"] = true }
        return params
    }
}
