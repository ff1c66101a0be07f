public import DepotJSON
public import DepotWire

/// One notification of a subscription: a `stateChanged` — the state, how many states it skipped because the
/// subscriber fell behind, in delta mode the delta, and whether it starts over after a resume that was not
/// possible — or a `heartbeat`, which carries no state.
public struct StateChange: Sendable, Equatable {
    public let subscription: String
    public let skipped: Int
    /// The State exactly as depotd sent it (for printing it as it came); for a heartbeat, its params.
    public let state: JSONValue
    /// Delta mode: how the state's items follow from the last success state sent; nil when it carries its items.
    public let delta: JSONValue?
    /// True on the first state of a subscription that asked to resume and could not: it replaces what the client holds.
    public let resync: Bool
    /// The heartbeat, when this is one.
    public let heartbeat: Heartbeat?

    public init(subscription: String, skipped: Int, state: JSONValue, delta: JSONValue? = nil, resync: Bool = false) {
        self.subscription = subscription
        self.skipped = skipped
        self.state = state
        self.delta = delta
        self.resync = resync
        self.heartbeat = nil
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
        case StateNotification.method:
            guard let state = params[Param.state] else { return nil }
            self.init(
                subscription: name, skipped: params[Param.skipped]?.numberValue?.intValue ?? 0, state: state, delta: params[Param.delta],
                resync: params[Param.resync] == .bool(true))
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
        self.heartbeat = heartbeat
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
        if let heartbeat {
            return [
                Heartbeat.Param.subscription: .string(subscription), Heartbeat.Param.epoch: .string(heartbeat.epoch),
                Heartbeat.Param.seq: .number(JSONNumber(heartbeat.seq)),
            ]
        }
        var params: JSONObject = [StateNotification.Param.subscription: .string(subscription)]
        if skipped > 0 { params[StateNotification.Param.skipped] = .number(JSONNumber(skipped)) }
        if resync { params[StateNotification.Param.resync] = true }
        params[StateNotification.Param.state] = state
        if let delta { params[StateNotification.Param.delta] = delta }
        return .object(params)
    }
}
