public import DepotJSON

/// Why a call to depotd did not produce a result, in words a user can act on.
public enum DepotClientError: Error, Sendable, CustomStringConvertible {
    /// The socket could not be connected to.
    case cannotConnect(path: String, reason: String)
    /// The daemon closed the connection before answering.
    case connectionClosed
    /// The daemon answered with something that is not a JSON-RPC response.
    case invalidResponse(String)
    /// The daemon answered with a JSON-RPC error.
    case remote(RemoteError)

    public var description: String {
        switch self {
        case .cannotConnect(_, let reason): reason
        case .connectionClosed: "depotd closed the connection before answering"
        case .invalidResponse(let detail): "depotd sent an answer that is not valid JSON-RPC: \(detail)"
        case .remote(let error): error.description
        }
    }
}

/// A JSON-RPC error object sent by the daemon.
public struct RemoteError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int
    public let message: String
    public let data: JSONValue?

    public init(code: Int, message: String, data: JSONValue?) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(message) (\(code))" }
}
