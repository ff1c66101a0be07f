import DepotPlatform
import DepotTestSupport
import Testing

@Suite("withDeadline: the answer, the deadline, or the caller's cancellation, whichever comes first")
struct DeadlineTests {
    @Test("an answer in time is returned, and an error thrown in time is rethrown")
    func answerInTime() async throws {
        #expect(try await withDeadline(.seconds(60)) { 42 } == 42)
        await #expect(throws: CancellationError.self) {
            try await withDeadline(.seconds(60)) { throw CancellationError() }
        }
    }

    @Test("an operation that never finishes, and ignores cancellation, fails at the deadline and is cancelled")
    func neverFinishes() async throws {
        let cancelled = Condition(false)
        let never = Locked<CheckedContinuation<Void, Never>?>(nil)
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(.milliseconds(100)) {
                await withTaskCancellationHandler {
                    // Nobody resumes it: a wait that ignores cancellation.
                    await withCheckedContinuation { continuation in never.withLock { $0 = continuation } }
                } onCancel: {
                    cancelled.update { $0 = true }
                }
            }
        }
        try await withTimeout(.seconds(30), "the operation to be cancelled") { await cancelled.wait { $0 } }
        never.withLock { $0?.resume() }
    }

    @Test("the caller cancelled: CancellationError at once, though the deadline is far, and the operation is cancelled")
    func callerCancelled() async throws {
        let started = Condition(false)
        let cancelled = Condition(false)
        let caller = Task {
            try await withDeadline(.seconds(3600)) {
                started.update { $0 = true }
                _ = await withTaskCancellationHandler {
                    await cancelled.wait { $0 }
                } onCancel: {
                    cancelled.update { $0 = true }
                }
            }
        }
        try await withTimeout(.seconds(30), "the operation to start") { await started.wait { $0 } }
        caller.cancel()
        let result = await caller.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(cancelled.value)
    }

    @Test("progress moves the deadline: an operation that keeps advancing outlives the limit; one that stops, fails")
    func progressExtends() async throws {
        let clock = ManualClock()
        let last = Locked(clock.now)
        let finish = Condition(false)
        let limit = Duration.seconds(2)
        let running = Task {
            try await withDeadline(limit, countingFrom: { last.withLock { $0 } }, on: clock) {
                await finish.wait { $0 }
                return "done"
            }
        }
        // Three times: a second and a half passes, then the answer advances — 4.5 s in all, never 2 without progress.
        for _ in 0..<3 {
            try await withTimeout(.seconds(30), "the deadline to wait") { await clock.sleepers.wait { !$0.isEmpty } }
            clock.advance(by: .milliseconds(1500))
            last.withLock { $0 = clock.now }
        }
        finish.update { $0 = true }
        #expect(try await running.value == "done")

        let stalled = Task {
            try await withDeadline(limit, countingFrom: { last.withLock { $0 } }, on: clock) {
                try await Task.sleep(for: .seconds(3600))
                return "never"
            }
        }
        try await withTimeout(.seconds(30), "the deadline to wait") { await clock.sleepers.wait { !$0.isEmpty } }
        clock.advance(by: limit)
        await #expect(throws: DeadlineExceeded.self) { try await stalled.value }
    }
}
