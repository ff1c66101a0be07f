public import DepotCore
public import DepotPipeline
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

    /// A named pipeline could not be changed: read-only (configured), unknown, or not stored.
    public static func pipelineLibrary(_ error: PipelineLibraryError) -> RPCError {
        switch error {
        case .readOnly: RPCError(code: DepotErrorCode.readOnly, message: error.description)
        case .notFound: RPCError(code: DepotErrorCode.notFound, message: error.description)
        case .storage: RPCError(code: DepotErrorCode.storageFailed, message: error.description)
        }
    }

    /// The caller may not call `method`: it needs `needed`; the caller (`uid`) has `granted` (none: not even read).
    public static func forbidden(method: String, needed: AccessLevel, uid: UInt32, granted: AccessLevel?) -> RPCError {
        let has = granted.map { "only \($0.rawValue) access" } ?? "no access"
        return RPCError(
            code: DepotErrorCode.forbidden,
            message:
                "forbidden: \(method) needs \(needed.rawValue) access, and uid \(uid) has \(has); depotd's \"access\" setting grants it (README, \"Access\")"
        )
    }

    /// A per-connection limit was reached.
    public static func limitExceeded(_ message: String) -> RPCError {
        RPCError(code: DepotErrorCode.limitExceeded, message: message)
    }
}
