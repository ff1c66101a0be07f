/// The members of a State on the wire (`components/schemas/State` in rpc-schema/openrpc.json), named once for
/// the encoder, the decoder and the clients that read states.
public enum StateMember {
    public static let seq = "seq"
    /// The daemon run the seq belongs to (see `Repository.epoch`).
    public static let epoch = "epoch"
    public static let status = "status"
    /// Success only: where the items come from.
    public static let origin = "origin"
    /// Success only: when the source gave the list (RFC 3339).
    public static let fetchedAt = "fetchedAt"
    /// Success only: whether the items stand in for a source that failed.
    public static let stale = "stale"
    /// Success only, and only when stale: why (the source's error).
    public static let staleReason = "staleReason"
    /// Success only, and only from a source with a change log (PostgreSQL): the log position the items reflect.
    public static let revision = "revision"
    /// Success only: how many optimistic writes the items show that the source has not confirmed yet.
    public static let pending = "pending"
    /// Success only, delta-mode subscriptions only: how many items the state has (after applying its delta).
    public static let count = "count"
    /// Success only: the items, in order. A delta-mode notification that carries a `delta` leaves it out.
    public static let items = "items"
    /// Failure only: `{"code", "message"}`.
    public static let error = "error"

    /// The members of a failure's `error`.
    public enum Error {
        public static let code = "code"
        public static let message = "message"
    }
}
