import Foundation

/// Debian's redis-server on a Unix socket, persistence off: PUBLISH of depotd's state to the channel `depot`
/// for fan-out, GET of values of the size of depotd's answers for RPC.
public final class RedisUnderTest: SystemUnderTest {
    public let name = "Redis"
    public let process: ManagedProcess
    public let socketPath: String
    public let framing = Framing.resp
    public let subscribeMessage = RESPFramer.command("SUBSCRIBE", "depot")
    public let subscribedSeq: Int? = nil

    private let collection: BenchCollection
    private let control: ControlConnection
    private var seq = 0
    private var publish: [UInt8] = []

    /// The redis-server on PATH, or nil.
    public static func findBinary() -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/sbin", "/usr/bin"]
        return directories.map { "\($0)/redis-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public init(binary: String, directory: String, collection: BenchCollection) throws {
        self.collection = collection
        socketPath = directory + "/redis.sock"
        process = try Self.launch(binary: binary, socketPath: socketPath, directory: directory)
        _ = try process.waitUntilAccepting(socketPath)
        control = try ControlConnection(path: socketPath, framing: .resp)
    }

    /// Starts redis-server on `socketPath`, without waiting for it to accept.
    public static func launch(binary: String, socketPath: String, directory: String) throws -> ManagedProcess {
        try ManagedProcess.launch(
            "redis-server", executable: binary,
            arguments: [
                "--port", "0", "--unixsocket", socketPath, "--unixsocketperm", "700",
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory,
                "--loglevel", "warning", "--logfile", socketPath + ".log", "--maxclients", "10000",
                // Never cut a subscriber off for a large backlog: depotd never does either.
                "--client-output-buffer-limit", "pubsub 0 0 0",
            ])
    }

    /// SETs `state` to depotd's encoding of `items` items and `item` to one item, the values the RPC GETs read.
    public func prepare(items: Int) throws {
        try command(RESPFramer.command([Array("SET".utf8), Array("state".utf8), collection.stateJSON(seq: 2, ids: 1..<(items + 1))]))
        try command(RESPFramer.command([Array("SET".utf8), Array("item".utf8), collection.items[0]]))
    }

    public func prepareRound(items: Int, tracker: SubscriberTracker, subscribers: Int) throws -> (measured: Int, settled: Int) {
        seq += 1
        publish = RESPFramer.command([Array("PUBLISH".utf8), Array("depot".utf8), collection.stateJSON(seq: seq, ids: 1..<(items + 1))])
        return (seq, seq)
    }

    public func trigger() throws {
        try control.send(publish)
    }

    public func finishRound() throws {
        try command(nil)
    }

    public func request(_ method: RPCMethodUnderTest) -> [UInt8] {
        RESPFramer.command("GET", method == .state ? "state" : "item")
    }

    /// Sends `bytes` (if any) and reads one reply, which must not be an error.
    private func command(_ bytes: [UInt8]?) throws {
        if let bytes { try control.send(bytes) }
        let (reply, head) = try control.receive()
        if reply.isError {
            throw BenchError("redis-server answered with an error: \(String(decoding: head, as: UTF8.self))")
        }
    }
}
