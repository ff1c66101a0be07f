import DepotCore
import DepotFreshness
import DepotJSON
import DepotTestSupport
import Logging
import Testing

/// The scheduler driving a real repository on a test source, with a clock the test moves: every wait is for an
/// event (the timer armed at an instant, a fetch started), never for time to pass.
@Suite("RefreshScheduler: refreshes on a test clock")
struct RefreshSchedulerTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A repository on a test source, its scheduler running on a manual clock with no jitter.
    struct Harness {
        let source: TestSource
        let repository: Repository
        let recorder = StateRecorder()
        let clock = ManualClock()
        /// The status after each change the scheduler handled.
        let statuses = Condition<FreshnessStatus?>(nil)
        let scheduler: RefreshScheduler<ManualClock>

        init(_ policy: RefreshPolicy, source: TestSource = TestSource(count: 3)) {
            self.source = source
            repository = Repository(source: source, logger: RefreshSchedulerTests.quiet).running()
            repository.addObserver(recorder)
            let statuses = statuses
            scheduler = RefreshScheduler(
                repository: repository, policy: policy, clock: clock, logger: RefreshSchedulerTests.quiet, draw: { 0 },
                onChange: { status in statuses.update { $0 = status } })
        }

        /// Runs `body` with the scheduler running, and stops it after.
        func run(_ body: @escaping @Sendable (Harness) async throws -> Void) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await scheduler.run() }
                try await withTimeout(.seconds(60), "the scheduler's test") { try await body(self) }
                group.cancelAll()
            }
        }

        /// Waits until the scheduler's timer is armed for `seconds` after the clock's start.
        func timerArmed(at seconds: Int64) async throws {
            let instant = ManualClock.at(.seconds(seconds))
            try await withTimeout(.seconds(30), "the timer to be armed at \(instant)") {
                await clock.sleepers.wait { $0.contains(instant) }
            }
        }

        /// Waits until the scheduler's status, which it updates as it handles each event, satisfies `predicate`.
        func status(_ what: String, _ predicate: @escaping @Sendable (FreshnessStatus) -> Bool) async throws {
            try await withTimeout(.seconds(30), what) {
                await statuses.wait { $0.map(predicate) ?? false }
            }
        }

        /// Moves the clock to `seconds` and waits for the source's `fetches`th fetch to finish.
        func advance(to seconds: Int64, thenFetches fetches: Int) async throws {
            clock.advance(to: ManualClock.at(.seconds(seconds)))
            try await withTimeout(.seconds(30), "fetch \(fetches)") { await source.calls.wait { $0.fetchesFinished >= fetches } }
        }
    }

    @Test("the source is asked every interval after its last answer, and publishes nothing while it is unchanged")
    func interval() async throws {
        let harness = Harness(RefreshPolicy(interval: .every(.seconds(60)), jitter: 0))
        try await harness.run { harness in
            _ = try await harness.repository.load().result.get()
            try await harness.timerArmed(at: 60)
            try await harness.advance(to: 60, thenFetches: 2)
            try await harness.timerArmed(at: 120)
            harness.source.items.append(["id": 4])
            try await harness.advance(to: 120, thenFetches: 3)
            try await harness.timerArmed(at: 180)
            #expect(
                harness.recorder.statuses == [.idle, .loading, .success, .success], "one state for the change, none for the refresh that found none")
            let status = harness.scheduler.status
            #expect(status.interval == .seconds(60) && status.intervalFrom == "setting" && status.nextRefreshAt != nil)
        }
    }

    @Test("a load re-arms the timer from its answer")
    func loadRearms() async throws {
        let harness = Harness(RefreshPolicy(interval: .every(.seconds(60)), jitter: 0))
        try await harness.run { harness in
            _ = try await harness.repository.load().result.get()
            try await harness.timerArmed(at: 60)
            harness.clock.advance(by: .seconds(45))
            _ = try await harness.repository.load().result.get()
            try await harness.timerArmed(at: 105)
            #expect(!harness.clock.sleepers.value.contains(ManualClock.at(.seconds(60))), "one timer, not two")
        }
    }

    @Test("failures are retried after 1, 2, 4 s, then a Retry-After in seconds is honoured; the next answer returns to the interval")
    func retries() async throws {
        let harness = Harness(RefreshPolicy(interval: .every(.seconds(60)), jitter: 0))
        try await harness.run { harness in
            _ = try await harness.repository.load().result.get()
            for _ in 0..<3 { harness.source.failNextFetch() }
            harness.source.failNextFetch(SourceError(.unavailable, "busy", retryAfter: .seconds(30)))
            try await harness.timerArmed(at: 60)
            try await harness.advance(to: 60, thenFetches: 2)
            try await harness.timerArmed(at: 61)
            try await harness.advance(to: 61, thenFetches: 3)
            try await harness.timerArmed(at: 63)
            try await harness.advance(to: 63, thenFetches: 4)
            try await harness.timerArmed(at: 67)
            #expect(harness.scheduler.status.retrying)
            try await harness.advance(to: 67, thenFetches: 5)
            try await harness.timerArmed(at: 97)
            try await harness.advance(to: 97, thenFetches: 6)
            try await harness.timerArmed(at: 157)
            #expect(!harness.scheduler.status.retrying)
            #expect(harness.recorder.states.value.map { $0.state.provenance?.stale } == [nil, nil, false, true, false], "stale once, fresh once")
        }
    }

    @Test("auto follows max-age; a no-cache answer stops the timer")
    func autoFollowsLifetime() async throws {
        let source = TestSource(count: 3)
        source.lifetime = FreshnessLifetime(.seconds(30), from: .maxAge)
        let harness = Harness(RefreshPolicy(interval: .auto, jitter: 0, sourceStatesLifetimes: true), source: source)
        try await harness.run { harness in
            _ = try await harness.repository.load().result.get()
            try await harness.timerArmed(at: 30)
            harness.source.lifetime = .noRefresh(.noCache)
            try await harness.advance(to: 30, thenFetches: 2)
            // The timer is let go when it fires, before the refresh's answer says no-cache: wait for both.
            try await harness.status("the timer let go for no-cache") { $0.nextRefreshAt == nil && $0.intervalFrom == "no-cache" }
            #expect(harness.clock.sleepers.value.isEmpty)
        }
    }

    @Test("subscribed: the timer waits for a subscriber; one that comes when the items are older than the interval refreshes at once")
    func subscribed() async throws {
        let harness = Harness(RefreshPolicy(interval: .every(.seconds(60)), jitter: 0, when: .subscribed))
        try await harness.run { harness in
            _ = try await harness.repository.load().result.get()
            harness.scheduler.subscribersChanged(to: 1)
            try await harness.timerArmed(at: 60)
            harness.scheduler.subscribersChanged(to: 0)
            try await harness.status("the timer to pause") { $0.paused }
            harness.clock.advance(by: .seconds(600))
            #expect(harness.source.calls.value.fetchesStarted == 1, "no refresh while nobody subscribes")
            #expect(harness.scheduler.status.paused)
            harness.scheduler.subscribersChanged(to: 1)
            try await withTimeout(.seconds(30), "the overdue refresh") { await harness.source.calls.wait { $0.fetchesFinished == 2 } }
            try await harness.timerArmed(at: 660)
        }
    }

    @Test("after a wipe nothing is refreshed until someone loads")
    func wipe() async throws {
        let harness = Harness(RefreshPolicy(interval: .every(.seconds(60)), jitter: 0))
        try await harness.run { harness in
            _ = try await harness.repository.load().result.get()
            try await harness.timerArmed(at: 60)
            _ = try await harness.repository.wipe().result.get()
            try await harness.status("the timer to be let go") { $0.nextRefreshAt == nil }
            #expect(harness.clock.sleepers.value.isEmpty)
        }
    }
}
