import DepotPlatform

/// What every repository mutation ends with: the state it published last, or why it failed.
public typealias MutationResult = Result<PublishedState, RepositoryError>

/// Runs the repository's mutations one at a time: each requester's in the order it submitted them, and between
/// requesters in a fair turn (`FairQueue`: round robin over users, then over each user's connections), so one
/// client's flood cannot hold back another's call by more than a turn of each.
///
/// `submit` is synchronous, so each requester's order is fixed by its thread at the moment of arrival, not by
/// whichever task the scheduler happens to start first. The mutations run in `run`, the repository's one
/// long-lived task, which its owner keeps in the service tree (depotd runs the `Repository` as a service): shutdown
/// then knows what it waits for. `stop` ends it: nothing new is accepted, what waits for its turn is handed back to be failed,
/// and the mutation under way gets the grace `run` was given before it is cancelled.
///
/// A *joining* submission (a load, a refresh) joins the last submission instead of queueing a new one when that one
/// is also a load or refresh, `Joining` allows it (`queued`: only one that has not started), and the requester has
/// nothing queued before it: callers share one source call and one result. A load queued by another requester then
/// also waits in the joiner's lane and runs at the first of their turns. It never joins a load that other mutations
/// were submitted after. A load that joins a refresh not yet started takes it over (it runs as the load: see `Work`),
/// and never joins a refresh under way.
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

    /// What a joinable submission does, which decides what a load that joins it gets.
    enum Work: Sendable {
        /// A load: the collection is loaded, whatever the state when its turn comes.
        case load
        /// A refresh in the background, which may find nothing to do when its turn comes (nothing held: a wipe went
        /// before it) and end having loaded nothing. So a load that joins one not yet started takes it over — the job
        /// runs as the load, and the refresh's caller gets the load's result — and a load never joins one under way
        /// (it may have decided already); it queues its own.
        case refresh
    }

    /// One mutation; every lane that waits for it holds it, and it runs at the first of their turns.
    /// Touched only under the queue's lock.
    private final class Job {
        /// The mutation, when it can be joined (a load's, a refresh's): joiners are handed it.
        let joinable: Mutation<MutationResult>?
        /// Runs the mutation; returns what finishes it, which the queue calls once it has taken the job off its books
        /// (so a load that joins after the result is out is never handed this finished one), or nil when the job finishes
        /// it itself (now, or later: a write handed on to the source finishes when it answers). Replaced when a load
        /// takes over a refresh that has not started.
        var run: Run
        /// Finishes the mutation without running it, for the reason given.
        let refuse: @Sendable (String) -> Void
        let joining: Joining
        /// What it does, when it is joinable.
        var work: Work?
        var started = false
        /// Lanes holding it; when the last is withdrawn before it started, it is dropped.
        var lanes = 1

        init(
            joinable: Mutation<MutationResult>?, joining: Joining, work: Work?, run: @escaping Run,
            refuse: @escaping @Sendable (String) -> Void
        ) {
            self.joinable = joinable
            self.joining = joining
            self.work = work
            self.run = run
            self.refuse = refuse
        }

        /// Whether a submission that joins as `joining`, doing `work`, may share this job's run now.
        func mayBeJoined(as joining: Joining, doing work: Work) -> Bool {
            guard joining != .never, self.joining != .never, joinable != nil else { return false }
            guard started else { return true }
            // Under way, a refresh may have decided to load nothing: a load never shares its run.
            if work == .load && self.work == .refresh { return false }
            return joining == .queuedOrRunning && self.joining == .queuedOrRunning
        }
    }

    /// What a job runs (see `Job.run`).
    private typealias Run = @Sendable () async -> (@Sendable () -> Void)?

    private struct State {
        var jobs = FairQueue<Job>()
        /// The last submitted mutation, if it is joinable and still queued or running.
        var joinable: Job?
        /// Set by `stop`: nothing more is accepted or started.
        var stopped = false
        /// Whether `run` is running a mutation.
        var underWay = false
    }

    private let state = Locked(State())
    /// The failure a mutation ends with when it will never run, given why.
    private let refusal: @Sendable (String) -> MutationResult
    /// Wakes `run` when work arrives or `stop` is called.
    private let arrivals = Inbox<Void>()
    /// Resolved by `stop`: the mutation under way has its grace from then on.
    private let stopRequested = Eventual<Void>()

    /// `refusal` makes the failure of a mutation that will never run, from the reason given.
    init(refusal: @escaping @Sendable (String) -> MutationResult) {
        self.refusal = refusal
    }

    /// Queues `body` in `requester`'s lane, or joins the last submission as `joining` allows (a load taking over a
    /// refresh not yet started: `Work`). Once stopped, the mutation returned has already failed (`cancelled`).
    func submit(_ joining: Joining, doing work: Work = .refresh, from requester: Requester, _ body: @escaping Body) -> Mutation<MutationResult> {
        let mutation = Mutation<MutationResult>()
        let refusal = refusal
        return enqueue(
            joining, doing: joining == .never ? nil : work, from: requester, joinable: joining == .never ? nil : mutation,
            body: body, run: Self.running(body, finishing: mutation), refuse: { mutation.finish(with: refusal($0)) }
        ) ?? mutation
    }

    /// A run of `body` that finishes `mutation` with its result.
    private static func running(_ body: @escaping Body, finishing mutation: Mutation<MutationResult>) -> Run {
        {
            let result = await body()
            return { mutation.finish(with: result) }
        }
    }

    /// Queues a mutation of any result in `requester`'s lane; it joins nothing and nothing joins it. `body` finishes the
    /// mutation it is given, when it likes (a write the source answers later); `refused` makes the result of one that
    /// never runs, from the reason. Once stopped, the mutation returned has already failed so.
    func submit<Value: Sendable>(
        from requester: Requester, refused: @escaping @Sendable (String) -> Value, _ body: @escaping @Sendable (Mutation<Value>) async -> Void
    ) -> Mutation<Value> {
        let mutation = Mutation<Value>()
        _ = enqueue(
            .never, doing: nil, from: requester, joinable: nil, body: nil,
            run: {
                await body(mutation)
                return nil
            }, refuse: { mutation.finish(with: refused($0)) })
        return mutation
    }

    /// Queues a job, or joins the last one; returns the mutation joined, if one was. `body` is what a joinable
    /// submission runs, for a load to take over a refresh with.
    private func enqueue(
        _ joining: Joining, doing work: Work?, from requester: Requester, joinable: Mutation<MutationResult>?, body: Body?,
        run: @escaping Run, refuse: @escaping @Sendable (String) -> Void
    ) -> Mutation<MutationResult>? {
        let accepted = state.withLock { state -> (joined: Mutation<MutationResult>?, accepted: Bool) in
            guard !state.stopped else { return (nil, false) }
            if let work, let last = state.joinable, last.mayBeJoined(as: joining, doing: work), let shared = last.joinable {
                let lane = state.jobs.queued(from: requester)
                if lane.isEmpty || lane.last === last {
                    if work == .load, last.work == .refresh, let body {
                        // Not started (`mayBeJoined`): it runs as this load, and its callers get the load's result.
                        last.run = Self.running(body, finishing: shared)
                        last.work = .load
                    }
                    // Nothing of this requester's comes before it: wait for it in this lane too, if it has not started.
                    if lane.isEmpty && !last.started {
                        last.lanes += 1
                        state.jobs.append(last, from: requester)
                    }
                    return (shared, true)
                }
            }
            let job = Job(joinable: joinable, joining: joining, work: work, run: run, refuse: refuse)
            state.jobs.append(job, from: requester)
            state.joinable = joining != .never ? job : nil
            return (nil, true)
        }
        guard accepted.accepted else {
            refuse(Self.stoppedReason)
            return nil
        }
        arrivals.post(())
        return accepted.joined
    }

    /// Why a mutation submitted or waiting at shutdown never runs.
    static let stoppedReason = "not run: depotd is stopping"

    /// Drops what `requester` queued and did not start, unless another requester waits for it too: each ends unrun,
    /// for `reason`. Returns how many were dropped.
    func withdraw(_ requester: Requester, reason: String) -> Int {
        let dropped = state.withLock { state in
            var dropped: [Job] = []
            for job in state.jobs.removeAll(from: requester) where !job.started {
                job.lanes -= 1
                guard job.lanes == 0 else { continue }
                dropped.append(job)
                if state.joinable === job {
                    state.joinable = nil
                }
            }
            return dropped
        }
        for job in dropped { job.refuse(reason) }
        return dropped.count
    }

    /// Whether `requester` has mutations waiting for their turn.
    func hasQueued(from requester: Requester) -> Bool {
        state.withLock { !$0.jobs.queued(from: requester).isEmpty }
    }

    /// Whether a mutation is under way or waiting for its turn.
    var isBusy: Bool {
        state.withLock { state in state.underWay || !state.jobs.isEmpty }
    }

    /// Mutations waiting for their turn, by user (nil: the daemon's own); for stats.
    var queuedByUser: [UInt32?: Int] {
        state.withLock { $0.jobs.countByUser }
    }

    /// Runs the mutations in their turns until `stop` is called or the task is cancelled. After `stop`, the
    /// mutation under way has `grace` on `clock` to finish, then it is cancelled (a source call ends at once: every one
    /// runs under `withDeadline`, which honours cancellation) and `run` returns; cancelling the task cancels it at once.
    /// `graceOver` is told when a mutation is cancelled so.
    func run<C: Clock>(grace: Duration, on clock: C, graceOver: @escaping @Sendable () -> Void = {}) async where C.Duration == Duration {
        // However it ends, nothing waits for a turn that will not come.
        defer { stop() }
        while !Task.isCancelled {
            guard let (job, run) = nextJob() else {
                if state.withLock(\.stopped) { return }
                await arrivals.wait(until: nil, on: clock)
                _ = arrivals.take()
                continue
            }
            let finish = await perform(run, grace: grace, on: clock, graceOver: graceOver)
            state.withLock { state in
                state.underWay = false
                if state.joinable === job {
                    state.joinable = nil
                }
            }
            finish?()
        }
    }

    /// Stops accepting mutations, fails those that waited for their turn (`cancelled`), and tells `run` to end after
    /// the one under way, within its grace. Calling it again does nothing.
    func stop() {
        let dropped = state.withLock { state -> [Job] in
            guard !state.stopped else { return [] }
            state.stopped = true
            state.joinable = nil
            var dropped: [Job] = []
            while let job = state.jobs.popFirst() {
                guard !job.started else { continue }
                job.started = true  // Held in several lanes, it is failed once.
                dropped.append(job)
            }
            return dropped
        }
        stopRequested.resolve(())
        arrivals.post(())
        for job in dropped {
            job.refuse(Self.stoppedReason)
        }
    }

    /// Resolved once `stop` is called: work that outlives a turn (a write handed on to the source) has its grace from then.
    var stopping: Eventual<Void> { stopRequested }

    /// Runs `body` and returns what it returns; once `stop` has been called and `grace` has passed, cancels it (it ends
    /// its work, saying so).
    func perform<C: Clock, Value: Sendable>(
        _ body: @escaping @Sendable () async -> Value, grace: Duration, on clock: C, graceOver: @Sendable () -> Void
    ) async -> Value where C.Duration == Duration {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask { await body() }
            group.addTask { [stopRequested] in
                do {
                    try await stopRequested.value
                    try await clock.sleep(for: grace)
                } catch {
                    // The mutation finished first (this child was cancelled): nothing to do.
                }
                return nil
            }
            var outcome: Value?
            while outcome == nil, let next = await group.next() {
                if let value = next {
                    outcome = value
                } else {
                    graceOver()
                    group.cancelAll()  // The grace is over: the mutation is cancelled and says how it ended.
                }
            }
            group.cancelAll()
            // Cannot be nil: the body's child always returns, and the loop waits for it.
            // swift-format-ignore: NeverForceUnwrap
            return outcome!
        }
    }

    /// The next job in turn, marked started, and what it runs (read under the lock: a load may have taken it over);
    /// a job already started from another lane is passed over. Nil when none waits or the queue is stopped.
    private func nextJob() -> (Job, Run)? {
        state.withLock { state in
            guard !state.stopped else { return nil }
            while let job = state.jobs.popFirst() {
                guard !job.started else { continue }
                job.started = true
                state.underWay = true
                return (job, job.run)
            }
            return nil
        }
    }
}
