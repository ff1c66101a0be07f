public import DepotPlatform

/// A mutation the repository has accepted and will run in its turn. Submitting one is synchronous,
/// which is what fixes the arrival order; its result is awaited, or delivered to a callback, separately.
///
/// Several callers may share one mutation (loads that join an in-flight load); each gets the same result.
/// Waiting does not cancel anything: a mutation, once accepted, runs to its end for every subscriber. A waiter
/// that goes away (a connection that closed) withdraws its callback, and is then neither called nor kept.
public final class Mutation<Value: Sendable>: Sendable {
    /// One registered callback, for `withdraw(_:)`.
    public typealias Waiter = Eventual<Value>.Waiter

    private let outcome = Eventual<Value>()

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
        outcome.resolvedValue
    }

    /// Calls `body` once with the result: at once, on this thread, if the mutation has run; otherwise on the
    /// thread that finishes it, which must not be held up (hop to your own thread or loop from there).
    @discardableResult
    public func whenFinished(_ body: @escaping @Sendable (Value) -> Void) -> Waiter {
        outcome.whenResolved(body)
    }

    /// Withdraws a callback registered with `whenFinished`: it will not be called, and is let go at once. Does
    /// nothing when it was already called.
    public func withdraw(_ waiter: Waiter) {
        outcome.withdraw(waiter)
    }

    func finish(with value: Value) {
        let first = outcome.resolve(value)
        precondition(first, "a mutation finished twice")
    }
}
