import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

@Suite("Repository: remove")
struct RepositoryRemoveTests {
    @Test("not optimistic: loading, delete, refetch, success(list)")
    func pessimisticRemove() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        let published = try await fixture.repository.remove(id: "2").result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "loading", "success[1,3]"])
        #expect(published == fixture.states.last)
        #expect(fixture.source.calls.value.deletedIDs == ["2"])
        #expect(fixture.source.calls.value.fetchesStarted == 2)
        #expect(fixture.seqsAreConsecutive)
    }

    @Test("optimistic: success without the item at once, before the source answers; then success(list)")
    func optimisticRemove() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        let deleteGate = fixture.source.holdNextDelete()
        let removal = fixture.repository.remove(id: "2", optimistic: true)
        try await withTimeout { await fixture.source.calls.wait { $0.deletesStarted == 1 } }
        // The source has not answered yet, and every observer already sees the item gone.
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,3]"])
        #expect(fixture.repository.item(id: "2") == nil)
        deleteGate.open()
        let published = try await removal.result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,3]", "success[1,3]"])
        #expect(published.seq == 4)
    }

    @Test("the final state is the refetched list, which may differ from the optimistic guess")
    func refetchIsTheTruth() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        let deleteGate = fixture.source.holdNextDelete()
        let removal = fixture.repository.remove(id: "1", optimistic: true)
        try await withTimeout { await fixture.source.calls.wait { $0.deletesStarted == 1 } }
        fixture.source.items.append(["id": 4])  // someone else added an item meanwhile
        deleteGate.open()
        _ = try await removal.result.get()
        #expect(fixture.trace.suffix(2) == ["success[2,3]", "success[2,3,4]"])
    }

    @Test("not optimistic, source refuses: loading, failure(changeFailed), then the items as before")
    func pessimisticRollback() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        fixture.source.failNextDelete(SourceError(.refused, "HTTP 403 from the test source"))
        let error = try #require(await fixture.repository.remove(id: "2").result.failureValue)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "loading", "failure(changeFailed)", "success[1,2,3]"])
        #expect(error.kind == .changeFailed)
        #expect(error.message == "could not remove \"2\": HTTP 403 from the test source")
        #expect(error.state == fixture.states.last)
        #expect(fixture.states[4].state == .failure(StateError(.changeFailed, message: error.message)))
        #expect(fixture.seqsAreConsecutive)
    }

    @Test("optimistic, source refuses: success without it, failure(changeFailed), then the items as before")
    func optimisticRollback() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        fixture.source.failNextDelete()
        let error = try #require(await fixture.repository.remove(id: "3", optimistic: true).result.failureValue)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,2]", "failure(changeFailed)", "success[1,2,3]"])
        #expect(error.state.state.items == fixture.states[2].state.items)
        #expect(fixture.repository.item(id: "3") != nil)
        #expect(fixture.source.calls.value.fetchesStarted == 1, "a refused removal does not refetch")
    }

    @Test(
        "an id that is not among the items: the answer is notFound and subscribers see nothing, optimistic or not",
        arguments: [false, true])
    func notFound(optimistic: Bool) async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        let error = try #require(await fixture.repository.remove(id: "99", optimistic: optimistic).result.failureValue)
        #expect(error.kind == .notFound)
        #expect(error.message == "test:memory has no item with id \"99\"")
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]"])
        #expect(error.state == fixture.states.last)
        #expect(fixture.source.calls.value.deletesStarted == 1, "the source was asked: the items held may be older than it")
    }

    @Test("an id the source has but the items held do not: no loading first; the source's list after it")
    func removeUnseen() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        fixture.source.items.append(["id": 4])  // added at the source since the items held were loaded
        _ = try await fixture.repository.remove(id: "4").result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,2,3]"])
        #expect(fixture.seqsAreConsecutive)
    }

    @Test("delete succeeds but the refetch fails: the previous items without the id, and the removal stands")
    func refetchFails() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        fixture.source.failNextFetch()
        let published = try await fixture.repository.remove(id: "1").result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "loading", "success[2,3]"])
        #expect(published == fixture.repository.current)
        #expect(fixture.source.calls.value.deletedIDs == ["1"])
    }

    @Test("optimistic with the refetch failing: the optimistic list is published again")
    func optimisticRefetchFails() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        fixture.source.failNextFetch()
        _ = try await fixture.repository.remove(id: "1", optimistic: true).result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[2,3]", "success[2,3]"])
    }

    @Test("optimistic before anything is loaded: nothing to hide early, so straight to delete and refetch")
    func optimisticWithoutItems() async throws {
        let fixture = Fixture()
        let published = try await fixture.repository.remove(id: "2", optimistic: true).result.get()
        #expect(fixture.trace == ["idle", "success[1,3]"])
        #expect(published.seq == 1)
    }

    @Test("a refused removal from idle publishes nothing: there was nothing to see change")
    func refusedFromIdle() async throws {
        let fixture = Fixture()
        fixture.source.failNextDelete()
        let error = try #require(await fixture.repository.remove(id: "2").result.failureValue)
        #expect(error.kind == .changeFailed)
        #expect(fixture.trace == ["idle"])
    }
}

@Suite("Repository: wipe")
struct RepositoryWipeTests {
    @Test("wipe publishes idle and drops the items held in memory")
    func wipe() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        let published = try await fixture.repository.wipe().result.get()
        #expect(published == PublishedState(seq: 3, state: .idle))
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "idle"])
        #expect(fixture.repository.item(id: "1") == nil)
        #expect(fixture.source.calls.value.deletesStarted == 0, "wipe never touches the source")
    }
}
