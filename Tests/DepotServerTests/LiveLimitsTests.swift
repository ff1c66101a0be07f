import Testing

@testable import DepotServer

@Suite("LiveLimits: one value, swapped whole")
struct LiveLimitsTests {
    @Test("readers during a stream of reloads see the old limits or the new, never a mix")
    func neverHalfOld() async {
        let small = ConnectionLimits(maxMessageBytes: 64, subscriberQueueLimit: 1, maxSubscriptions: 1, maxMemoryPerUser: 65536)
        let large = ConnectionLimits(maxMessageBytes: 1 << 30, subscriberQueueLimit: 1 << 20, maxSubscriptions: 65536, maxMemoryPerUser: 1 << 40)
        let limits = LiveLimits(small)
        let mixed = await withTaskGroup(of: Int.self) { group in
            group.addTask {
                for round in 0..<20_000 { limits.update(round.isMultiple(of: 2) ? large : small) }
                return 0
            }
            for _ in 0..<2 {
                group.addTask {
                    (0..<20_000).count { _ in
                        let seen = limits.current
                        return seen != small && seen != large
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mixed == 0)
        #expect(limits.current == small, "the last reload is in force")
        #expect(limits.maxSubscriptions == 1)
    }
}
