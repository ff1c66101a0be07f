import Synchronization

/// A mutation the repository has accepted and will run in its turn. Submitting one is synchronous,
/// which is what fixes the arrival order; its result is awaited separately.
///
/// Several callers may share one mutation (loads that join an in-flight load); each awaits the same result.
/// Waiting is not cancellable: a mutation, once accepted, runs to its end for every subscriber.
public final class Mutation<Value: Sendable>: Sendable {
    private enum Progress {
        case running(waiters: [CheckedContinuation<Value, Never>])
        case finished(Value)
    }

    private let progress = Mutex<Progress>(.running(waiters: []))

    init() {}

    /// The result, once the mutation has run.
    public var result: Value {
        get async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                let finished: Value? = progress.withLock { progress in
                    switch progress {
                    case .running(var waiters):
                        waiters.append(continuation)
                        progress = .running(waiters: waiters)
                        return nil
                    case .finished(let value):
                        return value
                    }
                }
                if let finished {
                    continuation.resume(returning: finished)
                }
            }
        }
    }

    /// The result if the mutation has already run.
    public var finishedResult: Value? {
        progress.withLock { progress in
            if case .finished(let value) = progress { return value }
            return nil
        }
    }

    func finish(with value: Value) {
        let waiters = progress.withLock { progress -> [CheckedContinuation<Value, Never>] in
            guard case .running(let waiters) = progress else {
                preconditionFailure("a mutation finished twice")
            }
            progress = .finished(value)
            return waiters
        }
        for waiter in waiters {
            waiter.resume(returning: value)
        }
    }
}
