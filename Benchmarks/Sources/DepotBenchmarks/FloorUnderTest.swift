/// The floor (`depot-bench floor`), started from this same binary.
public final class FloorUnderTest: SystemUnderTest {
    public let name: String
    public let process: ManagedProcess
    public let socketPath: String
    public let framing = Framing.lines
    public let subscribeMessage = Array("subscribe\n".utf8)
    public let subscribedSeq: Int? = nil

    private let control: ControlConnection
    private var seq = 0
    private var lineBytes = 0
    private var items = 0
    /// The length of the line of a round (its seq, its items); by default that of depotd's snapshot notification.
    private let messageBytes: (_ seq: Int, _ items: Int) -> Int

    /// - Parameters:
    ///   - name: how the results name it.
    ///   - messageBytes: the length of a round's line; by default that of depotd's snapshot notification.
    public init(
        binary: String, directory: String, name: String = "floor",
        messageBytes: @escaping (_ seq: Int, _ items: Int) -> Int = {
            BenchCollection.notificationBytes(stateBytes: FloorUnderTest.stateBytes(seq: $0, items: $1))
        }
    ) throws {
        self.name = name
        self.messageBytes = messageBytes
        socketPath = directory + "/floor.sock"
        process = try Self.launch(binary: binary, socketPath: socketPath)
        _ = try process.waitUntilAccepting(socketPath)
        control = try ControlConnection(path: socketPath, framing: .lines)
    }

    /// Starts `depot-bench floor` on `socketPath`, without waiting for it to accept.
    public static func launch(binary: String, socketPath: String) throws -> ManagedProcess {
        try ManagedProcess.launch("the floor", executable: binary, arguments: ["floor", "--socket", socketPath])
    }

    public func prepare(items: Int) throws {
        self.items = items
    }

    public func prepareRound(items: Int, tracker: SubscriberTracker, subscribers: Int) throws -> (measured: Int, settled: Int) {
        seq += 1
        lineBytes = messageBytes(seq, items)
        return (seq, seq)
    }

    public func trigger() throws {
        try control.send(line: "publish \(seq) \(lineBytes)")
    }

    public func finishRound() throws {}

    public func request(_ method: RPCMethodUnderTest) -> [UInt8] {
        let result =
            switch method {
            case .state: Self.stateBytes(seq: 2, items: items)
            case .get: BenchCollection.itemBytes
            }
        return Array("request \(BenchCollection.answerBytes(resultBytes: result))\n".utf8)
    }

    /// The length of depotd's encoding of a success state of `items` generated items.
    public static func stateBytes(seq: Int, items: Int) -> Int {
        #"{"seq":\#(seq),"status":"success","items":[]}"#.utf8.count + items * BenchCollection.itemBytes + max(0, items - 1)
    }
}
