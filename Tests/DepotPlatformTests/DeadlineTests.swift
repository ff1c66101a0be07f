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
                await withTaskCancellationHandler {
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

    @Test("progress moves the deadline: an operation longer than the limit that keeps advancing finishes")
    func progressExtends() async throws {
        let last = Locked(ContinuousClock.now)
        // Five steps of a fifth of the limit each take longer than the limit, but none goes a limit without progress.
        let limit = Duration.seconds(2)
        let value = try await withDeadline(limit, countingFrom: { last.withLock { $0 } }) {
            for _ in 0..<6 {
                try await Task.sleep(for: limit / 5)
                last.withLock { $0 = .now }
            }
            return "done"
        }
        #expect(value == "done")
    }
}
