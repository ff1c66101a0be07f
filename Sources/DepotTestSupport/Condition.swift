import DepotPlatform

/// A value tests can wait on: `wait(until:)` returns as soon as the predicate holds, however the value got
/// there. Each change wakes the waiters to check again; nothing polls, nothing sleeps.
package final class Condition<Value: Sendable>: Sendable {
    private struct Waiter {
        let predicate: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Value, Never>
    }

    private struct Storage {
        var value: Value
        var waiters: [Waiter] = []
    }

    private let storage: Locked<Storage>

    package init(_ value: Value) {
        self.storage = Locked(Storage(value: value))
    }

    package var value: Value {
        storage.withLock { $0.value }
    }

    /// Changes the value and wakes the waiters whose predicate now holds.
    package func update<Result>(_ change: (inout Value) -> Result) -> Result {
        let (result, ready) = storage.withLock { storage -> (Result, [(CheckedContinuation<Value, Never>, Value)]) in
            let result = change(&storage.value)
            var ready: [(CheckedContinuation<Value, Never>, Value)] = []
            storage.waiters.removeAll { waiter in
                guard waiter.predicate(storage.value) else { return false }
                ready.append((waiter.continuation, storage.value))
                return true
            }
            return (result, ready)
        }
        for (continuation, value) in ready {
            continuation.resume(returning: value)
        }
        return result
    }

    /// Waits until `predicate` holds and returns the value it held for. Combine with `withTimeout`.
    @discardableResult
    package func wait(until predicate: @escaping @Sendable (Value) -> Bool) async -> Value {
        await withCheckedContinuation { continuation in
            let now: Value? = storage.withLock { storage in
                if predicate(storage.value) { return storage.value }
                storage.waiters.append(Waiter(predicate: predicate, continuation: continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
