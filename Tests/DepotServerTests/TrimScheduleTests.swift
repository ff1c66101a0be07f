import Testing

@testable import DepotServer

@Suite("When depotd gives its free memory back")
struct TrimScheduleTests {
    typealias Tick = TrimSchedule.Tick
    static let quiet = Tick(releasedBytes: 0, opened: 0, closed: 0)
    static let burst = Tick(releasedBytes: TrimSchedule.burstBytes, opened: 0, closed: 0)

    /// The seconds (from 0) at which `ticks` make `schedule` trim.
    static func trims(_ schedule: inout TrimSchedule, _ ticks: [Tick]) -> [Int] {
        ticks.indices.filter { schedule.tick(ticks[$0]) }
    }

    static func repeating(_ tick: Tick, _ count: Int) -> [Tick] {
        Array(repeating: tick, count: count)
    }

    @Test("a quiet daemon never trims")
    func quietNeverTrims() {
        var schedule = TrimSchedule()
        #expect(Self.trims(&schedule, Self.repeating(Self.quiet, 1000)) == [])
    }

    @Test("connections only opening never trim")
    func openingNeverTrims() {
        var schedule = TrimSchedule()
        #expect(Self.trims(&schedule, Self.repeating(Tick(releasedBytes: 0, opened: 10, closed: 0), 200) + [Self.quiet]) == [])
    }

    @Test("a burst trims every second for ten seconds, then stops")
    func burstTrimsForTenSeconds() {
        var schedule = TrimSchedule()
        #expect(Self.trims(&schedule, [Self.burst] + Self.repeating(Self.quiet, 20)) == Array(0..<TrimSchedule.burstTicks))
        #expect(schedule == TrimSchedule())
    }

    @Test("a burst during another restarts the ten seconds")
    func burstRestarts() {
        var schedule = TrimSchedule()
        let ticks = [Self.burst] + Self.repeating(Self.quiet, 5) + [Self.burst] + Self.repeating(Self.quiet, 20)
        #expect(Self.trims(&schedule, ticks) == Array(0..<(6 + TrimSchedule.burstTicks)))
    }

    @Test("less than a burst released does not trim by itself")
    func smallReleaseDoesNotTrim() {
        var schedule = TrimSchedule()
        let almost = Tick(releasedBytes: TrimSchedule.burstBytes - 1, opened: 0, closed: 0)
        #expect(Self.trims(&schedule, Self.repeating(almost, 100)) == [])
    }

    @Test("churn that settles trims once, on its first quiet second")
    func settledChurnTrimsOnce() {
        var schedule = TrimSchedule()
        let churn = Tick(releasedBytes: 4096, opened: 20, closed: 20)
        #expect(Self.trims(&schedule, Self.repeating(churn, 30) + Self.repeating(Self.quiet, 100)) == [30])
        #expect(schedule == TrimSchedule())
    }

    @Test("a second with only new connections is not settled; the next quiet one is")
    func openingIsNotSettled() {
        var schedule = TrimSchedule()
        let ticks = [Tick(releasedBytes: 0, opened: 0, closed: 3), Tick(releasedBytes: 0, opened: 2, closed: 0), Self.quiet, Self.quiet]
        #expect(Self.trims(&schedule, ticks) == [2])
    }

    @Test("churn that never settles trims once a minute")
    func endlessChurnTrimsEveryMinute() {
        var schedule = TrimSchedule()
        let churn = Tick(releasedBytes: 1 << 20, opened: 5, closed: 5)
        #expect(
            Self.trims(&schedule, Self.repeating(churn, 3 * TrimSchedule.churnTicks + 1)) == [
                TrimSchedule.churnTicks, 2 * TrimSchedule.churnTicks + 1,
            ])
    }
}
