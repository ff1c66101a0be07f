public import DepotJSON
public import DepotRPC

/// `get`: one item of the current state, exactly as the source gave it. notFound (-32003) when the state
/// holds no item with that id.
public struct GetRequest: DepotRequest {
    public static let method = "get"
    public static let paramNames = ["id"]

    /// The item's id (an integer id is given as its decimal text).
    public var id: String

    public init(id: String) {
        self.id = id
    }

    public init(params: Params) throws(RPCError) {
        id = try params.itemID("id")
    }

    public var params: JSONObject? { ["id": .string(id)] }

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> JSONValue {
        guard case .object = value else { throw WireDecodingError("get answers an item, an object, not \(value.typeName)") }
        return value
    }
}
