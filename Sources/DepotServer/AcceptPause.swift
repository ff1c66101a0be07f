import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Stops polling the listening socket for a while when accepting fails for want of resources — out of descriptors
/// (EMFILE, ENFILE) or of memory (ENOBUFS, ENOMEM) — then tries again.
///
/// Such a failure leaves the connection in the kernel's queue, so the listener is readable at once, again and again.
/// NIO's `AcceptBackoffHandler` holds back the next read, but after a failed accept the channel keeps its read pending
/// and the listener stays in the poll: the event loop spun a core until clients left. Turning `autoRead` off takes the
/// listener out of the poll; turning it on again after `pause` puts it back, and a still failing accept pauses again.
final class AcceptPause: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    /// The failures that pass once descriptors or memory are freed; any other ends the listener, as NIO decides.
    static let recoverable: Set<Int32> = [EMFILE, ENFILE, ENOBUFS, ENOMEM]

    private let pause: TimeAmount
    private let logger: Logger
    private var resumption: Scheduled<Void>?

    init(pause: TimeAmount, logger: Logger) {
        self.pause = pause
        self.logger = logger
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let ioError = error as? IOError, Self.recoverable.contains(ioError.errnoCode), resumption == nil {
            pause(context, because: ioError)
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        resumption?.cancel()
        resumption = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        resumption?.cancel()
        resumption = nil
    }

    private func pause(_ context: ChannelHandlerContext, because error: IOError) {
        guard let options = context.channel.syncOptions else { return }
        do {
            try options.setOption(.autoRead, value: false)
        } catch {
            return  // the listener is closing
        }
        logger.debug("accept paused for \(pause.nanoseconds / 1_000_000) ms: \(error)")
        let channel = context.channel
        resumption = context.eventLoop.assumeIsolated().scheduleTask(in: pause) { [self] in
            resumption = nil
            try? channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }
}
