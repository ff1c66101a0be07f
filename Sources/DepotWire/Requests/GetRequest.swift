public import DepotJSON
public import DepotRPC

/// `get`: one item of the current state, exactly as the source gave it. notFound (-32003) when the state
/// holds no item with that id. With `pipeline`, the item as the operators that shape items make it (filter,
/// select, sort, limit): notFound when they leave it out.
public struct GetRequest: DepotRequest {
    public static let method = "get"
    public static let paramNames = ["id", "pipeline"]

    /// The item's id (an integer id is given as its decimal text).
    public var id: String
    /// The operators to answer through; nil for the item as it is.
    public var pipeline: PipelineReference?

    public init(id: String, pipeline: PipelineReference? = nil) {
        self.id = id
        self.pipeline = pipeline
    }

    public init(params: Params) throws(RPCError) {
        id = try params.itemID("id")
        pipeline = try params.pipeline()
    }

    public var params: JSONObject? {
        var params: JSONObject = ["id": .string(id)]
        if let pipeline { params["pipeline"] = pipeline.json }
        return params
    }

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> JSONValue {
        guard case .object = value else { throw WireDecodingError("get answers an item, an object, not \(value.typeName)") }
        return value
    }
}
