import PostgresNIO

/// postgres-nio's errors in words a user can act on: its own description hides the server's message and the
/// cause (its `String(describing:)` is deliberately generic, since queries may hold secrets).
enum PostgresErrors {
    static func describe(_ error: PSQLError) -> String {
        if let server = error.serverInfo, let message = server[.message] {
            let code = server[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return "the server said: \(message)\(code)"
        }
        if let underlying = error.underlying {
            return "\(underlying)"
        }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection: return "the connection closed"
        case .connectionError: return "the connection failed"
        case .unexpectedBackendMessage, .invalidCommandTag, .messageDecodingFailure, .receivedUnencryptedDataAfterSSLRequest:
            return "the server's answer could not be read (\(error.code))"
        case .sslUnsupported: return "the server does not offer TLS, and sslmode requires it"
        case .uncleanShutdown: return "the connection ended uncleanly"
        default: return "\(error.code)"
        }
    }
}
