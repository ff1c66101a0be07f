public import DepotRPC
import NIOCore

/// The error objects Depot's methods answer with, built in one place so their codes and data follow the document.
extension RPCError {
    /// notFound without data: `get` of an id the current state does not hold.
    public static func notFound(_ message: String) -> RPCError {
        RPCError(code: DepotErrorCode.notFound, message: message)
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

    // MARK: limitExceeded — one per bound, each naming its setting and what to do

    /// A new connection past --max-connections: depotd holds `holding` already.
    public static func tooManyConnections(holding: Int) -> RPCError {
        limitExceeded("depotd holds \(holding) connections, the most it may (--max-connections); try again when some have closed")
    }

    /// A new connection of `uid` past --max-connections-per-user: it holds `holding` already.
    public static func tooManyConnections(ofUser uid: UInt32, holding: Int) -> RPCError {
        limitExceeded(
            "uid \(uid) holds \(holding) connections to depotd, the most one user may (--max-connections-per-user); close some")
    }

    /// A subscription past --max-subscriptions-per-connection (`most`).
    public static func tooManySubscriptions(most: Int) -> RPCError {
        limitExceeded(
            "this connection already holds \(most) subscriptions, the most one connection may; unsubscribe one or open another connection")
    }

    /// A pipeline that would be the `most`+1-th distinct one depotd runs.
    public static func tooManyPipelines(most: Int) -> RPCError {
        limitExceeded(
            "depotd runs \(most) distinct pipelines, the most it may; use one of them (a named pipeline, pipelines.list) or wait for some to end")
    }

    /// An answer left out of a batch whose answers passed --max-batch-answer-bytes (`bytes`).
    public static func batchAnswerLeftOut(passed bytes: Int) -> RPCError {
        limitExceeded(
            "this batch's answers passed \(bytes) bytes, the most one line may carry (--max-batch-answer-bytes); this call ran, but its answer is left out: send it on its own, or fewer calls per batch"
        )
    }

    /// The line a connection is cut off with when the unfinished lines of all clients hold `total` bytes, past `bound`.
    public static func unfinishedLinesOverBound(total: Int, bound: Int) -> RPCError {
        limitExceeded(
            "depotd holds \(total) bytes of unfinished lines from its clients, past its bound of \(bound) (--max-unfinished-line-bytes); send each line whole, or try again later"
        )
    }

    /// The line a connection is cut off with when its user's connections hold `total` bytes, past `bound`; `advice`
    /// says what the client should do instead.
    public static func memoryPerUserOverBound(total: Int, bound: Int, advice: String) -> RPCError {
        limitExceeded(
            "your connections to depotd hold \(total) bytes of its memory, past its bound of \(bound) per user (--max-memory-per-user): \(advice)")
    }

    private static func limitExceeded(_ message: String) -> RPCError {
        RPCError(code: DepotErrorCode.limitExceeded, message: message)
    }
}
