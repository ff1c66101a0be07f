/// A value that arrives once, later, for any number of readers: each `value` waits until `resolve` is called, and each
/// callback given to `whenResolved` is called then; every reader gets the same value. Whoever resolves it owns the work
/// that makes it (a service's child task, a mutation's turn), so the readers wait on nothing unowned; a reader that is
/// cancelled stops waiting at once, and a callback withdrawn is let go at once.
public final class Eventual<Value: Sendable>: Sendable {
    /// One registered reader, for `withdraw(_:)`.
    public struct Waiter: Sendable, Hashable {
        fileprivate let number: Int
    }

    /// A reader waiting: called with the value, or with nil when the task awaiting `value` was cancelled.
    private typealias Reader = @Sendable (Value?) -> Void

    private enum State {
        /// The readers waiting, by the number each was given, and the number the next gets.
        case waiting([Int: Reader], next: Int)
        case resolved(Value)
    }

    private let state = Locked(State.waiting([:], next: 0))

    public init() {}

    /// Hands `value` to every reader, waiting or to come; says whether it did, false when it was resolved already
    /// (later calls change nothing).
    @discardableResult
    public func resolve(_ value: Value) -> Bool {
        let waiters = state.withLock { state -> [Reader]? in
            guard case .waiting(let waiters, _) = state else { return nil }
            state = .resolved(value)
            // In the order they registered. (A closure, not `\.value`: a key path in a generic context is made anew, at
            // run time, on every call.)
            return waiters.count < 2 ? Array(waiters.values) : waiters.sorted { $0.key < $1.key }.map { $0.value }
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter(value) }
        return true
    }

    /// The value, if resolved.
    public var resolvedValue: Value? {
        state.withLock { state in
            if case .resolved(let value) = state { return value }
            return nil
        }
    }

    /// Whether `resolve` has been called.
    public var isResolved: Bool {
        resolvedValue != nil
    }

    /// Calls `body` once with the value: at once, on this thread, if it is resolved; otherwise on the thread that
    /// resolves it, which must not be held up (hop to your own thread or loop from there).
    @discardableResult
    public func whenResolved(_ body: @escaping @Sendable (Value) -> Void) -> Waiter {
        let waiter = Waiter(number: takeNumber())
        if case .resolved(let value) = register(waiter, { value in value.map(body) }) { body(value) }
        return waiter
    }

    /// Withdraws a callback registered with `whenResolved`: it will not be called, and is let go at once. Does
    /// nothing when it was already called.
    public func withdraw(_ waiter: Waiter) {
        _ = remove(waiter)
    }

    /// The value, once resolved; throws `CancellationError` as soon as the waiting task is cancelled.
    public var value: Value {
        get async throws {
            // The reader's number is taken first, so that a cancellation arriving before it waits finds it by number.
            let waiter = Waiter(number: takeNumber())
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    let reader: Reader = { value in
                        if let value { continuation.resume(returning: value) } else { continuation.resume(throwing: CancellationError()) }
                    }
                    switch register(waiter, reader, unlessCancelled: true) {
                    case .resolved(let value): continuation.resume(returning: value)
                    case .cancelled: continuation.resume(throwing: CancellationError())
                    case .kept: break
                    }
                }
            } onCancel: {
                remove(waiter)?(nil)
            }
        }
    }

    private func takeNumber() -> Int {
        state.withLock { state in
            guard case .waiting(let waiters, let next) = state else { return -1 }
            state = .waiting(waiters, next: next + 1)
            return next
        }
    }

    private enum Registration {
        case kept, resolved(Value), cancelled
    }

    /// Keeps `reader` for `waiter` until the value comes, or says it is here; with `unlessCancelled`, not when the
    /// task is cancelled — checked under the lock, so that a cancellation either finds the reader kept or is seen here.
    private func register(_ waiter: Waiter, _ reader: @escaping Reader, unlessCancelled: Bool = false) -> Registration {
        state.withLock { state in
            switch state {
            case .resolved(let value):
                return .resolved(value)
            case .waiting(var waiters, let next):
                if unlessCancelled, Task.isCancelled { return .cancelled }
                waiters[waiter.number] = reader
                state = .waiting(waiters, next: next)
                return .kept
            }
        }
    }

    /// Takes `waiter`'s callback back, if it is still kept.
    @discardableResult
    private func remove(_ waiter: Waiter) -> Reader? {
        state.withLock { state in
            guard case .waiting(var waiters, let next) = state, let body = waiters.removeValue(forKey: waiter.number) else { return nil }
            state = .waiting(waiters, next: next)
            return body
        }
    }
}
