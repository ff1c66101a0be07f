import DepotPlatform
import NIOCore
import NIOExtras

/// The listening sockets a server has opened, each with the quiescing helper that knows its connections. There is
/// one, unless the socket file was deleted and bound again: the connections accepted before still run on the old
/// listener's helper, and a shutdown quiesces them all.
final class Listeners: Sendable {
    struct Listener: Sendable {
        let channel: any Channel
        let quiescing: ServerQuiescingHelper
        /// The socket file it is bound to; nil for a socket systemd passed.
        let identity: SocketFile.Identity?
    }

    /// The listeners, oldest first, and whether a shutdown has begun.
    private let all: Locked<(listeners: [Listener], shuttingDown: Bool)>

    /// Whether a shutdown has begun (a listener closed since then closed for it).
    var isShuttingDown: Bool { all.withLock { $0.shuttingDown } }

    init(_ first: Listener) {
        all = Locked(([first], false))
    }

    /// The one new clients reach.
    var current: Listener {
        all.withLock { $0.listeners[$0.listeners.count - 1] }
    }

    /// Adds the listener bound in place of the current one, which stops accepting (its connections go on).
    func replace(with listener: Listener) async {
        let previous = all.withLock { all in
            defer { all.listeners.append(listener) }
            return all.listeners.last
        }
        try? await previous?.channel.close()
    }

    /// Stops accepting on every listener and tells every connection to finish.
    func initiateShutdown() {
        for listener in beginShutdown() {
            listener.quiescing.initiateShutdown(promise: nil)
        }
    }

    /// Stops accepting, tells every connection to finish, and returns once they all have closed.
    func shutDown() async {
        for listener in beginShutdown() {
            let stopped = listener.channel.eventLoop.makePromise(of: Void.self)
            listener.quiescing.initiateShutdown(promise: stopped)
            try? await stopped.futureResult.get()
        }
    }

    /// Marks the shutdown begun and returns the listeners to close.
    private func beginShutdown() -> [Listener] {
        all.withLock { all in
            all.shuttingDown = true
            return all.listeners
        }
    }
}
