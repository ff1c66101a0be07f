public import DepotJSON

/// What a conditional fetch returns: the items with the version they are, or word that the version the
/// repository holds is still current.
public enum SourceListing: Sendable, Equatable {
    /// Every item, in the source's order, and the version they are (nil when the source cannot tell).
    case items([JSONValue], version: SourceVersion?)
    /// Every item, already checked into a collection with ids read from `idField` (a source that reads its own
    /// bytes, such as a file, can build it without a tree of values), and the version they are.
    case collection(ItemCollection, idField: String, version: SourceVersion?)
    /// Only what changed since the version the repository gave (only returned when it gave one), and the version the
    /// items are once the changes are applied. New items go where a listing sorted by id puts them (see
    /// `ItemCollection.applying`).
    case changes(SourceChanges, version: SourceVersion)
    /// The items have not changed since the version the repository gave; only returned when it gave one.
    case unchanged
}
