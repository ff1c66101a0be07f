/// What the repository holds when it asks a source to delete an item: the items, the version the source gave
/// with them, and the member their ids were read from. A source that rewrites its whole content (a file) may write
/// it from these items when the version shows they are still its content, instead of reading and parsing it again.
public struct HeldItems: Sendable {
    public let items: ItemCollection
    public let version: SourceVersion?
    public let idField: String

    public init(items: ItemCollection, version: SourceVersion?, idField: String) {
        self.items = items
        self.version = version
        self.idField = idField
    }
}
