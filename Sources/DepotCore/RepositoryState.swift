#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything about the repository that changes, in one value: the source it reads, the state it published last, the
/// items the source holds as far as depotd knows (`confirmed`), the writes it shows before the source confirmed them
/// (`pending`), and how the source has answered (`health`).
///
/// Every event — the source gave items, failed, confirmed or refused a write; a write was admitted; a wipe — is a
/// transition that returns the states to publish, in order, each numbered one higher than the last. What is shown is
/// always `confirmed` with every pending write applied on top; a state that shows the same items as the one before
/// is derived from it, so the fan-out's delta costs the change, not the collection. No locks, no I/O, no time (the
/// caller passes the instants): `Repository` holds it under its one lock, carries out what it returns, and the tests
/// drive every event in every state.
struct RepositoryState: Sendable {
    /// The items the source holds as depotd last read or wrote them: with where they came from, and the version the
    /// source gave with them (nil when it gave none, or the items are no longer exactly what it sent).
    struct Confirmed: Sendable, Equatable {
        var items: ItemCollection
        var provenance: Provenance
        var version: SourceVersion?
    }

    var source: any Source
    var idField: String
    /// The state published last.
    private(set) var latest = PublishedState(seq: 0, state: .idle)
    /// What the source holds, as far as depotd knows; nil when it holds no items from it (idle, a failed load).
    private(set) var confirmed: Confirmed?
    /// Optimistic writes shown before the source confirmed them, oldest first.
    private(set) var pending = PendingLayer()
    /// How the source has answered lately.
    var health = SourceHealth()
    /// The items of the last success published: what a subscriber holds, from which the next success is derived (a
    /// failure shown between two successes does not change it).
    private var shownItems: ItemCollection?
    private var nextWriteNumber = 0

    init(source: any Source, idField: String) {
        self.source = source
        self.idField = idField
    }

    // MARK: Loading

    /// A load or a non-optimistic removal is under way: subscribers see `loading`. What the source holds is still known.
    /// Nil, and nothing changes, while writes are pending: they are shown, and a load waits for them.
    mutating func loading() -> PublishedState? {
        guard pending.isEmpty else { return nil }
        return publish(.loading)
    }

    /// The source (or the cache standing in for it) gave `items`: they are what it holds, shown with any pending writes
    /// on them. When they were made from the items confirmed before (a change log's changes, a write), the state shown
    /// is derived from the one before at the cost of the change.
    mutating func confirm(_ items: ItemCollection, provenance: Provenance, version: SourceVersion?) -> PublishedState {
        let previous = confirmed?.items
        confirmed = Confirmed(items: items, provenance: provenance, version: version)
        return show(touching: previous.flatMap { items.changedIDs(since: $0) })
    }

    /// The source answered that nothing changed since the version held: the same items, confirmed at `fetchedAt`.
    mutating func confirmUnchanged(at fetchedAt: Date) -> PublishedState? {
        guard let held = confirmed else { return nil }
        return confirm(held.items, provenance: .source(at: fetchedAt, revision: held.version?.revision), version: held.version)
    }

    /// A load failed with nothing to stand in: the failure is shown, and nothing is known of the source's items. Nil,
    /// and nothing changes, while writes are pending.
    mutating func fail(_ error: StateError) -> PublishedState? {
        guard pending.isEmpty else { return nil }
        confirmed = nil
        return publish(.failure(error))
    }

    /// The source can no longer be asked (`reason`): the items shown are marked stale; nil when none are, or they
    /// already are.
    mutating func markStale(because reason: String) -> PublishedState? {
        guard var held = confirmed, !held.provenance.stale, latest.state.status == .success else { return nil }
        held.provenance = held.provenance.markedStale(because: reason)
        confirmed = held
        return show(touching: [])
    }

    /// The items are dropped (a wipe): idle, and nothing known of the source's items. Nil, and nothing changes, while
    /// writes are pending.
    mutating func wipe() -> PublishedState? {
        guard pending.isEmpty else { return nil }
        confirmed = nil
        return publish(.idle)
    }

    /// Another source (or id field) is read from now on; what was known of the old one's version and health goes. False,
    /// and nothing changes, while writes are pending (they are the old source's).
    @discardableResult
    mutating func replaceSource(_ source: any Source, idField: String) -> Bool {
        guard pending.isEmpty else { return false }
        self.source = source
        self.idField = idField
        confirmed?.version = nil
        health = SourceHealth()
        return true
    }

