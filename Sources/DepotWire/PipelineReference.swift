public import DepotJSON
public import DepotOperators
public import DepotRPC

/// The `pipeline` param of `subscribe`, `state` and `get`: operators given in the call, or the name of a pipeline
/// the daemon keeps (`pipelines.put`, or a configured one). A subscription by name follows the pipeline as it is
/// changed, and ends when it is deleted.
public enum PipelineReference: Sendable, Equatable {
    case operators(Pipeline)
    case named(String)

    public var json: JSONValue {
        switch self {
        case .operators(let pipeline): pipeline.json
        case .named(let name): .string(name)
        }
    }
}

extension Params {
    /// The `pipeline` param: an array of operators or a name; nil when absent. An invalid one is -32602 naming the
    /// operator and what is wrong, with `data` the JSON Pointer of the fault in the params (`/pipeline/2/where/field`).
    public func pipeline() throws(RPCError) -> PipelineReference? {
        switch members["pipeline"] {
        case nil:
            return nil
        case .string(let name)?:
            if let problem = NamedPipeline.problem(withName: name) {
                throw RPCError(
                    code: RPCError.invalidParamsCode, message: "Invalid params: \"pipeline\" of \(method): \(problem)", data: .value("/pipeline"))
            }
            return .named(name)
        case let value?:
            do {
                return .operators(try Pipeline(decoding: value))
            } catch {
                throw RPCError(
                    code: RPCError.invalidParamsCode, message: "Invalid params: \"pipeline\" of \(method): \(error)",
                    data: .value(.string("/pipeline" + error.pointer.description)))
            }
        }
    }

    /// A `name` param that names a pipeline.
    public func pipelineName(_ name: String = "name") throws(RPCError) -> String {
        let value = try string(name)
        if let problem = NamedPipeline.problem(withName: value) {
            throw RPCError(
                code: RPCError.invalidParamsCode, message: "Invalid params: \"\(name)\" of \(method): \(problem)", data: .value(.string("/\(name)")))
        }
        return value
    }
}
