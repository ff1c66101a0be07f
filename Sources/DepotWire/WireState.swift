public import DepotJSON
public import DepotOperators

/// A State as a client receives it, decoded: the typed counterpart of `StateEncoder`'s output. Members the
/// document does not list are ignored, as it asks clients to do, so a newer depotd's additions do not break
/// an older client.
public struct WireState: Sendable, Equatable {
    /// What the state holds, by status.
    public enum Content: Sendable, Equatable {
        case idle
        case loading
        /// `items` is nil in a delta-mode notification that carries a `delta` instead.
        case success(items: [JSONValue]?, provenance: WireProvenance)
        case failure(WireFailure)
    }

    public let seq: Int
    /// The daemon run `seq` belongs to.
    public let epoch: String
    public let content: Content
    /// Success states of delta-mode subscriptions: how many items the state has; nil otherwise.
    public let count: Int?

    public init(seq: Int, epoch: String, content: Content, count: Int? = nil) {
        self.seq = seq
        self.epoch = epoch
        self.content = content
        self.count = count
    }

    public var status: StateStatus {
        switch content {
        case .idle: .idle
        case .loading: .loading
        case .success: .success
        case .failure: .failure
        }
    }

    /// The items of a success state; nil otherwise, and for a delta-mode state that came with a delta.
    public var items: [JSONValue]? {
        if case .success(let items, _) = content { return items }
        return nil
    }

    /// Where the items of a success state come from; nil otherwise.
    public var provenance: WireProvenance? {
        if case .success(_, let provenance) = content { return provenance }
        return nil
    }

    /// Why a failure state has no items; nil otherwise.
    public var failure: WireFailure? {
        if case .failure(let failure) = content { return failure }
        return nil
    }

    /// Decodes a State; throws when a member the document requires is missing or has the wrong type.
    public init(decoding value: JSONValue) throws(WireDecodingError) {
        guard case .object(let object) = value else {
            throw WireDecodingError("a State must be an object, not \(value.typeName)")
        }
        let members = Members(object: object, of: "the State")
        seq = try members.nonNegativeInteger(StateMember.seq)
        epoch = try members.string(StateMember.epoch)
        let status = try members.choice(StateMember.status, of: StateStatus.self)
        switch status {
        case .idle:
            content = .idle
            count = nil
        case .loading:
            count = nil
            content = .loading
        case .success:
            let provenance = WireProvenance(
                origin: try members.choice(StateMember.origin, of: ItemOrigin.self),
                fetchedAt: try members.string(StateMember.fetchedAt),
                stale: try members.bool(StateMember.stale),
                revision: try members.optionalNonNegativeInteger(StateMember.revision).map(Int64.init),
                staleReason: try members.optionalString(StateMember.staleReason),
                // 0.2.0 daemons send none: nothing they show is pending.
                pending: try members.optionalNonNegativeInteger(StateMember.pending) ?? 0
            )
            // A delta-mode state gives `count`, and leaves `items` out when a delta comes with it.
            count = object[StateMember.count] == nil ? nil : try members.nonNegativeInteger(StateMember.count)
            let items = count != nil && object[StateMember.items] == nil ? nil : try members.objects(StateMember.items)
            if let count, let items, items.count != count {
                throw WireDecodingError("the State's \"count\" is \(count) but it has \(items.count) items")
            }
            content = .success(items: items, provenance: provenance)
        case .failure:
            count = nil
            guard case .object(let error)? = object[StateMember.error] else {
                throw WireDecodingError("a failure State needs an \"\(StateMember.error)\" object")
            }
            let errorMembers = Members(object: error, of: "a failure's \"\(StateMember.error)\"")
            content = .failure(
                WireFailure(
                    code: try errorMembers.integer(StateMember.Error.code),
                    message: try errorMembers.string(StateMember.Error.message)
                ))
        }
    }
}

/// Where a success state's items come from, as the wire gives it.
public struct WireProvenance: Sendable, Equatable {
    public var origin: ItemOrigin
    /// RFC 3339, UTC, milliseconds, as sent (`2026-11-21T20:41:49.123Z`).
    public var fetchedAt: String
    public var stale: Bool
    /// The change-log position the items reflect; nil unless the source keeps a log (PostgreSQL).
    public var revision: Int64?
    /// Why the items are stale; nil unless they are.
    public var staleReason: String?
    /// How many optimistic writes the items show that the source has not confirmed yet.
    public var pending: Int

    public init(origin: ItemOrigin, fetchedAt: String, stale: Bool, revision: Int64? = nil, staleReason: String? = nil, pending: Int = 0) {
        self.origin = origin
        self.fetchedAt = fetchedAt
        self.stale = stale
        self.revision = revision
        self.staleReason = staleReason
        self.pending = pending
    }
}

/// A failure state's error: its code (see `DepotErrorCode`) and message.
public struct WireFailure: Sendable, Equatable {
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }
}
