import ArgumentParser
import DepotClient
import DepotJSON
import Foundation

/// Measurements of a real depotd, started by this tool on a temporary socket.
@main
struct DepotBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "depot-bench",
        abstract: "Measure depotd (started next to this binary, or --depotd, on a temporary socket) and its parts.",
        subcommands: [OptimisticRemoveFanout.self, CacheTimes.self]
    )
}

/// The time from a `remove --optimistic` call to the last of K subscribers receiving the new state.
struct OptimisticRemoveFanout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "optimistic-remove",
        abstract: "Time from a remove with optimistic=true being sent to the last of K subscribers having the whole notification line of the new state."
    )

    @Option(help: "Subscribers, each on its own connection.")
    var subscribers = 100

    @Option(help: "Items in the collection.")
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
        let daemon = try await BenchDaemon.start(binary: depotd, items: items)
        defer { daemon.stop() }

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
                    if let seq = Self.seq(in: line) {
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

    /// The state's seq in a stateChanged line, found without parsing the whole line.
    static func seq(in line: [UInt8]) -> Int? {
        let marker = Array(#""state":{"seq":"#.utf8)
        guard let start = line.firstRange(of: marker)?.upperBound else { return nil }
        var value = 0
        var index = start
        while index < line.count, line[index] >= 48, line[index] <= 57 {
            value = value * 10 + Int(line[index] - 48)
            index += 1
        }
        return index > start ? value : nil
    }
}

/// depotd on a temporary socket with a generated collection.
struct BenchDaemon {
    let process: Process
    let directory: URL
    var socketPath: String { directory.appendingPathComponent("depotd.sock").path }

    static func start(binary: String?, items: Int) async throws -> BenchDaemon {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("depot-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let itemsFile = directory.appendingPathComponent("items.json")
        let lines = (1...items).map { #"{"id": \#($0), "name": "item \#($0)", "types": ["normal"]}"# }
        try ("[\n" + lines.joined(separator: ",\n") + "\n]\n").write(to: itemsFile, atomically: true, encoding: .utf8)

        let executable = binary ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("depotd").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--socket", directory.appendingPathComponent("depotd.sock").path, "--source", "file:" + itemsFile.path, "--no-initial-load", "--log-level", "warning"]
        process.standardError = FileHandle.standardError
        try process.run()
        let daemon = BenchDaemon(process: process, directory: directory)
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let probe = try? await DepotConnection.connect(to: daemon.socketPath) {
                await probe.close()
                return daemon
            }
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw ValidationError("depotd did not start listening on \(daemon.socketPath)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
