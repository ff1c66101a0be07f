/// The members of a `delta` (`components/schemas/Delta` in rpc-schema/openrpc.json).
public enum DeltaMember {
    /// The seq of the success state the delta applies to: the last one the subscription was sent.
    public static let base = "base"
    /// The item member that holds each item's id.
    public static let idField = "idField"
    public static let removed = "removed"
    public static let changed = "changed"
    public static let added = "added"
    /// An addition's members.
    public static let index = "index"
    public static let item = "item"
}
