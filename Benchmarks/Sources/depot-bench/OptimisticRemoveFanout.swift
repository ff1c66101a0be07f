import ArgumentParser
import DepotBenchmarks
import DepotClient
import DepotJSON
import Foundation

/// The time from a `remove --optimistic` call to the last of K subscribers receiving the new state.
struct OptimisticRemoveFanout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "optimistic-remove",
        abstract:
            "Time from a remove with optimistic=true being sent to the last of K subscribers having the whole notification line of the new state."
    )

    @Option(help: "Subscribers, each on its own connection.")
    var subscribers = 100

    @Option(help: "Items in the collection, 1 KiB each.")
    var items = 151

    @Option(help: "Removals to time.")
    var rounds = 100

    @Option(help: "The depotd binary. Default: the one next to this tool.")
    var depotd: String?

    func validate() throws {
        guard rounds >= 1, rounds < items else { throw ValidationError("--rounds must be between 1 and --items - 1") }
        guard subscribers >= 1 else { throw ValidationError("--subscribers must be at least 1") }
    }

    func run() async throws {
        let directory = try BenchDirectory.create()
        defer { directory.remove() }
        let daemon = try DepotdUnderTest(binary: depotd ?? BenchBinaries.depotd, directory: directory.path, collection: BenchCollection(count: items))
        defer { daemon.process.stop() }
        try daemon.prepare(items: items)

        // Every notification a subscriber receives: which subscriber, which seq, when its line was complete.
        let (deliveries, delivered) = AsyncStream<(subscriber: Int, seq: Int, at: ContinuousClock.Instant)>.makeStream()
        var connections: [LineConnection] = []
        for index in 0..<subscribers {
            let connection = try await LineConnection.connect(to: daemon.socketPath)
            connections.append(connection)
            try await connection.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#)
            Task {
                for try await line in connection.lines {
                    let now = ContinuousClock.now
                    if let seq = MessageHead.seq(in: line) {
                        delivered.yield((index, seq, now))
                    }
                }
            }
        }
        var arrivals = deliveries.makeAsyncIterator()
        var latest = [Int](repeating: -1, count: subscribers)
        var arrivalTimes: [Int: [ContinuousClock.Instant]] = [:]
        /// Consumes deliveries until every subscriber has `seq`.
        func waitForAll(_ seq: Int) async throws {
            while latest.contains(where: { $0 < seq }) {
                guard let delivery = await arrivals.next() else { throw ValidationError("a subscriber's connection ended") }
                latest[delivery.subscriber] = max(latest[delivery.subscriber], delivery.seq)
                arrivalTimes[delivery.seq, default: []].append(delivery.at)
            }
        }

        let control = try await DepotConnection.connect(to: daemon.socketPath)
        let loaded = try await control.call("load")
        var seq = loaded["seq"]?.numberValue?.intValue ?? 0
        try await waitForAll(seq)

        var samples: [Duration] = []
        for round in 1...rounds {
            let optimisticSeq = seq + 1
            let start = ContinuousClock.now
            let answer = try await control.call("remove", params: ["id": .string(String(round)), "optimistic": true])
            seq = answer["seq"]?.numberValue?.intValue ?? seq + 2
            try await waitForAll(seq)
            let times = arrivalTimes.removeValue(forKey: optimisticSeq) ?? []
            guard times.count == subscribers, let last = times.max() else {
                throw ValidationError("round \(round): \(times.count) of \(subscribers) subscribers got seq \(optimisticSeq)")
            }
            samples.append(last - start)
        }
        for connection in connections { await connection.close() }
        await control.close()

        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Duration { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        func ms(_ d: Duration) -> String { String(format: "%.3f ms", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000) }
        print("optimistic remove → last of \(subscribers) subscribers has the new state (\(items) items, \(rounds) removals)")
        print("  p50 \(ms(percentile(0.5)))  p90 \(ms(percentile(0.9)))  p99 \(ms(percentile(0.99)))  max \(ms(sorted.last!))")
    }
}
