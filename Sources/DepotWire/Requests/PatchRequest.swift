public import DepotJSON

/// `patch`: changes the item with that id by a patch — `format` `"merge"` (RFC 7396, the default) or `"json-patch"`
/// (RFC 6902, whole or not at all) — through the source, and answers once the source has it: `{"etag", "created",
/// "state"}`. A patch that would change or remove the id, or leave something that is not an object, is refused
/// (-32602); a missing item is notFound (-32003); a JSON Patch that does not fit the item (a `test` that fails) and an
/// `ifMatch` that does not match are conflicts (-32008). Nothing changes then. `optimistic` and `items` as for `put`.
public struct PatchRequest: SingleChangeRequest {
    public static let method = "patch"
    public static let operation = WireChange.Operation.patch

    public var change: WireChange
    public var optimistic: Bool
    public var items: Bool

    public init(change: WireChange, optimistic: Bool, items: Bool) {
        self.change = change
        self.optimistic = optimistic
        self.items = items
    }

    public init(id: JSONValue, patch: WireChange.Patch, ifMatch: String? = nil, optimistic: Bool = false, items: Bool = false) {
        self.init(change: WireChange(.patch, id: id, patch: patch, ifMatch: ifMatch), optimistic: optimistic, items: items)
    }
}
