public import DepotJSON

/// The last state a client holds, as `subscribe`'s `since` names it: the daemon run and the seq. A subscription
/// given one resumes after it when it can, and says so.
public struct ResumePoint: Sendable, Equatable {
    public var epoch: String
    public var seq: Int

    public init(epoch: String, seq: Int) {
        self.epoch = epoch
        self.seq = seq
    }

    public enum Member {
        public static let epoch = "epoch"
        public static let seq = "seq"
    }

    public var json: JSONValue {
        [Member.epoch: .string(epoch), Member.seq: .number(JSONNumber(seq))]
    }

    /// The point a `since` param names; nil, with the reason, when it is not `{"epoch": string, "seq": integer ≥ 0}`.
    public init(decoding value: JSONValue) throws(WireDecodingError) {
        guard case .object(let object) = value else {
            throw WireDecodingError("must be an object {\"epoch\", \"seq\"}, found \(value.typeName)")
        }
        let members = Members(object: object, of: "since")
        epoch = try members.string(Member.epoch)
        seq = try members.nonNegativeInteger(Member.seq)
    }
}
