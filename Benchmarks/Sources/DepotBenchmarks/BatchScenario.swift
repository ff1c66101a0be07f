import Foundation

/// Issue 39: `apply` of many puts is one rewrite of the file, not one per put. A file of N items (as `json.dump`
/// writes it) and depotd on it (its cache on, `--no-watch-file`): `puts` puts of one item, then `batches` applies of
/// `batchSize` puts each, every call answered once the source has it (not optimistic); each timed from sending it
/// to its answer, with what depotd handed the storage layer for it.
public struct BatchScenario: Sendable {
    public var items: Int
    public var batchSize: Int
    public var puts: Int
    public var batches: Int

    public init(items: Int, batchSize: Int, puts: Int, batches: Int) {
        self.items = items
        self.batchSize = batchSize
        self.puts = puts
        self.batches = batches
    }

    public func run(binary: String, directory: String) throws -> BatchFigures {
        let path = directory + "/batch-items.json"
        let fileBytes = try BenchLayout.pythonDefault.write(count: items, itemBytes: BenchCollection.smallItemBytes, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let stateDirectory = directory + "/batch-state"
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        let socket = directory + "/batch.sock"
        let process = try ManagedProcess.launch(
            "depotd", executable: binary, arguments: ["--socket", socket, "--source", "file:" + path, "--no-watch-file", "--log-level", "warning"],
            environment: ["STATE_DIRECTORY": stateDirectory])
        defer { process.stop() }
        _ = try process.waitUntilAccepting(socket, timeout: 120)
        let control = try ControlConnection(path: socket, framing: .lines)
        _ = try control.call(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#)
        var round = 0
        func item(_ id: Int) -> String {
            #"{"id":\#(id),"name":"put \#(round)","types":["normal"],"note":"\#(String(repeating: "y", count: 120))"}"#
        }
        func timed(_ line: String) throws -> (milliseconds: Double, written: Int) {
            let before = try ProcessIO.of(process.pid)
            let start = MonotonicClock.now()
            _ = try control.call(line)
            let elapsed = Double(MonotonicClock.now() - start) / 1e6
            return (elapsed, (try ProcessIO.of(process.pid) - before).storageWritten)
        }
        var put: [(milliseconds: Double, written: Int)] = []
        for _ in 0..<puts {
            round += 1
            let id = (round * 7919) % items + 1
            put.append(try timed(#"{"jsonrpc":"2.0","id":1,"method":"put","params":{"id":\#(id),"item":\#(item(id))}}"#))
        }
        var apply: [(milliseconds: Double, written: Int)] = []
        for _ in 0..<batches {
            round += 1
            let changes = (0..<batchSize).map { index -> String in
                let id = (round * 7919 + index * 97) % items + 1
                return #"{"op":"put","id":\#(id),"item":\#(item(id))}"#
            }
            apply.append(try timed(#"{"jsonrpc":"2.0","id":1,"method":"apply","params":{"changes":[\#(changes.joined(separator: ","))]}}"#))
        }
        return BatchFigures(
            items: items, fileBytes: fileBytes, batchSize: batchSize,
            putMilliseconds: put.map(\.milliseconds), putWritten: put.map(\.written),
            applyMilliseconds: apply.map(\.milliseconds), applyWritten: apply.map(\.written))
    }
}

/// Puts one at a time and in batches, on one file.
public struct BatchFigures: Codable, Sendable {
    public var items: Int
    public var fileBytes: Int
    public var batchSize: Int
    public var putMilliseconds: [Double]
    /// Bytes depotd handed the storage layer for each call.
    public var putWritten: [Int]
    public var applyMilliseconds: [Double]
    public var applyWritten: [Int]
}
