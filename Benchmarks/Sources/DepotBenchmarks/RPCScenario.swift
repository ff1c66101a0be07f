/// Scenario 2: C clients, each asking `method` again as soon as its answer is whole, for a fixed time.
public struct RPCScenario: Sendable {
    public var method: RPCMethodUnderTest
    public var items: Int
    public var clients: Int
    public var warmUp: Double
    public var seconds: Double

    public init(method: RPCMethodUnderTest, items: Int, clients: Int, warmUp: Double, seconds: Double) {
        self.method = method
        self.items = items
        self.clients = clients
        self.warmUp = warmUp
        self.seconds = seconds
    }

    /// `system` must have been prepared with `items` items.
    public func run(on system: any SystemUnderTest, pool: ReaderPool) throws -> RPCFigures {
        let loop = ClosedLoopClients()
        var connections: [ClientConnection] = []
        for index in 0..<clients {
            let fd = try UnixSocket.connect(to: system.socketPath)
            let connection = ClientConnection(fd: fd, index: index, framing: system.framing, sink: loop)
            pool.add(connection)
            connections.append(connection)
        }
        defer { pool.closeAll() }
        let latencies = try loop.run(connections, request: system.request(method), warmUp: warmUp, seconds: seconds)
        return RPCFigures(
            system: system.name,
            method: method,
            items: items,
            clients: clients,
            seconds: seconds,
            requestsPerSecond: Double(latencies.count) / seconds,
            latency: LatencySummary(nanoseconds: latencies),
            answerBytes: connections.first.map(\.lastAnswerBytes) ?? 0
        )
    }
}
