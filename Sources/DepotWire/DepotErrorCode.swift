/// Depot's own JSON-RPC error codes, in the server-error range (-32000 to -32099), as rpc-schema/openrpc.json
/// lists them in `components/errors`. The domain speaks of error kinds; the server makes them codes
/// (`DomainErrors.swift`).
public enum DepotErrorCode {
    /// `load` failed; `data` is the failure state it published.
    public static let loadFailed = -32001
    /// The source refused a change (`remove`, `put`, `patch`, `apply`) or cannot be written; `data` holds the
    /// rolled-back state.
    public static let changeFailed = -32002
    /// No item has that id; for `remove`, `data` is the rolled-back state.
    public static let notFound = -32003
    /// A per-connection limit was reached (for example, too many subscriptions).
    public static let limitExceeded = -32004

    /// The caller's credentials do not grant the access the method needs; nothing changed.
    public static let forbidden = -32005
    /// A named pipeline comes from a configuration file and cannot be changed through the socket.
    public static let readOnly = -32006
    /// The state directory could not be written (a full disk, a read-only file system): for a pipeline, nothing
    /// changed; for a wipe or a removal, the change was made in memory but the cache on disk still holds what it
    /// removed (`data` is the state published).
    public static let storageFailed = -32007

    /// A conditional change found something else than it expected (`ifMatch`, `ifAbsent`, a JSON Patch `test`);
    /// `data` holds the item as it is now and its etag (null when there is none). Nothing changed.
    public static let conflict = -32008
    /// An item a change would leave fails the item schema; `data` lists every violation. Nothing changed.
    public static let invalidItem = -32009
    /// A write may or may not be in the source (it could neither be made durable nor undone); `data` holds the state
    /// depotd published, without it. depotd reads the source again; a `get` shows which.
    public static let outcomeUnknown = -32010

    /// Every code of Depot's own: the protocol's catalogue of them.
    public static let all = [
        loadFailed, changeFailed, notFound, limitExceeded, forbidden, readOnly, storageFailed, conflict, invalidItem, outcomeUnknown,
    ]
}
