/// The error a failure state carries, and the error a failed mutation ends with: what kind of failure it is
/// and a message a user can act on. The protocol gives each kind its code (DepotWire's `DepotErrorCode`);
/// the domain knows only the kinds.
public struct StateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in the domain's terms. An enum: whoever maps kinds to something else (the protocol's codes)
    /// switches over every one, so a kind added here cannot go unmapped.
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The source could not be read, or what it returned is not a valid collection.
        case loadFailed
        /// The source refused a change — a removal, a put, a patch, a batch — or cannot be written at all; the message
        /// says why (and, for a source that cannot be written, which setting allows it).
        case changeFailed
        /// A conditional change found something else than it expected: the item changed since the version the client
        /// read (`ifMatch`), is gone, or is there when it was to be created (`ifAbsent`). Nothing changed.
        case conflict
        /// The change itself is wrong: an item that is not an object, an id member that is not the change's id, a
        /// patch that would change the id, an item over the size limit. Nothing changed.
        case invalidChange
        /// The item a change would leave fails the item schema; every violation is listed. Nothing changed.
        case invalidItem
        /// No item has the requested id.
        case notFound
        /// A write may or may not be in the source: it could neither be confirmed nor undone (a file whose directory
        /// cannot be synced, and whose old content cannot be put back). depotd reads the source again; a `get` shows
        /// which, and a conditional write (`ifMatch`) retries it without a lost update.
        case outcomeUnknown
        /// The change was made in memory, but the on-disk cache could neither take it nor be deleted (a read-only
        /// state directory): after a restart it would serve what the change removed.
        case storageFailed
        /// The mutation never ran, or was stopped: the client that asked for it went away before its turn, or depotd
        /// stopped (after its server, so no client is answered with it).
        case cancelled

        /// The kind's name, as the protocol's document names its error (`loadFailed`).
        public var name: String { rawValue }

        public var description: String { rawValue }
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
