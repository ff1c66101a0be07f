public import DepotJSON

/// One change a client asks for — put an item, patch it, or remove it — with the condition it is made on. The
/// repository resolves it against the items it shows (`ChangeResolver`) into the `ItemWrite` it makes and the
/// `SourceChange` the source is asked for.
public struct ItemChange: Sendable, Equatable {
    /// What is done to the item.
    public enum Operation: Sendable, Equatable {
        /// Create or replace it with this object (whose id member, if any, must be the change's id).
        case put(JSONObject)
        /// Patch the item there is; there must be one.
        case patch(ItemPatch)
        /// Remove it.
        case remove
    }

    /// What must hold for the change to be made; otherwise it fails with a conflict and changes nothing.
    public enum Precondition: Sendable, Equatable {
        /// Nothing: the change is made to whatever is there (a patch to the item as it is then).
        case none
        /// The item is there, and its etag is this one: the version the client read.
        case ifMatch(String)
        /// There is no item with the id (a put that only creates).
        case ifAbsent
    }

    public var id: String
    public var operation: Operation
    public var precondition: Precondition
    /// The id as the client gave it (a string or an integer), for an item put without its id member; nil: as the items
    /// held write their ids.
    public var idValue: JSONValue?

    public init(id: String, operation: Operation, precondition: Precondition = .none, idValue: JSONValue? = nil) {
        self.id = id
        self.operation = operation
        self.precondition = precondition
        self.idValue = idValue
    }

    public static func put(_ id: String, _ item: JSONObject, _ precondition: Precondition = .none) -> ItemChange {
        ItemChange(id: id, operation: .put(item), precondition: precondition)
    }

    public static func patch(_ id: String, _ patch: ItemPatch, _ precondition: Precondition = .none) -> ItemChange {
        ItemChange(id: id, operation: .patch(patch), precondition: precondition)
    }

    public static func remove(_ id: String, _ precondition: Precondition = .none) -> ItemChange {
        ItemChange(id: id, operation: .remove, precondition: precondition)
    }

    /// The operation's name, as the protocol spells it: put, patch or remove.
    public var operationName: String {
        switch operation {
        case .put: "put"
        case .patch: "patch"
        case .remove: "remove"
        }
    }
}

/// A patch to one item, in one of the two formats HTTP APIs use.
public enum ItemPatch: Sendable, Equatable {
    /// RFC 7396 JSON Merge Patch: an object whose members replace the item's, `null` removing one.
    case merge(JSONValue)
    /// RFC 6902 JSON Patch: operations applied in order, whole or not at all.
    case jsonPatch(JSONPatch)

    /// The patch applied to `item`.
    public func apply(to item: JSONValue) throws(JSONPatchError) -> JSONValue {
        switch self {
        case .merge(let patch): JSONMergePatch.apply(patch, to: item)
        case .jsonPatch(let patch): try patch.apply(to: item)
        }
    }

    /// The patch as its media type sends it (an HTTP PATCH's body).
    public var json: JSONValue {
        switch self {
        case .merge(let patch): patch
        case .jsonPatch(let patch): patch.json
        }
    }

    /// The media type of the patch's format: `application/merge-patch+json` or `application/json-patch+json`.
    public var mediaType: String {
        switch self {
        case .merge: "application/merge-patch+json"
        case .jsonPatch: "application/json-patch+json"
        }
    }
}
