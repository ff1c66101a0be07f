import DepotCore
import DepotScriptSource
import DepotTestSupport
import Logging
import Testing

@Suite("ScriptSource's change feed: a stream's steps, each at its time, as loads")
struct ScriptStreamTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("each step waits its delay, then is loaded and published; the stream stops at its last step")
    func plays() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write(
            "stream.json",
            #"""
            {"name": "s", "stream": [
              {"value": [{"id": 1}]},
              {"value": [{"id": 1}, {"id": 2}], "operators": [{"op": "delay", "seconds": 5}]},
              {"value": [{"id": 3}], "operators": [{"op": "delay", "seconds": 7}]}]}
            """#)
        let source = try ScriptSource(path: path, idField: "id")
        let repository = Repository(source: source, logger: Self.quiet).running()
        let clock = ManualClock()
        let playing = Task { await source.followChanges(into: repository, clock: clock, logger: Self.quiet) }
        defer { playing.cancel() }

        // The first step has no delay: it is the answer from the start, as the daemon's start-up load finds it.
        _ = await repository.load().result
        #expect(repository.current.state.items?.items.map(\.id) == ["1"])
        var elapsed = Duration.zero
        for (delay, ids) in [(Duration.seconds(5), ["1", "2"]), (.seconds(7), ["3"])] {
            elapsed += delay
            let deadlines = await clock.sleepers.wait { !$0.isEmpty }
            #expect(deadlines == [ManualClock.at(elapsed)], "the step waits its delay, no other")
            clock.advance(by: delay - .nanoseconds(1))
            #expect(clock.sleepers.value == [ManualClock.at(elapsed)], "not before its time")
            #expect(repository.current.state.items?.items.map(\.id) != ids)
            clock.advance(by: .nanoseconds(1))
            let published = try await withTimeout(.seconds(30), "the step to be loaded") {
                await repositoryState(repository) { $0.state.items?.items.map(\.id) == ids }
            }
            #expect(published.state.provenance?.origin == .source)
        }
        // The stream is over: the feed ends, and no step waits any more.
        _ = try await withTimeout(.seconds(30), "the feed to end") { await playing.value }
        #expect(clock.sleepers.value.isEmpty)
    }
}

/// Waits until the repository's current state satisfies `predicate`; returns it.
private func repositoryState(_ repository: Repository, _ predicate: @escaping @Sendable (PublishedState) -> Bool) async -> PublishedState {
    let seen = Condition<PublishedState?>(nil)
    repository.addObserver(StateWatcher { state in seen.update { if predicate(state) { $0 = state } } })
    if predicate(repository.current) { return repository.current }
    return await seen.wait { $0 != nil } ?? repository.current
}

private struct StateWatcher: StateObserver {
    let onChange: @Sendable (PublishedState) -> Void

    func stateDidChange(to state: PublishedState) {
        onChange(state)
    }
}
