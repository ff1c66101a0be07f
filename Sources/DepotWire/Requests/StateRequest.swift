public import DepotRPC

/// `state`: the current State. A read: answered at once from the last published state.
public struct StateRequest: StateAnsweringRequest {
    public static let method = "state"

    public init() {}

    public init(params: Params) throws(RPCError) {}
}
