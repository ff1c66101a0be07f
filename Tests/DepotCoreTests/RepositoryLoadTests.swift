import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

@Suite("Repository: load")
struct RepositoryLoadTests {
    @Test("a new repository is idle at seq 0, and an observer sees that state first")
    func startsIdle() {
        let fixture = Fixture()
        #expect(fixture.repository.current == PublishedState(seq: 0, state: .idle))
        #expect(fixture.trace == ["idle"])
    }

    @Test("load publishes loading, then success with the items in the source's order")
    func loadSucceeds() async throws {
        let fixture = Fixture()
        let published = try await fixture.loaded()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]"])
        #expect(published.seq == 2)
        #expect(fixture.repository.current == published)
        #expect(fixture.seqsAreConsecutive)
        #expect(fixture.source.calls.value.fetchesStarted == 1)
    }

    @Test("a failing source gives loading, then failure(loadFailed) with the source's reason")
    func loadFails() async throws {
        let fixture = Fixture()
        fixture.source.failNextFetch(SourceError(.unavailable, "cannot read /nowhere/items.json: No such file or directory"))
        let result = await fixture.repository.load().result
        #expect(fixture.trace == ["idle", "loading", "failure(loadFailed)"])
        let error = try #require(result.failureValue)
        #expect(error.kind == .loadFailed)
        #expect(error.message == "cannot read /nowhere/items.json: No such file or directory")
        #expect(error.state == fixture.repository.current)
        #expect(error.state.state == .failure(StateError(.loadFailed, message: error.message)))
    }

    @Test("items are kept as given: member order, unknown members and number literals")
    func itemsKeptAsGiven() async throws {
        let text = #"[{"name":"Mew","id":151,"extra":{"b":1,"a":[1.50,2e3]},"zz":null}]"#
        let source = TestSource(items: try JSONParser.parse(text).arrayValue!)
        let fixture = Fixture(source: source)
        let published = try await fixture.loaded()
        let item = try #require(published.state.items?.items.first)
        #expect(item.id == "151")
        #expect(String(decoding: item.json, as: UTF8.self) == #"{"name":"Mew","id":151,"extra":{"b":1,"a":[1.50,2e3]},"zz":null}"#)
    }

    @Test("string and integer ids are accepted; integers are exposed as their text")
    func idTypes() async throws {
        let source = TestSource(items: [["id": "a-1"], ["id": 7], ["id": -3], ["id": .number(JSONNumber(literal: "12345678901234567890")!)]])
        let fixture = Fixture(source: source)
        let published = try await fixture.loaded()
        #expect(Fixture.ids(published.state) == ["a-1", "7", "-3", "12345678901234567890"])
        #expect(fixture.repository.item(id: "7") != nil)
    }

    @Test("the id is read from the configured field")
    func customIDField() async throws {
        let source = TestSource(items: [["key": "x", "id": 1], ["key": "y", "id": 1]], idField: "key")
        let fixture = Fixture(source: source, idField: "key")
        let published = try await fixture.loaded()
        #expect(Fixture.ids(published.state) == ["x", "y"])
    }

    @Test(
        "an unusable list fails the load with a message naming the index or the id",
        arguments: [
            (#"[{"id":1},{"name":"no id"}]"#, "item at index 1 has no \"id\" member to use as its id (set --id-field if the id lives elsewhere)"),
            (#"[{"id":1},{"id":2},{"id":1}]"#, "duplicate id \"1\": items at index 0 and 2 both have it"),
            (#"[{"id":"7"},{"id":7}]"#, "duplicate id \"7\": items at index 0 and 1 both have it"),
            (#"[{"id":1},[1,2]]"#, "item at index 1 is not a JSON object (found array)"),
            (#"[{"id":1.5}]"#, "item at index 0 has an unusable \"id\": the number 1.5; ids must be non-empty strings or integers"),
            (#"[{"id":true}]"#, "item at index 0 has an unusable \"id\": a value of type boolean; ids must be non-empty strings or integers"),
            (#"[{"id":""}]"#, "item at index 0 has an unusable \"id\": an empty string; ids must be non-empty strings or integers"),
            (#"[{"id":null}]"#, "item at index 0 has an unusable \"id\": a value of type null; ids must be non-empty strings or integers"),
        ]
    )
    func invalidCollections(text: String, message: String) async throws {
        let fixture = Fixture(source: TestSource(items: try JSONParser.parse(text).arrayValue!))
        let error = try #require(await fixture.repository.load().result.failureValue)
        #expect(error.kind == .loadFailed)
        #expect(error.message == "test:memory: \(message)")
        #expect(fixture.trace == ["idle", "loading", "failure(loadFailed)"])
    }

    @Test("a load after a failure succeeds again and replaces the failure")
    func recoversAfterFailure() async throws {
        let fixture = Fixture()
        fixture.source.failNextFetch()
        _ = await fixture.repository.load().result
        _ = try await fixture.loaded()
        #expect(fixture.trace == ["idle", "loading", "failure(loadFailed)", "loading", "success[1,2,3]"])
        #expect(fixture.seqsAreConsecutive)
    }

    @Test("an observer added later sees the current state first, then what follows")
    func lateObserver() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        let late = StateRecorder()
        fixture.repository.addObserver(late)
        _ = await fixture.repository.wipe().result
        #expect(late.states.value.map(\.seq) == [2, 3])
        #expect(late.statuses == [.success, .idle])
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}

@Suite("Repository: replacing the source")
struct ReplaceSourceTests {
    @Test("replaceSource switches source and id field, then loads from the new one, in its turn")
    func replaceSource() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        let other = TestSource(items: [["key": "a"], ["key": "b"]], idField: "key")
        let gate = fixture.source.holdNextDelete()
        let removal = fixture.repository.remove(id: "1")
        let replacement = fixture.repository.replaceSource(other, idField: "key")
        gate.open()
        _ = try await removal.result.get()
        let published = try await replacement.result.get()
        #expect(Fixture.ids(published.state) == ["a", "b"])
        #expect(fixture.repository.idField == "key")
        #expect(fixture.repository.source.description == other.description)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "loading", "success[2,3]", "loading", "success[a,b]"])
        #expect(other.calls.value.fetchesStarted == 1)
    }

    @Test("a new source that fails leaves a failure, not the old items")
    func replacementFails() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        let broken = TestSource(count: 1)
        broken.failNextFetch()
        let error = try #require(await fixture.repository.replaceSource(broken, idField: "id").result.failureValue)
        #expect(error.kind == .loadFailed)
        #expect(fixture.repository.item(id: "1") == nil)
    }
}
