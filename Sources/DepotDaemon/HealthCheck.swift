import DepotClient
import DepotPlatform
import DepotWire

/// Proves that depotd actually works, as a client sees it: over its own socket, the listener accepts, an
/// event loop reads and dispatches a request, and the repository's current state answers it. The request is
/// `get` of an id no collection uses, so the answer (an item, or notFound) is a few bytes whatever the size
/// of the collection. The connection is kept between checks and opened again after a failure.
actor HealthCheck {
    static let probeID = "\u{1}depotd-watchdog-probe"

    private let socketPath: String
    private var connection: DepotConnection?

    init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Nil when depotd answered within `limit`; otherwise why not.
    func problem(within limit: Duration) async -> String? {
        do {
            let connection = try await withDeadline(limit) { [socketPath, connection] in
                if let connection { return connection }
                return try await DepotConnection.connect(to: socketPath)
            }
            self.connection = connection
            do {
                _ = try await withDeadline(limit) {
                    try await connection.call(GetRequest(id: Self.probeID))
                }
            } catch DepotClientError.remote(let error) where error.code == DepotErrorCode.notFound {
                // The expected answer.
            }
            return nil
        } catch {
            if let connection {
                await connection.close()
            }
            connection = nil
            return "\(error)"
        }
    }
}
