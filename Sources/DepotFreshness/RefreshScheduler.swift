package import DepotCore
import DepotPlatform
package import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Refreshes the repository's source on the schedule `RefreshSchedule` keeps: hears of every fetch (a refresh's, a
/// `load`'s, a removal's relist) and every reset from the repository, of subscribers from the server and of new
/// settings from a reload, holds one timer, and calls `Repository.refresh(.schedule)` when it fires — which joins any
/// load already under way, so a refresh never doubles a source call.
///
/// Time comes from `clock` and randomness from `draw`, so tests drive it with a clock of their own.
package final class RefreshScheduler<C: Clock>: Service where C.Duration == Duration {
    private enum Event: Sendable {
        case activity(SourceActivity)
        case subscribers(Int)
        case policy(RefreshPolicy)
        case refreshFinished(idle: Bool)
    }

    private let repository: Repository
    private let clock: C
    private let draw: @Sendable () -> Double
    private let logger: Logger
    private let inbox = Inbox<Event>()
    /// The schedule, read for `status` while the loop changes it.
    private let schedule: Locked<RefreshSchedule<C.Instant>>
    /// Told of the status after every change the loop handles: a seam for whoever follows the schedule as it changes
    /// (the suite waits on it rather than on time); depotd gives none, and then no status is made.
    private let onChange: (@Sendable (FreshnessStatus) -> Void)?

    /// - Parameter draw: a random number in 0..<1 for each delay's jitter.
    package init(
        repository: Repository, policy: RefreshPolicy, clock: C, logger: Logger,
        draw: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        onChange: (@Sendable (FreshnessStatus) -> Void)? = nil
    ) {
        self.onChange = onChange
        self.repository = repository
        self.clock = clock
        self.draw = draw
        self.logger = logger
        self.schedule = Locked(RefreshSchedule(policy: policy))
        repository.addActivityObserver { [inbox] activity in inbox.post(.activity(activity)) }
    }

    /// The number of subscriptions changed (for `--refresh-when subscribed`).
    package func subscribersChanged(to count: Int) {
        inbox.post(.subscribers(count))
    }

    /// New settings (a reload).
    package func update(_ policy: RefreshPolicy) {
        inbox.post(.policy(policy))
    }

    /// The interval in force, what set it, and when the next refresh is due, as `stats` shows them.
    package var status: FreshnessStatus {
        let (schedule, now) = (schedule.withLock { $0 }, clock.now)
        let interval = schedule.interval
        return FreshnessStatus(
            interval: interval.duration, intervalFrom: interval.from,
            nextRefreshAt: schedule.nextRefresh.map { Date().addingTimeInterval(now.duration(to: $0).secondsValue) },
            retrying: schedule.failures > 0, paused: schedule.isPaused && schedule.due != nil)
    }

    package func run() async throws {
        logInterval(schedule.withLock { $0.interval })
        await cancelWhenGracefulShutdown {
            var deadline: C.Instant?
            while !Task.isCancelled {
                await self.inbox.wait(until: deadline, on: self.clock)
                guard !Task.isCancelled else { return }
                deadline = self.handle(self.inbox.take(), timerDue: deadline)
                self.onChange?(self.status)
            }
        }
    }

    /// Tells the schedule what happened, carries out what it says, and returns the instant the timer holds next.
    private func handle(_ events: [Event], timerDue deadline: C.Instant?) -> C.Instant? {
        let now = clock.now
        var refreshNow = false
        let (before, after, next) = schedule.withLock { schedule -> ((Duration?, String), (Duration?, String), C.Instant?) in
            let before = schedule.interval
            var actions: [RefreshSchedule<C.Instant>.Action] = []
            for event in events {
                switch event {
                case .activity(.answered(let lifetime)): actions.append(schedule.answered(at: now, lifetime: lifetime, draw: draw()))
                case .activity(.failed(_, let retryAfter)): actions.append(schedule.failed(at: now, retryAfter: retryAfter, draw: draw()))
                case .activity(.reset): actions.append(schedule.reset())
                case .subscribers(let count): actions.append(schedule.subscribersChanged(to: count, at: now))
                case .policy(let policy): actions.append(schedule.policyChanged(to: policy, at: now))
                case .refreshFinished(let idle): actions.append(schedule.refreshFinished(at: now, idle: idle, draw: draw()))
                }
            }
            if let deadline, deadline <= now {
                actions.append(schedule.timerFired(at: now))
            }
            refreshNow = actions.contains(.refresh)
            return (before, schedule.interval, schedule.nextRefresh)
        }
        if before != after {
            logInterval(after)
        }
        if let next, next != deadline {
            let retry = schedule.withLock { $0.failures > 0 }
            logger.debug("next \(retry ? "retry" : "refresh") of \(repository.source.description) in \(now.duration(to: next).text)")
        }
        if refreshNow {
            logger.debug("refreshing \(repository.source.description) in the background")
            repository.refresh(.schedule).whenFinished { [inbox] result in
                let left: PublishedState
                switch result {
                case .success(let published): left = published
                case .failure(let error): left = error.state
                }
                inbox.post(.refreshFinished(idle: left.state.status == .idle))
            }
        }
        return next
    }

    private func logInterval(_ interval: (duration: Duration?, from: String)) {
        if let duration = interval.duration {
            logger.info("refreshing \(repository.source.description) \(duration.text) after each answer (\(interval.from))")
        } else if interval.from != "not yet known" {
            logger.info("no refresh of \(repository.source.description) on a timer (\(interval.from))")
        }
    }
}
