/// A State's `status`, as the protocol names it: the wire's own, so a client needs nothing of the daemon's domain.
/// The server maps the repository's `LoadingState.Status` to it, case by case.
public enum StateStatus: String, Sendable, CaseIterable {
    case idle, loading, success, failure
}
