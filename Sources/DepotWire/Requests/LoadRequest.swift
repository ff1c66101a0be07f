public import DepotJSON
public import DepotRPC

/// `load`: loads the collection as `strategy` says (default `upToDateWithFallback`) and answers the success
/// State it ended with; loadFailed (-32001) with the failure State as data.
public struct LoadRequest: StateAnsweringRequest {
    public static let method = "load"
    public static let accessLevel = AccessLevel.write
    public static let paramNames = ["strategy"]

    /// nil: the default for `load`.
    public var strategy: LoadStrategy?

    public init(strategy: LoadStrategy? = nil) {
        self.strategy = strategy
    }

    public init(params: Params) throws(RPCError) {
        strategy = try params.choice("strategy", of: LoadStrategy.self)
    }

    public var params: JSONObject? {
        strategy.map { ["strategy": .string($0.rawValue)] }
    }
}
