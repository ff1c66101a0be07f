public import DepotJSON

/// What `whoami` answers: the caller as depotd sees it — uid, gid, groups, user name, pid — the access levels it
/// holds now, and the changing methods granted to it one by one beyond them.
public struct Whoami: Sendable, Equatable {
    public let uid: UInt32
    public let gid: UInt32
    public let groups: [UInt32]
    public let user: String?
    public let pid: Int32?
    public let levels: [AccessLevel]
    /// Methods granted one by one (remove, put, patch, apply), beyond `levels`.
    public let methods: [String]

    public init(uid: UInt32, gid: UInt32, groups: [UInt32], user: String?, pid: Int32?, levels: [AccessLevel], methods: [String] = []) {
        self.uid = uid
        self.gid = gid
        self.groups = groups
        self.user = user
        self.pid = pid
        self.levels = levels
        self.methods = methods
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("uid", .number(JSONNumber(Int(uid)))), ("gid", .number(JSONNumber(Int(gid)))),
            ("groups", .array(groups.map { .number(JSONNumber(Int($0))) })),
        ]
        if let user { members.append(("user", .string(user))) }
        if let pid { members.append(("pid", .number(JSONNumber(Int(pid))))) }
        members.append(("levels", .array(levels.map { .string($0.rawValue) })))
        if !methods.isEmpty { members.append(("methods", .array(methods.map { .string($0) }))) }
        return .object(JSONObject(members))
    }

    public init(decoding value: JSONValue) throws(WireDecodingError) {
        guard case .object(let object) = value else { throw WireDecodingError("whoami answers an object, not \(value.typeName)") }
        func id(_ value: JSONValue?) throws(WireDecodingError) -> UInt32 {
            guard let number = value?.numberValue?.intValue, let id = UInt32(exactly: number) else {
                throw WireDecodingError("whoami: an id must be a non-negative integer")
            }
            return id
        }
        uid = try id(object["uid"])
        gid = try id(object["gid"])
        var groups: [UInt32] = []
        for element in object["groups"]?.arrayValue ?? [] {
            groups.append(try id(element))
        }
        self.groups = groups
        user = object["user"]?.stringValue
        pid = object["pid"]?.numberValue?.intValue.flatMap { Int32(exactly: $0) }
        levels = (object["levels"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(AccessLevel.init(rawValue:)) }
        methods = (object["methods"]?.arrayValue ?? []).compactMap(\.stringValue)
    }
}
