import DepotCore
import DepotWire
import NIOCore
import Testing

@testable import DepotServer

@Suite("Subscription: a queue bounded in states and in bytes")
struct SubscriptionQueueTests {
    /// A state whose encoding is `bytes` bytes long (a failure whose message pads it; seqs below 10).
    static func state(_ seq: Int, bytes: Int) -> StateFrame {
        let bare = StateFrame(failure(seq, message: ""), epoch: "e").snapshot.readableBytes
        return StateFrame(failure(seq, message: String(repeating: "x", count: bytes - bare)), epoch: "e")
    }

    static func failure(_ seq: Int, message: String) -> PublishedState {
        PublishedState(seq: seq, state: .failure(StateError(.loadFailed, message: message)))
    }

    @Test("past the byte bound the oldest states go; the next one written says how many")
    func byteBound() {
        var subscription = Subscription(id: "s1")
        // The first state, written at once, as after subscribing.
        subscription.enqueue(Self.state(0, bytes: 100), limit: 256, byteLimit: 250)
        _ = subscription.nextNotification()
        for seq in 1...5 {
            subscription.enqueue(Self.state(seq, bytes: 100), limit: 256, byteLimit: 250)
        }
        #expect(subscription.queuedCount == 2, "two states of 100 bytes fit in 250")
        #expect(subscription.queuedBytes == 200)
        let first = subscription.nextNotification()
        let prefix = String(buffer: first?.prefix ?? ByteBuffer())
        #expect(prefix.contains(#""skipped":3"#), "seqs 1 to 3 were dropped: \(prefix)")
        #expect(subscription.queuedBytes == 100)
        #expect(subscription.nextNotification() != nil)
        #expect(subscription.nextNotification() == nil)
        #expect(subscription.queuedBytes == 0)
    }

    @Test("one state larger than the bound is kept, alone, and sent")
    func oversizedStateAlone() {
        var subscription = Subscription(id: "s1")
        subscription.enqueue(Self.state(1, bytes: 100), limit: 256, byteLimit: 1000)
        subscription.enqueue(Self.state(2, bytes: 5000), limit: 256, byteLimit: 1000)
        #expect(subscription.queuedCount == 1)
        #expect(subscription.queuedBytes == 5000)
        #expect(subscription.nextNotification()?.state.readableBytes == 5000)
        subscription.enqueue(Self.state(3, bytes: 100), limit: 256, byteLimit: 1000)
        #expect(subscription.queuedCount == 1, "the big one was written; the next fits")
    }

    @Test("the count bound still applies, whichever bound is met first")
    func countBound() {
        var subscription = Subscription(id: "s1")
        for seq in 1...9 {
            subscription.enqueue(Self.state(seq, bytes: 100), limit: 3, byteLimit: 1 << 20)
        }
        #expect(subscription.queuedCount == 3)
        #expect(subscription.queuedBytes == 300)
    }

    @Test("a state not newer than the last queued is ignored, and counts no bytes")
    func olderStateIgnored() {
        var subscription = Subscription(id: "s1")
        subscription.enqueue(Self.state(5, bytes: 100), limit: 8, byteLimit: 1000)
        subscription.enqueue(Self.state(5, bytes: 100), limit: 8, byteLimit: 1000)
        subscription.enqueue(Self.state(4, bytes: 100), limit: 8, byteLimit: 1000)
        #expect(subscription.queuedCount == 1)
        #expect(subscription.queuedBytes == 100)
    }
}
