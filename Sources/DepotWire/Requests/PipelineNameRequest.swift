public import DepotJSON
public import DepotRPC

/// A method whose one param is the `name` of a named pipeline: `pipelines.get`, `pipelines.delete`.
public protocol PipelineNameRequest: DepotRequest {
    var name: String { get }
    init(name: String)
}

extension PipelineNameRequest {
    public static var paramNames: [String] { ["name"] }

    public init(params: Params) throws(RPCError) {
        self.init(name: try params.pipelineName())
    }

    public var params: JSONObject? { ["name": .string(name)] }
}
