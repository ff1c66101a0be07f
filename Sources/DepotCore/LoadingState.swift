/// What the repository holds: nothing yet, a load or removal under way, the items, or why it has none.
public enum LoadingState: Sendable, Equatable {
    case idle
    case loading
    case success(ItemCollection)
    case failure(StateError)

    /// The state's name on the wire.
    public enum Status: String, Sendable, CaseIterable {
        case idle, loading, success, failure
    }

    public var status: Status {
        switch self {
        case .idle: .idle
        case .loading: .loading
        case .success: .success
        case .failure: .failure
        }
    }

    /// The items of a success state; nil otherwise.
    public var items: ItemCollection? {
        if case .success(let items) = self { return items }
        return nil
    }
}
