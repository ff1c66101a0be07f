/// Why a mutation failed, with the state it left behind: for a failed load, the failure state it
/// published; for a failed removal, the rolled-back state.
public struct RepositoryError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: StateError.Code
    public let message: String
    public let state: PublishedState

    public init(code: StateError.Code, message: String, state: PublishedState) {
        self.code = code
        self.message = message
        self.state = state
    }

    public var description: String { message }
}
