package import DepotClient

/// A daemon or server a test talks to whose every message is held to the protocol's document: each way of
/// connecting to it taps the connection with a `ProtocolChecker` of its `ledger`.
package protocol CheckedEndpoint: Sendable {
    var socketPath: String { get }
    var ledger: ProtocolLedger { get }
}

extension CheckedEndpoint {
    /// A client connection (calls and subscriptions).
    package func connect() async throws -> DepotConnection {
        try await DepotConnection.connect(to: socketPath, tap: ledger.checker())
    }

    /// A line-level connection, for speaking the protocol byte by byte.
    package func connectLines() async throws -> LineConnection {
        try await LineConnection.connect(to: socketPath, tap: ledger.checker())
    }

    /// A blocking socket the test reads only when it says so (a stalled or greedy client).
    package func rawSocket(receiveBufferBytes: Int32? = nil) throws -> RawSocket {
        try RawSocket(connectingTo: socketPath, receiveBufferBytes: receiveBufferBytes, tap: ledger.checker())
    }
}
