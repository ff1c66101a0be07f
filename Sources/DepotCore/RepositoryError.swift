/// Why a mutation failed — a `StateError`, the one description of a failure — with the state it left behind: for a
/// failed load, the failure state it published; for a failed removal or write, the rolled-back state.
public struct RepositoryError: Error, Sendable, Equatable, CustomStringConvertible {
    public let error: StateError
    public let state: PublishedState
    /// For a write that failed on one of its changes: which, and what the client needs to act (the current item of a
    /// conflict, the schema's violations); nil otherwise.
    public let change: FailedChange?

    public init(_ error: StateError, state: PublishedState, change: FailedChange? = nil) {
        self.error = error
        self.state = state
        self.change = change
    }

    public init(_ kind: StateError.Kind, message: String, state: PublishedState, change: FailedChange? = nil) {
        self.init(StateError(kind, message: message), state: state, change: change)
    }

    public var kind: StateError.Kind { error.kind }
    public var message: String { error.message }
    public var description: String { error.message }
}

/// The change of a write that failed, and what a client needs to act on it.
public struct FailedChange: Sendable, Equatable {
    /// The change's index in the write (0 for a put, patch or removal of one item).
    public let index: Int
    /// The id it changes.
    public let id: String
    /// For a conflict: the item as it is now, `.absent` when there is none, `.unknown` when the source could not say.
    public let current: CurrentItem?
    /// For an item that fails the item schema: every violation.
    public let violations: [ItemViolation]

    public init(index: Int, id: String, current: CurrentItem? = nil, violations: [ItemViolation] = []) {
        self.index = index
        self.id = id
        self.current = current
        self.violations = violations
    }

    /// What a conflict found.
    public enum CurrentItem: Sendable, Equatable {
        case item(Item)
        case absent
        /// The source refused the change as a conflict but did not say what it holds (an HTTP 409 or 412).
        case unknown
    }
}
