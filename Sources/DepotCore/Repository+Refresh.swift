import DepotPlatform
import Logging

/// Refreshing in the background: the source asked again as a load asks it, with only what a subscriber can see
/// change published, and one load at a time with the loads around it.
extension Repository {
    /// Why a background refresh runs; each joins the loads around it in its own way (see `refresh`).
    public enum RefreshTrigger: Sendable, Equatable {
        /// The refresh timer: the interval ran out, or a retry after a failure is due.
        case schedule
        /// The watched file changed: written and closed, replaced, or created again.
        case fileChanged
        /// The watched file is gone (`reason` says so, in words for a user): the source is not asked.
        case fileDeleted(reason: String)
        /// The source refused a write as a conflict: it holds another version than depotd shows, so depotd's copy is
        /// behind (another writer), and is read again — a client retrying reads what it must build on.
        case writeConflict
    }

    /// Asked when a refresh after a file change failed, before the failure is recorded or shown: waits until the
    /// file has been left alone a moment and says whether the failure stands (true) or the file changed again (false:
    /// a writer truncated it just as it was read, and its next check reads it whole).
    public typealias FailureConfirmation = @Sendable () async -> Bool

    /// A refresh in the background: asks the source whether the items changed, as a load does, and publishes only
    /// what a subscriber can see change — never `loading`:
    /// - changed items: one success state (delta-mode subscribers get a delta);
    /// - the same items (the source says unchanged, the same bytes, or equal items): nothing, unless they were
    ///   marked stale — then one state with `stale` false;
    /// - a failure: the items held, marked stale with the reason, once; nothing more while it keeps failing. With no
    ///   items held (a failure state) nothing is published, and the first success publishes the items.
    /// With nothing held at all (idle: never loaded, or wiped) it does nothing: a wipe stays until someone loads.
    ///
    /// One load at a time: a scheduled refresh joins a load or refresh queued or under way. A file's change joins a
    /// load or refresh only while it has not started (one under way may have read the file before the change), else it
    /// queues one, which later changes join while it waits. A `load` takes over a refresh that has not started (it runs
    /// as the load, and the refresh's caller gets the load's result) and queues after one under way: a refresh may end
    /// having loaded nothing (a wipe went before it), and a client that wrote the file and then loads reads its write.
    ///
    /// `failureStands`, for a file's change, is asked before a failure is recorded or shown; a failure it withdraws
    /// leaves everything as it was.
    @discardableResult
    public func refresh(_ trigger: RefreshTrigger, failureStands: FailureConfirmation? = nil) -> Mutation<MutationResult> {
        let joining: MutationQueue.Joining =
            switch trigger {
            case .schedule: .queuedOrRunning
            case .fileChanged, .writeConflict: .queued
            case .fileDeleted: .never
            }
        return queue.submit(joining, doing: .refresh, from: .daemon) { [self] in
            await exclusively { await performRefresh(trigger, failureStands: failureStands) }
        }
    }

    private func performRefresh(_ trigger: RefreshTrigger, failureStands: FailureConfirmation?) async -> MutationResult {
        let held = current
        guard held.state.status != .idle else { return .success(held) }
        let (items, known) = reading { ($0.confirmed?.items, $0.confirmed?.version) }
        let stale = reading { $0.confirmed?.provenance.stale } ?? false
        let outcome: Result<Fetched, StateError>
        if case .fileDeleted(let reason) = trigger {
            // A look at the source that found it gone: a failed fetch, as stats and the log count them.
            sourceCalls.record(\.fetches, took: nil, failed: true)
            recordFailure(reason, retryAfter: nil)
            outcome = .failure(StateError(.loadFailed, message: reason))
        } else {
            // A failure stands unless a file's change says otherwise.
            guard let fetched = await fetchCollection(ifChangedSince: known, held: items, failureStands: failureStands ?? { true }) else {
                return .success(held)
            }
            outcome = fetched
        }
        switch outcome {
        case .success(.items(let newItems, let newVersion, let changes)):
            if let items, !stale, newItems == items {
                transition { state, _ in (state.keepVersion(newVersion), []) }
                logger.debug("refreshed \(source.description): the same \(items.count) items", metadata: ["seq": "\(held.seq)"])
                return .success(held)
            }
            return await publishFetched(newItems, version: newVersion, changes: changes)
        case .success(.unchanged):
            guard let items, stale else {
                logger.debug("refreshed \(source.description): unchanged", metadata: ["seq": "\(held.seq)"])
                return .success(held)
            }
            let published = await publishConfirmed()
            logger.info(
                "\(source.description) is reachable again and unchanged; \(items.count) items no longer stale", metadata: ["seq": "\(published.seq)"])
            return .success(published)
        case .failure(let error):
            let published = publishStale(because: error.message)
            if published == nil {
                // The journal hears of a run of failures once, when it starts (publishStale said it when it published).
                if reading({ $0.health.consecutiveFailures }) == 1 {
                    logger.warning("refreshing \(source.description) failed: \(error.message); trying again in the background")
                } else {
                    logger.debug("refreshing \(source.description) failed again: \(error.message)")
                }
            }
            return .failure(RepositoryError(error, state: published ?? current))
        }
    }
}
