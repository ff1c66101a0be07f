import DepotPlatform
import DepotTestSupport
import Testing

@testable import DepotCore

/// The queue's one task: mutations run only while `run` does, and `stop` ends it as a graceful shutdown does — what
/// waits fails at once, the mutation under way has its grace on the clock, then is cancelled.
@Suite("MutationQueue: run, stop and the grace of the mutation under way")
struct MutationQueueRunTests {
    static let idle = PublishedState(seq: 0, state: .idle)

    static func queue() -> MutationQueue {
        MutationQueue { reason in .failure(RepositoryError(.cancelled, message: reason, state: idle)) }
    }

    /// A result that says which mutation made it.
    static func done(_ seq: Int) -> MutationResult {
        .success(PublishedState(seq: seq, state: .idle))
    }

    /// A body that waits until the test opens `gate`, or until it is cancelled (then it says so).
    static func held(by gate: Condition<Bool>, started: Condition<Bool>? = nil, seq: Int) -> MutationQueue.Body {
        {
            started?.update { $0 = true }
            _ = await withTaskCancellationHandler {
                await gate.wait { $0 }
            } onCancel: {
                gate.update { $0 = true }
            }
            return Task.isCancelled
                ? .failure(RepositoryError(.cancelled, message: "cancelled under way", state: idle))
                : done(seq)
        }
    }

    static func message(_ result: MutationResult?) -> String? {
        guard case .failure(let error) = result else { return nil }
        return error.message
    }

    /// A queue running on a manual clock with a 5 s grace, in a task of the test's.
    struct Running {
        let queue = MutationQueueRunTests.queue()
        let clock = ManualClock()
        let returned = Condition(false)
        /// Opens the mutation `holdOne` submits; cancelling it opens it too.
        let gate = Condition(false)
        let started = Condition(false)

        init() {
            let (queue, clock, returned) = (queue, clock, returned)
            Task {
                await queue.run(grace: .seconds(5), on: clock)
                returned.update { $0 = true }
            }
        }

        /// Submits a mutation that waits for `gate` and waits until it is under way.
        func holdOne() async throws -> Mutation<MutationResult> {
            let mutation = queue.submit(.never, from: .daemon, MutationQueueRunTests.held(by: gate, started: started, seq: 1))
            try await withTimeout(.seconds(30), "the mutation to start") { await started.wait { $0 } }
            return mutation
        }

        /// Stops the queue and waits until the grace of the mutation under way is counting.
        func stopAndAwaitGrace() async throws {
            queue.stop()
            try await withTimeout(.seconds(30), "the grace to start") { await clock.sleepers.wait { $0.contains(ManualClock.at(.seconds(5))) } }
        }

        func awaitReturn() async throws {
            try await withTimeout(.seconds(30), "run to return") { await returned.wait { $0 } }
        }
    }

    @Test("nothing runs until run does; then each in its turn")
    func runsOnlyWhileRunning() async throws {
        let queue = Self.queue()
        let first = queue.submit(.never, from: .daemon) { Self.done(1) }
        let second = queue.submit(.never, from: .daemon) { Self.done(2) }
        #expect(first.finishedResult == nil && second.finishedResult == nil, "submitted, not run")
        let runner = Task { await queue.run(grace: .seconds(5), on: ManualClock()) }
        #expect(try await withTimeout { await second.result }.get().seq == 2)
        #expect(first.finishedResult.map { try? $0.get().seq } == 1)
        queue.stop()
        try await withTimeout(.seconds(30), "run to return") { await runner.value }
    }

    @Test("stop fails what waits for its turn and anything submitted after; the mutation under way finishes within its grace")
    func stopWithinGrace() async throws {
        let running = Running()
        let underWay = try await running.holdOne()
        let waiting = running.queue.submit(.never, from: Requester(user: 1000, connection: 7)) { Self.done(2) }
        try await running.stopAndAwaitGrace()
        #expect(Self.message(waiting.finishedResult) == MutationQueue.stoppedReason, "failed at once, never run")
        let late = running.queue.submit(.never, from: .daemon) { Self.done(3) }
        #expect(Self.message(late.finishedResult) == MutationQueue.stoppedReason)
        running.gate.update { $0 = true }
        #expect(try await withTimeout { await underWay.result }.get().seq == 1, "it finished its work within the grace")
        try await running.awaitReturn()
    }

    @Test("past its grace, the mutation under way is cancelled and run returns")
    func cancelledAfterGrace() async throws {
        let running = Running()
        let underWay = try await running.holdOne()
        try await running.stopAndAwaitGrace()
        running.clock.advance(by: .seconds(4))
        #expect(underWay.finishedResult == nil, "still within its grace")
        running.clock.advance(by: .seconds(1))
        #expect(Self.message(try await withTimeout { await underWay.result }) == "cancelled under way")
        try await running.awaitReturn()
    }

    @Test("cancelling run cancels the mutation under way at once and fails the rest")
    func cancelledRun() async throws {
        let queue = Self.queue()
        let gate = Condition(false)
        let started = Condition(false)
        let underWay = queue.submit(.never, from: .daemon, Self.held(by: gate, started: started, seq: 1))
        let waiting = queue.submit(.never, from: .daemon) { Self.done(2) }
        let runner = Task { await queue.run(grace: .seconds(3600), on: ManualClock()) }
        try await withTimeout(.seconds(30), "the mutation to start") { await started.wait { $0 } }
        runner.cancel()
        #expect(Self.message(try await withTimeout { await underWay.result }) == "cancelled under way")
        try await withTimeout(.seconds(30), "run to return") { await runner.value }
        #expect(Self.message(waiting.finishedResult) == MutationQueue.stoppedReason)
        #expect(Self.message(queue.submit(.never, from: .daemon) { Self.done(3) }.finishedResult) == MutationQueue.stoppedReason)
    }
}
