/// Where a success state's items come from (`origin`), as the protocol names it.
public enum ItemOrigin: String, Sendable, CaseIterable {
    /// The source gave these items (or confirmed them unchanged) in this load or removal.
    case source
    /// Read from the on-disk cache: the last list the source gave, possibly in an earlier run.
    case cache
    /// Derived in memory from items held: an optimistic removal, or a removal whose refetch failed.
    case memory
}
