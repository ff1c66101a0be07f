import Synchronization

/// Thrown when a test's wait outlasts its (generous) limit: the awaited event never came.
public struct TimeoutError: Error, CustomStringConvertible {
    public let what: String
    public let limit: Duration
    public var description: String { "timed out after \(limit) waiting for \(what)" }
}

/// Runs `operation`, failing with `TimeoutError` if it has not finished within `limit`. The limit is a
/// safety net against a hang, never a measurement: tests wait for events, and the limit only decides how
/// long a broken build takes to fail.
///
/// On time-out the operation is cancelled but not awaited, because a wait that ignores cancellation
/// (a continuation, an unstructured task's value) would otherwise turn the time-out into the hang it
/// is meant to end.
@discardableResult
public func withTimeout<Value: Sendable>(
    _ limit: Duration = .seconds(60),
    _ what: String = "the operation",
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let race = Race<Value>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            race.add(Task {
                do {
                    race.finish(.success(try await operation()))
                } catch {
                    race.finish(.failure(error))
                }
            })
            race.add(Task {
                try? await Task.sleep(for: limit)
                race.finish(.failure(TimeoutError(what: what, limit: limit)))
            })
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The first of the operation, the timer and cancellation to finish resumes the caller; the rest are cancelled.
private final class Race<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        /// A result that came before the continuation was stored (cancellation can).
        var early: Result<Value, any Error>?
        var finished = false
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

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
