public import DepotJSON
public import DepotRPC

/// `unsubscribe`: ends one of this connection's subscriptions; answers true, or false when the connection has
/// no such subscription.
public struct UnsubscribeRequest: DepotRequest {
    public static let method = "unsubscribe"
    public static let paramNames = ["subscription"]

    public var subscription: String

    public init(subscription: String) {
        self.subscription = subscription
    }

    public init(params: Params) throws(RPCError) {
        subscription = try params.string("subscription")
    }

    public var params: JSONObject? { ["subscription": .string(subscription)] }

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> Bool {
        guard case .bool(let ended) = value else { throw WireDecodingError("unsubscribe answers true or false, not \(value.typeName)") }
        return ended
    }
}
