import DepotCore
import DepotSources
import DepotTestSupport
import Logging
import Testing

@testable import DepotDaemon

/// A clock for the player: each sleep is recorded and returns only when the test lets it, so a stream of
/// seconds-long steps is played through at once, and its timing checked without waiting.
private final class StepClock: Sendable {
    let asked = Condition<[Duration]>([])
    private let released = Condition(0)

    func sleep(_ duration: Duration) async throws {
        let number = asked.update { asked in
            asked.append(duration)
            return asked.count
        }
        _ = await released.wait { $0 >= number }
        try Task.checkCancellation()
    }

    /// Lets the oldest waiting sleep return.
    func release() {
        released.update { $0 += 1 }
    }
}

@Suite("ScriptPlayer: a stream's steps, each at its time, as loads")
struct ScriptPlayerTests {
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
        let clock = StepClock()
        let player = ScriptPlayer(playing: source, repository: repository, logger: Self.quiet, sleep: { try await clock.sleep($0) })
        let playing = Task { try await player.run() }
        defer { playing.cancel() }

        // The first step has no delay: it is the answer from the start, as the daemon's start-up load finds it.
        _ = await repository.load().result
        #expect(repository.current.state.items?.items.map(\.id) == ["1"])
        for (step, ids) in [["1", "2"], ["3"]].enumerated() {
            let delays: [Duration] = Array([.seconds(5), .seconds(7)].prefix(step + 1))
            #expect(await clock.asked.wait { $0.count == step + 1 } == delays, "step \(step + 1) waits its delay, no other")
            #expect(repository.current.state.items?.items.map(\.id) != ids, "not before its time")
            clock.release()
            let published = try await withTimeout(.seconds(30), "step \(step) to be loaded") {
                await repositoryState(repository) { $0.state.items?.items.map(\.id) == ids }
            }
            #expect(published.state.provenance?.origin == .source)
        }
        // The stream is over: no step waits any more.
        #expect(clock.asked.value.count == 2)
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
