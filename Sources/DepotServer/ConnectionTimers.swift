import NIOCore

/// The two deadlines a connection may have armed, on its event loop: the close timer (a shutdown's deadline for its
/// answers, or how long a client that sent an oversized line may go on sending) and the partial-line timer (how long
/// a line may sit unfinished). Arming one replaces the one armed; a closed connection cancels both. Used on the
/// connection's event loop only.
final class ConnectionTimers {
    private var close: Scheduled<Void>?
    private var partialLine: Scheduled<Void>?

    init() {}

    /// Whether a line sits unfinished with its deadline armed.
    var isPartialLineArmed: Bool { partialLine != nil }

    /// Calls `fired` on `loop` after `delay`, unless cancelled or replaced first.
    func armClose(after delay: TimeAmount, on loop: any EventLoop, _ fired: @escaping () -> Void) {
        close?.cancel()
        close = Self.schedule(after: delay, on: loop) { [weak self] in
            self?.close = nil
            fired()
        }
    }

    /// Calls `fired` on `loop` after `delay`, unless the line is finished first (`lineFinished`).
    func armPartialLine(after delay: TimeAmount, on loop: any EventLoop, _ fired: @escaping () -> Void) {
        partialLine?.cancel()
        partialLine = Self.schedule(after: delay, on: loop) { [weak self] in
            self?.partialLine = nil
            fired()
        }
    }

    /// The unfinished line ended: its deadline is cancelled.
    func lineFinished() {
        partialLine?.cancel()
        partialLine = nil
    }

    /// The connection closed: nothing fires any more.
    func cancelAll() {
        close?.cancel()
        close = nil
        lineFinished()
    }

    private static func schedule(after delay: TimeAmount, on loop: any EventLoop, _ body: @escaping () -> Void) -> Scheduled<Void> {
        loop.assumeIsolated().scheduleTask(in: delay, body)
    }
}
