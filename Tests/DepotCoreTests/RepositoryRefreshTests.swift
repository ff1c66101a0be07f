import DepotCore
import DepotJSON
import DepotPlatform
import DepotTestSupport
import Testing

/// A refresh in the background publishes only what a subscriber can see change, and never `loading`.
@Suite("Repository: refresh in the background")
struct RepositoryRefreshTests {
    static func loadedFixture(version: SourceVersion? = nil) async throws -> Fixture {
        let source = TestSource(count: 3)
        source.version = version
        let fixture = Fixture(source: source)
        _ = try await fixture.loaded()
        return fixture
    }

    @Test("the source says unchanged: nothing is published")
    func unchanged() async throws {
        let fixture = try await Self.loadedFixture(version: SourceVersion(etag: "\"v1\""))
        let before = fixture.repository.current
        #expect(try await fixture.repository.refresh(.schedule).result.get() == before)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]"])
        #expect(fixture.source.calls.value.unchangedAnswers == 1)
    }

    @Test("equal items, though the source could not say so: nothing is published, the new version is kept")
    func equalItems() async throws {
        let fixture = try await Self.loadedFixture()
        fixture.source.version = SourceVersion(etag: "\"v2\"")
        _ = try await fixture.repository.refresh(.fileChanged).result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]"])
        #expect(fixture.repository.sourceVersion == SourceVersion(etag: "\"v2\""))
    }

    @Test("changed items: one success state, never loading")
    func changed() async throws {
        let fixture = try await Self.loadedFixture()
        fixture.source.items.append(["id": 4])
        let published = try await fixture.repository.refresh(.schedule).result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,2,3,4]"])
        #expect(published.state.provenance?.origin == .source)
        #expect(fixture.seqsAreConsecutive)
    }

    @Test("a failure marks the items stale once, with the reason; more failures publish nothing; the next answer makes them fresh")
    func failures() async throws {
        let fixture = try await Self.loadedFixture()
        for attempt in 1...3 {
            fixture.source.failNextFetch(SourceError(.unavailable, "down \(attempt)"))
            let result = await fixture.repository.refresh(.schedule).result
            #expect(result.failureValue?.state.state.provenance?.staleReason == "down 1", "the items stay, stale since the first failure")
        }
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,2,3]"])
        #expect(fixture.states.last?.state.provenance?.stale == true)
        #expect(fixture.repository.sourceHealth.consecutiveFailures == 3)
        #expect(fixture.repository.sourceHealth.lastError == "down 3")

        _ = try await fixture.repository.refresh(.schedule).result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,2,3]", "success[1,2,3]"])
        #expect(fixture.states.last?.state.provenance?.stale == false)
        #expect(fixture.repository.sourceHealth.consecutiveFailures == 0)
        #expect(fixture.repository.sourceHealth.failingSince == nil)
    }

    @Test("stale items the source then says are unchanged become fresh in one state")
    func staleThenUnchanged() async throws {
        let fixture = try await Self.loadedFixture(version: SourceVersion(etag: "\"v1\""))
        fixture.source.failNextFetch()
        _ = await fixture.repository.refresh(.schedule).result
        _ = try await fixture.repository.refresh(.schedule).result.get()
        #expect(fixture.states.map { $0.state.provenance?.stale } == [nil, nil, false, true, false])
        #expect(fixture.source.calls.value.unchangedAnswers == 1)
    }

    @Test("with no items held (a failed load), a failing refresh publishes nothing and an answering one the items")
    func fromFailure() async throws {
        let fixture = Fixture()
        fixture.source.failNextFetch()
        _ = await fixture.repository.load().result
        fixture.source.failNextFetch()
        _ = await fixture.repository.refresh(.schedule).result
        #expect(fixture.trace == ["idle", "loading", "failure(loadFailed)"])
        _ = try await fixture.repository.refresh(.schedule).result.get()
        #expect(fixture.trace == ["idle", "loading", "failure(loadFailed)", "success[1,2,3]"])
    }

    @Test("idle (never loaded, or wiped): the source is not asked and nothing is published")
    func idle() async throws {
        let fixture = Fixture()
        _ = try await fixture.repository.refresh(.schedule).result.get()
        #expect(fixture.source.calls.value.fetchesStarted == 0)
        _ = try await fixture.loaded()
        _ = try await fixture.repository.wipe().result.get()
        _ = try await fixture.repository.refresh(.fileChanged).result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "idle"])
        #expect(fixture.source.calls.value.fetchesStarted == 1)
    }

    @Test("a deleted file marks the items stale with the reason given, and the source is not asked")
    func fileDeleted() async throws {
        let fixture = try await Self.loadedFixture()
        let result = await fixture.repository.refresh(.fileDeleted(reason: "/srv/items.json was deleted")).result
        #expect(result.failureValue?.kind == .loadFailed)
        #expect(fixture.states.last?.state.provenance?.staleReason == "/srv/items.json was deleted")
        #expect(fixture.source.calls.value.fetchesStarted == 1)
        #expect(fixture.repository.sourceHealth.lastError == "/srv/items.json was deleted")
    }

    // MARK: One load at a time

    /// Starts `start`'s mutation with the source's next fetch held at its gate, and returns once that fetch has begun.
    static func underWay(
        _ fixture: Fixture, _ start: (Repository) -> Mutation<MutationResult>
    ) async -> (mutation: Mutation<MutationResult>, gate: Gate) {
        let started = fixture.source.calls.value.fetchesStarted
        let gate = fixture.source.holdNextFetch()
        let mutation = start(fixture.repository)
        await fixture.source.calls.wait { $0.fetchesStarted == started + 1 }
        return (mutation, gate)
    }

    @Test("a scheduled refresh joins a load under way: one source call, one result")
    func scheduleJoinsLoad() async throws {
        let fixture = Fixture()
        let (load, gate) = await Self.underWay(fixture) { $0.load() }
        let refresh = fixture.repository.refresh(.schedule)
        #expect(refresh === load)
        gate.open()
        _ = try await refresh.result.get()
        #expect(fixture.source.calls.value.fetchesStarted == 1)
    }

    @Test("a load never joins a refresh under way, which may load nothing: it queues after it and loads")
    func loadAfterRefreshUnderWay() async throws {
        let fixture = try await Self.loadedFixture()
        fixture.source.failNextFetch()
        let (refresh, gate) = await Self.underWay(fixture) { $0.refresh(.schedule) }
        let load = fixture.repository.load(by: Requester(user: 1000, connection: 1))
        #expect(load !== refresh)
        gate.open()
        #expect(await refresh.result.failureValue?.state.state.provenance?.stale == true, "the refresh's outcome: stale, no loading")
        #expect(try await load.result.get().state.provenance?.stale == false, "the load's own: fresh items")
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,2,3]", "loading", "success[1,2,3]"])
        #expect(fixture.source.calls.value.fetchesStarted == 3)
    }

    @Test(
        "a load that joins a refresh not yet started takes it over: after a wipe it loads, and the refresh's caller gets its result",
        arguments: [Repository.RefreshTrigger.schedule, .fileChanged, .writeConflict])
    func loadTakesOverQueuedRefresh(trigger: Repository.RefreshTrigger) async throws {
        let fixture = try await Self.loadedFixture()
        let (underWay, gate) = await Self.underWay(fixture) { $0.load(strategy: .upToDateWithFallback, by: Requester(user: 1000, connection: 1)) }
        let wipe = fixture.repository.wipe()
        let refresh = fixture.repository.refresh(trigger)  // queued after the wipe: alone, it would find nothing held
        let load = fixture.repository.load(by: Requester(user: 1000, connection: 2))
        #expect(load === refresh, "one run for both")
        gate.open()
        _ = try await underWay.result.get()
        _ = try await wipe.result.get()
        #expect(try await load.result.get().state.items?.count == 3, "the load's outcome: the items loaded again")
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "loading", "success[1,2,3]", "idle", "loading", "success[1,2,3]"])
        #expect(fixture.source.calls.value.fetchesStarted == 3)
        #expect(fixture.seqsAreConsecutive)
    }

    @Test("a file's change joins a load that has not started, never one under way: that one may have read the file before")
    func fileChangeJoinsOnlyQueued() async throws {
        let fixture = Fixture()
        let (running, gate) = await Self.underWay(fixture) { $0.load() }
        let first = fixture.repository.refresh(.fileChanged)
        let second = fixture.repository.refresh(.fileChanged)
        let manual = fixture.repository.load(by: Requester(user: 1000, connection: 1))
        #expect(first !== running, "under way: a refresh of its own is queued")
        #expect(second === first && manual === first, "queued: later changes and loads join it")
        gate.open()
        _ = try await second.result.get()
        #expect(fixture.source.calls.value.fetchesStarted == 2)
    }

    @Test("a load does not join a file change's refresh that is already reading: it reads after it, and sees what was written")
    func loadAfterFileChangeUnderWay() async throws {
        let fixture = try await Self.loadedFixture()
        let (refresh, gate) = await Self.underWay(fixture) { $0.refresh(.fileChanged) }
        fixture.source.items.append(["id": 4])  // written after the refresh began
        let load = fixture.repository.load(by: Requester(user: 1000, connection: 1))
        #expect(load !== refresh)
        gate.open()
        #expect(try await load.result.get().state.items?.count == 4, "the load read after the write")
        #expect(fixture.source.calls.value.fetchesStarted == 3)
    }

    @Test("fastestAvailable with a success in memory answers at once, even while a refresh waits for the source")
    func fastestAvailableAtOnce() async throws {
        let fixture = try await Self.loadedFixture()
        let (refresh, gate) = await Self.underWay(fixture) { $0.refresh(.schedule) }
        let load = fixture.repository.load(strategy: .fastestAvailable, by: Requester(user: 1000, connection: 1))
        #expect(try load.finishedResult?.get() == fixture.repository.current)
        gate.open()
        _ = try await refresh.result.get()
    }

    // MARK: What those who keep the items fresh are told

    @Test("every fetch's outcome, with the lifetime stated and the pause asked for, and every reset, in order")
    func activity() async throws {
        let fixture = Fixture()
        let seen = Condition<[SourceActivity]>([])
        fixture.repository.addActivityObserver { activity in seen.update { $0.append(activity) } }
        let lifetime = FreshnessLifetime(.seconds(60), from: .maxAge)
        fixture.source.lifetime = lifetime
        _ = try await fixture.loaded()
        fixture.source.failNextFetch(SourceError(.unavailable, "busy", retryAfter: .seconds(30)))
        _ = await fixture.repository.refresh(.schedule).result
        _ = try await fixture.repository.wipe().result.get()
        #expect(
            seen.value == [.answered(lifetime: lifetime), .failed(message: "busy", retryAfter: .seconds(30)), .reset])
        let health = fixture.repository.sourceHealth
        #expect(health.lifetime == lifetime)
        #expect(health.lastAttemptAt != nil && health.lastSuccessAt != nil && health.failingSince != nil)
    }
}
