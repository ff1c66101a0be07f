/// Thrown by `withDeadline` when the operation has not finished in time.
public struct DeadlineExceeded: Error, Sendable, CustomStringConvertible {
    public let limit: Duration
    public var description: String { "no answer within \(limit)" }
}

/// Runs `operation`, failing with `DeadlineExceeded` when it has not finished within `limit`.
///
/// On time-out the operation is cancelled but not awaited: a wait that ignores cancellation (a continuation,
/// a call on a connection that stopped answering) would otherwise make the deadline itself hang.
public func withDeadline<Value: Sendable>(
    _ limit: Duration,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let race = DeadlineRace<Value>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            race.add(
                Task {
                    do {
                        race.finish(.success(try await operation()))
                    } catch {
                        race.finish(.failure(error))
                    }
                })
            race.add(
                Task {
                    try? await Task.sleep(for: limit)
                    race.finish(.failure(DeadlineExceeded(limit: limit)))
                })
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The first of the operation, the timer and cancellation to finish resumes the caller; the rest are cancelled.
private final class DeadlineRace<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        /// A result that came before the continuation was stored (cancellation can).
        var early: Result<Value, any Error>?
        var finished = false
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Locked(State())

    func start(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func add(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { state in
            if !state.finished { state.tasks.append(task) }
            return state.finished
        }
        if cancelNow { task.cancel() }
    }

    func finish(_ result: Result<Value, any Error>) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, [Task<Void, Never>]) in
            guard !state.finished else { return (nil, []) }
            state.finished = true
            if state.continuation == nil { state.early = result }
            defer { state.continuation = nil }
            return (state.continuation, state.tasks)
        }
        for task in tasks { task.cancel() }
        continuation?.resume(with: result)
    }
}
