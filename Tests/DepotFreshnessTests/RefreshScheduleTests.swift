import DepotCore
import DepotFreshness
import DepotTestSupport
import Testing

/// The schedule in every state, with instants and random draws chosen by the test.
@Suite("RefreshSchedule: interval, jitter, retries, Retry-After, subscribers")
struct RefreshScheduleTests {
    typealias Schedule = RefreshSchedule<ManualClock.Instant>

    static func at(_ seconds: Double) -> ManualClock.Instant { ManualClock.at(.milliseconds(Int64(seconds * 1000))) }
    static func wait(_ seconds: Double) -> Schedule.Action { .wait(until: at(seconds)) }

    static func schedule(
        _ interval: RefreshPolicy.Interval = .every(.seconds(60)), jitter: Double = 0.1, when: RefreshPolicy.When = .always,
        retryMax: Duration = .seconds(300), http: Bool = false
    ) -> Schedule {
        Schedule(policy: RefreshPolicy(interval: interval, jitter: jitter, when: when, retryMax: retryMax, sourceStatesLifetimes: http))
    }

    @Test("the first refresh after a start comes at a random point of the interval, from a tenth of it to all of it")
    func firstAfterStart() {
        for (draw, expected) in [(0.0, 60.0), (0.5, 33), (1, 6)] {
            var schedule = Self.schedule()
            #expect(schedule.answered(at: Self.at(0), lifetime: nil, draw: draw) == Self.wait(expected))
        }
        var unjittered = Self.schedule(jitter: 0)
        #expect(unjittered.answered(at: Self.at(0), lifetime: nil, draw: 1) == Self.wait(60), "no jitter, no spread either")
        var off = Self.schedule(.auto, http: true)
        _ = off.answered(at: Self.at(0), lifetime: .noRefresh(.noCache), draw: 0)
        #expect(off.answered(at: Self.at(1), lifetime: FreshnessLifetime(.seconds(10), from: .maxAge), draw: 1) == Self.wait(2), "the first armed")
    }

    @Test("after an answer the next refresh is one interval later, shortened by the draw's part of the jitter fraction")
    func interval() {
        var schedule = Self.schedule()
        #expect(schedule.answered(at: Self.at(0), lifetime: nil, draw: 0) == Self.wait(60))
        #expect(schedule.answered(at: Self.at(0), lifetime: nil, draw: 0.5) == Self.wait(57))
        #expect(schedule.answered(at: Self.at(10), lifetime: nil, draw: 1) == Self.wait(64), "never shorter than 1 − jitter")
        #expect(schedule.interval.duration == .seconds(60) && schedule.interval.from == "setting")
    }

    @Test("every jittered delay lies between (1 − jitter) and 1 times the interval", arguments: [0.0, 0.1, 0.5, 0.9])
    func jitterBounds(_ jitter: Double) {
        for step in 0..<100 {
            var schedule = Self.schedule(jitter: jitter)
            _ = schedule.answered(at: Self.at(0), lifetime: nil, draw: 0)
            let draw = Double(step) / 100
            guard case .wait(let until) = schedule.answered(at: Self.at(0), lifetime: nil, draw: draw) else {
                Issue.record("no timer armed")
                return
            }
            #expect(until >= Self.at(60 * (1 - jitter)) && until <= Self.at(60))
        }
    }

    @Test("failures retry after 1, 2, 4 … s, doubling up to retryMax, each shortened by the jitter; an answer returns to the interval")
    func backoff() {
        var schedule = Self.schedule(retryMax: .seconds(30))
        _ = schedule.answered(at: Self.at(0), lifetime: nil, draw: 0)
        var now = 60.0
        for expected in [1.0, 2, 4, 8, 16, 30, 30] {
            #expect(schedule.failed(at: Self.at(now), retryAfter: nil, draw: 0) == Self.wait(now + expected))
            now += expected
        }
        #expect(schedule.failures == 7)
        #expect(schedule.failed(at: Self.at(now), retryAfter: nil, draw: 1) == Self.wait(now + 27), "30 s shortened by 10 %")
        #expect(schedule.answered(at: Self.at(500), lifetime: nil, draw: 0) == Self.wait(560))
        #expect(schedule.failures == 0)
        #expect(schedule.failed(at: Self.at(560), retryAfter: nil, draw: 0) == Self.wait(561), "a new run of failures starts at 1 s")
    }

