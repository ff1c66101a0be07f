/// Which version of the collection a source returned, in the source's own terms: an HTTP ETag and
/// Last-Modified date, as the server sent them. Given back to the source on the next load, it lets the
/// source answer "unchanged" instead of sending the whole list again.
///
/// A plain value, so that it can be kept beside the items (in memory now, on disk by a cache later).
public struct SourceVersion: Sendable, Hashable, Codable, CustomStringConvertible {
    /// An entity tag exactly as sent, quotes and `W/` included: `"abc"`, `W/"abc"`.
    public var etag: String?
    /// An HTTP date exactly as sent: `Wed, 21 Oct 2015 07:28:00 GMT`.
    public var lastModified: String?

    /// nil when neither is given: a version that names nothing is no version.
    public init?(etag: String? = nil, lastModified: String? = nil) {
        guard etag != nil || lastModified != nil else { return nil }
        self.etag = etag
        self.lastModified = lastModified
    }

    public var description: String {
        [etag.map { "etag \($0)" }, lastModified.map { "last modified \($0)" }].compactMap { $0 }.joined(separator: ", ")
    }
}
