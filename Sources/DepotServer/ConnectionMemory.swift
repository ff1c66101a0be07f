import DepotRPC
import DepotWire
import NIOCore

/// What one connection holds in depotd's memory, on its user's account (`ClientMemory`): its line unfinished and its
/// lines held, its output until the socket takes it, its subscriptions' queues. Every change to what it holds comes
/// here, waits until `settle` applies it in one go, and `settle` says when the user's connections then hold more than
/// `--max-memory-per-user`; the unfinished line also counts against all users' `--max-unfinished-line-bytes`.
///
/// Used on the connection's event loop only. The connection decides what to do when a bound is passed (its
/// subscriptions skip to their newest state, or it is cut off); this says what it holds.
final class ConnectionMemory {
    private let account: ClientMemory
    private let limits: LiveLimits
    /// The connection's user, once admitted (nil: a transport without credentials). Root is exempt from the bound.
    var user: UInt32?
    /// What was taken and let go since the last `settle`.
    private var pending = ClientMemory.Change()
    /// The bytes of the line being received, not yet finished.
    private var unfinishedLineBytes = 0

    init(account: ClientMemory = ClientMemory(), limits: LiveLimits = LiveLimits(ConnectionLimits())) {
        self.account = account
        self.limits = limits
    }

    /// The user's bound, in force now.
    var bound: Int { limits.maxMemoryPerUser }

    /// Output written: held until the socket takes it.
    func hold(_ buffer: ByteBuffer) {
        pending.hold(buffer)
    }

    /// Output the socket took, or queued buffers let go.
    func release(_ buffers: [ByteBuffer]) {
        pending.release(buffers)
    }

    /// A whole line held until the connection may take it.
    func holdLine(_ line: ByteBuffer) {
        pending.exclusiveBytes += line.readableBytes
    }

    /// A held line dispatched or dropped.
    func releaseLine(_ line: ByteBuffer) {
        pending.exclusiveBytes -= line.readableBytes
    }

    /// What a subscription's queue took and let go.
    func merge(_ change: ClientMemory.Change) {
        pending.merge(change)
    }

    /// More of an unfinished line came (`bytes` of it so far); the cut-off, when all users' unfinished lines then
    /// pass `--max-unfinished-line-bytes`.
    func lineGrew(to bytes: Int) -> CutOff? {
        let added = bytes - unfinishedLineBytes
        unfinishedLineBytes = bytes
        pending.exclusiveBytes += added
        let total = account.addUnfinished(added)
        let limit = limits.maxUnfinishedLineBytes
        guard total > limit else { return nil }
        return CutOff(
            limit: .maxUnfinishedLineBytes,
            reason: "unfinished lines from all clients hold \(total) bytes, past --max-unfinished-line-bytes (\(limit)); this one's has \(bytes)",
            tell: .unfinishedLinesOverBound(total: total, bound: limit))
    }

    /// The line being received ended (or was dropped): its bytes are no longer held.
    func lineFinished() {
        guard unfinishedLineBytes > 0 else { return }
        pending.exclusiveBytes -= unfinishedLineBytes
        _ = account.addUnfinished(-unfinishedLineBytes)
        unfinishedLineBytes = 0
    }

    /// Applies what was taken and let go since the last call to the user's account. Returns the user's total when
    /// this took more and the total passes the bound (root exempt); nil otherwise.
    func settle() -> Int? {
        guard !pending.isEmpty else { return nil }
        let change = pending
        pending = ClientMemory.Change()
        let total = account.apply(change, user: user)
        guard change.takes, Self.passes(total, user: user, bound: bound) else { return nil }
        return total
    }

    /// Whether `user`'s connections holding `total` bytes pass `bound`; root never does.
    private static func passes(_ total: Int, user: UInt32?, bound: Int) -> Bool {
        user != 0 && total > bound
    }

    /// The cut-off of a connection whose user's connections hold `total` bytes, past the bound: `holding` says what
    /// they hold (for the log), `advice` what the client should do instead.
    func overBound(_ total: Int, holding: String, advice: String) -> CutOff {
        CutOff(
            limit: .maxMemoryPerUser,
            reason:
                "the connections of uid \(user.map(String.init) ?? "?") hold \(total) bytes in depotd (\(holding)), past --max-memory-per-user (\(bound))",
            tell: .memoryPerUserOverBound(total: total, bound: bound, advice: advice))
    }

    /// Applies `change` at once (what subscriptions let go when they skipped to their newest state); the user's
    /// total after.
    func apply(_ change: ClientMemory.Change) -> Int {
        account.apply(change, user: user)
    }

    /// The bound on a batch's answers, with the error that stands for one left out. What a batch holds while its
    /// slower calls run is on its user's account (from whichever thread its calls finish on); when that passes the
    /// bound, `overBound` is called with the total, on that thread.
    func batchAnswerLimit(_ bytes: Int, counters: LimitCounters, overBound: @escaping @Sendable (Int) -> Void) -> BatchAnswerLimit {
        let (account, limits, user) = (account, limits, user)
        return BatchAnswerLimit(
            bytes: bytes,
            leftOut: { bytes in
                counters.hit(.maxBatchAnswerBytes)
                return .batchAnswerLeftOut(passed: bytes)
            },
            held: { change in
                let total = account.apply(ClientMemory.Change(exclusiveBytes: change), user: user)
                guard change > 0, Self.passes(total, user: user, bound: limits.maxMemoryPerUser) else { return }
                overBound(total)
            })
    }
}

/// Why a connection is cut off: the limit it passed (counted for `stats`), the log's reason, and the error the client
/// is told first, when there is one.
struct CutOff {
    let limit: LimitCounters.Limit
    let reason: String
    var tell: RPCError?
}
