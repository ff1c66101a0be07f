import DepotPlatform
public import DepotWire

/// Who holds each access level: lists of principals — anyone (`*`), a user (`user:NAME` or `user:UID`), a group
/// (`group:NAME` or `group:GID`, matching a caller's primary or supplementary groups). A level includes those below
/// it, so an admin may also write and read. The daemon's own user and root are always admin. The methods that change
/// items (remove, put, patch, apply) may also be granted one by one, to callers without the level they need.
public struct AccessPolicy: Sendable, Equatable {
    public enum Principal: Sendable, Equatable, CustomStringConvertible {
        case anyone
        case user(UInt32)
        case group(UInt32)

        /// Parses `*`, `user:NAME|UID` or `group:NAME|GID`; names are looked up in the system's user database now.
        public init(parsing text: String) throws(AccessPolicyError) {
            if text == "*" {
                self = .anyone
                return
            }
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty, parts[0] == "user" || parts[0] == "group" else {
                throw AccessPolicyError("\"\(text)\" is not a principal; write user:NAME, user:UID, group:NAME, group:GID or *")
            }
            let (kind, name) = (parts[0], parts[1])
            if let id = UInt32(name) {
                self = kind == "user" ? .user(id) : .group(id)
            } else if kind == "user" {
                guard let uid = UserDatabase.uid(ofUser: name) else { throw AccessPolicyError("\"\(text)\": there is no user \(name)") }
                self = .user(uid)
            } else {
                guard let gid = UserDatabase.gid(ofGroup: name) else { throw AccessPolicyError("\"\(text)\": there is no group \(name)") }
                self = .group(gid)
            }
        }

        public var description: String {
            switch self {
            case .anyone: "*"
            case .user(let uid): "user:\(uid)"
            case .group(let gid): "group:\(gid)"
            }
        }

        func includes(uid: UInt32, groups: [UInt32]) -> Bool {
            switch self {
            case .anyone: true
            case .user(let id): id == uid
            case .group(let id): groups.contains(id)
            }
        }
    }

    public var read: [Principal]
    public var write: [Principal]
    public var admin: [Principal]
    /// The changing methods granted one by one (`grantableMethods`), to callers who may not call them by their level:
    /// `"put": ["user:bot"]` lets that user put without letting it load or remove.
    public var methods: [String: [Principal]]

    /// The methods `methods` may grant: those that change the items.
    public static let grantableMethods = ["remove", "put", "patch", "apply"]

    public init(read: [Principal] = [.anyone], write: [Principal] = [], admin: [Principal] = [], methods: [String: [Principal]] = [:]) {
        self.read = read
        self.write = write
        self.admin = admin
        self.methods = methods
    }

    /// Whether `methods` grants `method` to the caller.
    public func grants(_ method: String, uid: UInt32, groups: [UInt32]) -> Bool {
        methods[method]?.contains { $0.includes(uid: uid, groups: groups) } ?? false
    }

    /// Readers: anyone who can open the socket (its mode decides who can); write and admin: the daemon's own
    /// user and root only. A user who runs depotd themselves (scripts/demo) may do everything; under systemd,
    /// depotd's user and root may, and `access` grants more.
    public static let `default` = AccessPolicy()

    /// Everyone may do everything (tests of other things).
    public static let open = AccessPolicy(read: [.anyone], write: [.anyone], admin: [.anyone])

    /// The highest level the caller holds; nil when it may not even read.
    public func level(uid: UInt32, groups: [UInt32], daemonUID: UInt32) -> AccessLevel? {
        if uid == 0 || uid == daemonUID { return .admin }
        func holds(_ principals: [Principal]) -> Bool { principals.contains { $0.includes(uid: uid, groups: groups) } }
        if holds(admin) { return .admin }
        if holds(write) { return .write }
        if holds(read) { return .read }
        return nil
    }
}

/// Why an access setting cannot be used.
public struct AccessPolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
