import Foundation

/// Issue 39: a file's layout must not decide the cost. The same N items written in each `BenchLayout`; depotd
/// started on the file (`--no-watch-file`, its cache on, as a user runs it) `runs` times, timed from the launch to a
/// subscriber holding the first success state, with its RSS then and its peak; the raw read of the file beside it,
/// for scale. Then, on the last start, the first changes after it: 8 delta-mode subscribers, and `changes` optimistic
/// puts one after the other, each timed from sending it to the last subscriber holding its state.
public struct LayoutScenario: Sendable {
    public var items: Int
    public var itemBytes: Int
    public var runs: Int
    public var subscribers: Int
    public var changes: Int

    public init(items: Int, itemBytes: Int, runs: Int, subscribers: Int, changes: Int) {
        self.items = items
        self.itemBytes = itemBytes
        self.runs = runs
        self.subscribers = subscribers
        self.changes = changes
    }

    public func run(binary: String, directory: String, layout: BenchLayout, stringIDs: Bool, pool: ReaderPool) throws -> LayoutFigures {
        let path = directory + "/layout-items.json"
        let fileBytes = try layout.write(count: items, itemBytes: itemBytes, stringIDs: stringIDs, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rawRead = StartupScenario.median((0..<runs).map { _ in Self.readMilliseconds(path) })
        var firstState: [Double] = []
        var resident: [Int] = []
        var peak: [Int] = []
        var changeLatencies: [Double] = []
        for run in 0..<runs {
            let stateDirectory = directory + "/layout-state-\(run)"
            defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
            let socket = directory + "/layout-\(run).sock"
            let process = try ManagedProcess.launch(
                "depotd", executable: binary,
                arguments: ["--socket", socket, "--source", "file:" + path, "--no-watch-file", "--log-level", "warning"],
                environment: ["STATE_DIRECTORY": stateDirectory])
            defer { process.stop() }
            _ = try process.waitUntilAccepting(socket, timeout: 120)
            try StartupScenario.waitForSuccess(on: socket, keepingOne: true)
            firstState.append(Double(MonotonicClock.now() - process.launchedAt) / 1e6)
            resident.append(try process.residentKiB())
            peak.append(try Self.peakKiB(of: process.pid))
            if run == runs - 1 {
                changeLatencies = try firstChanges(socket: socket, stringIDs: stringIDs, pool: pool)
            }
        }
        return LayoutFigures(
            layout: layout, stringIDs: stringIDs, items: items, fileBytes: fileBytes, runs: runs,
            firstStateMilliseconds: firstState, residentKiB: resident, peakKiB: peak, rawReadMilliseconds: rawRead,
            subscribers: subscribers, changeMilliseconds: changeLatencies)
    }

    /// The first `changes` optimistic puts after start, each to `subscribers` delta-mode subscribers: milliseconds
    /// from sending it to the last of them holding its state.
    private func firstChanges(socket: String, stringIDs: Bool, pool: ReaderPool) throws -> [Double] {
        defer { pool.closeAll() }
        let tracker = SubscriberTracker()
        tracker.arm(messages: 2, count: subscribers)  // the answer to subscribe, and the current state
        for index in 0..<subscribers {
            let fd = try UnixSocket.connect(to: socket)
            pool.add(ClientConnection(fd: fd, index: index, framing: .lines, sink: tracker))
            try UnixSocket.writeAll(fd, Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"mode":"delta"}}"#.utf8) + [0x0A])
        }
        try tracker.wait(timeout: 300, what: "\(subscribers) delta subscriptions to hold the first state")
        guard var seq = tracker.takeArrivals().map(\.seq).max() else { throw BenchError("the subscribers were sent no state") }
        let control = try ControlConnection(path: socket, framing: .lines)
        var latencies: [Double] = []
        for change in 1...changes {
            // Each put publishes its optimistic state (the one timed), then the confirmed one before its answer.
            let (shown, confirmed) = (seq + 1, seq + 2)
            let id = stringIDs ? #""item-\#(change * 7)""# : "\(change * 7)"
            tracker.arm(seq: confirmed, count: subscribers)
            let start = MonotonicClock.now()
            try control.send(
                line:
                    #"{"jsonrpc":"2.0","id":1,"method":"put","params":{"id":\#(id),"item":{"name":"changed \#(change)","types":["normal"],"note":"n"},"optimistic":true}}"#
            )
            try tracker.wait(timeout: 120, what: "put \(change)'s confirmed state at \(subscribers) subscribers")
            let (answer, head) = try control.receive()
            guard !answer.isError, answer.seq == confirmed else {
                throw BenchError("depotd answered put \(change) with \(String(decoding: head, as: UTF8.self))…")
            }
            let arrivals = tracker.takeArrivals().filter { $0.seq == shown }
            guard Set(arrivals.map(\.subscriber)).count == subscribers, let last = arrivals.map(\.time).max() else {
                throw BenchError("put \(change): not every subscriber was sent its optimistic state")
            }
            latencies.append(Double(last - start) / 1e6)
            seq = confirmed
        }
        return latencies
    }

    private static func readMilliseconds(_ path: String) -> Double {
        let start = MonotonicClock.now()
        let bytes = FileManager.default.contents(atPath: path)?.count ?? 0
        precondition(bytes >= 0)
        return Double(MonotonicClock.now() - start) / 1e6
    }

    /// VmHWM: the most memory the process has held resident.
    private static func peakKiB(of pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw BenchError("no VmHWM in /proc/\(pid)/status") }
        return kib
    }
}

/// One layout's start-up and first changes.
public struct LayoutFigures: Codable, Sendable {
    public var layout: BenchLayout
    public var stringIDs: Bool
    public var items: Int
    public var fileBytes: Int
    public var runs: Int
    /// Each run's milliseconds from launch to the first success state.
    public var firstStateMilliseconds: [Double]
    /// Each run's RSS when the first state had arrived, and its peak by then.
    public var residentKiB: [Int]
    public var peakKiB: [Int]
    public var rawReadMilliseconds: Double
    public var subscribers: Int
    /// The first changes after the last start, in order: send to the last subscriber holding the state.
    public var changeMilliseconds: [Double]
}
