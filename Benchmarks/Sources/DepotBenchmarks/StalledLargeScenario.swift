#if canImport(Glibc)
import Glibc
#endif

/// Issue 13: many subscribers that never read, one that does, and a large collection. One depotd on a file
/// source of `items` items of about 200 bytes: a reader (in `readerMode`) times `removals` optimistic removals (from
/// `remove` sent to the reader holding the optimistic state), first alone, then with `stalled` snapshot-mode
/// subscribers connected that read their `subscribe` answer and nothing after it (each with a small receive buffer),
/// each of which the daemon must send every 20 MB state. depotd's resident memory is sampled after every removal of both phases: the stalled
/// subscribers' cost, the highest with them less the highest without, must stay within a few encoded
/// collections, whatever their number. depotd runs with `StalledSubscriberScenario.mallocTunables`, as in 3b.
public struct StalledLargeScenario: Sendable {
    public var items: Int
    public var stalled: Int
    public var removals: Int
    /// The reader's mode: "snapshot" (it needs every 20 MB state, as the stalled ones do) or "delta".
    public var readerMode: String

    public init(items: Int, stalled: Int, removals: Int, readerMode: String) {
        self.items = items
        self.stalled = stalled
        self.removals = removals
        self.readerMode = readerMode
    }

    public func run(binary: String, directory: String, collection: BenchCollection, pool: ReaderPool) throws -> StalledLargeFigures {
        // With the allocator settings of scenario 3b, so that RSS shows what depotd holds, not what glibc kept.
        let depotd = try DepotdUnderTest(
            binary: binary, directory: directory, collection: collection,
            environment: ["GLIBC_TUNABLES": StalledSubscriberScenario.mallocTunables], mode: readerMode, trigger: .optimisticRemoval)
        defer { depotd.process.stop() }
        try depotd.prepare(items: items)
        let encodedStateBytes = try stateBytes(depotd.socketPath)

        let tracker = SubscriberTracker()
        depotd.armForNewSubscribers(tracker, count: 1)
        let readerFD = try UnixSocket.connect(to: depotd.socketPath)
        pool.add(ClientConnection(fd: readerFD, index: 0, framing: .lines, sink: tracker))
        try UnixSocket.writeAll(readerFD, depotd.subscribeMessage)
        try tracker.wait(timeout: 120, what: "the reader's subscription")

        var peakAlone = try depotd.process.residentKiB()
        let alone = try timeRemovals(depotd, tracker: tracker) { peakAlone = max(peakAlone, (try? depotd.process.residentKiB()) ?? 0) }

        let before = try depotd.process.residentKiB()
        var stalledFDs: [Int32] = []
        defer { stalledFDs.forEach { close($0) } }
        let subscribe = Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#.utf8) + [0x0A]
        for _ in 0..<stalled {
            let fd = try UnixSocket.connect(to: depotd.socketPath, receiveBuffer: 4096)
            stalledFDs.append(fd)
            try UnixSocket.writeAll(fd, subscribe)
            // Subscribed before the timed removals: each gets the same first state, and part of it, then reads no more.
            // (Left to subscribe during the removals, they got the states of the first rounds as their first ones, a
            // different set from run to run, each pinned whole by the connections that had begun writing it: the
            // cost varied from 2.5× to 5.5× the collection with the same build.)
            try UnixSocket.readFirstLine(fd, timeout: 120, what: "a stalled subscriber's answer")
        }
        let subscribed = try depotd.process.residentKiB()
        var peak = max(before, subscribed)
        let withStalled = try timeRemovals(depotd, tracker: tracker) { peak = max(peak, (try? depotd.process.residentKiB()) ?? 0) }
        // What the stalled subscribers cost: the highest RSS with them, less the highest of the same removals without
        // them (each removal's states and its answer come and go, so a single "before" sample would count those too).
        return StalledLargeFigures(
            items: items, itemBytes: BenchCollection.smallItemBytes, encodedStateBytes: encodedStateBytes, stalled: stalled, removals: removals,
            readerMode: readerMode,
            readerAlone: LatencySummary(nanoseconds: alone), readerWithStalled: LatencySummary(nanoseconds: withStalled),
            beforeKiB: subscribed, peakAloneKiB: peakAlone, peakKiB: peak, growthKiB: max(0, peak - max(peakAlone, before)))
    }

    /// The time from each removal to the reader holding its optimistic state; `sampling` runs after each.
    private func timeRemovals(_ depotd: DepotdUnderTest, tracker: SubscriberTracker, sampling: () -> Void) throws -> [UInt64] {
        var latencies: [UInt64] = []
        for _ in 0..<removals {
            let (measured, settled) = try depotd.prepareRound(items: items, tracker: tracker, subscribers: 1)
            _ = tracker.takeArrivals()
            tracker.arm(seq: settled, count: 1)
            let start = MonotonicClock.now()
            try depotd.trigger()
            try tracker.wait(timeout: 300, what: "the reader to receive seq \(settled)")
            try depotd.finishRound()
            guard let arrival = tracker.takeArrivals().first(where: { $0.seq == measured }) else {
                throw BenchError("the reader did not receive the optimistic state, seq \(measured)")
            }
            latencies.append(arrival.time - start)
            sampling()
        }
        return latencies
    }

    /// The bytes of the `state` answer, about the encoded collection.
    private func stateBytes(_ socketPath: String) throws -> Int {
        let control = try ControlConnection(path: socketPath, framing: .lines)
        try control.send(line: #"{"jsonrpc":"2.0","id":1,"method":"state"}"#)
        return try control.receive().message.bytes
    }
}
