public import DepotRPC

/// `wipe`: back to idle; the items held in memory and in the on-disk cache are dropped (the source is not
/// touched). Answers the idle State.
public struct WipeRequest: StateAnsweringRequest {
    public static let method = "wipe"
    public static let accessLevel = AccessLevel.admin

    public init() {}

    public init(params: Params) throws(RPCError) {}
}
