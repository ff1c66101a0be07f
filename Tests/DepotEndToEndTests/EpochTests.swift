import DepotClient
import DepotTestSupport
import DepotWire
import Testing

@Suite("depotd: the epoch of a run")
struct EpochTests {
    /// The epoch of every answer and notification one daemon run sends: subscribe, load, wipe, and the states.
    static func epochsOfOneRun() async throws -> [String] {
        let directory = TemporaryDirectory()
        let source = Daemon.writeItems(3, in: directory)
        return try await withDaemon(["--source", source, "--no-initial-load"], directory: directory) { daemon in
            let connection = try await daemon.connect()
            let subscription = try await connection.subscribe()
            let loaded = try await connection.call(LoadRequest())
            let idle = try await connection.call(WipeRequest())
            var seen = [subscription.subscribed.epoch, loaded.epoch, idle.epoch]
            for await change in subscription {
                seen.append(try change.decodedState().epoch)
                if change.seq == idle.seq { break }
            }
            return seen
        }
    }

    @Test("every State a run sends names that run's epoch; a restarted daemon has another")
    func epochs() async throws {
        let first = try await Self.epochsOfOneRun()
        let second = try await Self.epochsOfOneRun()
        #expect(Set(first).count == 1 && first.count == 7, "one epoch in every answer and notification of a run: \(first)")
        #expect(Set(second).count == 1)
        #expect(first[0] != second[0], "a restart begins another epoch")
    }
}
