import NIOCore

/// The books of one connection's output, as a value: what was written since the last flush (the answers among it),
/// and the answers written and not yet taken by the socket — against `--max-unread-answer-bytes`. What the output
/// holds in memory is `ConnectionMemory`'s. The handler writes and flushes; these say what that holds and when the
/// bound is passed.
struct OutputBooks {
    /// What a flush let go to the socket: released from the books once the socket has taken it.
    struct Flushed {
        let written: [ByteBuffer]
        let answers: (count: Int, bytes: Int)
    }

    /// Output written since the last flush.
    private(set) var unflushed: [ByteBuffer] = []
    private(set) var unflushedAnswers = (count: 0, bytes: 0)
    /// Whether anything was written since the last flush.
    var hasUnflushedOutput: Bool { !unflushed.isEmpty }
    /// Answers written and not yet taken by the socket.
    private(set) var unreadAnswers = (count: 0, bytes: 0)

    /// `buffer` was written, not flushed: it is kept until the socket takes it.
    mutating func wrote(_ buffer: ByteBuffer) {
        unflushed.append(buffer)
    }

    /// An answer of `bytes` was written (its parts through `wrote`). True when the answers left unread pass `limit`
    /// with more than one of them: answers cannot be dropped or merged, as states can, but one always goes, however
    /// large.
    mutating func answered(bytes: Int, limit: Int) -> Bool {
        unflushedAnswers.count += 1
        unflushedAnswers.bytes += bytes
        unreadAnswers.count += 1
        unreadAnswers.bytes += bytes
        return unreadAnswers.count > 1 && unreadAnswers.bytes > limit
    }

    /// A flush: what was written since the last one, to let go once the socket has taken it; nil when nothing was.
    mutating func flushing() -> Flushed? {
        guard !unflushed.isEmpty else { return nil }
        defer {
            unflushed = []
            unflushedAnswers = (0, 0)
        }
        return Flushed(written: unflushed, answers: unflushedAnswers)
    }

    /// The socket took what `flushed` let go (or the write failed, as the connection closed).
    mutating func taken(_ flushed: Flushed) {
        unreadAnswers.count -= flushed.answers.count
        unreadAnswers.bytes -= flushed.answers.bytes
    }
}
