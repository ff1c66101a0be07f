import DepotCore
import DepotRPC
import DepotWire
import Logging

/// What Depot's methods may ask of the connection a call came on: who the peer is, and its subscriptions.
///
/// `ConnectionHandler` implements it on the connection's event loop; tests implement it in memory, so every
/// method runs without a socket or an event loop. A method never touches NIO: answers that come later are
/// `RPCReply.later`, which the connection writes when they are in.
protocol DepotSession: AnyObject {
    /// The process on the other end of the socket, from SO_PEERCRED; nil when the transport has none.
    var peer: PeerCredentials? { get }

    /// Who the repository runs this connection's mutations for: its user and the connection, for their fair turn.
    var requester: Requester { get }

    /// Creates a subscription as `request` asks: from the current state, or resuming after `since`; its states are
    /// written once the answer to the current message is. Throws limitExceeded when the connection holds the most it may.
    func subscribe(_ request: SubscribeRequest) throws(RPCError) -> SubscriptionStart

    /// Ends the subscription `id`; false when this connection has none by that id.
    func unsubscribe(_ id: String) -> Bool

    /// Logs a request that changes state, naming the method and the client; the note logs its outcome too.
    func noteMutation(_ method: String, _ detail: String) -> MutationNote
}

/// A logged request that changes state: `finished` logs how it ended, with the same client and params summary —
/// also when the client has gone by then.
struct MutationNote: Sendable {
    let finished: @Sendable (_ outcome: String) -> Void

    init(finished: @escaping @Sendable (_ outcome: String) -> Void) {
        self.finished = finished
    }

    /// Logs `method` (with `detail`, a summary of its params) as requested on `logger`; `finished` logs its outcome.
    init(_ method: String, _ detail: String, logger: Logger) {
        let request = "\(method)\(detail.isEmpty ? "" : " ")\(detail)"
        logger.info("\(request) requested", metadata: ["method": "\(method)"])
        finished = { outcome in logger.info("\(request): \(outcome)", metadata: ["method": "\(method)"]) }
    }
}

/// Where a new subscription starts: its id, the run, the seq of the current state (the first it is sent, or the
/// last of those it replays), and whether it resumed after the state the client named.
struct SubscriptionStart: Equatable {
    let id: String
    let epoch: String
    let seq: Int
    let resumed: Bool
}

extension DepotSession {
    func noteMutation(_ method: String) -> MutationNote {
        noteMutation(method, "")
    }
}
