/// Scenario 1: one state change delivered to K subscribers, measured per subscriber from the trigger to the
/// whole message received; the same rounds, of the same size, for every system.
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

    public func run(on system: any SystemUnderTest, pool: ReaderPool) throws -> FanoutFigures {
        try system.prepare(items: items)
        let tracker = SubscriberTracker()
        if let seq = system.subscribedSeq {
            tracker.arm(seq: seq, count: subscribers)
        } else {
            tracker.arm(messages: 1, count: subscribers)
        }
        for index in 0..<subscribers {
            let fd = try UnixSocket.connect(to: system.socketPath)
            pool.add(ClientConnection(fd: fd, index: index, framing: system.framing, sink: tracker))
            try UnixSocket.writeAll(fd, system.subscribeMessage)
        }
        defer { pool.closeAll() }
        try tracker.wait(timeout: 120, what: "\(subscribers) subscriptions to \(system.name)")

        var latencies: [UInt64] = []
        latencies.reserveCapacity(subscribers * rounds)
        var busyNanoseconds: UInt64 = 0
        var deliveredBytes = 0
        for round in 0..<(warmUpRounds + rounds) {
            let (measured, settled) = try system.prepareRound(items: items, tracker: tracker, subscribers: subscribers)
            _ = tracker.takeArrivals()
            tracker.arm(seq: settled, count: subscribers)
            let start = MonotonicClock.now()
            try system.trigger()
            try tracker.wait(timeout: 120, what: "seq \(settled) from \(system.name) at \(subscribers) subscribers")
            try system.finishRound()
            let arrivals = tracker.takeArrivals().filter { $0.seq == measured }
            guard arrivals.count == subscribers, Set(arrivals.map(\.subscriber)).count == subscribers else {
                throw BenchError("\(system.name): \(Set(arrivals.map(\.subscriber)).count) of \(subscribers) subscribers received seq \(measured) (a state was skipped or duplicated)")
            }
            guard round >= warmUpRounds else { continue }
            var last = start
            for arrival in arrivals {
                latencies.append(arrival.time - start)
                last = max(last, arrival.time)
                deliveredBytes += arrival.bytes
            }
            busyNanoseconds += last - start
        }
        let seconds = Double(busyNanoseconds) / 1e9
        return FanoutFigures(
            system: system.name,
            items: items,
            subscribers: subscribers,
            rounds: rounds,
            latency: LatencySummary(nanoseconds: latencies),
            deliveriesPerSecond: Double(latencies.count) / seconds,
            bytesPerSecond: Double(deliveredBytes) / seconds,
            messageBytes: deliveredBytes / max(1, latencies.count)
        )
    }
}
