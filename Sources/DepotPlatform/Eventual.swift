/// A value that arrives once, later, for any number of readers: each `value` waits until `resolve` is called, then
/// every reader gets the same value. Whoever resolves it owns the work that makes it (a service's child task), so the
/// readers wait on nothing unowned; a reader that is cancelled stops waiting at once.
public final class Eventual<Value: Sendable>: Sendable {
    private enum State {
        /// The readers waiting, by the number each was given.
        case waiting([Int: CheckedContinuation<Value, any Error>], next: Int)
        case resolved(Value)
    }

    private let state = Locked(State.waiting([:], next: 0))

    public init() {}

    /// Hands `value` to every reader, waiting or to come; later calls change nothing.
    public func resolve(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard case .waiting(let waiters, _) = state else { return [] }
            state = .resolved(value)
            return Array(waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    /// Whether `resolve` has been called.
    public var isResolved: Bool {
        state.withLock { state in
            if case .resolved = state { return true }
            return false
        }
    }

    /// The value, once resolved; throws `CancellationError` as soon as the waiting task is cancelled.
    public var value: Value {
        get async throws {
            let number = Locked<Int?>(nil)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    let resolved = state.withLock { state -> Result<Value, any Error>? in
                        switch state {
                        case .resolved(let value): return .success(value)
                        case .waiting(var waiters, let next):
                            guard !Task.isCancelled else { return .failure(CancellationError()) }
                            waiters[next] = continuation
                            number.withLock { $0 = next }
                            state = .waiting(waiters, next: next + 1)
                            return nil
                        }
                    }
                    if let resolved { continuation.resume(with: resolved) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
                    guard case .waiting(var waiters, let next) = state, let index = number.withLock({ $0 }) else { return nil }
                    let waiter = waiters.removeValue(forKey: index)
                    state = .waiting(waiters, next: next)
                    return waiter
                }
                waiter?.resume(throwing: CancellationError())
            }
        }
    }
}
