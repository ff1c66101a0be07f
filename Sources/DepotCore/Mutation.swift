import DepotPlatform

/// A mutation the repository has accepted and will run in its turn. Submitting one is synchronous,
/// which is what fixes the arrival order; its result is awaited, or delivered to a callback, separately.
///
/// Several callers may share one mutation (loads that join an in-flight load); each gets the same result.
/// Waiting does not cancel anything: a mutation, once accepted, runs to its end for every subscriber. A waiter
/// that goes away (a connection that closed) withdraws its callback, and is then neither called nor kept.
public final class Mutation<Value: Sendable>: Sendable {
    /// One registered callback, for `withdraw(_:)`.
    public struct Waiter: Sendable, Hashable {
        fileprivate let number: Int
    }

    private struct Progress {
        var finished: Value?
        var callbacks: [Int: @Sendable (Value) -> Void] = [:]
        var nextNumber = 0
    }

    private let progress = Locked(Progress())

    init() {}

    /// A mutation that has already run, with `value`: an answer that needed no turn.
    static func finished(with value: Value) -> Mutation<Value> {
        let mutation = Mutation<Value>()
        mutation.finish(with: value)
        return mutation
    }

    /// The result, once the mutation has run.
    public var result: Value {
        get async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                whenFinished { continuation.resume(returning: $0) }
            }
        }
    }

    /// The result if the mutation has already run.
    public var finishedResult: Value? {
        progress.withLock { $0.finished }
    }

    /// Calls `body` once with the result: at once, on this thread, if the mutation has run; otherwise on the
    /// thread that finishes it, which must not be held up (hop to your own thread or loop from there).
    @discardableResult
    public func whenFinished(_ body: @escaping @Sendable (Value) -> Void) -> Waiter {
        let (waiter, finished) = progress.withLock { progress -> (Waiter, Value?) in
            let waiter = Waiter(number: progress.nextNumber)
            progress.nextNumber += 1
            if progress.finished == nil {
                progress.callbacks[waiter.number] = body
            }
            return (waiter, progress.finished)
        }
        if let finished {
            body(finished)
        }
        return waiter
    }

    /// Withdraws a callback registered with `whenFinished`: it will not be called, and is let go at once. Does
    /// nothing when it was already called.
    public func withdraw(_ waiter: Waiter) {
        _ = progress.withLock { $0.callbacks.removeValue(forKey: waiter.number) }
    }

    func finish(with value: Value) {
        let callbacks = progress.withLock { progress -> [@Sendable (Value) -> Void] in
            precondition(progress.finished == nil, "a mutation finished twice")
            progress.finished = value
            defer { progress.callbacks = [:] }
            return progress.callbacks.sorted { $0.key < $1.key }.map(\.value)
        }
        for callback in callbacks {
            callback(value)
        }
    }
}
