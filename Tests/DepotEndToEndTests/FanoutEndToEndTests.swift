import DepotClient
import DepotJSON
import DepotTestSupport
import Testing

@Suite("depotd: many subscribers, one sequence")
struct FanoutEndToEndTests {
    @Test("five concurrent subscribers see the same seq sequence through load, remove and wipe")
    func subscribersAgree() async throws {
        let directory = TemporaryDirectory()
        let source = Daemon.writeItems(10, in: directory)
        try await withDaemon(["--source", source, "--no-initial-load"], directory: directory) { daemon in
            var subscriptions: [DepotSubscription] = []
            for _ in 0..<5 {
                subscriptions.append(try await daemon.connect().subscribe())
            }
            let control = try await daemon.connect()
            _ = try await control.call("load")  // 1 loading, 2 success
            _ = try await control.call("remove", params: ["id": "3", "optimistic": true])  // 3 success (optimistic), 4 success
            _ = try await control.call("remove", params: ["id": "5"])  // 5 loading, 6 success
            _ = try await control.call("wipe")  // 7 idle
            _ = try await control.call("load")  // 8 loading, 9 success

            var sequences: [[StateChange]] = []
            for subscription in subscriptions {
                var changes: [StateChange] = []
                for await change in subscription {
                    changes.append(change)
                    if change.seq == 9 { break }
                }
                sequences.append(changes)
            }
            for sequence in sequences {
                #expect(sequence.map(\.seq) == Array(0...9))
                #expect(
                    sequence.map(\.status) == [
                        "idle", "loading", "success", "success", "success", "loading", "success", "idle", "loading", "success",
                    ])
                #expect(sequence.map(\.state) == sequences[0].map(\.state))
            }
            let finalIDs = sequences[0].last?.state["items"]?.arrayValue?.compactMap { $0["id"]?.numberValue?.intValue }
            #expect(finalIDs == [1, 2, 4, 6, 7, 8, 9, 10])
            let file = try #require(directory.read("items.json"))
            #expect(!file.contains(#""id":3,"#) && !file.contains(#""id":5,"#), "the removals were written to the file")
        }
    }
}
