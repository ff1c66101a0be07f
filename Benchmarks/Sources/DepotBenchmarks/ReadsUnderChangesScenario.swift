import Foundation
import Synchronization

/// Issue 28's stress test: C clients call `get` as fast as their answers come, in windows of `window` seconds that
/// alternate between the collection of N items idle and changing `changesPerSecond` times a second (an optimistic
/// removal on its own connection, each answered before the next is sent). A reader must not wait behind the work a
/// change costs: the diff, the file written again, the pipelines, the encodings — none of it on the event loop that
/// answers its `get`. The windows interleave over the same connections, so whatever drifts over a run (two 10 s
/// phases one after the other differed by up to 2.3× with nothing changing) weighs on both kinds alike.
public struct ReadsUnderChangesScenario: Sendable {
    public var items: Int
    public var clients: Int
    public var changesPerSecond: Double
    public var warmUp: Double
    public var seconds: Double

    public init(items: Int, clients: Int, changesPerSecond: Double, warmUp: Double, seconds: Double) {
        self.items = items
        self.clients = clients
        self.changesPerSecond = changesPerSecond
        self.warmUp = warmUp
        self.seconds = seconds
    }

    /// Starts depotd on a file of `items` items (the benchmark's collection, ids 1…N) and measures it.
    public func run(binary: String, directory: String, collection: BenchCollection, pool: ReaderPool) throws -> ReadsUnderChangesFigures {
        let depotd = try DepotdUnderTest(binary: binary, directory: directory, collection: collection, trigger: .optimisticRemoval)
        defer { depotd.process.stop() }
        try depotd.prepare(items: items)
        return try measure(socketPath: depotd.socketPath, framing: depotd.framing, ids: BenchIDs(), pool: pool)
    }

    /// Measures a depotd already running and loaded with `items` items whose ids `ids` names, whatever its source (a
    /// PostgreSQL table, in `scripts/bench-fleet --readers`): the item read is the last one; the removals take the
    /// first ones, in order.
    public func measure(socketPath: String, framing: Framing, ids: BenchIDs, pool: ReaderPool) throws -> ReadsUnderChangesFigures {
        let request = Array(#"{"jsonrpc":"2.0","id":1,"method":"get","params":{"id":\#(ids.literal(items))}}"#.utf8) + [0x0A]

        let loop = ClosedLoopClients()
        var connections: [ClientConnection] = []
        for index in 0..<clients {
            let connection = ClientConnection(fd: try UnixSocket.connect(to: socketPath), index: index, framing: framing, sink: loop)
            pool.add(connection)
            connections.append(connection)
        }
        defer { pool.closeAll() }
        // The readers warm up once; each window after it starts them again, and skips its first tenth of a second.
        _ = try loop.run(connections, request: request, warmUp: warmUp, seconds: 0)
        let window = min(Self.window, seconds)
        let windows = max(1, Int((seconds / window).rounded()))
        var idle: [UInt64] = []
        var changing: [UInt64] = []
        var (made, changeSeconds, nextID) = (0, 0.0, 1)
        for _ in 0..<windows {
            idle += try loop.run(connections, request: request, warmUp: Self.windowWarmUp, seconds: window)
            let changer = Changer(socketPath: socketPath, interval: 1 / changesPerSecond, firstID: nextID, lastID: items - 1, ids: ids)
            let thread = Thread { changer.run() }
            thread.start()
            do {
                changing += try loop.run(connections, request: request, warmUp: Self.windowWarmUp, seconds: window)
            } catch {
                changer.stop()
                throw error
            }
            let outcome = changer.stop()
            if let failure = outcome.failure { throw failure }
            made += outcome.made
            changeSeconds += outcome.seconds
            nextID += outcome.made
        }
        return ReadsUnderChangesFigures(
            items: items, clients: clients, seconds: Double(windows) * window, changesPerSecond: changesPerSecond,
            changesMade: made, changeSeconds: changeSeconds,
            idle: LatencySummary(nanoseconds: idle), changing: LatencySummary(nanoseconds: changing))
    }

    /// Seconds measured in each window (at most; less when `seconds` is shorter), and the start of each left out
    /// (the readers starting again).
    static let window = 2.0
    static let windowWarmUp = 0.1
}

/// Optimistic removals of ids `firstID`, `firstID` + 1, … on a schedule of one every `interval` seconds (the next one at once when one
/// took longer), on a thread of its own, until `stop()`.
private final class Changer: Sendable {
    private let socketPath: String
    private let interval: Double
    private let firstID: Int
    private let lastID: Int
    private let ids: BenchIDs
    private let stopping = Atomic(false)
    private let done = DispatchSemaphore(value: 0)
    private let outcome = Mutex<(made: Int, seconds: Double, failure: BenchError?)>((0, 0, nil))

    init(socketPath: String, interval: Double, firstID: Int, lastID: Int, ids: BenchIDs) {
        self.socketPath = socketPath
        self.interval = interval
        self.firstID = firstID
        self.lastID = lastID
        self.ids = ids
    }

    func run() {
        defer { done.signal() }
        let start = MonotonicClock.now()
        do {
            let control = try ControlConnection(path: socketPath, framing: .lines)
            var id = firstID
            while !stopping.load(ordering: .relaxed), id <= lastID {
                let due = start + UInt64(Double(id - firstID) * interval * 1e9)
                let now = MonotonicClock.now()
                if due > now { usleep(UInt32((due - now) / 1000)) }
                try control.send(line: #"{"jsonrpc":"2.0","id":1,"method":"remove","params":{"id":\#(ids.literal(id)),"optimistic":true}}"#)
                let (answer, head) = try control.receive()
                guard !answer.isError else {
                    throw BenchError("depotd answered remove \(id) with an error: \(String(decoding: head, as: UTF8.self))…")
                }
                let elapsed = Double(MonotonicClock.now() - start) / 1e9
                outcome.withLock {
                    $0.made = id - firstID + 1
                    $0.seconds = elapsed
                }
                id += 1
            }
        } catch {
            outcome.withLock { $0.failure = error as? BenchError ?? BenchError("the removals stopped: \(error)") }
        }
    }

    /// Stops after the removal under way and returns how many were made, over how long, or why they stopped.
    @discardableResult
    func stop() -> (made: Int, seconds: Double, failure: BenchError?) {
        stopping.store(true, ordering: .relaxed)
        done.wait()
        return outcome.withLock { $0 }
    }
}
