import DepotJSON

/// One `stateChanged` notification: the subscription it is for, how many states it skipped because the
/// subscriber fell behind, and the state itself.
public struct StateChange: Sendable, Equatable {
    public let subscription: String
    public let skipped: Int
    public let state: JSONValue

    public init(subscription: String, skipped: Int, state: JSONValue) {
        self.subscription = subscription
        self.skipped = skipped
        self.state = state
    }

    /// The state's seq.
    public var seq: Int? { state["seq"]?.numberValue?.intValue }

    /// The state's status: idle, loading, success or failure.
    public var status: String? { state["status"]?.stringValue }
}
