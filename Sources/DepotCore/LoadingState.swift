/// What the repository holds: nothing yet, a load or removal under way, the items (with where they came
/// from), or why it has none.
public enum LoadingState: Sendable, Equatable {
    case idle
    case loading
    case success(ItemCollection, Provenance)
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
        if case .success(let items, _) = self { return items }
        return nil
    }

    /// Where the items of a success state came from; nil otherwise.
    public var provenance: Provenance? {
        if case .success(_, let provenance) = self { return provenance }
        return nil
    }
}
