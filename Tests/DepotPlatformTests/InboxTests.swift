import DepotPlatform
import DepotTestSupport
import Testing

@Suite("Inbox: the next event, or a deadline, or cancellation")
struct InboxTests {
    @Test("events posted before the wait end it at once, and come out in order")
    func posted() async {
        let inbox = Inbox<Int>()
        inbox.post(1)
        inbox.post(2)
        await inbox.wait(until: nil, on: ManualClock())
        #expect(inbox.take() == [1, 2])
        #expect(inbox.take().isEmpty)
    }

    @Test("a wait ends when an event is posted from elsewhere")
    func wakes() async throws {
        let inbox = Inbox<String>()
        try await withTimeout(.seconds(30), "the wake-up") {
            async let waited: Void = inbox.wait(until: nil, on: ManualClock())
            inbox.post("now")
            await waited
        }
        #expect(inbox.take() == ["now"])
    }

    @Test("a wait ends at its deadline, not before")
    func deadline() async throws {
        let inbox = Inbox<Int>()
        let clock = ManualClock()
        let ended = Condition(false)
        try await withTimeout(.seconds(30), "the deadline") {
            async let waited: Void = {
                await inbox.wait(until: ManualClock.at(.seconds(5)), on: clock)
                ended.update { $0 = true }
            }()
            await clock.sleepers.wait { $0 == [ManualClock.at(.seconds(5))] }
            clock.advance(by: .seconds(4))
            #expect(!ended.value)
            clock.advance(by: .seconds(1))
            await waited
        }
        #expect(ended.value && inbox.take().isEmpty)
    }

    @Test("cancellation ends a wait with no event and no deadline")
    func cancelled() async throws {
        let inbox = Inbox<Int>()
        try await withTimeout(.seconds(30), "the cancelled wait") {
            let waiting = Task { await inbox.wait(until: nil, on: ManualClock()) }
            waiting.cancel()
            await waiting.value
        }
    }
}
