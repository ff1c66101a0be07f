import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

@Suite("Repository: joining loads, mutation order, reads")
struct MutationOrderTests {
    @Test("N loads while one is in flight: one source call, every caller gets the same outcome")
    func concurrentLoadsJoin() async throws {
        let fixture = Fixture()
        let gate = fixture.source.holdNextFetch()
        let first = fixture.repository.load()
        try await withTimeout { await fixture.source.calls.wait { $0.fetchesStarted == 1 } }
        let others = (0..<20).map { _ in fixture.repository.load() }
        gate.open()
        let expected = try await first.result.get()
        for other in others {
            #expect(try await other.result.get() == expected)
        }
        #expect(fixture.source.calls.value.fetchesStarted == 1)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]"])
    }

    @Test("loadAfterChange never joins a load under way: the source is read again after it, and its items are published")
    func loadAfterChangeDoesNotJoin() async throws {
        let fixture = Fixture()
        let gate = fixture.source.holdNextFetch()
        let first = fixture.repository.load()
        try await withTimeout { await fixture.source.calls.wait { $0.fetchesStarted == 1 } }
        let afterChange = fixture.repository.loadAfterChange()
        gate.open()
        _ = try await first.result.get()
        let changed = try await afterChange.result.get()
        #expect(fixture.source.calls.value.fetchesStarted == 2)
        #expect(changed.seq == 4, "its own loading and success, after the first load's")
    }

    @Test("loads submitted concurrently from many tasks share one source call")
    func loadsFromManyTasks() async throws {
        let fixture = Fixture()
        let gate = fixture.source.holdNextFetch()
        let results = try await withTimeout {
            try await withThrowingTaskGroup(of: PublishedState.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await fixture.repository.load().result.get() }
                }
                await fixture.source.calls.wait { $0.fetchesStarted == 1 }
                gate.open()
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(results.count == 50)
        #expect(Set(results.map(\.seq)) == [2])
        #expect(fixture.source.calls.value.fetchesStarted == 1)
    }

    @Test("a joined failure is every caller's failure")
    func joinedFailure() async throws {
        let fixture = Fixture()
        let gate = fixture.source.holdNextFetch()
        fixture.source.failNextFetch()
        let first = fixture.repository.load()
        let second = fixture.repository.load()
        gate.open()
        #expect(await first.result.failureValue == (await second.result.failureValue))
        #expect(await first.result.failureValue?.kind == .loadFailed)
    }

    @Test("a load never joins one that other mutations were queued behind")
    func loadAfterQueuedRemovalDoesNotJoin() async throws {
        let fixture = Fixture()
        let gate = fixture.source.holdNextFetch()
        let first = fixture.repository.load()
        let removal = fixture.repository.remove(id: "1")
        let second = fixture.repository.load()
        gate.open()
        _ = try await second.result.get()
        #expect(try await first.result.get().seq == 2)
        #expect(try await removal.result.get().seq == 4)
        #expect(try await second.result.get().seq == 6)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "loading", "success[2,3]", "loading", "success[2,3]"])
        #expect(fixture.source.calls.value.fetchesStarted == 3)
    }

    @Test("a load after a finished load starts a new source call")
    func finishedLoadIsNotJoined() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        _ = try await fixture.loaded()
        #expect(fixture.source.calls.value.fetchesStarted == 2)
    }

    @Test("mutations run one at a time, in arrival order")
    func mutationsRunInArrivalOrder() async throws {
        let fixture = Fixture(source: TestSource(count: 5))
        let gate = fixture.source.holdNextFetch()
        let mutations = [
            fixture.repository.load(),
            fixture.repository.remove(id: "5"),
            fixture.repository.remove(id: "4", optimistic: true),
            fixture.repository.wipe(),
            fixture.repository.load(),
            fixture.repository.remove(id: "1"),
        ]
        try await withTimeout { await fixture.source.calls.wait { $0.fetchesStarted == 1 } }
        #expect(fixture.trace == ["idle", "loading"], "nothing else runs while the first load waits")
        gate.open()
        var seqs: [Int] = []
        for mutation in mutations {
            seqs.append(try await mutation.result.get().seq)
        }
        #expect(seqs == seqs.sorted())
        #expect(
            fixture.trace == [
                "idle",
                "loading", "success[1,2,3,4,5]",
                "loading", "success[1,2,3,4]",
                "success[1,2,3]", "success[1,2,3]",
                "idle",
                "loading", "success[1,2,3]",
                "loading", "success[2,3]",
            ])
        #expect(fixture.source.calls.value.deletedIDs == ["5", "4", "1"])
        #expect(fixture.seqsAreConsecutive)
    }

    @Test("reads answer at once while a mutation waits on a slow source")
    func readsDoNotWait() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        let gate = fixture.source.holdNextDelete()
        let removal = fixture.repository.remove(id: "2", optimistic: true)
        try await withTimeout { await fixture.source.calls.wait { $0.deletesStarted == 1 } }
        // The delete is held: these reads must not wait for it (if they did, this test would hang).
        #expect(fixture.repository.current.seq == 3)
        #expect(fixture.repository.item(id: "1") != nil)
        #expect(fixture.repository.item(id: "2") == nil)
        gate.open()
        _ = try await removal.result.get()
    }

    @Test("a mutation's result can be awaited by many callers, before and after it finished")
    func resultAwaitedTwice() async throws {
        let fixture = Fixture()
        let load = fixture.repository.load()
        let early = try await load.result.get()
        let late = try await load.result.get()
        #expect(early == late)
        #expect(load.finishedResult != nil)
    }
}
