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
    }

    public let kind: Kind
    public let message: String
    /// How long the source asked not to be asked again (an HTTP 429 or 503 with `Retry-After`); nil when it did not.
    public let retryAfter: Duration?

    public init(_ kind: Kind, _ message: String, retryAfter: Duration? = nil) {
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
    }

    public static func notFound(id: String, in source: String) -> SourceError {
        SourceError(.notFound, "\(source) has no item with id \"\(id)\"")
    }

    public var description: String { message }
}
