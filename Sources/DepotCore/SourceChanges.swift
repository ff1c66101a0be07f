public import DepotJSON

/// What changed in a source since a version the repository holds, as a source with a change log tells it: the
/// items added or changed, each whole, and the ids removed. Applied to the items held, it gives what a full
/// listing would, without reading the items that did not change.
public struct SourceChanges: Sendable, Equatable {
    /// Items added or changed, each as the source holds it now.
    public var changed: [JSONValue]
    /// Ids of the items the source no longer holds.
    public var removed: [String]

    public init(changed: [JSONValue] = [], removed: [String] = []) {
        self.changed = changed
        self.removed = removed
    }

    public var isEmpty: Bool { changed.isEmpty && removed.isEmpty }

    /// How many items changed in all.
    public var count: Int { changed.count + removed.count }
}
