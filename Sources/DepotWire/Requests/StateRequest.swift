public import DepotJSON
public import DepotRPC

/// `state`: the current State. A read: answered at once from the last published state. With `pipeline`, its
/// items through the operators that shape items (filter, select, sort, limit), once; the operators that choose
/// which states of a stream go out and when (statuses, removeDuplicates, throttle, debounce, delay) do not apply.
public struct StateRequest: StateAnsweringRequest {
    public static let method = "state"
    public static let paramNames = ["pipeline"]

    /// The operators to answer through; nil for the state as it is.
    public var pipeline: PipelineReference?

    public init(pipeline: PipelineReference? = nil) {
        self.pipeline = pipeline
    }

    public init(params: Params) throws(RPCError) {
        pipeline = try params.pipeline()
    }

    public var params: JSONObject? {
        pipeline.map { ["pipeline": $0.json] }
    }
}
