/// Scenario 1: one state change delivered to K subscribers, measured per subscriber from the trigger to the
/// whole message received; the same rounds, of the same size, for every system.
///
/// The systems' rounds are interleaved, each round starting with the next system in turn: every system
/// has its K subscribers connected throughout, and round r of one runs between rounds r of the others.
/// A shared 2-core machine has slow phases (a busy neighbour, the kernel reclaiming memory) lasting a few
/// seconds; run one system after the other and such a phase lands on one system's rounds only and decides
/// its p99, interleaved it costs all alike.
public struct FanoutScenario: Sendable {
    public var items: Int
    public var subscribers: Int
    public var rounds: Int
    public var warmUpRounds: Int

    public init(items: Int, subscribers: Int, rounds: Int, warmUpRounds: Int) {
        self.items = items
        self.subscribers = subscribers
        self.rounds = rounds
        self.warmUpRounds = warmUpRounds
    }

    /// Runs the scenario on every system at once and returns their figures, in the order of `systems`.
    public func run(on systems: [any SystemUnderTest], pool: ReaderPool) throws -> [FanoutFigures] {
        defer { pool.closeAll() }
        var measurements: [Measurement] = []
        for system in systems {
            measurements.append(try subscribe(to: system, pool: pool))
        }
        for round in 0..<(warmUpRounds + rounds) {
            for turn in measurements.indices {
                let index = (round + turn) % measurements.count
                try runRound(&measurements[index], counted: round >= warmUpRounds)
            }
        }
        return measurements.map(figures)
    }

    /// One system's subscribers and what its rounds measured so far.
    private struct Measurement {
        let system: any SystemUnderTest
        let tracker: SubscriberTracker
        var latencies: [UInt64] = []
        var busyNanoseconds: UInt64 = 0
        var deliveredBytes = 0
        /// The system's CPU time over its counted rounds, from just before each trigger to its answer.
        var cpuMilliseconds = 0.0
    }

    /// Prepares `system`'s collection and connects its K subscribers, returning once all are subscribed.
    private func subscribe(to system: any SystemUnderTest, pool: ReaderPool) throws -> Measurement {
        try system.prepare(items: items)
        let tracker = SubscriberTracker()
        system.armForNewSubscribers(tracker, count: subscribers)
        for index in 0..<subscribers {
            let fd = try UnixSocket.connect(to: system.socketPath)
            pool.add(ClientConnection(fd: fd, index: index, framing: system.framing, sink: tracker))
            try UnixSocket.writeAll(fd, system.subscribeMessage(subscriber: index))
        }
        try tracker.wait(timeout: 120, what: "\(subscribers) subscriptions to \(system.name)")
        var measurement = Measurement(system: system, tracker: tracker)
        measurement.latencies.reserveCapacity(subscribers * rounds)
        return measurement
    }

    private func runRound(_ measurement: inout Measurement, counted: Bool) throws {
        let system = measurement.system
        let tracker = measurement.tracker
        let (measured, settled) = try system.prepareRound(items: items, tracker: tracker, subscribers: subscribers)
        _ = tracker.takeArrivals()
        tracker.arm(seq: settled, count: subscribers)
        let cpuBefore = counted ? try ProcessCPU.milliseconds(of: system.process.pid) : 0
        let start = MonotonicClock.now()
        try system.trigger()
        try tracker.wait(timeout: 120, what: "seq \(settled) from \(system.name) at \(subscribers) subscribers")
        try system.finishRound()
        if counted { measurement.cpuMilliseconds += try ProcessCPU.milliseconds(of: system.process.pid) - cpuBefore }
        let arrivals = tracker.takeArrivals().filter { $0.seq == measured }
        guard arrivals.count == subscribers, Set(arrivals.map(\.subscriber)).count == subscribers else {
            throw BenchError(
                "\(system.name): \(Set(arrivals.map(\.subscriber)).count) of \(subscribers) subscribers received seq \(measured) (a state was skipped or duplicated)"
            )
        }
        guard counted else { return }
        var last = start
        for arrival in arrivals {
            measurement.latencies.append(arrival.time - start)
            last = max(last, arrival.time)
            measurement.deliveredBytes += arrival.bytes
        }
        measurement.busyNanoseconds += last - start
    }

    private func figures(_ measurement: Measurement) -> FanoutFigures {
        let seconds = Double(measurement.busyNanoseconds) / 1e9
        return FanoutFigures(
            system: measurement.system.name,
            items: items,
            subscribers: subscribers,
            rounds: rounds,
            latency: LatencySummary(nanoseconds: measurement.latencies),
            deliveriesPerSecond: Double(measurement.latencies.count) / seconds,
            bytesPerSecond: Double(measurement.deliveredBytes) / seconds,
            messageBytes: measurement.deliveredBytes / max(1, measurement.latencies.count),
            cpuMillisecondsPerRound: measurement.cpuMilliseconds / Double(max(1, rounds))
        )
    }
}
