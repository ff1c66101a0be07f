public import DepotCore
public import DepotOperators

extension StateStatus {
    /// The protocol's name for the repository's status, case by case (a pipeline's `statuses` operator names
    /// statuses as the protocol does; the server writes them so).
    public init(_ status: LoadingState.Status) {
        switch status {
        case .idle: self = .idle
        case .loading: self = .loading
        case .success: self = .success
        case .failure: self = .failure
        }
    }
}
