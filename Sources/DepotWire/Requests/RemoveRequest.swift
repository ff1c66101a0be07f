public import DepotJSON
public import DepotRPC

/// `remove`: deletes an item from the source and answers the State published when the removal completed;
/// removeFailed (-32002) or notFound (-32003) with the rolled-back State as data.
public struct RemoveRequest: StateAnsweringRequest {
    public static let method = "remove"
    public static let accessLevel = AccessLevel.write
    public static let paramNames = ["id", "optimistic"]

    public var id: String
    /// Publish the items without `id` at once, before the source confirms.
    public var optimistic: Bool

    public init(id: String, optimistic: Bool = false) {
        self.id = id
        self.optimistic = optimistic
    }

    public init(params: Params) throws(RPCError) {
        id = try params.itemID("id")
        optimistic = try params.bool("optimistic", default: false)
    }

    public var params: JSONObject? {
        optimistic ? ["id": .string(id), "optimistic": true] : ["id": .string(id)]
    }
}