    @Test("Retry-After is honoured up to an hour, lengthened (never shortened) by the jitter, and never below the backoff")
    func retryAfter() {
        var schedule = Self.schedule()
        #expect(schedule.failed(at: Self.at(0), retryAfter: .seconds(120), draw: 0) == Self.wait(120))
        #expect(schedule.failed(at: Self.at(0), retryAfter: .seconds(120), draw: 0.5) == Self.wait(126))
        #expect(schedule.failed(at: Self.at(0), retryAfter: .seconds(7200), draw: 0) == Self.wait(3600), "an hour at most")
        for _ in 0..<3 { _ = schedule.failed(at: Self.at(0), retryAfter: nil, draw: 0) }
        #expect(schedule.failed(at: Self.at(0), retryAfter: .seconds(1), draw: 0) == Self.wait(64), "the seventh failure's backoff is longer")
    }

    @Test("auto follows the lifetime the answers state; an answer that states none keeps the last; no-cache stops the timer")
    func autoLifetimes() {
        var schedule = Self.schedule(.auto, http: true)
        #expect(schedule.interval.from == "not yet known")
        #expect(schedule.answered(at: Self.at(0), lifetime: FreshnessLifetime(.seconds(30), from: .maxAge), draw: 0) == Self.wait(30))
        #expect(schedule.interval.from == "max-age")
        #expect(schedule.answered(at: Self.at(30), lifetime: nil, draw: 0) == Self.wait(60), "a 304 that states nothing keeps max-age")
        #expect(schedule.answered(at: Self.at(60), lifetime: FreshnessLifetime(.seconds(90), from: .expires), draw: 0) == Self.wait(150))
        #expect(schedule.interval.from == "Expires")
        #expect(schedule.answered(at: Self.at(150), lifetime: .noRefresh(.noCache), draw: 0) == .idle)
        #expect(schedule.interval.duration == nil && schedule.interval.from == "no-cache")
        #expect(schedule.failed(at: Self.at(200), retryAfter: nil, draw: 0) == Self.wait(201), "a failure is retried even so")
    }

    @Test("auto for a source whose answers state no lifetime (a file, a table): no timer, but failures are retried")
    func autoWithoutLifetimes() {
        var schedule = Self.schedule(.auto, http: false)
        #expect(schedule.answered(at: Self.at(0), lifetime: nil, draw: 0) == .idle)
        #expect(schedule.interval.from == "source")
        #expect(schedule.failed(at: Self.at(5), retryAfter: nil, draw: 0) == Self.wait(6))
    }

    @Test("off: no timer after an answer, and no retries after a failure")
    func off() {
        var schedule = Self.schedule(.off)
        #expect(schedule.answered(at: Self.at(0), lifetime: FreshnessLifetime(.seconds(5), from: .maxAge), draw: 0) == .idle)
        #expect(schedule.failed(at: Self.at(1), retryAfter: .seconds(3), draw: 0) == .idle)
        #expect(schedule.interval.from == "off")
    }

    @Test("the timer fires: early, it waits on; due, it refreshes once, and holds no timer until the refresh has ended")
    func timer() {
        var schedule = Self.schedule()
        _ = schedule.answered(at: Self.at(0), lifetime: nil, draw: 0)
        #expect(schedule.timerFired(at: Self.at(59)) == Self.wait(60))
        #expect(schedule.timerFired(at: Self.at(60)) == .refresh)
        #expect(schedule.refreshing)
        #expect(schedule.timerFired(at: Self.at(61)) == .idle, "no second refresh while one is under way")
        #expect(schedule.subscribersChanged(to: 1, at: Self.at(62)) == .idle)
        #expect(schedule.nextRefresh == nil)
        #expect(schedule.answered(at: Self.at(63), lifetime: nil, draw: 0) == .idle, "a refresh now would join the one still publishing")
        #expect(schedule.nextRefresh == nil && schedule.due == Self.at(123))
        #expect(schedule.timerFired(at: Self.at(200)) == .idle, "still under way")
        #expect(schedule.refreshFinished(at: Self.at(64), idle: false, draw: 0) == Self.wait(123), "the deadline its answer set, armed at its end")
        #expect(!schedule.refreshing)
    }

