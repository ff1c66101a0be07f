public import DepotCore
import DepotPlatform
package import DepotSystemd
package import Logging
public import ServiceLifecycle

/// What depotd tells systemd of itself: READY=1 once, when both the socket accepts connections and the first state
/// that matters is published (`ReadinessProgress`); then a current STATUS=, from every state and every change in the
/// number of subscribers, sent at most once per `interval`, so a burst of states costs one message.
public final class StatusReporter: Service, StateObserver {
    private struct Pending {
        var status: ServiceStatus
        var isDirty = true
        var readiness = ReadinessProgress()
    }

    private let notifier: SystemdNotifier
    private let interval: Duration
    private let logger: Logger
    private let pending: Locked<Pending>
    private let wakeUp: AsyncStream<Void>.Continuation
    private let wakeUps: AsyncStream<Void>

    /// - Parameter awaitsFirstOutcome: whether READY waits for the first success or failure (a start-up load runs);
    ///   false when depotd starts without one, and its idle state is the first that matters.
    package init(
        notifier: SystemdNotifier, interval: Duration = .milliseconds(250), awaitsFirstOutcome: Bool = true,
        logger: Logger = Logger(label: "depot.status")
    ) {
        self.notifier = notifier
        self.interval = interval
        self.logger = logger
        self.pending = Locked(
            Pending(
                status: ServiceStatus(state: PublishedState(seq: 0, state: .idle), subscribers: 0),
                readiness: ReadinessProgress(hasFirstOutcome: !awaitsFirstOutcome)))
        (wakeUps, wakeUp) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The status as it is now (what the next STATUS= will say).
    public var current: ServiceStatus {
        pending.withLock { $0.status }
    }

    public func stateDidChange(to state: PublishedState) {
        change {
            $0.status.state = state
            return $0.readiness.published(state.state.status)
        }
    }

    public func subscribersChanged(to count: Int) {
        change {
            $0.status.subscribers = count
            return false
        }
    }

    /// Sets or clears the note shown in front of the status.
    public func setNote(_ note: String?) {
        change {
            $0.status.note = note
            return false
        }
    }

    /// The socket accepts connections: READY=1 if the first outcome is in already. The status is as it was.
    package func listening() {
        if let ready = pending.withLock({ $0.readiness.listening() ? $0.status : nil }) {
            sendReady(ready)
        }
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

    /// Applies `update` to the status, which says whether depotd just became ready; READY=1 goes out at once, STATUS=
    /// at the next turn of `run`.
    private func change(_ update: (inout Pending) -> Bool) {
        let ready = pending.withLock { pending -> ServiceStatus? in
            let becameReady = update(&pending)
            pending.isDirty = true
            return becameReady ? pending.status : nil
        }
        if let ready {
            sendReady(ready)
        }
        wakeUp.yield()
    }

    private func sendReady(_ status: ServiceStatus) {
        notifier.ready(status: status.text)
        logger.info("ready: \(status.text)")
    }

    private func takeIfDirty() -> ServiceStatus? {
        pending.withLock { pending in
            guard pending.isDirty else { return nil }
            pending.isDirty = false
            return pending.status
        }
    }
}

/// When depotd is ready: once the socket listens and the first state that matters is published — the start-up load's
/// outcome (or the cached list it shows first), or, without a start-up load, at once. Each step says whether it is
/// the one that made depotd ready, which happens once.
package struct ReadinessProgress: Equatable {
    package private(set) var isListening = false
    package private(set) var hasFirstOutcome = false
    package private(set) var isReady = false

    package init(hasFirstOutcome: Bool = false) {
        self.hasFirstOutcome = hasFirstOutcome
    }

    package mutating func listening() -> Bool {
        isListening = true
        return becomeReadyIfDue()
    }

    /// A state of `status` was published: a success or a failure is the first outcome.
    package mutating func published(_ status: LoadingState.Status) -> Bool {
        switch status {
        case .success, .failure: hasFirstOutcome = true
        case .idle, .loading: break
        }
        return becomeReadyIfDue()
    }

    private mutating func becomeReadyIfDue() -> Bool {
        guard isListening, hasFirstOutcome, !isReady else { return false }
        isReady = true
        return true
    }
}
