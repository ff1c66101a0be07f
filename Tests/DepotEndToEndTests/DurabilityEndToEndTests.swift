import DepotClient
import DepotJSON
import DepotPlatform
import DepotTestSupport
import DepotWire
import Foundation
import Testing

extension WriteLoadTests {
    /// An answered write is in the source and survives a crash: depotd killed with SIGKILL in the middle of a stream of
    /// writes, again and again, leaves a file that parses and holds every write it answered.
    @Suite("depotd: answered writes survive SIGKILL", .timeLimit(.minutes(10)))
    struct DurabilityEndToEndTests {
        /// What the writers were told: the ids put (with their items) and removed, as answered.
        struct Answered: Sendable {
            var put: [String: JSONValue] = [:]
            var removed: Set<String> = []
            var count = 0
            /// The write each writer has asked for and not yet been answered: made or not when the daemon is killed.
            var inFlight: [Int: (puts: [String: JSONValue], removal: String?)] = [:]
        }

        /// A writer's stream until its connection dies: puts of new items, a batch of two now and then, and removals of
        /// items it put before; each answered write recorded as answered.
        static func write(_ connection: DepotConnection, writer: Int, round: Int, answered: Condition<Answered>) async {
            var random = SplitMix64(seed: UInt64(round * 16 + writer))
            var k = 0
            var mine: [String] = []
            while true {
                k += 1
                let id = "r\(round)w\(writer)k\(k)"
                let item: JSONObject = [
                    "id": .string(id), "round": .number(JSONNumber(round)), "pad": .string(String(repeating: "x", count: k % 7 * 20)),
                ]
                do {
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0 where !mine.isEmpty:
                        let victim = mine.removeFirst()
                        answered.update { $0.inFlight[writer] = ([:], victim) }
                        _ = try await connection.call(RemoveRequest(id: victim, optimistic: Bool.random(using: &random)))
                        answered.update {
                            $0.removed.insert(victim)
                            $0.put[victim] = nil
                            $0.count += 1
                            $0.inFlight[writer] = nil
                        }
                    case 1:
                        var second = item
                        second["id"] = .string(id + "b")
                        answered.update { $0.inFlight[writer] = ([id: .object(item), id + "b": .object(second)], nil) }
                        let changes = [WireChange(.put, id: .string(id), item: item), WireChange(.put, id: .string(id + "b"), item: second)]
                        _ = try await connection.call(ApplyRequest(changes: changes, optimistic: Bool.random(using: &random)))
                        answered.update {
                            $0.put[id] = .object(item)
                            $0.put[id + "b"] = .object(second)
                            $0.count += 1
                            $0.inFlight[writer] = nil
                        }
                        mine.append(id)
                    default:
                        answered.update { $0.inFlight[writer] = ([id: .object(item)], nil) }
                        _ = try await connection.call(PutRequest(id: .string(id), item: item, optimistic: Bool.random(using: &random)))
                        answered.update {
                            $0.put[id] = .object(item)
                            $0.count += 1
                            $0.inFlight[writer] = nil
                        }
                        mine.append(id)
                    }
                } catch {
                    return  // the daemon is gone
                }
            }
        }

        @Test("200 kills at random moments during writes from two clients: the file always parses, and holds every answered write")
        func killedWhileWriting() async throws {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let path = directory.file("items.json")
            directory.write("items.json", "[\n" + (1...50).map { #"  {"id": "seed\#($0)", "n": \#($0)}"# }.joined(separator: ",\n") + "\n]\n")
            var random = SplitMix64(seed: 200)
            let answered = Condition(Answered())
            var kills = 0
            var held = 50
            for round in 0..<200 {
                let daemon = try await Daemon.start(["--source", "file:" + path], directory: directory)
                let connections = [try await daemon.connect(), try await daemon.connect()]
                let loaded = try await connections[0].call(LoadRequest())
                #expect(loaded.count == held, "round \(round): started again, depotd holds what the file does")
                // Kill once a random number of writes more have been answered: the other writer's write is then under
                // way, anywhere between its arrival and its answer.
                let target = answered.value.count + Int.random(in: 1...6, using: &random)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (writer, connection) in connections.enumerated() {
                        group.addTask { await Self.write(connection, writer: writer, round: round, answered: answered) }
                    }
                    try await withTimeout(.seconds(60), "round \(round): \(target) writes answered") { await answered.wait { $0.count >= target } }
                    try await daemon.kill()
                    kills += 1
                    try await group.waitForAll()
                }
                for connection in connections { await connection.close() }

                let text = try Data(contentsOf: URL(fileURLWithPath: path))
                let parsed: JSONValue
                do {
                    parsed = try JSONParser.parse(Array(text))
                } catch {
                    Issue.record(
                        "round \(round): the file does not parse after a kill: \(error)\n\(String(decoding: text, as: UTF8.self).suffix(400))")
                    return
                }
                let stored = itemsByID(parsed.arrayValue ?? [])
                held = stored.count
                let done = answered.value
                let unanswered = done.inFlight.values
                let maybeRemoved = Set(unanswered.compactMap(\.removal))
                let lost = done.put.filter { stored[$0.key] != $0.value && !maybeRemoved.contains($0.key) }.map(\.key)
                #expect(lost.isEmpty, "round \(round): answered puts missing from the file: \(lost.sorted())")
                let back = done.removed.filter { stored[$0] != nil }
                #expect(back.isEmpty, "round \(round): answered removals back in the file: \(back.sorted())")
                // Beyond the answers the file may hold only the writes under way at the kill — whole, or not at all.
                let maybePut = unanswered.reduce(into: [String: JSONValue]()) { $0.merge($1.puts) { a, _ in a } }
                let extra = stored.filter { !$0.key.hasPrefix("seed") && done.put[$0.key] == nil }
                #expect(
                    extra.allSatisfy { maybePut[$0.key] == $0.value }, "round \(round): the file holds writes never asked for: \(extra.keys.sorted())"
                )
                for batch in unanswered where batch.puts.count > 1 {
                    #expect(Set(batch.puts.keys.map { stored[$0] != nil }).count == 1, "round \(round): a batch made in part")
                }
                // The writes under way count as what the file says of them.
                answered.update { answered in
                    for (id, item) in extra { answered.put[id] = item }
                    for id in maybeRemoved where stored[id] == nil {
                        answered.put[id] = nil
                        answered.removed.insert(id)
                    }
                    answered.inFlight = [:]
                }
            }
            #expect(kills == 200)
            #expect(answered.value.count > 400, "\(answered.value.count) writes answered across the kills")
        }
    }
}
