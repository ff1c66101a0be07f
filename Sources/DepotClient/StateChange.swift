public import DepotJSON
public import DepotWire

/// One notification of a subscription: a `stateChanged` — the state, how many states it skipped because the
/// subscriber fell behind, in delta mode the delta, and whether it starts over after a resume that was not
/// possible — or a `heartbeat`, which carries no state, or a `subscriptionEnded`, the last of a subscription.
public struct StateChange: Sendable, Equatable {
    public let subscription: String
    public let skipped: Int
    /// The State exactly as depotd sent it (for printing it as it came); for a heartbeat, its params.
    public let state: JSONValue
    /// Delta mode: how the state's items follow from the last success state sent; nil when it carries its items.
    public let delta: JSONValue?
    /// True on the first state of a subscription that asked to resume and could not: it replaces what the client holds.
    public let resync: Bool
    /// True on the first state after the named pipeline the subscription follows was changed: the current state
    /// through the new pipeline, in full; it replaces what the client holds.
    public let pipelineChanged: Bool
    /// The heartbeat, when this is one.
    public let heartbeat: Heartbeat?
    /// Why the daemon ended the subscription, when this is its `subscriptionEnded`; nothing follows it.
    public let ended: SubscriptionEnded?

    public init(
        subscription: String, skipped: Int, state: JSONValue, delta: JSONValue? = nil, resync: Bool = false, pipelineChanged: Bool = false
    ) {
        self.subscription = subscription
        self.skipped = skipped
        self.state = state
        self.delta = delta
        self.resync = resync
        self.pipelineChanged = pipelineChanged
        self.heartbeat = nil
        self.ended = nil
    }

    /// The notification `message` (a whole `stateChanged` or `heartbeat` message, as parsed); nil for any other
    /// message, or one without the params the protocol gives it.
    public init?(notification message: JSONValue) {
        typealias Param = StateNotification.Param
        guard let params = message["params"], let name = params[Param.subscription]?.stringValue else { return nil }
        switch message["method"]?.stringValue {
        case Heartbeat.method:
            guard let beat = try? Heartbeat(decoding: params) else { return nil }
            self.init(heartbeat: beat)
        case SubscriptionEnded.method:
            guard let ended = try? SubscriptionEnded(decoding: params) else { return nil }
            self.init(ended: ended)
        case StateNotification.method:
            guard let state = params[Param.state] else { return nil }
            self.init(
                subscription: name, skipped: params[Param.skipped]?.numberValue?.intValue ?? 0, state: state, delta: params[Param.delta],
                resync: params[Param.resync] == .bool(true), pipelineChanged: params[Param.pipelineChanged] == .bool(true))
        default:
            return nil
        }
    }

    init(heartbeat: Heartbeat) {
        self.subscription = heartbeat.subscription
        self.skipped = 0
        self.state = [Heartbeat.Param.epoch: .string(heartbeat.epoch), Heartbeat.Param.seq: .number(JSONNumber(heartbeat.seq))]
        self.delta = nil
        self.resync = false
        self.pipelineChanged = false
        self.heartbeat = heartbeat
        self.ended = nil
    }

    init(ended: SubscriptionEnded) {
        self.subscription = ended.subscription
        self.skipped = 0
        self.state = [SubscriptionEnded.Param.reason: .string(ended.reason)]
        self.delta = nil
        self.resync = false
        self.pipelineChanged = false
        self.heartbeat = nil
        self.ended = ended
    }

    /// The State decoded; throws when it is not what the protocol describes.
    public func decodedState() throws(WireDecodingError) -> WireState {
        try WireState(decoding: state)
    }

    /// The delta decoded; nil when there is none; throws when it is not what the protocol describes.
    public func decodedDelta() throws(WireDecodingError) -> WireDelta? {
        try delta.map { value throws(WireDecodingError) in try WireDelta(decoding: value) }
    }

    /// The state's seq (a heartbeat's: the last state sent).
    public var seq: Int? { state[StateMember.seq]?.numberValue?.intValue }

    /// The state's status: idle, loading, success or failure; nil for a heartbeat.
    public var status: String? { state[StateMember.status]?.stringValue }

    /// The notification's params as depotd sent them (a heartbeat's included), for printing.
    public var params: JSONValue {
        if let ended {
            return [SubscriptionEnded.Param.subscription: .string(subscription), SubscriptionEnded.Param.reason: .string(ended.reason)]
        }
        if let heartbeat {
            return [
                Heartbeat.Param.subscription: .string(subscription), Heartbeat.Param.epoch: .string(heartbeat.epoch),
                Heartbeat.Param.seq: .number(JSONNumber(heartbeat.seq)),
            ]
        }
        var params: JSONObject = [StateNotification.Param.subscription: .string(subscription)]
        if skipped > 0 { params[StateNotification.Param.skipped] = .number(JSONNumber(skipped)) }
        if resync { params[StateNotification.Param.resync] = true }
        if pipelineChanged { params[StateNotification.Param.pipelineChanged] = true }
        params[StateNotification.Param.state] = state
        if let delta { params[StateNotification.Param.delta] = delta }
        return .object(params)
    }
}
