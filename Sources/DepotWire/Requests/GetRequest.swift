public import DepotJSON
public import DepotRPC

/// `get`: one item of the current state, exactly as the source gave it. notFound (-32003) when the state
/// holds no item with that id. With `pipeline`, the item as the operators that shape items make it (filter,
/// select, sort, limit): notFound when they leave it out. With `meta`, `{"item", "etag"}`: the etag a conditional
/// write (`ifMatch`) names this version by.
public struct GetRequest: DepotRequest {
    public static let method = "get"
    public static let paramNames = ["id", "pipeline", "meta"]

    /// The item's id (an integer id is given as its decimal text).
    public var id: String
    /// The operators to answer through; nil for the item as it is.
    public var pipeline: PipelineReference?
    /// Answer `{"item", "etag"}` rather than the item.
    public var meta: Bool

    public init(id: String, pipeline: PipelineReference? = nil, meta: Bool = false) {
        self.id = id
        self.pipeline = pipeline
        self.meta = meta
    }

    public init(params: Params) throws(RPCError) {
        id = try params.itemID("id")
        pipeline = try params.pipeline()
        meta = try params.bool("meta", default: false)
    }

    public var params: JSONObject? {
        var params: JSONObject = ["id": .string(id)]
        if let pipeline { params["pipeline"] = pipeline.json }
        if meta { params["meta"] = true }
        return params
    }

    /// The item; with `meta`, `{"item", "etag"}`.
    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> JSONValue {
        guard case .object = value else { throw WireDecodingError("get answers an item, an object, not \(value.typeName)") }
        return value
    }
}
