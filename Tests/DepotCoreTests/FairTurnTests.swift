import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

@Suite("Repository: a fair turn between requesters, and what a closed connection queued is dropped")
struct FairTurnTests {
    static let flooder = Requester(user: 1000, connection: 1)
    static let other = Requester(user: 1001, connection: 2)

    @Test("one connection's flood of removals does not hold back another user's wipe: it runs next in turn")
    func floodDoesNotStarveAnother() async throws {
        let fixture = Fixture(source: TestSource(count: 60))
        _ = try await fixture.loaded()
        let gate = fixture.source.holdNextDelete()
        let flood = (1...50).map { fixture.repository.remove(id: "\($0)", by: Self.flooder) }
        try await withTimeout { await fixture.source.calls.wait { $0.deletesStarted == 1 } }
        let wipe = fixture.repository.wipe(by: Self.other)
        gate.open()
        // Loaded at seq 2; the removal under way when the wipe came (loading 3, success 4); then the wipe, idle at 5:
        // no other removal of the flood went first.
        let wiped = try await wipe.result.get().seq
        #expect(wiped == 5, "\(fixture.trace)")
        for removal in flood { _ = await removal.result }
        #expect(fixture.source.calls.value.deletedIDs.count == 50)
        #expect(fixture.seqsAreConsecutive)
    }

    @Test("each requester's mutations run in the order it sent them, whatever the others send")
    func eachRequesterInOrder() async throws {
        let fixture = Fixture(source: TestSource(count: 20))
        _ = try await fixture.loaded()
        let gate = fixture.source.holdNextDelete()
        var first: [Mutation<MutationResult>] = []
        var second: [Mutation<MutationResult>] = []
        for n in 1...10 {
            first.append(fixture.repository.remove(id: "\(n)", by: Self.flooder))
            second.append(fixture.repository.remove(id: "\(n + 10)", by: Self.other))
        }
        gate.open()
        for mutation in first + second { _ = try await mutation.result.get() }
        let deleted = fixture.source.calls.value.deletedIDs
        #expect(deleted.filter { Int($0)! <= 10 } == (1...10).map(String.init))
        #expect(deleted.filter { Int($0)! > 10 } == (11...20).map(String.init))
        // Turns alternate.
        #expect(Array(deleted.prefix(4)) == ["1", "11", "2", "12"])
    }

    @Test("what a requester queued and did not start is dropped with a cancelled failure; the one under way finishes")
    func dropQueued() async throws {
        let fixture = Fixture(source: TestSource(count: 5))
        _ = try await fixture.loaded()
        let gate = fixture.source.holdNextDelete()
        let running = fixture.repository.remove(id: "1", by: Self.flooder)
        try await withTimeout { await fixture.source.calls.wait { $0.deletesStarted == 1 } }
        let queued = [fixture.repository.remove(id: "2", by: Self.flooder), fixture.repository.wipe(by: Self.flooder)]
        let others = fixture.repository.remove(id: "3", by: Self.other)
        #expect(fixture.repository.queuedMutations == [1000: 2, 1001: 1])
        #expect(fixture.repository.dropQueued(by: Self.flooder) == 2)
        #expect(fixture.repository.dropQueued(by: Self.flooder) == 0)
        for mutation in queued {
            let failure = try #require(await mutation.result.failureValue)
            #expect(failure.kind == .cancelled)
            #expect(failure.message.contains("connection 1 of uid 1000"))
        }
        gate.open()
        _ = try await running.result.get()
        _ = try await others.result.get()
        #expect(fixture.source.calls.value.deletedIDs == ["1", "3"])
        #expect(fixture.trace.last == "success[2,4,5]", "neither the dropped removal nor the wipe ran")
    }

    @Test("a load another connection joined still runs when the first one goes, and in the joiner's turn")
    func joinedLoadSurvivesItsFirstRequester() async throws {
        let fixture = Fixture(source: TestSource(count: 5))
        _ = try await fixture.loaded()
        let gate = fixture.source.holdNextDelete()
        let running = fixture.repository.remove(id: "1")
        try await withTimeout { await fixture.source.calls.wait { $0.deletesStarted == 1 } }
        let first = fixture.repository.load(by: Self.flooder)
        let joined = fixture.repository.load(by: Self.other)
        #expect(first === joined, "one load for both")
        let after = fixture.repository.remove(id: "2", by: Self.other)
        #expect(fixture.repository.dropQueued(by: Self.flooder) == 0, "the load is still wanted")
        gate.open()
        _ = try await running.result.get()
        let loaded = try await joined.result.get()
        let removed = try await after.result.get()
        #expect(loaded.seq < removed.seq, "the joiner's load ran before its later removal")
        // The first load, the relist after each removal, and one fetch for the shared load.
        #expect(fixture.source.calls.value.fetchesStarted == 4)
    }

    @Test("a load does not join one queued by another when the joiner has work queued before it")
    func noJoinPastOwnWork() async throws {
        let fixture = Fixture(source: TestSource(count: 5))
        _ = try await fixture.loaded()
        let gate = fixture.source.holdNextDelete()
        let running = fixture.repository.remove(id: "1")
        try await withTimeout { await fixture.source.calls.wait { $0.deletesStarted == 1 } }
        let ownRemoval = fixture.repository.remove(id: "2", by: Self.other)
        let load = fixture.repository.load(by: Self.flooder)
        let ownLoad = fixture.repository.load(by: Self.other)
        #expect(load !== ownLoad)
        gate.open()
        _ = try await running.result.get()
        let removed = try await ownRemoval.result.get()
        #expect(try await ownLoad.result.get().seq > removed.seq)
        _ = try await load.result.get()
    }
}
