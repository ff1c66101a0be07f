public import DepotJSON

/// What `put` and `patch` answer once the source has made the change: the item's new etag, whether the change created
/// it, and the State published then (its `count`, not its items, unless the call asked for them).
public struct WriteAnswer: Sendable, Equatable {
    public let etag: String
    public let created: Bool
    public let state: WireState

    public init(etag: String, created: Bool, state: WireState) {
        self.etag = etag
        self.created = created
        self.state = state
    }

    /// Decodes `{"etag", "created", "state"}`.
    public init(decoding value: JSONValue, of method: String) throws(WireDecodingError) {
        guard case .object(let object) = value else { throw WireDecodingError("\(method) answers an object, not \(value.typeName)") }
        let members = Members(object: object, of: "\(method)'s answer")
        etag = try members.string("etag")
        created = try members.bool("created")
        guard let state = object["state"] else { throw WireDecodingError("\(method)'s answer has no \"state\"") }
        self.state = try WireState(decoding: state)
    }
}

/// What `apply` answers once the source has made every change: each change's new etag (null for a removal), in order,
/// and the State published then.
public struct ApplyAnswer: Sendable, Equatable {
    public let etags: [String?]
    public let state: WireState

    public init(etags: [String?], state: WireState) {
        self.etags = etags
        self.state = state
    }

    /// Decodes `{"etags", "state"}`.
    public init(decoding value: JSONValue) throws(WireDecodingError) {
        guard case .object(let object) = value else { throw WireDecodingError("apply answers an object, not \(value.typeName)") }
        guard case .array(let etags)? = object["etags"] else { throw WireDecodingError("apply's answer needs \"etags\", an array") }
        self.etags = try etags.map { value throws(WireDecodingError) -> String? in
            switch value {
            case .null: return nil
            case .string(let etag): return etag
            default: throw WireDecodingError("apply's \"etags\" hold strings or null, not \(value.typeName)")
            }
        }
        guard let state = object["state"] else { throw WireDecodingError("apply's answer has no \"state\"") }
        self.state = try WireState(decoding: state)
    }
}
