public import DepotJSON
public import DepotRPC

/// `whoami`: the caller as depotd sees it (from SO_PEERCRED and the user database) and the access it holds.
public struct WhoamiRequest: DepotRequest {
    public static let method = "whoami"

    public init() {}

    public init(params: Params) throws(RPCError) {}

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> Whoami {
        try Whoami(decoding: value)
    }
}
