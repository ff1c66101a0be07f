import NIOCore
import Testing

@testable import DepotServer

@Suite("ClientMemory: what each user's connections hold, a shared buffer counted once")
struct ClientMemoryTests {
    static func buffer(_ bytes: Int) -> ByteBuffer {
        ByteBuffer(repeating: UInt8(ascii: "x"), count: bytes)
    }

    @Test("a large buffer held by many of a user's connections counts once, until the last lets it go")
    func sharedBufferCountsOnce() {
        let memory = ClientMemory()
        let state = Self.buffer(100_000)
        for _ in 0..<5 {
            var change = ClientMemory.Change()
            change.hold(state)
            memory.apply(change, user: 1000)
        }
        #expect(memory.byUser[1000] == 100_000)
        for remaining in (0..<5).reversed() {
            var change = ClientMemory.Change()
            change.release(state)
            let total = memory.apply(change, user: 1000)
            #expect(total == (remaining == 0 ? 0 : 100_000))
        }
        #expect(memory.byUser.isEmpty, "an empty account is let go")
    }

    @Test("distinct buffers add up; each user has an account of its own")
    func distinctBuffersAddUp() {
        let memory = ClientMemory()
        var change = ClientMemory.Change()
        change.hold([Self.buffer(10_000), Self.buffer(20_000)])
        #expect(memory.apply(change, user: 1000) == 30_000)
        var other = ClientMemory.Change()
        other.hold(Self.buffer(10_000))
        #expect(memory.apply(other, user: 1001) == 10_000)
        #expect(memory.byUser == [1000: 30_000, 1001: 10_000])
    }

    @Test("small buffers and input bytes count per holder; held and let go in one change nets to nothing")
    func smallAndExclusive() {
        let memory = ClientMemory()
        let prefix = Self.buffer(40)
        var change = ClientMemory.Change()
        change.hold(prefix)
        change.hold(prefix)
        change.exclusiveBytes += 500
        #expect(!change.isEmpty && change.takes)
        #expect(memory.apply(change, user: nil) == 580)
        var churn = ClientMemory.Change()
        let state = Self.buffer(50_000)
        churn.hold(state)
        churn.release(state)
        churn.release(prefix)
        #expect(!churn.takes || churn.exclusiveBytes < 0)
        #expect(memory.apply(churn, user: nil) == 540)
    }

    @Test("unfinished lines are counted across all users")
    func unfinished() {
        let memory = ClientMemory()
        #expect(memory.addUnfinished(300) == 300)
        #expect(memory.addUnfinished(200) == 500)
        #expect(memory.addUnfinished(-300) == 200)
        #expect(memory.unfinished == 200)
    }
}
