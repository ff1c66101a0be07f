package import DepotCore
package import DepotJSON
import DepotPlatform

/// The injectable source for repository and server tests: it serves a list held in memory, counts its
/// calls, can fail on demand, can be held mid-call by a gate, and can be slowed by a fixed delay. Given a
/// `version`, it answers conditional fetches as an HTTP server would: unchanged when asked about that version.
/// A write answers as `deletionAnswer` says: by default `.relist`, as an HTTP API does.
package final class TestSource: WritableSource {
    /// What has happened so far; wait on `calls` for a call to have started.
    package struct Calls: Sendable, Equatable {
        package var fetchesStarted = 0
        package var fetchesFinished = 0
        package var deletesStarted = 0
        package var deletesFinished = 0
        package var deletedIDs: [String] = []
        /// The ids of every change written, removals included, in order.
        package var writtenIDs: [String] = []
        /// The version each fetch was asked about, in order (nil: an unconditional fetch).
        package var versionsAsked: [SourceVersion?] = []
        package var unchangedAnswers = 0
    }

    private struct Behaviour {
        var items: [JSONValue]
        var idField: String
        var fetchFailures: [SourceError] = []
        var deleteFailures: [SourceError] = []
        var fetchGates: [Gate] = []
        var deleteGates: [Gate] = []
        var delay: Duration = .zero
        var version: SourceVersion?
        var deletionAnswer: DeletionAnswer = .relist
        var conditionalAnswers: [SourceListing] = []
        var lifetime: FreshnessLifetime?
        var placement: NewItemPlacement = .last
    }

    /// How a deletion answers (`SourceDeletion`), for testing each path of the repository.
    package enum DeletionAnswer: Sendable {
        /// `.relist`: the repository fetches the list again.
        case relist
        /// `.applied`: the changes are made, nothing said of the rest.
        case removed
        /// `.remaining`: the list after the deletion, as a file source gives it.
        case remaining
        /// `.changed`: the repository asks for the changes since its version, as a source with a change log does.
        case changed
    }

    private let behaviour: Locked<Behaviour>
    package let calls = Condition(Calls())
    package let description = "test:memory"

    package init(items: [JSONValue] = [], idField: String = "id") {
        self.behaviour = Locked(Behaviour(items: items, idField: idField))
    }

    /// Items numbered 1…count: `{"id": n, "name": "item n"}`.
    package convenience init(count: Int) {
        self.init(items: (1...max(count, 1)).prefix(count).map { ["id": .number(JSONNumber($0)), "name": .string("item \($0)")] })
    }

    package var items: [JSONValue] {
        get { behaviour.withLock { $0.items } }
        set { behaviour.withLock { $0.items = newValue } }
    }

    /// The version the items are; nil (the default) makes every fetch return the items, as a file would.
    package var version: SourceVersion? {
        get { behaviour.withLock { $0.version } }
        set { behaviour.withLock { $0.version = newValue } }
    }

    /// The lifetime every answer states from now on (as an HTTP source's caching headers would); nil (the default)
    /// for none.
    package var lifetime: FreshnessLifetime? {
        get { behaviour.withLock { $0.lifetime } }
        set { behaviour.withLock { $0.lifetime = newValue } }
    }

    /// How deletions answer from now on.
    package var deletionAnswer: DeletionAnswer {
        get { behaviour.withLock { $0.deletionAnswer } }
        set { behaviour.withLock { $0.deletionAnswer = newValue } }
    }

    /// Every call is slowed by `delay` (on top of any gate).
    package func setDelay(_ delay: Duration) {
        behaviour.withLock { $0.delay = delay }
    }

    /// The next fetch throws `error` (each call to this queues one failure).
    package func failNextFetch(_ error: SourceError = SourceError(.unavailable, "test source is down")) {
        behaviour.withLock { $0.fetchFailures.append(error) }
    }

    /// The next delete throws `error`.
    package func failNextDelete(_ error: SourceError = SourceError(.refused, "test source refuses")) {
        behaviour.withLock { $0.deleteFailures.append(error) }
    }

    /// The next fetch waits, after it has started, until the returned gate opens.
    package func holdNextFetch() -> Gate {
        let gate = Gate()
        behaviour.withLock { $0.fetchGates.append(gate) }
        return gate
    }

    /// The next delete waits, after it has started, until the returned gate opens.
    package func holdNextDelete() -> Gate {
        let gate = Gate()
        behaviour.withLock { $0.deleteGates.append(gate) }
        return gate
    }

    package func fetchItems() async throws -> [JSONValue] {
        guard case .items(let items, _) = try await fetchItems(ifChangedSince: nil) else { return [] }
        return items
    }

    /// Answers the next conditional fetches (those given a version) with these, in order, instead of comparing
    /// versions: a source with a change log, saying what changed.
    package func answerConditionalFetches(with answers: [SourceListing]) {
        behaviour.withLock { $0.conditionalAnswers.append(contentsOf: answers) }
    }

    package func fetch(ifChangedSince asked: SourceVersion?) async throws -> SourceAnswer {
        let listing = try await fetchItems(ifChangedSince: asked)
        return SourceAnswer(listing, lifetime: behaviour.withLock { $0.lifetime })
    }

    package func fetchItems(ifChangedSince asked: SourceVersion?) async throws -> SourceListing {
        calls.update {
            $0.fetchesStarted += 1
            $0.versionsAsked.append(asked)
        }
        let (gate, delay, failure) = behaviour.withLock { behaviour in
            (behaviour.fetchGates.popFirst(), behaviour.delay, behaviour.fetchFailures.popFirst())
        }
        await gate?.wait()
        if delay > .zero { try? await Task.sleep(for: delay) }
        defer { calls.update { $0.fetchesFinished += 1 } }
        if let failure { throw failure }
        let (items, version, answer) = behaviour.withLock { ($0.items, $0.version, asked == nil ? nil : $0.conditionalAnswers.popFirst()) }
        if let answer { return answer }
        if let asked, asked == version {
            calls.update { $0.unchangedAnswers += 1 }
            return .unchanged
        }
        return .items(items, version: version)
    }

    /// Where new items go; `.last` by default, as a file puts them.
    package var newItemPlacement: NewItemPlacement {
        get { behaviour.withLock { $0.placement } }
        set { behaviour.withLock { $0.placement = newValue } }
    }

    /// Makes the changes to the list held, in order, all or none, checking each expectation against it (a conflict
    /// names the change and the item held); answers as `deletionAnswer` says. Removals count as deletes, the rest as
    /// writes; `failNextDelete` and `holdNextDelete` apply to every write.
    package func write(_ changes: [SourceChange], held: HeldItems?) async throws -> SourceWriteResult {
        calls.update { $0.deletesStarted += 1 }
        let (gate, delay, failure) = behaviour.withLock { behaviour in
            (behaviour.deleteGates.popFirst(), behaviour.delay, behaviour.deleteFailures.popFirst())
        }
        await gate?.wait()
        if delay > .zero { try? await Task.sleep(for: delay) }
        defer { calls.update { $0.deletesFinished += 1 } }
        if let failure { throw failure }
        let (remaining, idField, answer, created, before) = try behaviour.withLock { behaviour throws(SourceError) in
            let field = behaviour.idField
            let before = behaviour.items
            var items = behaviour.items
            var created: [Bool] = []
            for (index, change) in changes.enumerated() {
                let position = items.firstIndex { Self.id(of: $0, field: field) == change.id }
                let current = position.flatMap { try? ItemCollection(values: [items[$0]], idField: field).items.first }
                guard change.isMet(by: current) else {
                    throw SourceError.conflict(index: index, change, current: current, in: "test:memory")
                }
                switch change.write {
                case .remove(let id):
                    guard let position else { throw SourceError.notFound(id: id, in: "test:memory") }
                    items.remove(at: position)
                    created.append(false)
                case .put(let item):
                    let value: JSONValue
                    do { value = try item.value } catch { throw SourceError(.invalidData, "test:memory: \(error)") }
                    if let position {
                        items[position] = value
                    } else if behaviour.placement == .byID {
                        let at = items.firstIndex { Self.id(of: $0, field: field).map { ItemCollection.idPrecedes(item.id, $0) } ?? false }
                        items.insert(value, at: at ?? items.count)
                    } else {
                        items.append(value)
                    }
                    created.append(position == nil)
                }
            }
            behaviour.items = items
            return (items, field, behaviour.deletionAnswer, created, before)
        }
        calls.update {
            $0.deletedIDs.append(contentsOf: changes.filter { $0.write.item == nil }.map(\.id))
            $0.writtenIDs.append(contentsOf: changes.map(\.id))
        }
        let outcome: SourceWriteOutcome
        switch answer {
        case .relist: outcome = .relist
        case .removed: outcome = .applied
        case .remaining:
            // As a file source does: the held items with the changes made, when they are what it held.
            let held = held.flatMap { held in held.items.items.map(\.json) == before.map(\.jsonBytes) ? held.items : nil }
            let placement = behaviour.withLock { $0.placement }
            let items = try held?.applying(changes.map(\.write), placement: placement) ?? ItemCollection(values: remaining, idField: idField)
            outcome = .remaining(items, version: nil)
        case .changed: outcome = .changed
        }
        return SourceWriteResult(outcome, created: created)
    }

    private static func id(of item: JSONValue, field: String) -> String? {
        switch item[field] {
        case .string(let id)?: id
        case .number(let number)?: number.literal
        default: nil
        }
    }
}

extension Array {
    fileprivate mutating func popFirst() -> Element? {
        isEmpty ? nil : removeFirst()
    }
}
