public import DepotJSON
public import DepotRPC

/// `rpc.discover`, OpenRPC's discovery method: answers the protocol's document as depotd has it built in.
public struct DiscoverRequest: DepotRequest {
    public static let method = "rpc.discover"

    public init() {}

    public init(params: Params) throws(RPCError) {}

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> JSONValue {
        guard case .object = value else { throw WireDecodingError("rpc.discover answers an OpenRPC document, an object, not \(value.typeName)") }
        return value
    }
}
