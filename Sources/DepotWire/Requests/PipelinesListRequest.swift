public import DepotJSON
public import DepotRPC

/// `pipelines.list`: every named pipeline, stored or configured, by name.
public struct PipelinesListRequest: DepotRequest {
    public static let method = "pipelines.list"

    public init() {}

    public init(params: Params) throws(RPCError) {}

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> [StoredPipeline] {
        guard case .array(let elements) = value else { throw WireDecodingError("pipelines.list answers an array, not \(value.typeName)") }
        var result: [StoredPipeline] = []
        for element in elements {
            result.append(try StoredPipeline(decoding: element))
        }
        return result
    }
}
