public import DepotJSON
public import DepotRPC

/// `stats`: what depotd is doing — connections by uid and the memory they hold, every subscription's queue, the
/// source's calls, the process's memory and descriptors, and how often each limit was reached.
public struct StatsRequest: DepotRequest {
    public static let method = "stats"

    public init() {}

    public init(params: Params) throws(RPCError) {}

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> DepotStatistics {
        try DepotStatistics(decoding: value)
    }
}