    @Test("a refresh that asked nothing: with nothing held, nothing is due; else the next comes one interval later")
    func refreshWithoutOutcome() {
        var schedule = Self.schedule()
        _ = schedule.answered(at: Self.at(0), lifetime: nil, draw: 0)
        #expect(schedule.timerFired(at: Self.at(60)) == .refresh)
        #expect(schedule.refreshFinished(at: Self.at(61), idle: true, draw: 0) == .idle)
        #expect(schedule.due == nil)
        _ = schedule.answered(at: Self.at(100), lifetime: nil, draw: 0)
        #expect(schedule.timerFired(at: Self.at(160)) == .refresh)
        #expect(schedule.refreshFinished(at: Self.at(161), idle: false, draw: 0) == Self.wait(221))
    }

    @Test("a load's answer re-arms the timer from its time; a reset (a wipe) leaves nothing due until the next answer")
    func rearmAndReset() {
        var schedule = Self.schedule()
        #expect(schedule.answered(at: Self.at(0), lifetime: nil, draw: 0) == Self.wait(60))
        #expect(schedule.answered(at: Self.at(45), lifetime: nil, draw: 0) == Self.wait(105))
        #expect(schedule.reset() == .idle)
        #expect(schedule.due == nil && schedule.timerFired(at: Self.at(200)) == .idle)
        #expect(schedule.answered(at: Self.at(300), lifetime: nil, draw: 0) == Self.wait(360))
    }

    @Test("subscribed: no timer without a subscriber; the first one brings an overdue refresh at once, else the timer back")
    func subscribed() {
        var schedule = Self.schedule(when: .subscribed)
        #expect(schedule.answered(at: Self.at(0), lifetime: nil, draw: 0) == .idle)
        #expect(schedule.isPaused && schedule.nextRefresh == nil)
        #expect(schedule.subscribersChanged(to: 1, at: Self.at(30)) == Self.wait(60))
        #expect(schedule.subscribersChanged(to: 2, at: Self.at(31)) == Self.wait(60))
        #expect(schedule.subscribersChanged(to: 0, at: Self.at(40)) == .idle)
        #expect(schedule.timerFired(at: Self.at(70)) == .idle, "paused")
        #expect(schedule.subscribersChanged(to: 1, at: Self.at(500)) == .refresh, "the items are older than the interval")
        #expect(schedule.failed(at: Self.at(501), retryAfter: nil, draw: 0) == .idle)
        #expect(schedule.refreshFinished(at: Self.at(501), idle: false, draw: 0) == Self.wait(502), "its failure's retry")
        #expect(schedule.subscribersChanged(to: 0, at: Self.at(501.5)) == .idle, "retries pause too")
    }

    @Test("new settings: the next refresh is the last answer plus the new interval; off stops everything; a retry stays")
    func policyChange() {
        var schedule = Self.schedule()
        _ = schedule.answered(at: Self.at(0), lifetime: nil, draw: 0)
        #expect(schedule.policyChanged(to: RefreshPolicy(interval: .every(.seconds(10)), jitter: 0), at: Self.at(5)) == Self.wait(10))
        #expect(schedule.policyChanged(to: RefreshPolicy(interval: .every(.seconds(2)), jitter: 0), at: Self.at(5)) == .refresh, "overdue")
        _ = schedule.failed(at: Self.at(6), retryAfter: nil, draw: 0)
        #expect(schedule.refreshFinished(at: Self.at(6), idle: false, draw: 0) == Self.wait(7))
        #expect(schedule.policyChanged(to: RefreshPolicy(interval: .every(.seconds(99)), jitter: 0), at: Self.at(6.5)) == Self.wait(7))
        #expect(schedule.policyChanged(to: RefreshPolicy(interval: .off), at: Self.at(6.5)) == .idle)
    }
}
