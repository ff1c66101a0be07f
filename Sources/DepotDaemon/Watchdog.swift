import DepotSystemd
import Logging
import ServiceLifecycle

/// Sends WATCHDOG=1 every half interval, each time only after the health check passed, so that systemd
/// kills and restarts a depotd that hangs — not merely one whose process is gone.
struct Watchdog: Service {
    let interval: Duration
    let check: HealthCheck
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        let period = interval / 2
        logger.info("watchdog: checking every \(period), systemd acts after \(interval) without a keep-alive")
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                if let problem = await check.problem(within: period) {
                    logger.warning("watchdog: health check failed, no keep-alive sent: \(problem)")
                } else {
                    notifier.watchdog()
                }
                try? await Task.sleep(for: period)
            }
        }
    }
}
