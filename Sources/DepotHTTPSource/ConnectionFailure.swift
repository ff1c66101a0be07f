import AsyncHTTPClient
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Words why a connection to the source could not be made, in place of SwiftNIO's descriptions of its errors
/// ("connection reset (error set): Connection refused (errno: 111)"), and says what to check.
enum ConnectionFailure {
    /// Why no connection was made and what to do, or nil when `error` is not a failure to connect.
    static func explanation(_ error: any Error) -> String? {
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first {
                return explanation(first.error, at: "\(error.host):\(error.port)")
            }
            if error.dnsAError != nil || error.dnsAAAAError != nil {
                return "the host name \(error.host) could not be resolved; check the URL's host name and the machine's DNS"
            }
            return nil
        }
        return explanation(error, at: nil)
    }

    private static func explanation(_ error: any Error, at address: String?) -> String? {
        guard let error = error as? IOError else { return nil }
        let place = address.map { " at \($0)" } ?? " at that address"
        switch error.errnoCode {
        case ECONNREFUSED:
            return "connection refused: nothing listens\(place); check that the server is up and the URL's port"
        case ENETUNREACH, EHOSTUNREACH:
            return "no route to the host\(place); check the URL's host and the network"
        case ETIMEDOUT:
            return "the connection\(place) timed out; check the URL's host and any firewall between"
        case ECONNRESET:
            return "the connection\(place) was reset by the server; check the server"
        default:
            return "could not connect\(place): \(String(cString: strerror(error.errnoCode))); check the URL and that the server is up"
        }
    }

    /// Whether `error` says the request never left depotd: no connection was made (refused, unreachable, a connect
    /// time-out). Any other failure may have come after the server had the request.
    static func neverReachedServer(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError: return error == .connectTimeout
        case is NIOConnectionError: return true
        case let error as IOError: return [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH].contains(error.errnoCode)
        default: return false
        }
    }
}
