public import DepotJSON

/// What `subscribe` answers: the subscription's id, and where its states start — the daemon run (`epoch`), the
/// seq of the state it starts from, and whether it resumed from the point the client gave.
public struct Subscribed: Sendable, Equatable {
    public var subscription: String
    public var epoch: String
    public var seq: Int
    public var resumed: Bool

    public init(subscription: String, epoch: String, seq: Int, resumed: Bool) {
        self.subscription = subscription
        self.epoch = epoch
        self.seq = seq
        self.resumed = resumed
    }

    /// The result's members.
    public enum Member {
        public static let subscription = "subscription"
        public static let epoch = "epoch"
        public static let seq = "seq"
        public static let resumed = "resumed"
    }

    /// The result as depotd sends it.
    public var json: JSONValue {
        [
            Member.subscription: .string(subscription), Member.epoch: .string(epoch), Member.seq: .number(JSONNumber(seq)),
            Member.resumed: .bool(resumed),
        ]
    }

    public init(decoding value: JSONValue) throws(WireDecodingError) {
        guard case .object(let object) = value else {
            throw WireDecodingError("subscribe answers an object, not \(value.typeName)")
        }
        let members = Members(object: object, of: "subscribe's answer")
        subscription = try members.string(Member.subscription)
        epoch = try members.string(Member.epoch)
        seq = try members.nonNegativeInteger(Member.seq)
        resumed = try members.bool(Member.resumed)
    }
}
