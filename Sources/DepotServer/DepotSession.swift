import DepotRPC

/// What Depot's methods may ask of the connection a call came on: who the peer is, and its subscriptions.
///
/// `ConnectionHandler` implements it on the connection's event loop; tests implement it in memory, so every
/// method runs without a socket or an event loop. A method never touches NIO: answers that come later are
/// `RPCReply.later`, which the connection writes when they are in.
protocol DepotSession: AnyObject {
    /// The process on the other end of the socket, from SO_PEERCRED; nil when the transport has none.
    var peer: PeerCredentials? { get }

    /// Creates a subscription starting from the current state; its states are written once the answer to the
    /// current message is. Throws limitExceeded when the connection holds the most it may.
    func subscribe() throws(RPCError) -> SubscriptionStart

    /// Ends the subscription `id`; false when this connection has none by that id.
    func unsubscribe(_ id: String) -> Bool

    /// Logs a request that changes state, naming the method and the client.
    func noteMutation(_ method: String, _ detail: String)
}

/// Where a new subscription starts: its id, and the run and seq of the first state it is sent.
struct SubscriptionStart: Equatable {
    let id: String
    let epoch: String
    let seq: Int
}

extension DepotSession {
    func noteMutation(_ method: String) {
        noteMutation(method, "")
    }
}
