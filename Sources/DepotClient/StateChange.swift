public import DepotJSON
public import DepotWire

/// One `stateChanged` notification: the subscription it is for, how many states it skipped because the
/// subscriber fell behind, and the state itself, as sent.
public struct StateChange: Sendable, Equatable {
    public let subscription: String
    public let skipped: Int
    /// The State exactly as depotd sent it (for printing it as it came).
    public let state: JSONValue

    public init(subscription: String, skipped: Int, state: JSONValue) {
        self.subscription = subscription
        self.skipped = skipped
        self.state = state
    }

    /// The State decoded; throws when it is not what the protocol describes.
    public func decodedState() throws(WireDecodingError) -> WireState {
        try WireState(decoding: state)
    }

    /// The state's seq.
    public var seq: Int? { state[StateMember.seq]?.numberValue?.intValue }

    /// The state's status: idle, loading, success or failure.
    public var status: String? { state[StateMember.status]?.stringValue }
}
