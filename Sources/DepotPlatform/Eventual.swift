/// A value that arrives once, later, for any number of readers: each `value` waits until `resolve` is called, then
/// every reader gets the same value. Whoever resolves it owns the work that makes it (a service's child task), so the
/// readers wait on nothing unowned.
public final class Eventual<Value: Sendable>: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Value, Never>])
        case resolved(Value)
    }

    private let state = Locked(State.waiting([]))

    public init() {}

    /// Hands `value` to every reader, waiting or to come; later calls change nothing.
    public func resolve(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, Never>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .resolved(value)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    /// The value, once resolved.
    public var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let resolved = state.withLock { state -> Value? in
                    switch state {
                    case .resolved(let value): return value
                    case .waiting(let waiters):
                        state = .waiting(waiters + [continuation])
                        return nil
                    }
                }
                if let resolved { continuation.resume(returning: resolved) }
            }
        }
    }
}
