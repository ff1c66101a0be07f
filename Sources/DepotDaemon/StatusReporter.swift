public import DepotCore
import DepotPlatform
package import DepotSystemd
public import ServiceLifecycle

/// Keeps systemd's STATUS= current: it hears of every state and every change in the number of subscribers,
/// and sends the latest status at most once per `interval`, so a burst of states costs one message.
public final class StatusReporter: Service, StateObserver {
    private struct Pending {
        var status: ServiceStatus
        var isDirty = true
    }

    private let notifier: SystemdNotifier
    private let interval: Duration
    private let pending: Locked<Pending>
    private let wakeUp: AsyncStream<Void>.Continuation
    private let wakeUps: AsyncStream<Void>

    package init(notifier: SystemdNotifier, interval: Duration = .milliseconds(250)) {
        self.notifier = notifier
        self.interval = interval
        self.pending = Locked(Pending(status: ServiceStatus(state: PublishedState(seq: 0, state: .idle), subscribers: 0)))
        (wakeUps, wakeUp) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The status as it is now (what the next STATUS= will say).
    public var current: ServiceStatus {
        pending.withLock { $0.status }
    }

    public func stateDidChange(to state: PublishedState) {
        change { $0.state = state }
    }

    public func subscribersChanged(to count: Int) {
        change { $0.subscribers = count }
    }

    /// Sets or clears the note shown in front of the status.
    public func setNote(_ note: String?) {
        change { $0.note = note }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in self.wakeUps {
                guard let status = self.takeIfDirty() else { continue }
                self.notifier.status(status.text)
                try? await Task.sleep(for: self.interval)
            }
        }
    }

    private func change(_ update: (inout ServiceStatus) -> Void) {
        pending.withLock {
            update(&$0.status)
            $0.isDirty = true
        }
        wakeUp.yield()
    }

    private func takeIfDirty() -> ServiceStatus? {
        pending.withLock { pending in
            guard pending.isDirty else { return nil }
            pending.isDirty = false
            return pending.status
        }
    }
}
