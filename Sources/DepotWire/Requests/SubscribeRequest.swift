public import DepotJSON
public import DepotRPC

/// `subscribe`: answers `{"subscription", "epoch", "seq", "resumed"}`; then `stateChanged` notifications carry the
/// State `seq` names and every later one. With `since`, it resumes after the state the client holds when the
/// daemon still has what came since (`resumed` true), and otherwise starts from the current state, marked
/// `"resync": true`. In `delta` mode success states carry a `delta` instead of their items when they can;
/// `heartbeat` asks for a `heartbeat` notification after that many idle seconds. With `pipeline`, notifications carry
/// the states through it (`seq` stays the repository's, so states it holds back leave gaps; `skipped` counts only
/// states lost to a lagging reader). limitExceeded (-32004) when the connection holds the most subscriptions it may.
public struct SubscribeRequest: DepotRequest {
    public static let method = "subscribe"
    public static let paramNames = ["mode", "since", "heartbeat", "pipeline"]

    /// The shortest and longest heartbeat interval accepted, in seconds.
    public static let heartbeatRange = 0.1...3600.0

    /// How success states carry their items.
    public var mode: SubscriptionMode
    /// Where to resume; nil to start from the current state.
    public var since: ResumePoint?
    /// Seconds without a notification after which the daemon sends a heartbeat; nil for none.
    public var heartbeat: Double?
    /// The operators the states go through; nil for none.
    public var pipeline: PipelineReference?

    public init(mode: SubscriptionMode = .snapshot, since: ResumePoint? = nil, heartbeat: Double? = nil, pipeline: PipelineReference? = nil) {
        self.mode = mode
        self.since = since
        self.heartbeat = heartbeat
        self.pipeline = pipeline
    }

    public init(params: Params) throws(RPCError) {
        mode = try params.choice("mode", of: SubscriptionMode.self) ?? .snapshot
        pipeline = try params.pipeline()
        if let value = params.members["since"] {
            do {
                since = try ResumePoint(decoding: value)
            } catch {
                throw .invalidParams("\"since\" \(error)")
            }
        }
        if let value = params.members["heartbeat"] {
            let range = Self.heartbeatRange
            guard let seconds = value.numberValue?.doubleValue, range.contains(seconds) else {
                throw .invalidParams(
                    "\"heartbeat\" must be a number of seconds from \(range.lowerBound.formatted) to \(range.upperBound.formatted), found \(value.jsonText.prefix(40))"
                )
            }
            heartbeat = seconds
        }
    }

    public var params: JSONObject? {
        var params = JSONObject()
        if mode != .snapshot { params["mode"] = .string(mode.rawValue) }
        if let since { params["since"] = since.json }
        if let heartbeat, let number = JSONNumber(literal: heartbeat.formatted) { params["heartbeat"] = .number(number) }
        if let pipeline { params["pipeline"] = pipeline.json }
        return params.isEmpty ? nil : params
    }

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> Subscribed {
        try Subscribed(decoding: value)
    }
}

extension Double {
    /// `0.1`, `3600`: without a fraction when it has none.
    fileprivate var formatted: String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
