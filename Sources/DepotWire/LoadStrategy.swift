/// The `strategy` param of `load`, as the protocol names it; the server maps it to the repository's strategy.
public enum LoadStrategy: String, Sendable, CaseIterable {
    /// A success already in memory is the answer, without asking the source; else the cache; else the source.
    case fastestAvailable
    /// Ask the source; if it fails and the cache has a list, answer that list marked stale. The default for `load`.
    case upToDateWithFallback
    /// Publish the cache's list at once, then ask the source and publish its answer.
    case returnMultipleTimes
}
