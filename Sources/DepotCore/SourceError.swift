/// An error a source throws, with a message that names the source and says what went wrong.
/// Sources may throw other errors too; the repository uses their descriptions as the message.
public struct SourceError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The source has no item with the requested id.
        case notFound
        /// The source could not be reached or read (missing file, I/O error, …).
        case unavailable
        /// The source answered, but with data that is not a JSON array of objects.
        case invalidData
        /// The source refused the request.
        case refused
        /// A write's expectation does not hold: the item is not the one the change was made from, or is there when it
        /// was to be created (`conflict` says which change, and what the source holds).
        case conflict
        /// The source cannot be written at all, as configured; the message says which setting allows it.
        case unsupported
        /// A write may or may not be in the source, now or after a power loss: the source could neither confirm it nor
        /// undo it (a file's directory that cannot be synced, and the old content that cannot be put back).
        case outcomeUnknown
    }

    /// Which change of a write met something else than it expected, and what the source holds.
    public struct Conflict: Sendable, Equatable {
        /// The change's index in the write.
        public let index: Int
        /// The item the source holds with that id now; nil when it holds none. Unknown (nil) too when the source
        /// cannot say (an HTTP API that answered 409 or 412).
        public let current: Item?

        public init(index: Int, current: Item?) {
            self.index = index
            self.current = current
        }
    }

    public let kind: Kind
    public let message: String
    /// How long the source asked not to be asked again (an HTTP 429 or 503 with `Retry-After`); nil when it did not.
    public let retryAfter: Duration?
    /// For `conflict`: which change and what the source holds.
    public let conflict: Conflict?

    public init(_ kind: Kind, _ message: String, retryAfter: Duration? = nil, conflict: Conflict? = nil) {
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
        self.conflict = conflict
    }

    public static func notFound(id: String, in source: String) -> SourceError {
        SourceError(.notFound, "\(source) has no item with id \"\(id)\"")
    }

    /// Change `index` of a write, `change`, did not find what it expected: `current` is what `source` holds with its
    /// id (nil: nothing).
    public static func conflict(index: Int, _ change: SourceChange, current: Item?, in source: String) -> SourceError {
        let what: String
        switch (current, change.expected) {
        case (nil, _): what = "has no item \"\(change.id)\" (any more)"
        case (let current?, .absent): what = "already has an item \"\(change.id)\" (etag \(current.etag))"
        case (let current?, _): what = "has another version of item \"\(change.id)\" than the change was made from (its etag is now \(current.etag))"
        }
        return SourceError(.conflict, "\(source) \(what)", conflict: Conflict(index: index, current: current))
    }

    public var description: String { message }
}
