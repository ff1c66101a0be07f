/// Scenario 3a: a server's resident memory with no subscriber, then with K idle subscribers (each has
/// received the current state and then nothing), K growing in steps on the same server.
public struct IdleMemoryScenario: Sendable {
    public var subscriberSteps: [Int]
    /// Time for the server to settle before each reading of VmRSS.
    public var settle: Double

    public init(subscriberSteps: [Int], settle: Double) {
        self.subscriberSteps = subscriberSteps
        self.settle = settle
    }

    /// `system` must have been prepared (depotd: loaded).
    public func run(on system: any SystemUnderTest, pool: ReaderPool) throws -> [IdleMemoryFigures] {
        MonotonicClock.sleep(seconds: settle)
        let idle = try system.process.residentKiB()
        let tracker = SubscriberTracker()
        var connected = 0
        var figures: [IdleMemoryFigures] = []
        defer { pool.closeAll() }
        for step in subscriberSteps.sorted() where step > connected {
            system.armForNewSubscribers(tracker, count: step - connected)
            for index in connected..<step {
                let fd = try UnixSocket.connect(to: system.socketPath)
                pool.add(ClientConnection(fd: fd, index: index, framing: system.framing, sink: tracker))
                try UnixSocket.writeAll(fd, system.subscribeMessage)
            }
            try tracker.wait(timeout: 120, what: "\(step) idle subscriptions to \(system.name)")
            _ = tracker.takeArrivals()
            connected = step
            MonotonicClock.sleep(seconds: settle)
            let resident = try system.process.residentKiB()
            figures.append(
                IdleMemoryFigures(
                    system: system.name,
                    subscribers: step,
                    idleKiB: idle,
                    withSubscribersKiB: resident,
                    kibPerSubscriber: Double(resident - idle) / Double(step)
                ))
        }
        return figures
    }
}
