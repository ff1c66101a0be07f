/// How a load combines the items in memory, the on-disk cache and the source.
public enum RetrievalStrategy: String, Sendable, CaseIterable {
    /// A success already in memory is the answer, without asking the source; else the cache, if it has the
    /// list; else the source.
    case fastestAvailable
    /// Ask the source; if it fails and the cache has a list, publish that list as success marked stale (and
    /// answer it); else failure. The default for `load`.
    case upToDateWithFallback
    /// Publish the cache's list at once (when there is one and nothing is in memory), then ask the source
    /// and publish its answer; if the source fails, the cached list stays, marked stale. The default at start-up.
    case returnMultipleTimes

    public static let defaultForLoad = RetrievalStrategy.upToDateWithFallback
    public static let defaultAtStartUp = RetrievalStrategy.returnMultipleTimes
}
