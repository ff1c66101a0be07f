/// The error a failure state carries, and the error a failed mutation ends with: what kind of failure it is
/// and a message a user can act on. The protocol gives each kind its code (DepotWire's `DepotErrorCode`);
/// the domain knows only the kinds.
public struct StateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in the domain's terms. A struct, not an enum, so kinds can be added without
    /// breaking code that switches over them.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, as the protocol's document names its error (`loadFailed`).
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The source could not be read, or what it returned is not a valid collection.
        public static let loadFailed = Kind("loadFailed")
        /// The source refused to delete an item.
        public static let removeFailed = Kind("removeFailed")
        /// No item has the requested id.
        public static let notFound = Kind("notFound")
        /// The change was made in memory, but the on-disk cache could neither take it nor be deleted (a read-only
        /// state directory): after a restart it would serve what the change removed.
        public static let storageFailed = Kind("storageFailed")
        /// The mutation never ran: the client that asked for it went away before its turn.
        public static let cancelled = Kind("cancelled")

        public var description: String { name }
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
