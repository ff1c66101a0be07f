/// What a source said about the version of the list it sent: HTTP's validators, kept so the next load can
/// ask "has it changed?" (If-None-Match / If-Modified-Since) instead of fetching the whole list again.
/// Both are optional: a file source has neither, and an HTTP server may send one, both or none.
public struct SourceVersion: Sendable, Hashable {
    /// The `ETag` header as the server sent it, quotes and `W/` included.
    public var etag: String?
    /// The `Last-Modified` header as the server sent it.
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// No validator: the next load fetches unconditionally.
    public static let none = SourceVersion()
}
