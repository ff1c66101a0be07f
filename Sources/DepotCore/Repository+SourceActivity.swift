import DepotPlatform
import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the source's answers tell: the health record `stats` shows, and the activity observers that schedule refreshes,
/// told of every fetch by the mutation that made it.
extension Repository {
    /// How the source has answered lately: when it was last asked, when it last confirmed the items, its failures.
    public var sourceHealth: SourceHealth {
        health.withLock { $0 }
    }

    /// Adds an observer of the source's activity: called after every fetch with its outcome, and when the items are
    /// dropped or the source replaced, on the task of the mutation that did it (so it must return quickly).
    public func addActivityObserver(_ observer: @escaping @Sendable (SourceActivity) -> Void) {
        activityObservers.withLock { $0.append(observer) }
    }

    /// Asks the source for the items, or for what changed since `known` when given (`held` are the items `known`
    /// describes, to which changes are applied), and records how it went: every fetch goes through here.
    func fetchCollection(ifChangedSince known: SourceVersion?, held: ItemCollection?) async -> Result<Fetched, StateError> {
        let attempt = await attemptFetch(ifChangedSince: known, held: held)
        record(attempt)
        return attempt.fetched
    }

    /// Fetches as `fetchCollection(ifChangedSince:held:)` does, but records a failure only once `failureStands` says
    /// it does; when it says it does not (a file changed again while it was read: its next check decides), nothing is
    /// recorded and nil is returned.
    func fetchCollection(
        ifChangedSince known: SourceVersion?, held: ItemCollection?, failureStands: FailureConfirmation
    ) async -> Result<Fetched, StateError>? {
        let attempt = await attemptFetch(ifChangedSince: known, held: held)
        if case .failure(let error) = attempt.fetched, await !failureStands() {
            logger.debug("\(source.description) changed again while it was read (\(error.message)); its next check decides")
            return nil
        }
        record(attempt)
        return attempt.fetched
    }

    /// One fetch, with what the source said of its answer's lifetime or of when to ask again.
    private func attemptFetch(
        ifChangedSince known: SourceVersion?, held: ItemCollection?
    ) async -> (fetched: Result<Fetched, StateError>, lifetime: FreshnessLifetime?, retryAfter: Duration?) {
        health.withLock { $0.attempted(at: now()) }
        var lifetime: FreshnessLifetime?
        var retryAfter: Duration?
        let fetched = await fetchCollection(ifChangedSince: known, held: held, lifetime: &lifetime, retryAfter: &retryAfter)
        return (fetched, lifetime, retryAfter)
    }

    private func record(_ attempt: (fetched: Result<Fetched, StateError>, lifetime: FreshnessLifetime?, retryAfter: Duration?)) {
        switch attempt.fetched {
        case .success: recordAnswer(lifetime: attempt.lifetime)
        case .failure(let error): recordFailure(error.message, retryAfter: attempt.retryAfter)
        }
    }

    /// The source answered: the health record and the activity observers hear of it.
    private func recordAnswer(lifetime: FreshnessLifetime?) {
        let at = now()
        let ended = health.withLock { health -> (failures: Int, since: Date?) in
            defer { health.answered(at: at, lifetime: lifetime) }
            return (health.consecutiveFailures, health.failingSince)
        }
        if ended.failures > 0 {
            let since = ended.since.map { " since \(RFC3339.string(from: $0))" } ?? ""
            logger.notice("\(source.description) answers again after \(ended.failures) failed attempt\(ended.failures == 1 ? "" : "s")\(since)")
        }
        tellActivity(.answered(lifetime: lifetime))
    }

    /// The source failed (or its answer could not be used): the health record and the activity observers hear of it.
    func recordFailure(_ message: String, retryAfter: Duration?) {
        let at = now()
        health.withLock { $0.failed(at: at, message: message) }
        tellActivity(.failed(message: message, retryAfter: retryAfter))
    }

    func tellActivity(_ activity: SourceActivity) {
        for observer in activityObservers.withLock({ $0 }) {
            observer(activity)
        }
    }
}
