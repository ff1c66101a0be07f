import DepotSystemd
import ServiceLifecycle

/// Sends STOPPING=1 as soon as a graceful shutdown begins. It is the last service of the group, so the
/// group tells it first, before the server starts closing connections.
struct StoppingNotifier: Service {
    let notifier: SystemdNotifier

    func run() async throws {
        do {
            try await gracefulShutdown()
            notifier.stopping(status: "stopping: finishing requests in flight")
        } catch is CancellationError {
            // Cancelled rather than shut down gracefully: nothing to announce.
        }
    }
}
