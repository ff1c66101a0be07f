import DequeModule
import Synchronization

/// What every repository mutation ends with: the state it published last, or why it failed.
public typealias MutationResult = Result<PublishedState, RepositoryError>

/// Runs the repository's mutations one at a time, in the order they were submitted.
///
/// `submit` is synchronous, so the order is fixed by the caller's thread at the moment of arrival, not by
/// whichever task the scheduler happens to start first. A drain task is started when work arrives and ends
/// when the queue is empty, so an idle repository holds no task.
///
/// A *joinable* submission (a load) joins the last submission instead of queueing a new one when that one is
/// also joinable and has not finished: callers share one source call and one result. It never joins a load
/// that other mutations were queued behind, so every caller's result reflects everything submitted before it.
final class MutationQueue: Sendable {
    typealias Body = @Sendable () async -> MutationResult

    private struct Job {
        let mutation: Mutation<MutationResult>
        let body: Body
    }

    private struct State {
        var jobs: Deque<Job> = []
        var isDraining = false
        /// The last submitted mutation, if it is joinable and still queued or running.
        var joinable: Mutation<MutationResult>?
    }

    private let state = Mutex(State())

    /// Queues `body`, or joins the last submission when both are joinable.
    func submit(joinable: Bool, _ body: @escaping Body) -> Mutation<MutationResult> {
        let (mutation, startDraining) = state.withLock { state -> (Mutation<MutationResult>, Bool) in
            if joinable, let running = state.joinable {
                return (running, false)
            }
            let mutation = Mutation<MutationResult>()
            state.jobs.append(Job(mutation: mutation, body: body))
            state.joinable = joinable ? mutation : nil
            let startDraining = !state.isDraining
            state.isDraining = true
            return (mutation, startDraining)
        }
        if startDraining {
            Task { await self.drain() }
        }
        return mutation
    }

    private func drain() async {
        while let job = nextJob() {
            let result = await job.body()
            state.withLock { state in
                if state.joinable === job.mutation {
                    state.joinable = nil
                }
            }
            job.mutation.finish(with: result)
        }
    }

    private func nextJob() -> Job? {
        state.withLock { state in
            guard let job = state.jobs.popFirst() else {
                state.isDraining = false
                return nil
            }
            return job
        }
    }
}
