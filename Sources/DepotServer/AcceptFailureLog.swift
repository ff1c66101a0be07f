import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Logs accept failures on the listening socket — out of file descriptors (EMFILE, ENFILE), memory — once, then at
/// most once every `interval` with how many happened since, instead of staying silent (or flooding the journal).
/// `AcceptPause`, before it in the pipeline, stops polling the listener meanwhile, so the loop does not spin.
final class AcceptFailureLog: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel

    static let backoff = TimeAmount.milliseconds(250)
    private let logger: Logger
    private let interval: TimeAmount
    private var lastLogged: NIODeadline?
    private var unlogged = 0

    init(logger: Logger, interval: TimeAmount = .seconds(10)) {
        self.logger = logger
        self.interval = interval
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let ioError = error as? IOError else {
            context.fireErrorCaught(error)
            return
        }
        unlogged += 1
        let now = NIODeadline.now()
        guard lastLogged.map({ now - $0 >= interval }) ?? true else { return }
        lastLogged = now
        let hint =
            ioError.errnoCode == EMFILE || ioError.errnoCode == ENFILE
            ? "; raise LimitNOFILE= (or ulimit -n), or close idle connections" : ""
        logger.error(
            "accepting connections failed \(unlogged) time\(unlogged == 1 ? "" : "s"): \(ioError); pausing accept \(Self.backoff.nanoseconds / 1_000_000) ms at a time until it works\(hint)",
            metadata: ["errno": "\(ioError.errnoCode)"])
        unlogged = 0
    }
}
