/// Why a mutation failed, with the state it left behind: for a failed load, the failure state it
/// published; for a failed removal, the rolled-back state.
public struct RepositoryError: Error, Sendable, Equatable, CustomStringConvertible {
    public let kind: StateError.Kind
    public let message: String
    public let state: PublishedState

    public init(_ kind: StateError.Kind, message: String, state: PublishedState) {
        self.kind = kind
        self.message = message
        self.state = state
    }

    public var description: String { message }
}
