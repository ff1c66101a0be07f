/// Which version of the collection a source returned, in the source's own terms: an HTTP ETag and
/// Last-Modified date, as the server sent them, the position in a change log the items reflect, or a digest of
/// the bytes the items were read from. Given back to
/// the source on the next load, it lets the source answer "unchanged", or only what changed, instead of sending
/// the whole list again.
///
/// A plain value, so that it can be kept beside the items (in memory, and on disk by the cache).
public struct SourceVersion: Sendable, Hashable, Codable, CustomStringConvertible {
    /// An entity tag exactly as sent, quotes and `W/` included: `"abc"`, `W/"abc"`.
    public var etag: String?
    /// An HTTP date exactly as sent: `Wed, 21 Oct 2015 07:28:00 GMT`.
    public var lastModified: String?
    /// The position in the source's change log these items reflect (a PostgreSQL source): the same data has the
    /// same revision in every daemon that reads the source.
    public var revision: Int64?
    /// A digest of the bytes the items were read from (`sha256:` and 64 hexadecimal digits): a source that reads
    /// bytes (a file, an HTTP body) answers "unchanged" when it reads the same bytes again, without parsing them.
    public var digest: String?

    /// nil when none is given: a version that names nothing is no version.
    public init?(etag: String? = nil, lastModified: String? = nil, revision: Int64? = nil, digest: String? = nil) {
        guard etag != nil || lastModified != nil || revision != nil || digest != nil else { return nil }
        self.etag = etag
        self.lastModified = lastModified
        self.revision = revision
        self.digest = digest
    }

    public var description: String {
        [
            etag.map { "etag \($0)" }, lastModified.map { "last modified \($0)" }, revision.map { "revision \($0)" },
            digest.map { "digest \($0.prefix(19))…" },
        ]
        .compactMap { $0 }.joined(separator: ", ")
    }
}
