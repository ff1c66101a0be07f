/// A value that arrives once, later, for any number of readers: each `value` waits until `resolve` is called, then
/// every reader gets the same value. Whoever resolves it owns the work that makes it (a service's child task), so the
/// readers wait on nothing unowned.
public final class Eventual<Value: Sendable>: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Value, Never>], cancellable: [Int: CheckedContinuation<Value, any Error>], next: Int)
        case resolved(Value)
    }

    private let state = Locked(State.waiting([], cancellable: [:], next: 0))

    public init() {}

    /// Hands `value` to every reader, waiting or to come; later calls change nothing.
    public func resolve(_ value: Value) {
        let (waiters, cancellable) = state.withLock { state -> ([CheckedContinuation<Value, Never>], [CheckedContinuation<Value, any Error>]) in
            guard case .waiting(let waiters, let cancellable, _) = state else { return ([], []) }
            state = .resolved(value)
            return (waiters, Array(cancellable.values))
        }
        for waiter in waiters { waiter.resume(returning: value) }
        for waiter in cancellable { waiter.resume(returning: value) }
    }

    /// The value, once resolved.
    public var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let resolved = state.withLock { state -> Value? in
                    switch state {
                    case .resolved(let value): return value
                    case .waiting(let waiters, let cancellable, let next):
                        state = .waiting(waiters + [continuation], cancellable: cancellable, next: next)
                        return nil
                    }
                }
                if let resolved { continuation.resume(returning: resolved) }
            }
        }
    }

    /// The value, once resolved; throws `CancellationError` as soon as the waiting task is cancelled.
    public func valueUnlessCancelled() async throws -> Value {
        let key = Locked<Int?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let resolved = state.withLock { state -> Result<Value, any Error>? in
                    switch state {
                    case .resolved(let value): return .success(value)
                    case .waiting(let waiters, var cancellable, let next):
                        guard !Task.isCancelled else { return .failure(CancellationError()) }
                        cancellable[next] = continuation
                        key.withLock { $0 = next }
                        state = .waiting(waiters, cancellable: cancellable, next: next + 1)
                        return nil
                    }
                }
                if let resolved { continuation.resume(with: resolved) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
                guard case .waiting(let waiters, var cancellable, let next) = state, let index = key.withLock({ $0 }) else { return nil }
                let waiter = cancellable.removeValue(forKey: index)
                state = .waiting(waiters, cancellable: cancellable, next: next)
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
