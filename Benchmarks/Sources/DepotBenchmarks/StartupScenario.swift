import Foundation

/// Scenario 4: from launching a server to its socket accepting, and (depotd) to a subscriber that connected
/// at once holding the first success state, whole: loaded from its file, or read from its on-disk cache (the
/// file then gone, so the cached list is the only success). The median of `runs` launches.
public struct StartupScenario: Sendable {
    public var items: Int
    public var runs: Int

    public init(items: Int, runs: Int) {
        self.items = items
        self.runs = runs
    }

    public func runDepotd(binary: String, directory: String, collection: BenchCollection, fromCache: Bool) throws -> StartupFigures {
        let itemsPath = directory + "/startup-items.json"
        try collection.write(to: itemsPath, ids: 1..<(items + 1))
        defer { try? FileManager.default.removeItem(atPath: itemsPath) }
        // The cache goes in a state directory of the benchmark's own, never the machine's.
        let stateDirectory = directory + "/startup-state"
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        func launch(_ socket: String, _ extra: [String] = []) throws -> ManagedProcess {
            try ManagedProcess.launch(
                "depotd", executable: binary,
                arguments: ["--socket", socket, "--source", "file:" + itemsPath, "--log-level", "warning"] + (fromCache ? [] : ["--no-cache"])
                    + extra,
                environment: ["STATE_DIRECTORY": stateDirectory]
            )
        }
        if fromCache {
            // One run loads the file, which fills the cache (load answers once the list is saved); then the file goes.
            let socket = directory + "/startup-prime.sock"
            let process = try launch(socket, ["--no-initial-load"])
            _ = try process.waitUntilAccepting(socket, timeout: 120)
            _ = try ControlConnection(path: socket, framing: .lines).call(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#)
            process.stop()
            try FileManager.default.removeItem(atPath: itemsPath)
        }
        // The same bytes read by this process, for scale: the file, or the cache's files.
        let rawRead = Self.median((0..<runs).map { _ in Self.readTime(fromCache ? Self.files(in: stateDirectory) : [itemsPath]) })
        var accepting: [Double] = []
        var firstState: [Double] = []
        var loads: [Double] = []
        for run in 0..<runs {
            let socket = directory + "/startup-\(run).sock"
            let process = try launch(socket)
            defer { process.stop() }
            let accepted = try process.waitUntilAccepting(socket, timeout: 120)
            try Self.waitForSuccess(on: socket)
            let loaded = MonotonicClock.now()
            accepting.append(Double(accepted - process.launchedAt) / 1e6)
            firstState.append(Double(loaded - process.launchedAt) / 1e6)
            if !fromCache {
                // A `load` of the same items on the running daemon: request sent to answer read.
                let control = try ControlConnection(path: socket, framing: .lines)
                let start = MonotonicClock.now()
                _ = try control.call(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#)
                loads.append(Double(MonotonicClock.now() - start) / 1e6)
            }
        }
        return StartupFigures(
            system: "depotd", items: items, runs: runs,
            acceptingMilliseconds: Self.median(accepting), firstStateMilliseconds: Self.median(firstState), fromCache: fromCache,
            loadMilliseconds: loads.isEmpty ? nil : Self.median(loads), rawReadMilliseconds: rawRead
        )
    }

    /// The regular files in `directory`.
    private static func files(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).map { directory + "/" + $0 }
    }

    /// Milliseconds to read every byte of `paths` into memory.
    private static func readTime(_ paths: [String]) -> Double {
        let start = MonotonicClock.now()
        var bytes = 0
        for path in paths {
            bytes += FileManager.default.contents(atPath: path)?.count ?? 0
        }
        precondition(bytes >= 0)
        return Double(MonotonicClock.now() - start) / 1e6
    }

    /// Subscribes on `socket` and returns once a `success` state has arrived whole; throws at a failure.
    /// `keepingOne` subscribes through a pipeline that keeps one item, so that the first state's arrival is not its
    /// transfer.
    static func waitForSuccess(on socket: String, keepingOne: Bool = false) throws {
        let subscriber = try ControlConnection(path: socket, framing: .lines)
        let params = keepingOne ? #","params":{"pipeline":[{"op":"limit","count":1}]}"# : ""
        try subscriber.send(line: #"{"jsonrpc":"2.0","id":1,"method":"subscribe"\#(params)}"#)
        let success = Array(#""status":"success""#.utf8)
        let failure = Array(#""status":"failure""#.utf8)
        while true {
            let (_, head) = try subscriber.receive()
            if head.firstRange(of: success) != nil { return }
            if head.firstRange(of: failure) != nil {
                throw BenchError("depotd published a failure at start-up: \(String(decoding: head, as: UTF8.self))…")
            }
        }
    }

    /// A reference's start-up: until its socket accepts.
    public static func runReference(_ name: String, runs: Int, launch: (Int) throws -> (ManagedProcess, String)) throws -> StartupFigures {
        var accepting: [Double] = []
        for run in 0..<runs {
            let (process, socket) = try launch(run)
            defer { process.stop() }
            let accepted = try process.waitUntilAccepting(socket, timeout: 60)
            accepting.append(Double(accepted - process.launchedAt) / 1e6)
        }
        return StartupFigures(system: name, items: 0, runs: runs, acceptingMilliseconds: median(accepting), firstStateMilliseconds: nil)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
