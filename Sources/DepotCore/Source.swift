public import DepotJSON

/// Where the collection comes from. The repository touches data only through a source: it lists every item. What a
/// source can do beyond that it says by adopting a capability — `WritableSource` (puts, removals, batches of them),
/// `WatchableSource` (a file others change), `ChangeFeedSource` (changes it brings in by itself) — which the repository
/// and the daemon ask for, never a concrete source type.
///
/// A source is called by one mutation at a time; it need not guard against concurrent calls from
/// the repository, but it must be `Sendable` because mutations run on whatever task drains the queue.
public protocol Source: Sendable {
    /// Names the source in logs and error messages, e.g. `file:/var/lib/depot/items.json`.
    /// Must never contain a secret.
    var description: String { get }

    /// Where reads go now, for a source that reads from replicas (`stats`); nil for one that has none (the default).
    var readsFrom: String? { get }

    /// How far behind its primary the replica read last was, as it told; nil when reads go to the source itself, or
    /// for a source without replicas (the default).
    var readLag: Duration? { get }

    /// Every item, in the source's order. Each element should be a JSON object; the repository
    /// checks that, and the ids, when it builds the collection.
    func fetchItems() async throws -> [JSONValue]

    /// Every item, unless they are still those of `version`: then `.unchanged`. `version` is what this
    /// source returned with the items the repository holds; nil means fetch unconditionally.
    ///
    /// Optional: the default fetches every time and reports no version, which is right for a source that
    /// has no cheap way to tell (a file). An HTTP source sends If-None-Match / If-Modified-Since.
    func fetchItems(ifChangedSince version: SourceVersion?) async throws -> SourceListing

    /// The listing `fetchItems(ifChangedSince:)` gives, with the lifetime the source states for it: what the
    /// repository calls. Optional: the default states none, which is right for every source but one that speaks
    /// HTTP's caching rules.
    func fetch(ifChangedSince version: SourceVersion?) async throws -> SourceAnswer

    /// Where the source puts an item it did not hold, so an optimistic write shows it there. Optional: the default is
    /// last.
    var newItemPlacement: NewItemPlacement { get }
}

extension Source {
    public var readsFrom: String? { nil }

    public var readLag: Duration? { nil }

    public func fetchItems(ifChangedSince version: SourceVersion?) async throws -> SourceListing {
        .items(try await fetchItems(), version: nil)
    }

    public func fetch(ifChangedSince version: SourceVersion?) async throws -> SourceAnswer {
        SourceAnswer(try await fetchItems(ifChangedSince: version))
    }

    public var newItemPlacement: NewItemPlacement { .last }
}