    /// The source gave the items held again, with `version`: nothing to show, the version is kept.
    mutating func keepVersion(_ version: SourceVersion?) {
        confirmed?.version = version
    }

    // MARK: Writes

    /// An optimistic write is shown at once, over the items shown: it is pending until the source confirms or refuses
    /// it. Returns its number and the state to publish; nil, and nothing changes, unless items are shown (a success).
    mutating func admit(_ writes: [ItemWrite]) -> (number: Int, published: PublishedState)? {
        guard confirmed != nil, shownItems != nil, latest.state.status == .success else { return nil }
        let number = nextWriteNumber
        nextWriteNumber += 1
        pending.append(PendingLayer.Entry(number: number, writes: writes))
        return (number, show(touching: Set(writes.map(\.id))))
    }

    /// The source made pending write `number`, and now holds `items` (confirmed): the write leaves the layer. When the
    /// source holds what was shown, the state published shows the same items (only `pending` drops). Nil, and nothing
    /// changes, when no such write is pending.
    mutating func confirmWrite(_ number: Int, holding items: ItemCollection, provenance: Provenance, version: SourceVersion?) -> PublishedState? {
        guard let entry = pending.remove(number) else { return nil }
        let previous = confirmed?.items
        confirmed = Confirmed(items: items, provenance: provenance, version: version)
        return show(touching: Self.touched(by: entry, from: previous, to: items))
    }

    /// The source refused pending write `number` (`failure` says why): a failure naming it, then the items confirmed
    /// with every other pending write still on them — that write alone undone. Nothing when no such write is pending.
    mutating func refuseWrite(_ number: Int, failure: StateError) -> [PublishedState] {
        guard let entry = pending.remove(number) else { return [] }
        let failed = publish(.failure(failure))
        return [failed, show(touching: entry.ids)]
    }

    /// Pending write `number` writes `writes` from now on (its patch applied again to the item the source holds): shown
    /// as such; nil when nothing shown changes.
    mutating func rewrite(_ number: Int, as writes: [ItemWrite]) -> PublishedState? {
        guard let old = pending.replace(number, with: writes) else { return nil }
        let (before, shownBefore) = (latest, shownItems)
        let shown = show(touching: old.ids.union(writes.map(\.id)))
        guard shown.state != before.state else {
            // Nothing a subscriber sees changed: nothing is published, and the seq is not spent either.
            (latest, shownItems) = (before, shownBefore)
            return nil
        }
        return shown
    }

    /// A write that was not shown first was refused after `loading` was shown (a non-optimistic removal): a failure
    /// naming it, then the items as the source still holds them.
    mutating func refuseShown(_ failure: StateError) -> [PublishedState] {
        let failed = publish(.failure(failure))
        guard confirmed != nil else { return [failed] }
        return [failed, show(touching: [])]
    }

    // MARK: Showing

    /// The ids in which `items` (confirmed now) and `previous` (confirmed before) can differ when the source made
    /// `entry`: its own and those of the delta between them; nil when the delta is not known (a new list).
    private static func touched(by entry: PendingLayer.Entry?, from previous: ItemCollection?, to items: ItemCollection) -> Set<String>? {
        guard let previous, let changed = items.changedIDs(since: previous) else { return nil }
        return (entry?.ids ?? []).union(changed)
    }

    /// Publishes `confirmed` with every pending write on it. `touched`: the ids in which it can differ from the items
    /// shown last, so the new state is derived from those (nil: anything may differ; the fan-out compares).
    private mutating func show(touching touched: Set<String>?) -> PublishedState {
        guard let held = confirmed else { preconditionFailure("shown without confirmed items") }
        let target = pending.applied(to: held.items, placement: source.newItemPlacement)
        var items = target
        if let touched, let shown = shownItems {
            let delta = shown.delta(to: target, touching: touched)
            items = delta.isEmpty ? shown : shown.applying(delta) ?? target
        }
        if pending.isEmpty {
            // Equal items, and the one collection from now on: the next write derives from what subscribers hold.
            confirmed?.items = items
        }
        let provenance =
            pending.isEmpty ? held.provenance : held.provenance.derived.pending(pending.count)
        return publish(.success(items, provenance))
    }

    /// Publishes `state` with the next seq.
    private mutating func publish(_ state: LoadingState) -> PublishedState {
        latest = PublishedState(seq: latest.seq + 1, state: state)
        if let items = state.items { shownItems = items }
        if case .idle = state { shownItems = nil }
        return latest
    }
}
