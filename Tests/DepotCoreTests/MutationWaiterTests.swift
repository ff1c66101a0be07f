import DepotCore
import DepotPlatform
import DepotTestSupport
import Testing

/// Something a callback holds, so a test sees by a weak reference whether the mutation still keeps the callback.
private final class Held: Sendable {}

@Suite("Mutation: callbacks when it finishes, withdrawn when no longer wanted", .timeLimit(.minutes(1)))
struct MutationWaiterTests {
    @Test("a callback registered before the end is called once, at the end; one registered after, at once")
    func callbacks() async throws {
        let fixture = Fixture()
        let gate = fixture.source.holdNextFetch()
        let mutation = fixture.repository.load()
        let seen = Locked<[Int]>([])
        weak var held: Held?
        do {
            let token = Held()
            held = token
            mutation.whenFinished { result in
                withExtendedLifetime(token) { seen.withLock { $0.append((try? result.get())?.seq ?? -1) } }
            }
        }
        #expect(held != nil, "kept while the mutation runs")
        gate.open()
        _ = await mutation.result
        #expect(seen.withLock { $0 } == [2])
        #expect(held == nil, "a finished mutation keeps no callback")
        mutation.whenFinished { result in seen.withLock { $0.append((try? result.get())?.seq ?? -1) } }
        #expect(seen.withLock { $0 } == [2, 2], "called at once, on this thread")
    }

    @Test("a withdrawn callback is let go at once and never called; the mutation still runs")
    func withdrawal() async throws {
        let fixture = Fixture()
        let gate = fixture.source.holdNextFetch()
        let mutation = fixture.repository.load()
        let called = Locked(false)
        weak var withdrawn: Held?
        weak var other: Held?
        let (waiter, kept) = { () -> (Mutation<MutationResult>.Waiter, Mutation<MutationResult>.Waiter) in
            let (first, second) = (Held(), Held())
            (withdrawn, other) = (first, second)
            return (
                mutation.whenFinished { _ in withExtendedLifetime(first) { called.withLock { $0 = true } } },
                mutation.whenFinished { _ in withExtendedLifetime(second) {} }
            )
        }()
        mutation.withdraw(waiter)
        #expect(withdrawn == nil, "a withdrawn callback is let go at once")
        #expect(other != nil, "the other callback is kept")
        gate.open()
        _ = try await mutation.result.get()
        #expect(!called.withLock { $0 })
        mutation.withdraw(kept)
        mutation.withdraw(waiter)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]"])
    }
}
