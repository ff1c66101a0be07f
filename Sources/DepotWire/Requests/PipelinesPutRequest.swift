public import DepotJSON
public import DepotOperators
public import DepotRPC

/// `pipelines.put`: stores a named pipeline (replacing a stored one of that name) and answers `{"name", "created"}`.
/// Subscriptions by that name switch to it at once. readOnly (-32006) for a configured name, storageFailed (-32007)
/// when the state directory cannot be written.
public struct PipelinesPutRequest: DepotRequest {
    public static let method = "pipelines.put"
    public static let accessLevel = AccessLevel.admin
    public static let paramNames = ["name", "description", "pipeline"]

    public var named: NamedPipeline

    public init(_ named: NamedPipeline) {
        self.named = named
    }

    public init(params: Params) throws(RPCError) {
        let name = try params.pipelineName()
        var description: String?
        if params.members["description"] != nil {
            description = try params.string("description")
        }
        guard case .operators(let pipeline)? = try params.pipeline() else {
            throw .invalidParams("pipelines.put needs \"pipeline\", an array of operators")
        }
        named = NamedPipeline(name: name, description: description, pipeline: pipeline)
    }

    public var params: JSONObject? {
        guard case .object(let object) = named.json else { return nil }
        return object
    }

    /// True when no pipeline had that name before.
    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> Bool {
        guard case .bool(let created)? = value["created"] else {
            throw WireDecodingError("pipelines.put answers {\"name\", \"created\"}, not \(value.typeName)")
        }
        return created
    }
}
