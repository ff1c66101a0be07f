import DepotCore
import DepotJSON
import DepotPipeline
import DepotRPC
import DepotWire
import Logging
import NIOCore

/// What the connection holds against its user's memory account, and cutting it off when it holds too much or
/// sends what it may not.
extension ConnectionHandler {
    /// Applies what this connection took and let go to its user's account. When that passes the user's bound (root
    /// is exempt), this connection, which just took more, first lets its snapshot-mode subscriptions skip to their
    /// newest state; if that is not enough, it is cut off.
    func settleMemory() {
        output.books.memoryChange.merge(subscriptions.takeLedgers())
        guard !output.books.memoryChange.isEmpty else { return }
        let change = output.books.takeMemoryChange()
        let user = peer?.uid
        var total = memory.apply(change, user: user)
        let limit = limits.maxMemoryPerUser
        guard change.takes, user != 0, total > limit, machine.activity != nil || machine.phase == .discarding else { return }
        let trimmed = subscriptions.trimToNewest()
        if !trimmed.isEmpty {
            total = memory.apply(trimmed, user: user)
            logger.debug("over --max-memory-per-user: this connection's subscriptions skip to their newest state")
            guard total > limit else { return }
        }
        cutOffOverMemoryBound(
            total, holding: "lines unfinished or waiting, answers and notifications unread",
            advice: "read your answers and notifications, and send whole lines")
    }

    /// Cuts the connection off because its user's connections hold `total` bytes, past --max-memory-per-user:
    /// `holding` says what they hold (for the log), `advice` what the client should do instead.
    func cutOffOverMemoryBound(_ total: Int, holding: String, advice: String) {
        let limit = limits.maxMemoryPerUser
        cutOff(
            .maxMemoryPerUser,
            "the connections of uid \(peer.map { String($0.uid) } ?? "?") hold \(total) bytes in depotd (\(holding)), past --max-memory-per-user (\(limit))",
            tell: .memoryPerUserOverBound(total: total, bound: limit, advice: advice)
        )
    }

    /// The bound on a batch's answers, with the error that stands for one left out. What a batch holds while its
    /// slower calls run is on its user's books (from whichever thread its calls finish on); when that passes the
    /// user's bound, the connection is cut off on its loop, which lets the batch go.
    func batchAnswerLimit(_ bytes: Int, context: ChannelHandlerContext) -> BatchAnswerLimit {
        let (counters, memory, limits, user) = (counters, memory, limits, peer?.uid)
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        return BatchAnswerLimit(
            bytes: bytes,
            leftOut: { bytes in
                counters.hit(.maxBatchAnswerBytes)
                return .batchAnswerLeftOut(passed: bytes)
            },
            held: { change in
                let total = memory.apply(ClientMemory.Change(exclusiveBytes: change), user: user)
                guard change > 0, user != 0, total > limits.maxMemoryPerUser else { return }
                eventLoop.execute { connection.value.heldAnswersPassedTheBound(total) }
            })
    }

    /// A batch's answers waiting for its slower calls carried the user's memory past its bound.
    private func heldAnswersPassedTheBound(_ total: Int) {
        guard machine.activity != nil else { return }
        cutOffOverMemoryBound(
            total, holding: "with answers a batch keeps until its last call is done",
            advice: "send calls whose answers are large on their own, not in a batch")
    }

    /// Closes the connection at once, with `reason` in the log. `tell` goes to the client first, as a limitExceeded
    /// error line, when its socket takes it; the connection then closes once that is written, or a second later.
    func cutOff(_ limit: LimitCounters.Limit, _ reason: String, tell message: RPCError? = nil) {
        guard let context, machine.cutOff() == .close else { return }
        counters.hit(limit)
        logger.warning("closing the connection: \(reason)")
        releaseInput()
        let channel = context.channel
        guard let message, channel.isWritable else {
            output.flush()
            channel.close(promise: nil)
            return
        }
        write(RPCResponse(id: .null, outcome: .failure(message)).line)
        output.flush { channel.close(promise: nil) }
        armCloseTimer(after: .seconds(1), context: context) { _ in "its socket did not take the error line within a second" }
    }

    func refuseOversizedLine(limit: Int, context: ChannelHandlerContext) {
        counters.hit(.maxMessageBytes)
        logger.warning("closing a connection that sent a line longer than \(limit) bytes")
        let error = RPCError.invalidRequest(
            "the message is longer than \(limit) bytes, the limit set by --max-message-bytes; closing the connection"
        )
        write(RPCResponse(id: .null, outcome: .failure(error)).line)
        // Close our side once the answer is out, but keep reading (the decoder discards everything now) until
        // the client closes: closing with its unread bytes in our buffer would reset the connection and
        // could destroy the answer before the client reads it. A client that never stops sending is cut off.
        let channel = context.channel
        output.flush { channel.close(mode: .output, promise: nil) }
        armCloseTimer(after: Self.discardLimit, context: context) { machine in
            machine.discardLimitReached() == .close ? "it kept sending after its oversized line; cutting it off" : nil
        }
    }

    /// More of an unfinished line came: it counts against the user and against all users' unfinished lines.
    func lineGrew(to bytes: Int) {
        let added = bytes - unfinishedLineBytes
        unfinishedLineBytes = bytes
        output.books.memoryChange.exclusiveBytes += added
        let total = memory.addUnfinished(added)
        let limit = limits.maxUnfinishedLineBytes
        guard total > limit, machine.activity != nil else { return }
        cutOff(
            .maxUnfinishedLineBytes,
            "unfinished lines from all clients hold \(total) bytes, past --max-unfinished-line-bytes (\(limit)); this one's has \(bytes)",
            tell: .unfinishedLinesOverBound(total: total, bound: limit)
        )
    }

    /// A line began: if it is not finished within the partial-line timeout, the sender is cut off.
    func armPartialLineTimer(context: ChannelHandlerContext) {
        partialLineTimer?.cancel()
        let timeout = limits.partialLineTimeout
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        partialLineTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(timeout)) {
            connection.value.partialLineTimedOut(timeout)
        }
    }

    private func partialLineTimedOut(_ timeout: Duration) {
        partialLineTimer = nil
        counters.hit(.partialLineTimeout)
        logger.notice("closing the connection: a line was left unfinished for \(timeout) (--partial-line-timeout)")
        context?.close(promise: nil)
    }
}
