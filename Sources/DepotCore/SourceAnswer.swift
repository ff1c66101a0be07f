/// What one fetch gives the repository: the listing (see `SourceListing`), and how long the source says it stays
/// fresh, when it says so (an HTTP response's caching headers).
public struct SourceAnswer: Sendable, Equatable {
    public var listing: SourceListing
    /// The lifetime the answer states; nil when it states none of its own (a file, a table, or a `304 Not Modified`
    /// without caching headers, which leaves the lifetime of the answer it confirms in force).
    public var lifetime: FreshnessLifetime?

    public init(_ listing: SourceListing, lifetime: FreshnessLifetime? = nil) {
        self.listing = listing
        self.lifetime = lifetime
    }
}
