public import DepotJSON
public import DepotRPC

/// One change of `put`, `patch`, `remove` or `apply` as the protocol sends it: the operation, the item's id, the item
/// or the patch, and the precondition. Decoding checks everything the protocol alone can tell — types, which members
/// an operation takes, a JSON Patch's operations — and names what is wrong (-32602); what depends on the items (the
/// precondition, the patch's result) is the daemon's to check.
public struct WireChange: Sendable, Equatable {
    public enum Operation: String, Sendable, CaseIterable {
        case put, patch, remove
    }

    /// How a patch is written (`format`).
    public enum PatchFormat: String, Sendable, CaseIterable {
        /// RFC 7396 JSON Merge Patch, the default.
        case merge
        /// RFC 6902 JSON Patch.
        case jsonPatch = "json-patch"
    }

    /// A patch, decoded.
    public enum Patch: Sendable, Equatable {
        case merge(JSONValue)
        case jsonPatch(JSONPatch)

        /// The patch as sent.
        public var json: JSONValue {
            switch self {
            case .merge(let value): value
            case .jsonPatch(let patch): patch.json
            }
        }
    }

    public var operation: Operation
    /// The item's id (an integer id as its decimal text).
    public var id: String
    /// The id as sent, a string or an integer: what an item put without its id member gets.
    public var idValue: JSONValue
    /// For a put: the item.
    public var item: JSONObject?
    /// For a patch: the patch.
    public var patch: Patch?
    /// Only while the item's etag is this one.
    public var ifMatch: String?
    /// Only while there is no item with the id (a put).
    public var ifAbsent: Bool

    public init(
        _ operation: Operation, id: JSONValue, item: JSONObject? = nil, patch: Patch? = nil, ifMatch: String? = nil, ifAbsent: Bool = false
    ) {
        self.operation = operation
        self.id = Self.idText(id) ?? ""
        self.idValue = id
        self.item = item
        self.patch = patch
        self.ifMatch = ifMatch
        self.ifAbsent = ifAbsent
    }

    /// The members a change takes, by operation; `op` too inside `apply`.
    public static let members: [Operation: [String]] = [
        .put: ["id", "item", "ifMatch", "ifAbsent"],
        .patch: ["id", "patch", "format", "ifMatch"],
        .remove: ["id", "ifMatch"],
    ]

    /// Reads a change of `operation` from `members`; `place` names where it is in errors ("" for a call's own params,
    /// `changes[2]: ` inside `apply`). Members another operation takes are refused, naming the operation they are for;
    /// `others` are left to the caller (a call's `optimistic`).
    public init(_ operation: Operation, members: JSONObject, place: String = "", others: [String] = []) throws(RPCError) {
        let accepted = Self.members[operation] ?? []
        for key in members.keys where key != "op" && !accepted.contains(key) && !others.contains(key) {
            let owner = Operation.allCases.first { Self.members[$0]?.contains(key) ?? false }
            let hint = owner.map { " (it is for \($0.rawValue))" } ?? ""
            throw .invalidParams("\(place)\(operation.rawValue) takes no \"\(key)\"\(hint); it takes \(accepted.joined(separator: ", "))")
        }
        guard let idValue = members["id"] else { throw .invalidParams("\(place)\(operation.rawValue) needs \"id\"") }
        guard let id = Self.idText(idValue) else {
            throw .invalidParams("\(place)\"id\" must be a non-empty string or an integer, found \(Self.brief(idValue))")
        }
        self.operation = operation
        self.id = id
        self.idValue = idValue
        switch members["ifMatch"] {
        case nil: ifMatch = nil
        case .string(let etag)? where !etag.isEmpty: ifMatch = etag
        case let other?: throw .invalidParams("\(place)\"ifMatch\" must be an etag (a non-empty string), found \(Self.brief(other))")
        }
        switch members["ifAbsent"] {
        case nil: ifAbsent = false
        case .bool(let flag)?: ifAbsent = flag
        case let other?: throw .invalidParams("\(place)\"ifAbsent\" must be true or false, found \(Self.brief(other))")
        }
        if ifAbsent, ifMatch != nil {
            throw .invalidParams("\(place)\"ifMatch\" and \"ifAbsent\" cannot both be given: an item cannot be both there and absent")
        }
        item = nil
        patch = nil
        switch operation {
        case .put:
            guard let value = members["item"] else { throw .invalidParams("\(place)put needs \"item\", the item to put") }
            guard case .object(let object) = value else {
                throw .invalidParams("\(place)\"item\" must be an object, found \(Self.brief(value))")
            }
            item = object
        case .patch:
            guard let value = members["patch"] else { throw .invalidParams("\(place)patch needs \"patch\"") }
            let format: PatchFormat
            switch members["format"] {
            case nil: format = .merge
            case .string(let name)? where PatchFormat(rawValue: name) != nil: format = PatchFormat(rawValue: name) ?? .merge
            case let other?:
                throw .invalidParams("\(place)\"format\" must be \"merge\" or \"json-patch\", found \(Self.brief(other))")
            }
            switch format {
            case .merge:
                patch = .merge(value)
            case .jsonPatch:
                do {
                    patch = .jsonPatch(try JSONPatch(decoding: value))
                } catch {
                    throw .invalidParams("\(place)\"patch\" is not a JSON Patch: \(error)")
                }
            }
        case .remove:
            break
        }
    }

    /// The change as its members (without `op`).
    public var members: JSONObject {
        var members: JSONObject = ["id": idValue]
        if let item { members["item"] = .object(item) }
        if let patch {
            members["patch"] = patch.json
            if case .jsonPatch = patch { members["format"] = .string(PatchFormat.jsonPatch.rawValue) }
        }
        if let ifMatch { members["ifMatch"] = .string(ifMatch) }
        if ifAbsent { members["ifAbsent"] = true }
        return members
    }

    /// An id as params give one: a non-empty string, or an integer's decimal text.
    static func idText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let id) where !id.isEmpty: id
        case .number(let number) where number.isInteger: number.literal
        default: nil
        }
    }

    private static func brief(_ value: JSONValue) -> String {
        Params.brief(value)
    }
}
