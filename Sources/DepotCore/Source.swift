import DepotJSON

/// Where the collection comes from. The repository touches data only through a source:
/// it lists every item, and deletes one item by id.
///
/// A source is called by one mutation at a time; it need not guard against concurrent calls from
/// the repository, but it must be `Sendable` because mutations run on whatever task drains the queue.
public protocol Source: Sendable {
    /// Names the source in logs and error messages, e.g. `file:/var/lib/depot/items.json`.
    /// Must never contain a secret.
    var description: String { get }

    /// Every item, in the source's order. Each element should be a JSON object; the repository
    /// checks that, and the ids, when it builds the collection.
    func fetchItems() async throws -> [JSONValue]

    /// Deletes the item `id`. Throws `SourceError.notFound` when the source has no such item.
    func deleteItem(id: String) async throws
}
