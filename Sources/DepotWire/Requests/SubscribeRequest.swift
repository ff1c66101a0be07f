public import DepotJSON
public import DepotRPC

/// `subscribe`: answers `{"subscription": id}`; then `stateChanged` notifications carry the current State and
/// every later one. limitExceeded (-32004) when the connection holds the most subscriptions it may.
public struct SubscribeRequest: DepotRequest {
    public static let method = "subscribe"
    /// The result's one member.
    public static let subscriptionMember = "subscription"

    public init() {}

    public init(params: Params) throws(RPCError) {}

    /// The result for the subscription `id`.
    public static func result(subscription id: String) -> JSONValue {
        [subscriptionMember: .string(id)]
    }

    /// The subscription's id.
    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> String {
        guard case .string(let id)? = value[subscriptionMember] else {
            throw WireDecodingError("subscribe answers {\"\(subscriptionMember)\": id}, not \(value.jsonText.prefix(60))")
        }
        return id
    }
}
