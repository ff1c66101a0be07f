/// One change as a source is asked to make it: the write, what the source must still hold for it to be made, and —
/// when a client patched — the patch it came from.
///
/// The repository resolves every client change against the items it shows, so a source sees whole items: a put of
/// the patched item, conditional on the item it was patched from (`expected`), so that a patch never overwrites a
/// change it did not see. A source that applies patches itself (an HTTP API) may send `patch` instead.
public struct SourceChange: Sendable, Equatable {
    /// What must hold at the source for the change to be made.
    public enum Expectation: Sendable, Equatable {
        /// Nothing: a put creates or replaces; a removal needs the item to be there (else notFound).
        case anything
        /// No item with the id (a put that only creates).
        case absent
        /// This very item: its JSON, as depotd holds it (a source that normalises JSON, such as PostgreSQL's
        /// jsonb, compares it as such).
        case item(Item)
    }

    public let write: ItemWrite
    public let expected: Expectation
    /// The patch the put was made from; nil for a put or removal the client asked for as such.
    public let patch: ItemPatch?
    /// True when `expected` is only the item the patch was applied to, not a precondition of the client's: a source that
    /// applies the patch itself (an HTTP API's PATCH) applies it to what it holds, and need not check it.
    public let expectsOnlyBase: Bool

    public init(_ write: ItemWrite, expected: Expectation = .anything, patch: ItemPatch? = nil, expectsOnlyBase: Bool = false) {
        self.write = write
        self.expected = expected
        self.patch = patch
        self.expectsOnlyBase = expectsOnlyBase
    }

    /// The id of the item changed.
    public var id: String { write.id }

    /// Whether `current` (the item the source holds now; nil when it holds none) meets the expectation; a removal
    /// with no expectation needs the item to be there, which the source reports as notFound, not as a conflict.
    public func isMet(by current: Item?) -> Bool {
        switch expected {
        case .anything: true
        case .absent: current == nil
        case .item(let item): current?.json == item.json
        }
    }
}

/// What a source says once it has made a write: so the repository publishes what it holds now without reading it a
/// second time when the source already knows.
public struct SourceWriteResult: Sendable, Equatable {
    public var outcome: SourceWriteOutcome
    /// For each change in order, whether it created its item; nil when the source cannot tell (the repository then
    /// goes by the items it held).
    public var created: [Bool]?

    public init(_ outcome: SourceWriteOutcome, created: [Bool]? = nil) {
        self.outcome = outcome
        self.created = created
    }
}

/// What a source holds after a write.
public enum SourceWriteOutcome: Sendable, Equatable {
    /// The changes are made; the source says nothing of the other items, which stay as the repository holds them.
    case applied
    /// The changes are made, and these are all the items the source holds now, in order, read or written as part of
    /// the write (a file rewritten from what it held). Their ids were read with the source's id field, which is the
    /// repository's. `version` is theirs, as a fetch would give it, when the source can tell.
    case remaining(ItemCollection, version: SourceVersion?)
    /// The changes are made; the source may have changed in other ways that only a new listing shows (an HTTP API
    /// other clients write to), so the repository lists it again.
    case relist
    /// The changes are made, and the source keeps a change log: the repository asks it what changed since the version
    /// it holds (the write, and whatever other writers did meanwhile), rather than for every item.
    case changed
}
