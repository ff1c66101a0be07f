import DepotRPC
import NIOCore

/// The output side of one connection: writes answers and notifications to its channel, flushes them, and keeps the
/// books of its output (`OutputBooks`): what is held until the socket has taken it (on the connection's
/// `ConnectionMemory`), and the unread answers against their bound.
///
/// Used on the connection's event loop only. The handler decides what to write and when; this says what that holds.
final class ConnectionOutput {
    private var context: ChannelHandlerContext?
    /// What was written and not yet flushed or taken, for the unread-answer bound.
    private(set) var books = OutputBooks()
    /// Where what the output holds is counted until the socket takes it.
    let memory: ConnectionMemory
    /// Called on the loop once the socket has taken what a flush let go (or the write failed, as the channel closed):
    /// the held bytes have left the connection's memory, for the handler to settle with the user's account.
    var taken: () -> Void = {}

    init(memory: ConnectionMemory = ConnectionMemory()) {
        self.memory = memory
    }

    /// The channel to write to, from `handlerAdded` until `handlerRemoved`.
    func attach(_ context: ChannelHandlerContext?) {
        self.context = context
    }

    /// Writes `buffer` (not flushed), holding it in the books until the socket has taken it; `alreadyHeld` when a
    /// subscription's queue held it there already.
    func emit(_ buffer: ByteBuffer, alreadyHeld: Bool = false) {
        guard let context else { return }
        context.write(NIOAny(buffer), promise: nil)
        if !alreadyHeld {
            memory.hold(buffer)
        }
        books.wrote(buffer)
    }

    /// Writes an answer (not flushed). Answers cannot be dropped or merged, as states can: when those written and not
    /// yet taken by the socket pass `unreadLimit` (more than one of them: one always goes, however large), returns
    /// the cut-off of the client.
    func write(_ answer: EncodedMessage, unreadLimit: Int) -> CutOff? {
        guard context != nil else { return nil }
        var bytes = 0
        for part in answer.finishLine() {
            emit(part)
            bytes += part.readableBytes
        }
        guard books.answered(bytes: bytes, limit: unreadLimit) else { return nil }
        let unread = books.unreadAnswers
        return CutOff(
            limit: .maxUnreadAnswerBytes,
            reason: "it left \(unread.count) answers (\(unread.bytes) bytes) unread, past --max-unread-answer-bytes (\(unreadLimit))")
    }

    /// Flushes when something was written since the last flush.
    func flushIfNeeded() {
        guard books.hasUnflushedOutput else { return }
        flush()
    }

    /// Flushes, and lets the output written since the last flush go from the books once the socket has taken it.
    func flush() {
        guard let context else { return }
        if let flushed = books.flushing() {
            let taken = context.eventLoop.makePromise(of: Void.self)
            // Writes complete in order: this empty one completes once everything before it is written.
            context.write(NIOAny(ByteBuffer()), promise: taken)
            let output = NIOLoopBound(self, eventLoop: context.eventLoop)
            taken.futureResult.assumeIsolated().whenComplete { _ in
                output.value.books.taken(flushed)
                output.value.memory.release(flushed.written)
                output.value.taken()
            }
        }
        context.flush()
    }

    /// Flushes, then runs `body` once everything written before has been taken by the socket (or failed).
    func flush(then body: @escaping () -> Void) {
        guard let context else { return }
        flush()
        context.writeAndFlush(NIOAny(ByteBuffer())).assumeIsolated().whenComplete { _ in body() }
    }
}
