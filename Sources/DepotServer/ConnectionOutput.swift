import DepotRPC
import NIOCore

/// The output side of one connection: writes answers and notifications to its channel, flushes them, and keeps the
/// books of what the connection holds in memory (`OutputBooks`) — output until the socket has taken it, and the
/// unread answers against their bound.
///
/// Used on the connection's event loop only. The handler decides what to write and when; this says what that holds.
final class ConnectionOutput {
    private var context: ChannelHandlerContext?
    /// What the connection's output, lines and queues hold, for its user's memory account and the unread-answer bound.
    var books = OutputBooks()
    /// Called on the loop once the socket has taken what a flush let go (or the write failed, as the channel closed):
    /// the held bytes have left the books, for the handler to settle with the user's account.
    var taken: () -> Void = {}

    init() {}

    /// The channel to write to, from `handlerAdded` until `handlerRemoved`.
    func attach(_ context: ChannelHandlerContext?) {
        self.context = context
    }

    /// Writes `buffer` (not flushed), holding it in the books until the socket has taken it; `alreadyHeld` when a
    /// subscription's queue held it there already.
    func emit(_ buffer: ByteBuffer, alreadyHeld: Bool = false) {
        guard let context else { return }
        context.write(NIOAny(buffer), promise: nil)
        books.wrote(buffer, alreadyHeld: alreadyHeld)
    }

    /// Writes an answer (not flushed). Answers cannot be dropped or merged, as states can: when those written and not
    /// yet taken by the socket pass `unreadLimit` (more than one of them: one always goes, however large), returns
    /// them, for the handler to cut the client off.
    func write(_ answer: EncodedMessage, unreadLimit: Int) -> (count: Int, bytes: Int)? {
        guard context != nil else { return nil }
        var bytes = 0
        for part in answer.finishLine() {
            emit(part)
            bytes += part.readableBytes
        }
        return books.answered(bytes: bytes, limit: unreadLimit) ? books.unreadAnswers : nil
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
