import Foundation
import Synchronization

/// Issue 28's stress test: C clients call `get` as fast as their answers come, in windows of `window` seconds that
/// alternate between the collection of N items idle and changing `changesPerSecond` times a second (an optimistic
/// removal on its own connection, each answered before the next is sent). A reader must not wait behind the work a
/// change costs: the diff, the file written again, the pipelines, the encodings — none of it on the event loop that
/// answers its `get`. The windows interleave over the same connections, so whatever drifts over a run (two 10 s
/// phases one after the other differed by up to 2.3× with nothing changing) weighs on both kinds alike.
public struct ReadsUnderChangesScenario: Sendable {
    /// What each change is.
    public enum Change: String, Codable, Sendable, CaseIterable {
        /// An optimistic removal of the next item (issue 28).
        case removal
        /// An optimistic merge patch of one member of the next item, cycling through them (issue 39).
        case patch
    }

    public var items: Int
    public var clients: Int
    public var changesPerSecond: Double
    public var warmUp: Double
    public var seconds: Double
    public var change: Change

    public init(items: Int, clients: Int, changesPerSecond: Double, warmUp: Double, seconds: Double, change: Change = .removal) {
        self.items = items
        self.clients = clients
        self.changesPerSecond = changesPerSecond
        self.warmUp = warmUp
        self.seconds = seconds
        self.change = change
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
            let changer = Changer(
                socketPath: socketPath, interval: 1 / changesPerSecond, firstID: nextID, lastID: items - 1, ids: ids, change: change)
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
            // Removals take each item once; patches go round the items, any number of times.
            nextID = change == .removal ? nextID + outcome.made : (nextID + outcome.made - 1) % (items - 1) + 1
        }
        return ReadsUnderChangesFigures(
            items: items, clients: clients, seconds: Double(windows) * window, changesPerSecond: changesPerSecond, change: change,
            changesMade: made, changeSeconds: changeSeconds,
            idle: LatencySummary(nanoseconds: idle), changing: LatencySummary(nanoseconds: changing))
    }

    /// Seconds measured in each window (at most; less when `seconds` is shorter), and the start of each left out
    /// (the readers starting again).
    static let window = 2.0
    static let windowWarmUp = 0.1
}

/// Optimistic changes — removals or patches — of ids `firstID`, `firstID` + 1, … on a schedule of one every `interval` seconds
/// (the next one at once when one took longer), on a thread of its own, until `stop()`; patches start again at the first id
/// after `lastID`.
private final class Changer: Sendable {
    private let socketPath: String
    private let interval: Double
    private let firstID: Int
    private let lastID: Int
    private let ids: BenchIDs
    private let change: ReadsUnderChangesScenario.Change
    private let stopping = Atomic(false)
    private let done = DispatchSemaphore(value: 0)
    private let outcome = Mutex<(made: Int, seconds: Double, failure: BenchError?)>((0, 0, nil))

    init(socketPath: String, interval: Double, firstID: Int, lastID: Int, ids: BenchIDs, change: ReadsUnderChangesScenario.Change) {
        self.socketPath = socketPath
        self.interval = interval
        self.firstID = firstID
        self.lastID = lastID
        self.ids = ids
        self.change = change
    }

    /// The request of change number `made` (from 0), of `id`.
    private func request(_ id: Int, made: Int) -> String {
        switch change {
        case .removal:
            #"{"jsonrpc":"2.0","id":1,"method":"remove","params":{"id":\#(ids.literal(id)),"optimistic":true}}"#
        case .patch:
            #"{"jsonrpc":"2.0","id":1,"method":"patch","params":{"id":\#(ids.literal(id)),"patch":{"name":"patched \#(made)"},"optimistic":true}}"#
        }
    }

    func run() {
        defer { done.signal() }
        let start = MonotonicClock.now()
        do {
            let control = try ControlConnection(path: socketPath, framing: .lines)
            var made = 0
            while !stopping.load(ordering: .relaxed) {
                let id = change == .removal ? firstID + made : (firstID + made - 1) % lastID + 1
                guard id <= lastID else { break }
                let due = start + UInt64(Double(made) * interval * 1e9)
                let now = MonotonicClock.now()
                if due > now { usleep(UInt32((due - now) / 1000)) }
                try control.send(line: request(id, made: made))
                let (answer, head) = try control.receive()
                guard !answer.isError else {
                    throw BenchError("depotd answered the \(change.rawValue) of \(id) with an error: \(String(decoding: head, as: UTF8.self))…")
                }
                made += 1
                let elapsed = Double(MonotonicClock.now() - start) / 1e9
                outcome.withLock {
                    $0.made = made
                    $0.seconds = elapsed
                }
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
