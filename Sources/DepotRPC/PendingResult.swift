/// A method's result that is not ready when the method returns (a mutation waiting its turn).
///
/// This is the one way an answer comes later: whoever answers registers one callback with `whenDone`, which is
/// called once, on whichever thread the work finishes on, and can be withdrawn if the answer is no longer wanted.
/// No task is started for the wait; the connection hops back to its event loop from the callback.
public struct PendingResult: Sendable {
    public typealias Completion = @Sendable (Result<ResultBody, RPCError>) -> Void

    private let register: @Sendable (@escaping Completion) -> Withdrawal

    /// `register` stores the completion with the work and returns how to withdraw it; it may also call it at once.
    public init(_ register: @escaping @Sendable (@escaping Completion) -> Withdrawal) {
        self.register = register
    }

    /// Calls `completion` once, when the result is ready.
    @discardableResult
    public func whenDone(_ completion: @escaping Completion) -> Withdrawal {
        register(completion)
    }
}
