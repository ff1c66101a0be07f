import DepotPlatform

/// What every repository mutation ends with: the state it published last, or why it failed.
public typealias MutationResult = Result<PublishedState, RepositoryError>

/// Runs the repository's mutations one at a time: each requester's in the order it submitted them, and between
/// requesters in a fair turn (`FairQueue`: round robin over users, then over each user's connections), so one
/// client's flood cannot hold back another's call by more than a turn of each.
///
/// `submit` is synchronous, so each requester's order is fixed by its thread at the moment of arrival, not by
/// whichever task the scheduler happens to start first. A drain task is started when work arrives and ends
/// when the queue is empty, so an idle repository holds no task.
///
/// A *joining* submission (a load, a refresh) joins the last submission instead of queueing a new one when that one
/// is also a load or refresh, `Joining` allows it (`queued`: only one that has not started), and the requester has
/// nothing queued before it: callers share one source call and one result. A load queued by another requester then
/// also waits in the joiner's lane and runs at the first of their turns. It never joins a load that other mutations
/// were submitted after.
///
/// `withdraw` drops what a requester queued and did not start (its connection closed): a mutation another
/// requester joined stays.
final class MutationQueue: Sendable {
    typealias Body = @Sendable () async -> MutationResult

    /// Whether a submission may share the run of the one before it instead of queueing its own.
    enum Joining: Sendable {
        /// Never: it runs on its own, and nothing joins it (a removal, a wipe, a load after a known change).
        case never
        /// A load or a scheduled refresh: it joins the last submission if that is one too and has not finished, queued
        /// or under way, and is joined likewise.
        case queuedOrRunning
        /// A refresh for a change seen just now: it joins the last submission only while that has not started, and is
        /// joined only while it has not (a run under way may have read the source before the change, or before a
        /// later one the joiner wants to see); else it queues, and later ones join it. So at most one runs and one
        /// waits.
        case queued
    }

    /// One mutation; every lane that waits for it holds it, and it runs at the first of their turns.
    /// Touched only under the queue's lock.
    private final class Job {
        let mutation: Mutation<MutationResult>
        let body: Body
        let joining: Joining
        var started = false
        /// Lanes holding it; when the last is withdrawn before it started, it is dropped.
        var lanes = 1

        init(mutation: Mutation<MutationResult>, body: @escaping Body, joining: Joining) {
            self.mutation = mutation
            self.body = body
            self.joining = joining
        }

        /// Whether a submission that joins as `joining` may share this job's run now.
        func mayBeJoined(as joining: Joining) -> Bool {
            guard joining != .never, self.joining != .never else { return false }
            return !started || (joining == .queuedOrRunning && self.joining == .queuedOrRunning)
        }
    }

    private struct State {
        var jobs = FairQueue<Job>()
        var isDraining = false
        /// The last submitted mutation, if it is joinable and still queued or running.
        var joinable: Job?
    }

    private let state = Locked(State())

    /// Queues `body` in `requester`'s lane, or joins the last submission as `joining` allows.
    func submit(_ joining: Joining, from requester: Requester, _ body: @escaping Body) -> Mutation<MutationResult> {
        let (mutation, startDraining) = state.withLock { state -> (Mutation<MutationResult>, Bool) in
            if let last = state.joinable, last.mayBeJoined(as: joining) {
                let lane = state.jobs.queued(from: requester)
                if lane.isEmpty {
                    // Nothing of this requester's comes before it: wait for it in this lane too, if it has not started.
                    if !last.started {
                        last.lanes += 1
                        state.jobs.append(last, from: requester)
                    }
                    return (last.mutation, false)
                }
                if lane.last === last {
                    return (last.mutation, false)
                }
            }
            let job = Job(mutation: Mutation<MutationResult>(), body: body, joining: joining)
            state.jobs.append(job, from: requester)
            state.joinable = joining != .never ? job : nil
            let startDraining = !state.isDraining
            state.isDraining = true
            return (job.mutation, startDraining)
        }
        if startDraining {
            Task { await self.drain() }
        }
        return mutation
    }

    /// Drops what `requester` queued and did not start, unless another requester waits for it too; returns the
    /// dropped mutations, for the caller to finish.
    func withdraw(_ requester: Requester) -> [Mutation<MutationResult>] {
        state.withLock { state in
            var dropped: [Mutation<MutationResult>] = []
            for job in state.jobs.removeAll(from: requester) where !job.started {
                job.lanes -= 1
                guard job.lanes == 0 else { continue }
                dropped.append(job.mutation)
                if state.joinable === job {
                    state.joinable = nil
                }
            }
            return dropped
        }
    }

    /// Whether `requester` has mutations waiting for their turn.
    func hasQueued(from requester: Requester) -> Bool {
        state.withLock { !$0.jobs.queued(from: requester).isEmpty }
    }

    /// Mutations waiting for their turn, by user (nil: the daemon's own); for stats.
    var queuedByUser: [UInt32?: Int] {
        state.withLock { $0.jobs.countByUser }
    }

    private func drain() async {
        while let (mutation, body) = nextJob() {
            let result = await body()
            state.withLock { state in
                if state.joinable?.mutation === mutation {
                    state.joinable = nil
                }
            }
            mutation.finish(with: result)
        }
    }

    /// The next job in turn, marked started; a job already started from another lane is passed over.
    private func nextJob() -> (Mutation<MutationResult>, Body)? {
        state.withLock { state in
            while let job = state.jobs.popFirst() {
                guard !job.started else { continue }
                job.started = true
                return (job.mutation, job.body)
            }
            state.isDraining = false
            return nil
        }
    }
}
