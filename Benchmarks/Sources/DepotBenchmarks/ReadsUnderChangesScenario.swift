import Foundation
import Synchronization

/// Issue 28's stress test: C clients call `get` as fast as their answers come, first while the collection of N
/// items is idle, then while it changes `changesPerSecond` times a second (an optimistic removal on its own
/// connection, each answered before the next is sent). A reader must not wait behind the work a change costs:
/// the diff, the file written again, the pipelines, the encodings — none of it on the event loop that answers
/// its `get`. Both phases run on the same daemon, one after the other, so their p99s compare side by side.
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

        let idle = try readers(socketPath, framing: framing, request: request, pool: pool)
        let changer = Changer(socketPath: socketPath, interval: 1 / changesPerSecond, lastID: items - 1, ids: ids)
        let thread = Thread { changer.run() }
        thread.start()
        let changing: [UInt64]
        do {
            changing = try readers(socketPath, framing: framing, request: request, pool: pool)
        } catch {
            changer.stop()
            throw error
        }
        let outcome = changer.stop()
        if let failure = outcome.failure { throw failure }
        return ReadsUnderChangesFigures(
            items: items, clients: clients, seconds: seconds, changesPerSecond: changesPerSecond,
            changesMade: outcome.made, changeSeconds: outcome.seconds,
            idle: LatencySummary(nanoseconds: idle), changing: LatencySummary(nanoseconds: changing))
    }

    /// `clients` closed-loop readers for `warmUp` + `seconds`: their latencies over `seconds`.
    private func readers(_ socketPath: String, framing: Framing, request: [UInt8], pool: ReaderPool) throws -> [UInt64] {
        let loop = ClosedLoopClients()
        var connections: [ClientConnection] = []
        for index in 0..<clients {
            let connection = ClientConnection(fd: try UnixSocket.connect(to: socketPath), index: index, framing: framing, sink: loop)
            pool.add(connection)
            connections.append(connection)
        }
        defer { pool.closeAll() }
        return try loop.run(connections, request: request, warmUp: warmUp, seconds: seconds)
    }
}

/// Optimistic removals of ids 1, 2, … on a schedule of one every `interval` seconds (the next one at once when one
/// took longer), on a thread of its own, until `stop()`.
private final class Changer: Sendable {
    private let socketPath: String
    private let interval: Double
    private let lastID: Int
    private let ids: BenchIDs
    private let stopping = Atomic(false)
    private let done = DispatchSemaphore(value: 0)
    private let outcome = Mutex<(made: Int, seconds: Double, failure: BenchError?)>((0, 0, nil))

    init(socketPath: String, interval: Double, lastID: Int, ids: BenchIDs) {
        self.socketPath = socketPath
        self.interval = interval
        self.lastID = lastID
        self.ids = ids
    }

    func run() {
        defer { done.signal() }
        let start = MonotonicClock.now()
        do {
            let control = try ControlConnection(path: socketPath, framing: .lines)
            var id = 1
            while !stopping.load(ordering: .relaxed), id <= lastID {
                let due = start + UInt64(Double(id - 1) * interval * 1e9)
                let now = MonotonicClock.now()
                if due > now { usleep(UInt32((due - now) / 1000)) }
                try control.send(line: #"{"jsonrpc":"2.0","id":1,"method":"remove","params":{"id":\#(ids.literal(id)),"optimistic":true}}"#)
                let (answer, head) = try control.receive()
                guard !answer.isError else {
                    throw BenchError("depotd answered remove \(id) with an error: \(String(decoding: head, as: UTF8.self))…")
                }
                let elapsed = Double(MonotonicClock.now() - start) / 1e9
                outcome.withLock {
                    $0.made = id
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
