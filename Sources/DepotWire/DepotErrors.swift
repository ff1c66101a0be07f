public import DepotCore
public import DepotRPC
public import NIOCore

/// The error objects Depot's methods answer with, built in one place so their codes and data follow the document.
extension RPCError {
    /// A mutation that failed: its kind's code, its message, and the state it left behind (`encodedState`) as data.
    public static func mutationFailed(_ error: RepositoryError, encodedState: ByteBuffer) -> RPCError {
        RPCError(code: DepotErrorCode.code(for: error.kind), message: error.message, data: .encoded(encodedState))
    }

    /// notFound without data: `get` of an id the current state does not hold.
    public static func notFound(_ message: String) -> RPCError {
        RPCError(code: DepotErrorCode.notFound, message: message)
    }

    /// A per-connection limit was reached.
    public static func limitExceeded(_ message: String) -> RPCError {
        RPCError(code: DepotErrorCode.limitExceeded, message: message)
    }
}
