public import DepotJSON
public import DepotRPC

/// `subscribe`: answers `{"subscription", "epoch", "seq", "resumed"}`; then `stateChanged` notifications carry the
/// current State and every later one. limitExceeded (-32004) when the connection holds the most subscriptions it may.
public struct SubscribeRequest: DepotRequest {
    public static let method = "subscribe"

    public init() {}

    public init(params: Params) throws(RPCError) {}

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> Subscribed {
        try Subscribed(decoding: value)
    }
}
