import DepotRPC
import DepotWire
import NIOCore
import Testing

@testable import DepotServer

@Suite("ConnectionMemory: what one connection holds on its user's account, and when a bound is passed")
struct ConnectionMemoryTests {
    static func limits(perUser: Int = 1 << 20, unfinished: Int = 1 << 20) -> LiveLimits {
        LiveLimits(ConnectionLimits(maxMemoryPerUser: perUser, maxUnfinishedLineBytes: unfinished))
    }

    @Test("changes wait until settled, then reach the account in one go; settling twice applies nothing more")
    func settleAppliesOnce() {
        let account = ClientMemory()
        let memory = ConnectionMemory(account: account, limits: Self.limits())
        memory.user = 1000
        memory.holdLine(ByteBuffer(repeating: 0, count: 40))
        memory.hold(ByteBuffer(repeating: 0, count: 4096))
        #expect(account.byUser.isEmpty, "nothing before settle")
        #expect(memory.settle() == nil, "under the bound")
        #expect(account.byUser[1000] == 4136)
        #expect(memory.settle() == nil)
        #expect(account.byUser[1000] == 4136)
        memory.releaseLine(ByteBuffer(repeating: 0, count: 40))
        _ = memory.settle()
        #expect(account.byUser[1000] == 4096)
    }

    @Test("past the user's bound, settle gives the total once more is taken; letting go, or root, never does")
    func overTheBound() throws {
        let account = ClientMemory()
        let memory = ConnectionMemory(account: account, limits: Self.limits(perUser: 100))
        memory.user = 1000
        memory.holdLine(ByteBuffer(repeating: 0, count: 150))
        #expect(memory.settle() == 150)
        memory.releaseLine(ByteBuffer(repeating: 0, count: 10))
        #expect(memory.settle() == nil, "it let go: nothing to cut off for")
        let cut = memory.overBound(140, holding: "lines", advice: "send less")
        #expect(cut.limit == .maxMemoryPerUser)
        #expect(cut.reason.contains("uid 1000 hold 140 bytes") && cut.reason.contains("(100)"), "\(cut.reason)")
        #expect(cut.tell?.code == DepotErrorCode.limitExceeded)

        let root = ConnectionMemory(account: ClientMemory(), limits: Self.limits(perUser: 100))
        root.user = 0
        root.holdLine(ByteBuffer(repeating: 0, count: 150))
        #expect(root.settle() == nil, "root is exempt")
    }

    @Test("an unfinished line counts for its user and for all users; finished, it leaves both")
    func unfinishedLines() throws {
        let account = ClientMemory()
        let first = ConnectionMemory(account: account, limits: Self.limits(unfinished: 100))
        let second = ConnectionMemory(account: account, limits: Self.limits(unfinished: 100))
        #expect(first.lineGrew(to: 30) == nil)
        #expect(first.lineGrew(to: 60) == nil, "60 of one line, not 90")
        let cut = try #require(second.lineGrew(to: 50), "110 in all, past 100")
        #expect(cut.limit == .maxUnfinishedLineBytes)
        #expect(cut.reason.contains("hold 110 bytes") && cut.reason.contains("this one's has 50"), "\(cut.reason)")
        first.lineFinished()
        second.lineFinished()
        #expect(account.unfinished == 0)
        _ = first.settle()
        _ = second.settle()
        #expect(account.byUser.isEmpty)
    }
}
