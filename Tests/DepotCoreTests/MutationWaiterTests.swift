import DepotCore
import DepotPlatform
import DepotTestSupport
import Testing

@Suite("Mutation: callbacks when it finishes, withdrawn when no longer wanted", .timeLimit(.minutes(1)))
struct MutationWaiterTests {
    @Test("a callback registered before the end is called once, at the end; one registered after, at once")
    func callbacks() async throws {
        let fixture = Fixture()
        let gate = fixture.source.holdNextFetch()
        let mutation = fixture.repository.load()
        let seen = Locked<[Int]>([])
        mutation.whenFinished { result in seen.withLock { $0.append((try? result.get())?.seq ?? -1) } }
        #expect(mutation.waitingCount == 1)
        gate.open()
        _ = await mutation.result
        #expect(seen.withLock { $0 } == [2])
        #expect(mutation.waitingCount == 0, "a finished mutation keeps no callback")
        mutation.whenFinished { result in seen.withLock { $0.append((try? result.get())?.seq ?? -1) } }
        #expect(seen.withLock { $0 } == [2, 2], "called at once, on this thread")
    }

    @Test("a withdrawn callback is let go at once and never called; the mutation still runs")
    func withdrawal() async throws {
        let fixture = Fixture()
        let gate = fixture.source.holdNextFetch()
        let mutation = fixture.repository.load()
        let called = Locked(false)
        let waiter = mutation.whenFinished { _ in called.withLock { $0 = true } }
        let kept = mutation.whenFinished { _ in }
        mutation.withdraw(waiter)
        #expect(mutation.waitingCount == 1, "only the other callback is kept")
        gate.open()
        _ = try await mutation.result.get()
        #expect(!called.withLock { $0 })
        mutation.withdraw(kept)
        mutation.withdraw(waiter)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]"])
    }
}
