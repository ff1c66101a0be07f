import DepotRPC
import DepotWire

#if canImport(Glibc)
import Glibc
#endif

/// The access policy in force (in the server's `LiveSettings`, replaced by a reload), checked on every call against
/// the caller's credentials.
final class AccessControl: Sendable {
    private let settings: LiveSettings
    /// The daemon's own user, always admin.
    let daemonUID: UInt32

    /// The policy of `settings`.
    init(_ settings: LiveSettings, daemonUID: UInt32 = getuid()) {
        self.settings = settings
        self.daemonUID = daemonUID
    }

    /// A policy of its own, `policy` at first.
    convenience init(_ policy: AccessPolicy, daemonUID: UInt32 = getuid()) {
        self.init(LiveSettings(access: policy), daemonUID: daemonUID)
    }

    var current: AccessPolicy {
        get { settings.read(\.access) }
        set { settings.replace(\.access, with: newValue) }
    }

    /// The highest level `peer` holds now; a transport without credentials (an in-memory test channel) counts as
    /// the daemon's own user.
    func level(of peer: PeerCredentials?) -> AccessLevel? {
        guard let peer else { return .admin }
        return current.level(uid: peer.uid, groups: peer.groups, daemonUID: daemonUID)
    }

    /// The changing methods granted to `peer` one by one, beyond its level.
    func methods(of peer: PeerCredentials?) -> [String] {
        guard let peer else { return [] }
        let policy = current
        return AccessPolicy.grantableMethods.filter { policy.grants($0, uid: peer.uid, groups: peer.groups) }
    }

    /// Throws forbidden unless `peer` may call `Request`'s method: by its level, or granted the method itself.
    func authorize<Request: DepotRequest>(_: Request.Type, _ peer: PeerCredentials?) throws(RPCError) {
        let granted = level(of: peer)
        if let granted, granted >= Request.accessLevel { return }
        if let peer, current.grants(Request.method, uid: peer.uid, groups: peer.groups) { return }
        throw .forbidden(method: Request.method, needed: Request.accessLevel, uid: peer?.uid ?? daemonUID, granted: granted)
    }
}
