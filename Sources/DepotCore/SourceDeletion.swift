/// What a source says once it has deleted an item: so the repository publishes the new list without reading
/// the source a second time when the source already knows it.
public enum SourceDeletion: Sendable, Equatable {
    /// The item is gone; the source says nothing of the others, which stay as the repository holds them.
    case removed
    /// The item is gone, and these are all the items the source holds now, in order, read as part of the
    /// deletion (a file rewritten from what it held). Their ids were read with the source's id field, which
    /// is the repository's. `version` is theirs, as a fetch would give it, when the source can tell.
    case remaining(ItemCollection, version: SourceVersion?)
    /// The item is gone; the source may have changed in other ways that only a new listing shows (an HTTP
    /// API other clients write to), so the repository lists it again.
    case relist
    /// The item is gone, and the source keeps a change log: the repository asks it what changed since the version it
    /// holds (the removal, and whatever other writers did meanwhile), rather than for every item.
    case changed
}
