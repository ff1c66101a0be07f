public import DepotJSON
public import DepotRPC

/// `apply`: puts, patches and removes items, in order, all or none — one write to the source, one State published —
/// and answers once the source has them all: `{"etags", "state"}`. A change that cannot be made fails them all, with
/// its `index` in the error's data; nothing changes. `optimistic` and `items` as for `put`.
public struct ApplyRequest: DepotRequest {
    public static let method = "apply"
    public static let accessLevel = AccessLevel.write
    public static let paramNames = ["changes", "optimistic", "items"]

    public var changes: [WireChange]
    public var optimistic: Bool
    public var items: Bool

    public init(changes: [WireChange], optimistic: Bool = false, items: Bool = false) {
        self.changes = changes
        self.optimistic = optimistic
        self.items = items
    }

    public init(params: Params) throws(RPCError) {
        guard let value = params.members["changes"] else { throw .invalidParams("apply needs \"changes\", an array of changes") }
        changes = try Self.changes(decoding: value)
        optimistic = try params.bool("optimistic", default: false)
        items = try params.bool("items", default: false)
    }

    /// The changes of `value`, a JSON array of change objects; an error names the change's index and what is wrong.
    public static func changes(decoding value: JSONValue) throws(RPCError) -> [WireChange] {
        guard case .array(let elements) = value else {
            throw .invalidParams("\"changes\" must be an array of changes, found \(Params.brief(value))")
        }
        guard !elements.isEmpty else { throw .invalidParams("\"changes\" is empty: give at least one change") }
        var changes: [WireChange] = []
        for (index, element) in elements.enumerated() {
            let place = "changes[\(index)]: "
            guard case .object(let members) = element else {
                throw .invalidParams("\(place)a change must be an object, found \(Params.brief(element))")
            }
            guard let op = members["op"] else { throw .invalidParams("\(place)a change needs \"op\": put, patch or remove") }
            guard case .string(let name) = op, let operation = WireChange.Operation(rawValue: name) else {
                throw .invalidParams("\(place)\"op\" must be \"put\", \"patch\" or \"remove\", found \(Params.brief(op))")
            }
            changes.append(try WireChange(operation, members: members, place: place))
        }
        return changes
    }

    public var params: JSONObject? {
        var params: JSONObject = [
            "changes": .array(
                changes.map { change in
                    var members: JSONObject = ["op": .string(change.operation.rawValue)]
                    for member in change.members { members.append(key: member.key, value: member.value) }
                    return .object(members)
                })
        ]
        if optimistic { params["optimistic"] = true }
        if items { params["items"] = true }
        return params
    }

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> ApplyAnswer {
        try ApplyAnswer(decoding: value)
    }
}
