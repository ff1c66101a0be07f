/// Thrown by `withDeadline` when the operation has not finished in time.
public struct DeadlineExceeded: Error, Sendable, CustomStringConvertible {
    public let limit: Duration
    public var description: String { "no answer within \(limit)" }
}

/// Runs `operation`, failing with `DeadlineExceeded` when it has not finished within `limit` — counted from the last
/// time it made progress, when `lastProgress` says (a long answer that keeps coming is not taken for a dead peer) —
/// and with `CancellationError` as soon as the caller is cancelled. Either way the operation is cancelled.
///
/// The operation runs in an unstructured Task (`leavable`, the one place product code makes one), on purpose: an operation that ignores
/// cancellation (a continuation nobody resumes, a query postgres-nio dropped as its connection closed) would, as a
/// child task, hold its caller until it finished, however long that takes — the mutation queue with it. Left
/// behind, cancelled, it holds only its closure. The caller waits in a task group of its own: for the operation's
/// outcome, or the deadline, or its cancellation, whichever comes first.
public func withDeadline<Value: Sendable>(
    _ limit: Duration,
    countingFrom lastProgress: (@Sendable () -> ContinuousClock.Instant)? = nil,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withDeadline(limit, countingFrom: lastProgress, on: ContinuousClock(), operation)
}

/// `withDeadline` on `clock` (a test's clock, which the test moves; a `SourceLoop`'s, whose sleeps are timers of its
/// loop), with the operation's task preferring `executor` (a caller on the `SourceLoop` names it, so the operation runs
/// there too: an unstructured task inherits no preference).
public func withDeadline<Value: Sendable, C: Clock>(
    _ limit: Duration,
    countingFrom lastProgress: (@Sendable () -> C.Instant)? = nil,
    on clock: C,
    preferring executor: (any TaskExecutor)? = nil,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value where C.Duration == Duration {
    let (outcome, work) = leavable(preferring: executor, operation)
    defer { work.cancel() }
    let start = clock.now
    return try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask { try await outcome.value.get() }
        group.addTask {
            var deadline = max(start, lastProgress?() ?? start).advanced(by: limit)
            while true {
                try await clock.sleep(until: deadline, tolerance: nil)
                guard let next = lastProgress.map({ $0().advanced(by: limit) }), next > deadline else { break }
                deadline = next  // It advanced meanwhile: wait on from its last progress.
            }
            throw DeadlineExceeded(limit: limit)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}

/// Starts `operation` in an unstructured task — the one kind in depotd's product code, and only here — whose outcome
/// `outcome` receives: a caller may stop waiting for it and leave it behind, cancelled (see `withDeadline`). An
/// unstructured task does not inherit its creator's executor preference: `executor` gives it one.
private func leavable<Value: Sendable>(
    preferring executor: (any TaskExecutor)? = nil, _ operation: @escaping @Sendable () async throws -> Value
) -> (outcome: Eventual<Result<Value, any Error>>, work: Task<Void, Never>) {
    let outcome = Eventual<Result<Value, any Error>>()
    let work = Task(executorPreference: executor) {
        do {
            outcome.resolve(.success(try await operation()))
        } catch {
            outcome.resolve(.failure(error))
        }
    }
    return (outcome, work)
}
