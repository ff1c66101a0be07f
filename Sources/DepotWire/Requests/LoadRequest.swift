public import DepotJSON
public import DepotRPC

/// `load`: loads the collection as `strategy` says (default `upToDateWithFallback`) and answers the success
/// State it ended with; loadFailed (-32001) with the failure State as data. The State carries `count`, not the
/// items, unless `items` is true.
public struct LoadRequest: StateAnsweringRequest {
    public static let method = "load"
    public static let accessLevel = AccessLevel.write
    public static let paramNames = ["strategy", "items"]

    /// nil: the default for `load`.
    public var strategy: LoadStrategy?
    /// Answer with the items (and the error's State with them); otherwise with their `count`.
    public var items: Bool

    public init(strategy: LoadStrategy? = nil, items: Bool = false) {
        self.strategy = strategy
        self.items = items
    }

    public init(params: Params) throws(RPCError) {
        strategy = try params.choice("strategy", of: LoadStrategy.self)
        items = try params.bool("items", default: false)
    }

    public var params: JSONObject? {
        var params: JSONObject = [:]
        if let strategy { params["strategy"] = .string(strategy.rawValue) }
        if items { params["items"] = true }
        return params.isEmpty ? nil : params
    }
}
