import DepotPlatform
import DepotRPC
import DepotWire

#if canImport(Glibc)
import Glibc
#endif

/// The access policy in force (replaced by a reload), checked on every call against the caller's credentials.
final class AccessControl: Sendable {
    private let policy: Locked<AccessPolicy>
    /// The daemon's own user, always admin.
    let daemonUID: UInt32

    init(_ policy: AccessPolicy, daemonUID: UInt32 = getuid()) {
        self.policy = Locked(policy)
        self.daemonUID = daemonUID
    }

    var current: AccessPolicy {
        get { policy.withLock { $0 } }
        set { policy.withLock { $0 = newValue } }
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
