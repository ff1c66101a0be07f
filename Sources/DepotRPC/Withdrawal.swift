/// Stops a registered callback from being called, because whoever waited went away (a connection that closed).
/// Withdrawing twice, or after the callback ran, does nothing.
public struct Withdrawal: Sendable {
    private let body: @Sendable () -> Void

    public init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    /// For a callback that has already run, or that nothing keeps.
    public static let none = Withdrawal {}

    public func callAsFunction() {
        body()
    }
}
