import DepotJSON
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
        reading { $0.health }
    }

    /// Asks the source for the items, or for what changed since `known` when given (`held` are the items `known`
    /// describes, to which changes are applied), and records how it went: every fetch goes through here.
    func fetchCollection(ifChangedSince known: SourceVersion?, held: ItemCollection?) async -> Result<Fetched, StateError> {
        let attempt = await attemptFetch(ifChangedSince: known, held: held)
        record(attempt)
        return attempt.fetched
    }

    /// Fetches as `fetchCollection(ifChangedSince:held:)` does, but records a failure only once `failureStands` says
    /// it does; when it says it does not (a file changed again while it was read: its next check decides), it counts
    /// as a fetch that did not fail, and nil is returned.
    func fetchCollection(
        ifChangedSince known: SourceVersion?, held: ItemCollection?, failureStands: FailureConfirmation
    ) async -> Result<Fetched, StateError>? {
        let attempt = await attemptFetch(ifChangedSince: known, held: held)
        if case .failure(let error) = attempt.fetched, await !failureStands() {
            logger.debug("\(source.description) changed again while it was read (\(error.message)); its next check decides")
            sourceCalls.record(\.fetches, took: attempt.elapsed, failed: false)
            return nil
        }
        record(attempt)
        return attempt.fetched
    }

    /// One fetch: what it gave, what the source said of its answer's lifetime or of when to ask again, how long it took.
    private struct FetchAttempt {
        var fetched: Result<Fetched, StateError>
        var lifetime: FreshnessLifetime?
        var retryAfter: Duration?
        var elapsed: Duration
    }

    private func attemptFetch(ifChangedSince known: SourceVersion?, held: ItemCollection?) async -> FetchAttempt {
        let at = now()
        core.withLock { $0.state.health.attempted(at: at) }
        var lifetime: FreshnessLifetime?
        var retryAfter: Duration?
        let clock = ContinuousClock()
        let start = clock.now
        let fetched = await fetchCollection(ifChangedSince: known, held: held, lifetime: &lifetime, retryAfter: &retryAfter)
        return FetchAttempt(fetched: fetched, lifetime: lifetime, retryAfter: retryAfter, elapsed: start.duration(to: clock.now))
    }

    /// A fetch failed when its answer could not be used — the source threw, or what it gave was not a collection —:
    /// one meaning for `stats`' failed fetches, the health record's failures in a row, and the log's failed attempts.
    private func record(_ attempt: FetchAttempt) {
        switch attempt.fetched {
        case .success:
            sourceCalls.record(\.fetches, took: attempt.elapsed, failed: false)
            recordAnswer(lifetime: attempt.lifetime)
        case .failure(let error):
            sourceCalls.record(\.fetches, took: attempt.elapsed, failed: true)
            recordFailure(error.message, retryAfter: attempt.retryAfter)
        }
    }

    /// The source answered: the health record and the activity observers hear of it.
    private func recordAnswer(lifetime: FreshnessLifetime?) {
        let at = now()
        let ended = core.withLock { core -> (failures: Int, since: Date?) in
            defer { core.state.health.answered(at: at, lifetime: lifetime) }
            return (core.state.health.consecutiveFailures, core.state.health.failingSince)
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
        core.withLock { $0.state.health.failed(at: at, message: message) }
        tellActivity(.failed(message: message, retryAfter: retryAfter))
    }

    /// What a fetch gave: the items checked into a collection (`changes` counts what was applied to the held ones
    /// when the source sent only those; nil for a whole listing), or word that the held ones are current.
    enum Fetched {
        case items(ItemCollection, version: SourceVersion?, changes: SourceChanges?)
        case unchanged
    }

    /// The source's answer as a collection (see `fetchCollection(ifChangedSince:held:)`, which records it), with the
    /// lifetime it stated and the pause a failure asked for.
    func fetchCollection(
        ifChangedSince known: SourceVersion?, held: ItemCollection?, lifetime: inout FreshnessLifetime?, retryAfter: inout Duration?
    ) async -> Result<Fetched, StateError> {
        let (source, idField) = reading { ($0.source, $0.idField) }
        let values: [JSONValue]
        let newVersion: SourceVersion?
        do {
            let answer = try await source.fetch(ifChangedSince: known)
            lifetime = answer.lifetime
            switch answer.listing {
            case .items(let items, let version):
                (values, newVersion) = (items, version)
            case .collection(let collection, let collectionIDField, let version) where collectionIDField == idField:
                return .success(.items(collection, version: version, changes: nil))
            case .collection(_, let collectionIDField, _):
                return .failure(
                    StateError(
                        .loadFailed,
                        message:
                            "\(source.description) read ids from \"\(collectionIDField)\", but the repository's id field is \"\(idField)\"; this is a bug in the source"
                    ))
            case .changes(let changes, let version):
                guard known != nil, let held else {
                    return .failure(
                        StateError(
                            .loadFailed,
                            message: "\(source.description) answered with changes although no version was given; this is a bug in the source"))
                }
                do {
                    return .success(.items(try held.applying(changes, idField: idField), version: version, changes: changes))
                } catch {
                    return .failure(StateError(.loadFailed, message: "\(source.description): a changed item: \(error)"))
                }
            case .unchanged where known != nil:
                return .success(.unchanged)
            case .unchanged:
                return .failure(
                    StateError(
                        .loadFailed,
                        message: "\(source.description) answered \"unchanged\" although no version was given; this is a bug in the source"
                    ))
            }
        } catch {
            retryAfter = (error as? SourceError)?.retryAfter
            return .failure(StateError(.loadFailed, message: String(describing: error)))
        }
        do {
            return .success(.items(try ItemCollection(values: values, idField: idField), version: newVersion, changes: nil))
        } catch {
            return .failure(StateError(.loadFailed, message: "\(source.description): \(error)"))
        }
    }
}
