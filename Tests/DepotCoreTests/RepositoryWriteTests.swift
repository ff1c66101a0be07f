import DepotJSON
import DepotTestSupport
import Logging
import Testing

@testable import DepotCore

/// Writes through a repository on the test source: shown when optimistic, made by the source one at a time in the
/// order shown, confirmed without a visible change, refused alone.
@Suite("Repository: put, patch, apply — optimistic, conditional, rolled back alone", .timeLimit(.minutes(1)))
struct RepositoryWriteTests {
    static func fixture(_ answer: TestSource.DeletionAnswer = .remaining, rules: WriteRules = WriteRules()) -> Fixture {
        let source = TestSource(count: 3)
        source.deletionAnswer = answer
        return Fixture(source: source, rules: rules)
    }

    static func object(_ text: String) -> JSONObject {
        (try? JSONParser.parse(text))?.objectValue ?? [:]
    }

    @Test("a put that is not optimistic shows nothing until the source has it, then one state; the answer has its etag")
    func plainPut() async throws {
        let fixture = Self.fixture()
        _ = try await fixture.loaded()
        let outcome = try await fixture.repository.apply([.put("4", Self.object(#"{"name":"item 4"}"#))]).result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,2,3,4]"])
        let written = try #require(fixture.repository.item(id: "4"))
        #expect(written.json == Array(#"{"id":4,"name":"item 4"}"#.utf8), "an integer id, as the items held write theirs")
        #expect(outcome.etags == [written.etag])
        #expect(outcome.created == [true])
        #expect(fixture.source.items.count == 4)
    }

    @Test("an optimistic put is shown at once, pending, before the source answers; confirmed as shown, the same items again, pending 0")
    func optimisticPut() async throws {
        let fixture = Self.fixture()
        _ = try await fixture.loaded()
        let gate = fixture.source.holdNextDelete()
        let write = fixture.repository.apply([.patch("2", .merge(["name": "two"]))], optimistic: true)
        let shown = await fixture.recorder.waitForStates(4)[3]
        #expect(Fixture.ids(shown.state) == ["1", "2", "3"])
        #expect(shown.state.provenance?.pending == 1)
        #expect(shown.state.provenance?.origin == .memory)
        #expect(fixture.repository.item(id: "2")?.json == Array(#"{"id":2,"name":"two"}"#.utf8))
        #expect(write.finishedResult == nil, "answered only once the source has it")
        gate.open()
        let outcome = try await write.result.get()
        #expect(outcome.state.state.provenance?.pending == 0)
        #expect(outcome.state.state.items?.isSameCollection(as: try #require(shown.state.items)) == true, "nothing a subscriber holds changes")
        #expect(fixture.states.count == 5)
    }

    @Test("three optimistic writes pending on a slow source, the middle one refused: the first and third are never undone")
    func rollbackIsolation() async throws {
        let fixture = Self.fixture()
        _ = try await fixture.loaded()
        let gates = [fixture.source.holdNextDelete(), fixture.source.holdNextDelete(), fixture.source.holdNextDelete()]
        let first = fixture.repository.apply([.put("1", Self.object(#"{"v":"first"}"#))], optimistic: true, by: Requester(user: 1, connection: 1))
        let middle = fixture.repository.apply([.put("2", Self.object(#"{"v":"middle"}"#))], optimistic: true, by: Requester(user: 2, connection: 2))
        let third = fixture.repository.apply([.put("3", Self.object(#"{"v":"third"}"#))], optimistic: true, by: Requester(user: 3, connection: 3))
        let shown = await fixture.recorder.waitForStates(6)
        #expect(shown.last?.state.provenance?.pending == 3, "all three shown before the source answers any")
        gates[0].open()
        _ = try await first.result.get()
        fixture.source.failNextDelete(SourceError(.refused, "the middle one is refused"))
        gates[1].open()
        let refused = await middle.result
        gates[2].open()
        _ = try await third.result.get()
        guard case .failure(let error) = refused else {
            Issue.record("the middle write was not refused")
            return
        }
        #expect(error.kind == .changeFailed)
        // Once shown, the first and third writes are in every success state after; the middle one in none after its refusal.
        for (id, value) in [("1", #"{"id":1,"v":"first"}"#), ("3", #"{"id":3,"v":"third"}"#)] {
            let shownAt = try #require(fixture.states.firstIndex { $0.state.items?.item(id: id)?.json == Array(value.utf8) })
            for state in fixture.states[shownAt...] where state.state.status == .success {
                #expect(state.state.items?.item(id: id)?.json == Array(value.utf8), "seq \(state.seq): write \(id) undone")
            }
        }
        let afterRefusal = fixture.states.drop { $0.state.status != .failure }.dropFirst()
        #expect(!afterRefusal.isEmpty)
        for state in afterRefusal {
            #expect(state.state.items?.item(id: "2")?.json == Array(#"{"id":2,"name":"item 2"}"#.utf8), "the refused write alone is undone")
        }
        #expect(fixture.repository.current.state.provenance?.pending == 0)
        #expect(fixture.seqsAreConsecutive)
    }

    @Test("ifMatch of another version, or ifAbsent of an item there: a conflict with the item there, and nothing changes")
    func conflicts() async throws {
        let fixture = Self.fixture()
        let loaded = try await fixture.loaded()
        let two = try #require(fixture.repository.item(id: "2"))
        let stale = await fixture.repository.apply([.put("2", [:], .ifMatch("not-its-etag"))], optimistic: true).result
        guard case .failure(let conflict) = stale else {
            Issue.record("accepted")
            return
        }
        #expect(conflict.kind == .conflict)
        #expect(conflict.change?.current == .item(two))
        let there = await fixture.repository.apply([.put("2", [:], .ifAbsent)]).result
        guard case .failure(let exists) = there else {
            Issue.record("accepted")
            return
        }
        #expect(exists.kind == .conflict)
        #expect(fixture.repository.current == loaded, "nothing published")
        #expect(fixture.source.calls.value.deletesStarted == 0, "the source is not asked")
        let matched = try await fixture.repository.apply([.put("2", ["x": 1], .ifMatch(two.etag))]).result.get()
        #expect(matched.created == [false])
    }

    @Test("the source finds another version than the one a conditional write was checked against: a conflict, rolled back, and the items read again")
    func conflictAtTheSource() async throws {
        let fixture = Self.fixture()
        _ = try await fixture.loaded()
        let two = try #require(fixture.repository.item(id: "2"))
        fixture.source.items[1] = ["id": 2, "name": "changed behind depotd's back"]
        let result = await fixture.repository.apply([.put("2", ["x": 1], .ifMatch(two.etag))], optimistic: true).result
        guard case .failure(let conflict) = result else {
            Issue.record("accepted")
            return
        }
        #expect(conflict.kind == .conflict)
        guard case .item(let current)? = conflict.change?.current else {
            Issue.record("no current item")
            return
        }
        #expect(current.json == Array(#"{"id":2,"name":"changed behind depotd's back"}"#.utf8))
        // Rolled back; then, since depotd's copy is behind the source's, read again: the other writer's version shown.
        try await withTimeout(.seconds(30), "the items read again") {
            await fixture.recorder.states.wait { states in
                states.last?.state.items?.item(id: "2")?.json == Array(#"{"id":2,"name":"changed behind depotd's back"}"#.utf8)
            }
        }
        #expect(fixture.trace.suffix(4) == ["success[1,2,3]", "failure(conflict)", "success[1,2,3]", "success[1,2,3]"])
        #expect(fixture.repository.item(id: "2")?.etag == current.etag, "a retry builds on the version the conflict named")
    }

    @Test("a patch without ifMatch whose item changed at the source is applied again to the item there")
    func patchAppliedAgain() async throws {
        let fixture = Self.fixture()
        _ = try await fixture.loaded()
        fixture.source.items[1] = ["id": 2, "name": "item 2", "other": "kept"]
        let outcome = try await fixture.repository.apply([.patch("2", .merge(["name": "patched"]))]).result.get()
        #expect(fixture.repository.item(id: "2")?.json == Array(#"{"id":2,"name":"patched","other":"kept"}"#.utf8), "the other writer's member kept")
        #expect(outcome.etags == [fixture.repository.item(id: "2")?.etag])
        #expect(fixture.source.calls.value.deletesStarted == 2, "once refused as a conflict, then made")
    }

    @Test(
        "a put or a removal without a precondition whose item changed at the source is made again, not refused as a conflict",
        arguments: ["put", "remove"])
    func unconditionalMadeAgain(operation: String) async throws {
        let fixture = Self.fixture()
        _ = try await fixture.loaded()
        // Another writer (a fleet's other daemon) changed the item after this repository read it, and the source says
        // so (PostgreSQL does when a concurrent writer replaced the row under the statement).
        fixture.source.items[1] = ["id": 2, "name": "item 2", "other": "theirs"]
        let change: ItemChange = operation == "put" ? .put("2", ["name": "mine"]) : .remove("2")
        let current = Item(id: "2", json: Array(#"{"id":2,"name":"item 2","other":"theirs"}"#.utf8))
        let write: ItemWrite = operation == "put" ? .put(Item(id: "2", json: Array(#"{"id":2,"name":"mine"}"#.utf8))) : .remove(id: "2")
        fixture.source.failNextDelete(SourceError.conflict(index: 0, SourceChange(write), current: current, in: "test:memory"))
        _ = try await fixture.repository.apply([change]).result.get()
        let expected: [String] = operation == "put" ? [#"{"id":2,"name":"mine"}"#] : []
        #expect(fixture.source.items.filter { $0["id"] == 2 }.map(\.jsonText) == expected)
        #expect(fixture.source.calls.value.deletesStarted == 2, "once refused as a conflict, then made")
    }

    @Test("writes to one item from several connections reach the source in the order they were shown")
    func order() async throws {
        let fixture = Self.fixture()
        _ = try await fixture.loaded()
        let gate = fixture.source.holdNextDelete()
        var writes: [Mutation<WriteResult>] = []
        for index in 0..<12 {
            writes.append(
                fixture.repository.apply(
                    [.put("1", ["n": .number(JSONNumber(index))])], optimistic: true,
                    by: Requester(user: UInt32(index % 3), connection: UInt64(index))))
        }
        gate.open()
        for write in writes { _ = try await write.result.get() }
        // What was shown, in order, is the order the source made them in: the last shown is what the source holds.
        let shownValues = fixture.states.compactMap { $0.state.items?.item(id: "1")?.json }.map { String(decoding: $0, as: UTF8.self) }
        let lastShown = try #require(shownValues.last)
        #expect(fixture.source.items.first.map { $0.jsonText } == lastShown)
        #expect(fixture.repository.current.state.provenance?.pending == 0)
    }

    @Test("no more than maxPendingWrites are shown before the source answers; the next waits for its turn")
    func boundOfPending() async throws {
        let fixture = Self.fixture(rules: WriteRules(maxPendingWrites: 2))
        _ = try await fixture.loaded()
        let gates = (0..<3).map { _ in fixture.source.holdNextDelete() }
        let writes = (0..<3).map { fixture.repository.apply([.put("n\($0)", [:])], optimistic: true, by: Requester(user: 1, connection: UInt64($0))) }
        let shown = await fixture.recorder.waitForStates(5)
        #expect(shown.last?.state.provenance?.pending == 2)
        #expect(fixture.repository.pendingWrites == 2)
        gates[0].open()
        _ = try await writes[0].result.get()
        gates[1].open()
        gates[2].open()
        for write in writes { _ = try await write.result.get() }
        #expect(fixture.repository.current.state.items?.count == 6)
    }

    @Test("a load waits for the writes pending: it reads the source once they are made")
    func loadWaitsForWrites() async throws {
        let fixture = Self.fixture()
        _ = try await fixture.loaded()
        let gate = fixture.source.holdNextDelete()
        let write = fixture.repository.apply([.put("9", [:])], optimistic: true)
        _ = await fixture.recorder.waitForStates(4)
        let load = fixture.repository.load()
        #expect(fixture.source.calls.value.fetchesStarted == 1)
        gate.open()
        _ = try await write.result.get()
        let loaded = try await load.result.get()
        #expect(Fixture.ids(loaded.state) == ["1", "2", "3", "9"])
    }

    @Test("apply: all or none, in order, one state; a change that cannot be made names its index and nothing changes")
    func batch() async throws {
        let fixture = Self.fixture()
        let loaded = try await fixture.loaded()
        let outcome = try await fixture.repository.apply([.put("4", [:]), .patch("4", .merge(["n": 1])), .remove("1")], optimistic: true).result.get()
        #expect(outcome.etags.count == 3 && outcome.etags[2] == nil)
        #expect(fixture.trace.dropFirst(3) == ["success[2,3,4]", "success[2,3,4]"], "one state shown, then the same confirmed")
        let failed = await fixture.repository.apply([.remove("2"), .remove("404")]).result
        guard case .failure(let error) = failed else {
            Issue.record("accepted")
            return
        }
        #expect(error.change?.index == 1)
        #expect(fixture.source.items.count == 3)
        _ = loaded
    }

    @Test("with nothing loaded, a write loads the items first")
    func writeLoadsFirst() async throws {
        let fixture = Self.fixture()
        _ = try await fixture.repository.apply([.patch("1", .merge(["n": 1]))]).result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,2,3]"])
        #expect(fixture.repository.item(id: "1")?.json == Array(#"{"id":1,"name":"item 1","n":1}"#.utf8))
    }
}
