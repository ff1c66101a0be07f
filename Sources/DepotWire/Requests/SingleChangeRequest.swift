public import DepotJSON
public import DepotRPC

/// A method that changes one item (`put`, `patch`): the change's own members, `optimistic` and `items` as params, and
/// `{"etag", "created", "state"}` as the answer.
public protocol SingleChangeRequest: DepotRequest where Result == WriteAnswer {
    /// The operation the method makes.
    static var operation: WireChange.Operation { get }

    var change: WireChange { get }
    /// Show the change at once, pending until the source answers.
    var optimistic: Bool { get }
    /// Answer with the items (and the error's State with them); otherwise with their `count`.
    var items: Bool { get }

    init(change: WireChange, optimistic: Bool, items: Bool)
}

extension SingleChangeRequest {
    public static var accessLevel: AccessLevel { .write }
    public static var paramNames: [String] { (WireChange.members[operation] ?? []) + ["optimistic", "items"] }

    public init(params: Params) throws(RPCError) {
        self.init(
            change: try WireChange(Self.operation, members: params.members, others: ["optimistic", "items"]),
            optimistic: try params.bool("optimistic", default: false), items: try params.bool("items", default: false))
    }

    public var params: JSONObject? {
        var params = change.members
        if optimistic { params["optimistic"] = true }
        if items { params["items"] = true }
        return params
    }

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> WriteAnswer {
        try WriteAnswer(decoding: value, of: method)
    }
}
