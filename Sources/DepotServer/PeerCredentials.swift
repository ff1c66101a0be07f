import CPeerCredentials
import DepotPlatform
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// The process at the other end of a Unix socket, as the kernel reports it (SO_PEERCRED), with its user's name and
/// groups from the system's user database: read once, when the connection is accepted.
struct PeerCredentials: Sendable, Equatable {
    let pid: Int32
    let uid: UInt32
    let gid: UInt32
    /// Its primary group, then the supplementary groups the user database lists for its user.
    let groups: [UInt32]
    /// Its user's name; nil when the database does not know the uid.
    let userName: String?
    /// The process's name (/proc/PID/comm) when it connected, for the log; nil when it could not be read.
    let processName: String?

    init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32]? = nil, userName: String? = nil, processName: String? = nil) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups ?? [gid]
        self.userName = userName
        self.processName = processName
    }

    /// The credentials the kernel gives, with the user's name and groups looked up, and the process's name.
    static func resolved(pid: Int32, uid: UInt32, gid: UInt32) -> PeerCredentials {
        let account = UserDatabase.account(uid: uid, gid: gid)
        let comm = (try? Files.readAll("/proc/\(pid)/comm")).map { String(decoding: $0, as: UTF8.self).trimmingTrailingNewline }
        return PeerCredentials(pid: pid, uid: uid, gid: gid, groups: account.groups, userName: account.name, processName: comm)
    }

    /// The credentials of `channel`'s peer; nil when the channel is not a Unix socket (an in-memory test channel).
    /// Runs on the channel's event loop, where reading the option completes at once.
    static func of(_ channel: any Channel) -> PeerCredentials? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        let future: EventLoopFuture<depot_peer_credentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(depot_so_peercred())
        )
        // On the channel's loop the option is read at once, so the future is already complete and its callback
        // runs before `whenSuccess` returns.
        var peer: PeerCredentials?
        future.assumeIsolated().whenSuccess { credentials in
            peer = PeerCredentials.resolved(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
        }
        return peer
    }
}

extension String {
    /// The text without the newline a /proc file ends with.
    fileprivate var trimmingTrailingNewline: String {
        hasSuffix("\n") ? String(dropLast()) : self
    }
}

extension Logger {
    /// Puts the peer's pid, uid, gid and process name on every line this logger writes.
    mutating func identify(_ peer: PeerCredentials) {
        self[metadataKey: "peer_pid"] = "\(peer.pid)"
        self[metadataKey: "peer_uid"] = "\(peer.uid)"
        self[metadataKey: "peer_gid"] = "\(peer.gid)"
        if let name = peer.processName { self[metadataKey: "peer_comm"] = "\(name)" }
    }
}
