import DepotPlatform
import DepotSystemd
import Logging

/// Sends READY=1 once, when both have happened: the socket accepts connections, and the first state that
/// matters is published — the initial load's outcome, or the idle state when depotd starts without a load.
final class Readiness: Sendable {
    private struct Progress {
        var isListening = false
        var hasFirstState = false
        var isReady = false
    }

    private let progress = Locked(Progress())
    private let notifier: SystemdNotifier
    private let status: @Sendable () -> String
    private let logger: Logger

    init(notifier: SystemdNotifier, logger: Logger, status: @escaping @Sendable () -> String) {
        self.notifier = notifier
        self.logger = logger
        self.status = status
    }

    func listening() {
        advance { $0.isListening = true }
    }

    func firstStatePublished() {
        advance { $0.hasFirstState = true }
    }

    private func advance(_ step: (inout Progress) -> Void) {
        let becameReady = progress.withLock { progress -> Bool in
            step(&progress)
            guard progress.isListening, progress.hasFirstState, !progress.isReady else { return false }
            progress.isReady = true
            return true
        }
        guard becameReady else { return }
        let line = status()
        notifier.ready(status: line)
        logger.info("ready: \(line)")
    }
}
