import CPeerCredentials
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// The process at the other end of a Unix socket, as the kernel reports it (SO_PEERCRED): read once, when the
/// connection is accepted.
struct PeerCredentials: Sendable, Equatable {
    let pid: Int32
    let uid: UInt32
    let gid: UInt32

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
            peer = PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
        }
        return peer
    }
}
