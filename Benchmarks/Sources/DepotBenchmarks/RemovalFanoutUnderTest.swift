/// depotd with subscribers in one mode (`snapshot` or `delta`), its fan-out triggered by an optimistic removal:
/// the measured state is the optimistic one (the collection minus one item), published before the source is
/// touched; the round ends once the source's confirmation is published too.
public final class RemovalFanoutUnderTest: SystemUnderTest {
    public let name: String
    public let process: ManagedProcess
    public let socketPath: String
    public let framing = Framing.lines
    public let subscribeMessage: [UInt8]
    public var subscribedSeq: Int? { seq }

    private let collection: BenchCollection
    private let itemsPath: String
    private let control: ControlConnection
    private var seq = 0
    private var nextID = 1

    /// Starts depotd on a file source; `mode` is the subscribers' `subscribe` mode.
    public init(binary: String, directory: String, collection: BenchCollection, mode: String, environment: [String: String] = [:]) throws {
        name = "depotd \(mode)"
        self.collection = collection
        subscribeMessage = Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"mode":"\#(mode)"}}"#.utf8) + [0x0A]
        socketPath = directory + "/depotd.sock"
        itemsPath = directory + "/items.json"
        try collection.write(to: itemsPath, ids: 1..<1)
        process = try ManagedProcess.launch(
            "depotd",
            executable: binary,
            arguments: ["--socket", socketPath, "--source", "file:" + itemsPath, "--no-initial-load", "--no-cache", "--log-level", "warning"],
            environment: environment
        )
        _ = try process.waitUntilAccepting(socketPath)
        control = try ControlConnection(path: socketPath, framing: .lines)
    }

    public func prepare(items: Int) throws {
        try collection.write(to: itemsPath, ids: 1..<(items + 1))
        guard let loaded = try control.call(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#) else {
            throw BenchError("depotd's answer to load carried no state")
        }
        seq = loaded
        nextID = 1
    }

    /// The optimistic state (seq + 1) is measured; the confirmed one (seq + 2) ends the round.
    public func prepareRound(items: Int, tracker: SubscriberTracker, subscribers: Int) throws -> (measured: Int, settled: Int) {
        (seq + 1, seq + 2)
    }

    public func trigger() throws {
        try control.send(line: #"{"jsonrpc":"2.0","id":1,"method":"remove","params":{"id":\#(nextID),"optimistic":true}}"#)
        nextID += 1
    }

    public func finishRound() throws {
        let (answer, head) = try control.receive()
        guard !answer.isError, let answered = answer.seq else {
            throw BenchError("\(name) answered remove with \(String(decoding: head, as: UTF8.self))…")
        }
        seq = answered
    }

    public func request(_ method: RPCMethodUnderTest) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":1,"method":"state"}"#.utf8) + [0x0A]
    }
}
