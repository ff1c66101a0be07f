import DepotJSON
import DepotTestSupport
import Foundation
import Testing

@testable import DepotCore

/// The repository's state machine: every event in every state, with exactly the states each publishes, and what must
/// always hold after — seqs one apart, what is shown is what the source holds with every pending write on it.
@Suite("RepositoryState: every event in every state")
struct RepositoryStateTests {
    /// `{"id":"a","v":1}`, shown in traces as `a1`.
    static func item(_ id: String, _ version: Int) -> Item {
        Item(id: id, json: Array(#"{"id":"\#(id)","v":\#(version)}"#.utf8))
    }

    static func collection(_ items: Item...) -> ItemCollection {
        // Cannot fail: the tests' ids are distinct.
        // swift-format-ignore: NeverForceUnwrap
        try! ItemCollection(items: items)
    }

    static let fetchedAt = Date(timeIntervalSince1970: 1_700_000_000)
    static let base = collection(item("a", 0), item("b", 0), item("c", 0))
    static let version = SourceVersion(revision: 1)

    /// The states an event can find the machine in.
    enum Start: String, CaseIterable, Sendable {
        case idle, loadingUnknown, loadingKnown, success, pending1, pending2, stale, failure

        var state: RepositoryState {
            var state = RepositoryState(source: TestSource(), idField: "id")
            let base = RepositoryStateTests.base
            func confirm() { _ = state.confirm(base, provenance: .source(at: RepositoryStateTests.fetchedAt, revision: 1), version: version) }
            switch self {
            case .idle: break
            case .loadingUnknown: _ = state.loading()
            case .loadingKnown:
                confirm()
                _ = state.loading()
            case .success: confirm()
            case .pending1:
                confirm()
                _ = state.admit([.put(item("a", 1))])
            case .pending2:
                confirm()
                _ = state.admit([.put(item("a", 1))])
                _ = state.admit([.remove(id: "b")])
            case .stale:
                confirm()
                _ = state.markStale(because: "down")
            case .failure:
                _ = state.loading()
                _ = state.fail(StateError(.loadFailed, message: "no"))
            }
            return state
        }
    }

    /// Every event, each a transition that returns what it published.
    enum Event: String, CaseIterable, Sendable {
        case loading, confirmDerived, confirmNew, confirmUnchanged, fail, markStale, wipe, replaceSource, keepVersion, admit
        case confirmWrite, refuseWrite, rewrite, rewriteUnchanged, refuseShown

        func apply(to state: inout RepositoryState) -> [PublishedState] {
            let first = state.pending.first
            switch self {
            case .loading: return state.loading().map { [$0] } ?? []
            case .confirmDerived:
                let items = (state.confirmed?.items ?? base).applying([.put(item("d", 0))], placement: .last)
                return [state.confirm(items, provenance: .source(at: fetchedAt, revision: 2), version: SourceVersion(revision: 2))]
            case .confirmNew:
                return [state.confirm(collection(item("x", 0)), provenance: .source(at: fetchedAt, revision: 3), version: SourceVersion(revision: 3))]
            case .confirmUnchanged: return state.confirmUnchanged(at: fetchedAt).map { [$0] } ?? []
            case .fail: return state.fail(StateError(.loadFailed, message: "down")).map { [$0] } ?? []
            case .markStale: return state.markStale(because: "lost").map { [$0] } ?? []
            case .wipe: return state.wipe().map { [$0] } ?? []
            case .replaceSource:
                state.replaceSource(TestSource(), idField: "id")
                return []
            case .keepVersion:
                state.keepVersion(SourceVersion(revision: 9))
                return []
            case .admit: return state.admit([.put(item("e", 0))]).map { [$0.published] } ?? []
            case .confirmWrite:
                let held = (state.confirmed?.items ?? base).applying(first?.writes ?? [], placement: .last)
                return state.confirmWrite(first?.number ?? 0, holding: held, provenance: .source(at: fetchedAt, revision: 4), version: nil)
                    .map { [$0] } ?? []
            case .refuseWrite: return state.refuseWrite(first?.number ?? 0, failure: StateError(.changeFailed, message: "refused"))
            case .rewrite: return state.rewrite(first?.number ?? 0, as: [.put(item("a", 2))]).map { [$0] } ?? []
            // The patch applied again makes what was shown: nothing is published, and no seq is spent.
            case .rewriteUnchanged: return state.rewrite(first?.number ?? 0, as: first?.writes ?? []).map { [$0] } ?? []
            case .refuseShown: return state.refuseShown(StateError(.changeFailed, message: "refused"))
            }
        }
    }

    /// A published state as the table writes it: `loading`, `failure`, `idle`, or `success[a0,b0] p1` (` stale`).
    static func trace(_ state: LoadingState) -> String {
        switch state {
        case .success(let items, let provenance):
            let ids = items.items.map { item in item.id + (String(decoding: item.json, as: UTF8.self).split(separator: ":").last?.dropLast() ?? "") }
            return "success[\(ids.joined(separator: ","))] p\(provenance.pending)" + (provenance.stale ? " stale" : "")
        default:
            return state.status.rawValue
        }
    }

    /// What each event publishes from each state ("—": nothing).
    static let table: [Event: [Start: String]] = [
        .loading: [
            .idle: "loading", .loadingUnknown: "loading", .loadingKnown: "loading", .success: "loading", .pending1: "—", .pending2: "—",
            .stale: "loading", .failure: "loading",
        ],
        .confirmDerived: [
            .idle: "success[a0,b0,c0,d0] p0", .loadingUnknown: "success[a0,b0,c0,d0] p0", .loadingKnown: "success[a0,b0,c0,d0] p0",
            .success: "success[a0,b0,c0,d0] p0", .pending1: "success[a1,b0,c0,d0] p1", .pending2: "success[a1,c0,d0] p2",
            .stale: "success[a0,b0,c0,d0] p0", .failure: "success[a0,b0,c0,d0] p0",
        ],
        .confirmNew: [
            .idle: "success[x0] p0", .loadingUnknown: "success[x0] p0", .loadingKnown: "success[x0] p0", .success: "success[x0] p0",
            .pending1: "success[x0,a1] p1", .pending2: "success[x0,a1] p2", .stale: "success[x0] p0", .failure: "success[x0] p0",
        ],
        .confirmUnchanged: [
            .idle: "—", .loadingUnknown: "—", .loadingKnown: "success[a0,b0,c0] p0", .success: "success[a0,b0,c0] p0",
            .pending1: "success[a1,b0,c0] p1", .pending2: "success[a1,c0] p2", .stale: "success[a0,b0,c0] p0", .failure: "—",
        ],
        .fail: [
            .idle: "failure", .loadingUnknown: "failure", .loadingKnown: "failure", .success: "failure", .pending1: "—", .pending2: "—",
            .stale: "failure", .failure: "failure",
        ],
        .markStale: [
            .idle: "—", .loadingUnknown: "—", .loadingKnown: "—", .success: "success[a0,b0,c0] p0 stale", .pending1: "success[a1,b0,c0] p1 stale",
            .pending2: "success[a1,c0] p2 stale", .stale: "—", .failure: "—",
        ],
        .wipe: [
            .idle: "idle", .loadingUnknown: "idle", .loadingKnown: "idle", .success: "idle", .pending1: "—", .pending2: "—", .stale: "idle",
            .failure: "idle",
        ],
        .replaceSource: Dictionary(uniqueKeysWithValues: Start.allCases.map { ($0, "—") }),
        .keepVersion: Dictionary(uniqueKeysWithValues: Start.allCases.map { ($0, "—") }),
        .admit: [
            .idle: "—", .loadingUnknown: "—", .loadingKnown: "—", .success: "success[a0,b0,c0,e0] p1", .pending1: "success[a1,b0,c0,e0] p2",
            .pending2: "success[a1,c0,e0] p3", .stale: "success[a0,b0,c0,e0] p1 stale", .failure: "—",
        ],
        .confirmWrite: [
            .idle: "—", .loadingUnknown: "—", .loadingKnown: "—", .success: "—", .pending1: "success[a1,b0,c0] p0", .pending2: "success[a1,c0] p1",
            .stale: "—", .failure: "—",
        ],
        .refuseWrite: [
            .idle: "—", .loadingUnknown: "—", .loadingKnown: "—", .success: "—", .pending1: "failure · success[a0,b0,c0] p0",
            .pending2: "failure · success[a0,c0] p1", .stale: "—", .failure: "—",
        ],
        .rewrite: [
            .idle: "—", .loadingUnknown: "—", .loadingKnown: "—", .success: "—", .pending1: "success[a2,b0,c0] p1", .pending2: "success[a2,c0] p2",
            .stale: "—", .failure: "—",
        ],
        .rewriteUnchanged: Dictionary(uniqueKeysWithValues: Start.allCases.map { ($0, "—") }),
        .refuseShown: [
            .idle: "failure", .loadingUnknown: "failure", .loadingKnown: "failure · success[a0,b0,c0] p0", .success: "failure · success[a0,b0,c0] p0",
            .pending1: "failure · success[a1,b0,c0] p1", .pending2: "failure · success[a1,c0] p2", .stale: "failure · success[a0,b0,c0] p0 stale",
            .failure: "failure",
        ],
    ]

    @Test("the table covers every event in every state, once")
    func tableIsComplete() {
        #expect(Set(Self.table.keys) == Set(Event.allCases))
        for event in Event.allCases {
            #expect(Set(Self.table[event]?.keys.map(\.self) ?? []) == Set(Start.allCases), "\(event)")
        }
    }

    @Test(
        "each event publishes what the table says, seqs one apart, and what is shown is the source's items with every pending write on them",
        arguments: Event.allCases)
    func transition(event: Event) {
        for start in Start.allCases {
            var state = start.state
            let before = state.latest
            let published = event.apply(to: &state)
            let trace = published.isEmpty ? "—" : published.map { Self.trace($0.state) }.joined(separator: " · ")
            #expect(trace == Self.table[event]?[start], "\(event) from \(start)")
            #expect(published.map(\.seq) == Array((before.seq + 1)..<(before.seq + 1 + published.count)), "\(event) from \(start)")
            #expect(state.latest == published.last ?? before)
            if case .success(let items, let provenance) = state.latest.state, let confirmed = state.confirmed {
                let expected = state.pending.applied(to: confirmed.items, placement: .last)
                #expect(Array(items.items) == Array(expected.items), "\(event) from \(start): shown is confirmed with the pending writes on it")
                #expect(provenance.pending == state.pending.count)
                #expect(provenance.origin == (state.pending.isEmpty ? confirmed.provenance.origin : .memory))
            }
        }
    }

    @Test("a write shown, then confirmed as shown: the same collection again, derived at the cost of the write, pending one lower")
    func confirmationAsShown() {
        var state = Start.success.state
        guard let (number, shown) = state.admit([.put(Self.item("a", 1))]), let shownItems = shown.state.items else {
            Issue.record("not admitted")
            return
        }
        #expect(shownItems.delta(from: Self.base) != nil, "derived from the items shown before: the fan-out's delta is the write")
        let held = Self.base.applying([.put(Self.item("a", 1))], placement: .last)
        let confirmed = state.confirmWrite(number, holding: held, provenance: .source(at: Self.fetchedAt), version: nil)
        #expect(confirmed?.state.items?.isSameCollection(as: shownItems) == true, "nothing a subscriber holds changes")
        #expect(confirmed?.state.provenance?.pending == 0)
        #expect(confirmed?.state.provenance?.origin == .source)
    }

    @Test("three writes pending, the middle one refused: the first and third stay shown, in order")
    func rollbackIsolation() {
        var state = Start.success.state
        guard let first = state.admit([.put(Self.item("a", 1))]), let middle = state.admit([.put(Self.item("a", 2)), .remove(id: "b")]),
            let third = state.admit([.put(Self.item("c", 3))])
        else {
            Issue.record("not admitted")
            return
        }
        #expect(Self.trace(third.published.state) == "success[a2,c3] p3")
        let held = Self.base.applying([.put(Self.item("a", 1))], placement: .last)
        _ = state.confirmWrite(first.number, holding: held, provenance: .source(at: Self.fetchedAt), version: nil)
        let refused = state.refuseWrite(middle.number, failure: StateError(.changeFailed, message: "no"))
        #expect(refused.map { Self.trace($0.state) } == ["failure", "success[a1,b0,c3] p1"])
    }
}
